package arbor.synthesis;

import arbor.conf.LlmSettings;
import arbor.llm.InvalidReply;
import arbor.llm.OpenAiChat;
import arbor.llm.Retries;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.models.ResponseFormatJsonObject;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Questions from a model behind any OpenAI-compatible endpoint (the official SDK). The model
 * reads the group (titles, abstracts and labelled paragraphs, within a token budget) and replies
 * with strict JSON: questions and the ids of their paragraphs. A reply is taken whole or not at
 * all; an invalid reply or a failed request is retried with exponential backoff, and after the
 * last attempt the group gets an error instead of queries.
 */
public final class LlmGenerator implements QueryGenerator, AutoCloseable {
  public static final String NAME = "llm";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PROMPT = prompt();

  private final LlmSettings settings;
  private final OpenAiChat chat;
  private final Retries retries;

  public LlmGenerator(LlmSettings settings, String apiKey) {
    this.settings = settings;
    // Retries are ours (they also cover invalid replies), so the SDK makes one request per attempt.
    this.chat = new OpenAiChat(settings.baseUrl(), apiKey, Duration.ofSeconds(settings.timeoutSeconds()), 0);
    this.retries = new Retries(settings.attempts(), settings.backoffMillis(), settings.timeoutSeconds(),
        "synthesis.llm.timeout_seconds");
  }

  /**
   * The key in {@code env} (the job passes its environment) under the variable the configuration
   * names; "none" when it names none.
   */
  public static String apiKey(LlmSettings settings, java.util.Map<String, String> env) {
    if (settings.apiKeyEnv().isBlank()) return "none";
    String key = env.get(settings.apiKeyEnv());
    if (key == null || key.isBlank()) {
      throw new IllegalStateException("the llm generator needs an API key in the environment variable "
          + settings.apiKeyEnv() + " (synthesis.llm.api_key_env; set it to \"\" for servers without keys)");
    }
    return key;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Outcome generate(GroupContext group, int max) {
    Map<String, Evidence> paragraphs = new LinkedHashMap<>();
    String text = render(group, paragraphs);
    return switch (retries.run(() -> parse(group.groupId(), ask(text, max), paragraphs, max))) {
      case Retries.Outcome.Replied<List<Query>> r -> Outcome.of(r.value(), List.of());
      case Retries.Outcome.Failed<List<Query>> f when f.interrupted() ->
          throw new IllegalStateException("interrupted while waiting to retry: " + f.reason());
      case Retries.Outcome.Failed<List<Query>> f -> Outcome.failed(f.reason());
    };
  }

  private String ask(String groupText, int max) {
    return chat.reply(ChatCompletionCreateParams.builder()
        .model(settings.model())
        .temperature(settings.temperature())
        .responseFormat(ResponseFormatJsonObject.builder().build())
        .addSystemMessage(PROMPT.replace("{max}", Integer.toString(max)))
        .addUserMessage(groupText)
        .build());
  }

  /**
   * The group as the model reads it; fills {@code ids} with every paragraph id it shows. Each
   * paper shows its title, abstract and outline (every heading, in order), then as many
   * paragraphs as fit its share of the budget, chosen across the whole paper (the middle, then
   * the quarters, then the eighths, ...) rather than from its start, each under its heading.
   */
  String render(GroupContext group, Map<String, Evidence> ids) {
    int budget = settings.contextTokens() * 4 / Math.max(1, group.members().size());
    StringBuilder out = new StringBuilder();
    int p = 0;
    for (GroupContext.Member m : group.members()) {
      p++;
      StringBuilder paper = new StringBuilder("## Paper P" + p + "\nTitle: " + m.title().strip() + "\nAbstract: "
          + m.abstractText().strip() + "\n");
      List<String> outline = new ArrayList<>();
      for (String h : m.sections()) if (!h.isBlank() && (outline.isEmpty() || !outline.get(outline.size() - 1).equals(h))) outline.add(h);
      if (!outline.isEmpty()) paper.append("Sections: ").append(String.join(" | ", outline)).append('\n');
      int room = budget - paper.length();
      java.util.TreeSet<Integer> shown = new java.util.TreeSet<>();
      for (int j : spread(m.cleanParagraphs().size())) {
        int cost = m.cleanParagraphs().get(j).length() + m.section(j).length() + 16;
        if (cost > room) continue;
        room -= cost;
        shown.add(j);
      }
      String heading = null;
      for (int j : shown) {
        if (!m.section(j).isBlank() && !m.section(j).equals(heading)) paper.append("### ").append(m.section(j)).append('\n');
        heading = m.section(j);
        String id = "P" + p + "." + (j + 1);
        paper.append('[').append(id).append("] ").append(m.cleanParagraphs().get(j)).append('\n');
        ids.put(id, new Evidence(m.paperId(), m.cleanParagraphs().get(j)));
      }
      out.append(paper).append('\n');
    }
    return out.toString();
  }

  /** 0..n-1 in an order that covers the whole range early: the first, the middle, the quarters, the eighths, ... */
  static List<Integer> spread(int n) {
    List<Integer> order = new ArrayList<>();
    boolean[] taken = new boolean[n];
    for (int step = Integer.highestOneBit(Math.max(1, n)); step >= 1; step /= 2) {
      for (int j = 0; j < n; j += step) {
        if (!taken[j]) {
          taken[j] = true;
          order.add(j);
        }
      }
    }
    return order;
  }

  static List<Query> parse(String groupId, String reply, Map<String, Evidence> ids, int max) throws InvalidReply {
    JsonNode root;
    try {
      root = JSON.readTree(reply.strip());
    } catch (JsonProcessingException e) {
      throw new InvalidReply("not JSON (" + e.getOriginalMessage() + ")");
    }
    if (root == null || !root.path("queries").isArray()) throw new InvalidReply("no 'queries' list");
    if (root.path("queries").isEmpty()) throw new InvalidReply("the 'queries' list is empty");
    List<Query> queries = new ArrayList<>();
    int index = 0;
    for (JsonNode q : root.path("queries")) {
      index++;
      String question = q.path("question").asText("").strip();
      if (!q.path("question").isTextual() || question.isEmpty()) throw new InvalidReply("query " + index + " has no 'question' text");
      if (!q.path("paragraphs").isArray() || q.path("paragraphs").isEmpty()) {
        throw new InvalidReply("query " + index + " has no 'paragraphs' list");
      }
      List<Evidence> evidence = new ArrayList<>();
      for (JsonNode id : q.path("paragraphs")) {
        Evidence e = ids.get(id.asText().strip().replace("[", "").replace("]", ""));
        if (e == null) throw new InvalidReply("query " + index + " names unknown paragraph '" + id.asText() + "'");
        if (!evidence.contains(e)) evidence.add(e);
      }
      if (queries.size() < max) queries.add(new Query(groupId, question, evidence, NAME, null));
    }
    return queries;
  }

  private static String prompt() {
    try (InputStream in = LlmGenerator.class.getResourceAsStream("llm_prompt.txt")) {
      if (in == null) throw new IllegalStateException("llm_prompt.txt is missing from the classpath");
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    chat.close();
  }
}
