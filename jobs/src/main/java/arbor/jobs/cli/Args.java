package arbor.jobs.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A job's own command-line arguments, parsed against the options it declares: flags
 * ({@code --json}), options taking one or more values ({@code --papers a b}) and positionals.
 * Anything undeclared is a {@link UsageError}.
 */
public final class Args {
  private final Map<String, List<String>> options = new LinkedHashMap<>();
  private final List<String> positionals = new ArrayList<>();

  private Args() {}

  /**
   * @param flags options without values
   * @param valued options followed by one or more values (up to the next {@code --option})
   */
  public static Args parse(String job, List<String> args, Set<String> flags, Set<String> valued) {
    Args out = new Args();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (!a.startsWith("--")) {
        out.positionals.add(a);
        continue;
      }
      String name = a.substring(2);
      String inline = null;
      int eq = name.indexOf('=');
      if (eq > 0) {
        inline = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      if (flags.contains(name) && inline == null) {
        out.options.put(name, List.of());
      } else if (valued.contains(name)) {
        List<String> values = new ArrayList<>();
        if (inline != null) values.add(inline);
        while (inline == null && i + 1 < args.size() && !args.get(i + 1).startsWith("--")) values.add(args.get(++i));
        if (values.isEmpty()) throw new UsageError(job + ": --" + name + " needs a value");
        out.options.computeIfAbsent(name, k -> new ArrayList<>()).addAll(values);
      } else {
        List<String> known = new ArrayList<>();
        flags.forEach(f -> known.add("--" + f));
        valued.forEach(v -> known.add("--" + v));
        throw new UsageError(job + ": unknown option '" + a + "'" + (known.isEmpty() ? " (it takes none)" : "; it takes " + known));
      }
    }
    return out;
  }

  public boolean flag(String name) {
    return options.containsKey(name);
  }

  public List<String> values(String name) {
    return options.getOrDefault(name, List.of());
  }

  public Optional<String> value(String name) {
    List<String> v = values(name);
    return v.isEmpty() ? Optional.empty() : Optional.of(v.get(v.size() - 1));
  }

  public List<String> positionals() {
    return positionals;
  }
}
