package arbor.synthesis;

import arbor.conf.SynthesisSettings;
import java.util.List;

/** Writes up to {@code max} queries about one group. */
public sealed interface QueryGenerator permits OfflineGenerator, HumanGenerator, LlmGenerator {

  String name();

  Outcome generate(GroupContext group, int max);

  /**
   * @param skipped why candidate questions were not used (they are counted as dropped)
   * @param error set when the generator failed on this group; its queries are then empty, never
   *     a part of a reply
   */
  record Outcome(List<Query> queries, List<String> skipped, String error) {
    public static Outcome of(List<Query> queries, List<String> skipped) {
      return new Outcome(List.copyOf(queries), List.copyOf(skipped), null);
    }

    public static Outcome failed(String error) {
      return new Outcome(List.of(), List.of(), error);
    }
  }

  /** The generator a configuration names ({@code llmApiKey} is read on the driver, see {@link LlmGenerator#apiKey}). */
  static QueryGenerator named(String name, SynthesisSettings settings, String llmApiKey) {
    return switch (name) {
      case OfflineGenerator.NAME -> new OfflineGenerator(settings.offline(), settings.seed());
      case HumanGenerator.NAME -> new HumanGenerator();
      case LlmGenerator.NAME -> new LlmGenerator(settings.llm(), llmApiKey);
      default -> throw new IllegalArgumentException("synthesis.generators: unknown generator '" + name
          + "'; the generators are offline, human, llm");
    };
  }
}
