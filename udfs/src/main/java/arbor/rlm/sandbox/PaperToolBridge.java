package arbor.rlm.sandbox;

import arbor.rlm.tools.PaperTools;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.graalvm.polyglot.Value;
import java.util.List;
import org.graalvm.polyglot.proxy.ProxyArray;
import org.graalvm.polyglot.proxy.ProxyExecutable;

/**
 * Exposes {@link PaperTools} to Python as one callable {@code tool_call(name, *args)} returning
 * {@code [printed, value, error]}. The tools run in the JVM
 * that holds the context (no host round trip) and read the Python strings directly.
 */
final class PaperToolBridge implements ProxyExecutable {
  private static final String CONTEXT_REF = "\u0000context";
  private static final String PAPER_REF = "\u0000paper:";

  /** The node's context as Java holds it: a map of paper id to text, or one text. */
  private final Map<String, String> papers;
  private final String single;

  /** @param contextJson the node's context, parsed once so that tools can refer to it */
  PaperToolBridge(String contextJson) {
    Map<String, String> map = null;
    String text = null;
    try {
      com.fasterxml.jackson.databind.JsonNode node = Json.MAPPER.readTree(contextJson);
      if (node.isTextual()) {
        text = node.asText();
      } else if (node.isObject()) {
        map = new LinkedHashMap<>();
        for (var it = node.fields(); it.hasNext(); ) {
          var f = it.next();
          map.put(f.getKey(), f.getValue().asText());
        }
      }
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("the context is not JSON: " + e.getOriginalMessage(), e);
    }
    this.papers = map;
    this.single = text;
  }

  @Override
  public Object execute(Value... args) {
    // The reply is [printed, value, error]: strings and arrays of strings cross as proxies, with
    // no JSON to encode here and to decode in the (interpreted) Python on the other side.
    String name = args.length > 0 && args[0].isString() ? args[0].asString() : "?";
    try {
      PaperTools.Output<?> out = switch (name) {
        case "list_papers" -> PaperTools.listPapers(papers(arg(args, 1), name));
        case "search" -> PaperTools.search(papers(arg(args, 1), name), string(arg(args, 2), "keyword"),
            integer(arg(args, 3), "window"), bool(arg(args, 4), "bidirectional"));
        case "extract_section" -> PaperTools.extractSection(string(arg(args, 1), "snippet"),
            string(arg(args, 2), "start_phrase"), string(arg(args, 3), "end_phrase"));
        case "get_paper_abstract" -> PaperTools.paperAbstract(papers(arg(args, 1), name),
            string(arg(args, 2), "paper_id"));
        default -> throw new IllegalArgumentException("unknown tool " + name);
      };
      Object value = out.value() instanceof List<?> list
          ? ProxyArray.fromList(new java.util.ArrayList<Object>(list)) : out.value();
      return ProxyArray.fromArray(out.printed(), value, null);
    } catch (IllegalArgumentException e) {
      return ProxyArray.fromArray("", null, name + ": " + e.getMessage());
    }
  }

  private static Value arg(Value[] args, int i) {
    if (i >= args.length) {
      throw new IllegalArgumentException("missing argument " + i);
    }
    return args[i];
  }

  private Map<String, String> papers(Value ctx, String tool) {
    if (ctx.isString()) {
      String s = ctx.asString();
      if (s.equals(CONTEXT_REF)) {
        return papers != null ? papers : PaperTools.singlePaper(single);
      }
      if (s.startsWith(PAPER_REF) && papers != null && papers.containsKey(s.substring(PAPER_REF.length()))) {
        return PaperTools.singlePaper(papers.get(s.substring(PAPER_REF.length())));
      }
      return PaperTools.singlePaper(s);
    }
    if (ctx.hasHashEntries()) {
      Map<String, String> map = new LinkedHashMap<>();
      Iterator<Value> keys = iterate(ctx.getHashKeysIterator());
      while (keys.hasNext()) {
        Value key = keys.next();
        Value text = ctx.getHashValue(key);
        if (!key.isString() || !text.isString()) {
          throw new IllegalArgumentException("the context dict must map paper ids (str) to texts (str)");
        }
        map.put(key.asString(), text.asString());
      }
      return map;
    }
    throw new IllegalArgumentException(
        "expected the context (a dict of paper id -> text) or one paper's text (a str)");
  }

  private static Iterator<Value> iterate(Value iterator) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return iterator.hasIteratorNextElement();
      }

      @Override
      public Value next() {
        return iterator.getIteratorNextElement();
      }
    };
  }

  private static String string(Value v, String what) {
    if (!v.isString()) {
      throw new IllegalArgumentException(what + " must be a str");
    }
    return v.asString();
  }

  private static int integer(Value v, String what) {
    if (!v.fitsInInt()) {
      throw new IllegalArgumentException(what + " must be an int");
    }
    return v.asInt();
  }

  private static boolean bool(Value v, String what) {
    if (!v.isBoolean()) {
      throw new IllegalArgumentException(what + " must be True or False");
    }
    return v.asBoolean();
  }
}
