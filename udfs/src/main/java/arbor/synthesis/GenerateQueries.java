package arbor.synthesis;

import arbor.conf.SynthesisSettings;
import arbor.text.NormalizedText;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Row;

/**
 * The executor side of query synthesis: groups ({@link SynthesisRows#GROUP_CONTEXT}) in,
 * {@link SynthesisRows#GENERATED} rows out. Each group is filled up to
 * {@code queries_per_group} from the configured generators in order; every query passes
 * {@link EvidenceCheck} or is dropped with its reason.
 */
public final class GenerateQueries implements MapPartitionsFunction<Row, Row> {
  private final SynthesisSettings settings;
  private final String llmApiKey;

  public GenerateQueries(SynthesisSettings settings, String llmApiKey) {
    this.settings = settings;
    this.llmApiKey = llmApiKey;
  }

  @Override
  public Iterator<Row> call(Iterator<Row> groups) throws Exception {
    List<QueryGenerator> generators = settings.generators().stream()
        .map(name -> QueryGenerator.named(name, settings, llmApiKey)).toList();
    List<Row> out = new ArrayList<>();
    try {
      while (groups.hasNext()) out.addAll(generate(SynthesisRows.group(groups.next()), generators, settings.queriesPerGroup()));
    } finally {
      for (QueryGenerator g : generators) if (g instanceof AutoCloseable c) c.close();
    }
    return out.iterator();
  }

  /**
   * One group's rows: its queries, the candidates dropped by the checks, and generator errors.
   * Every generator offers up to {@code perGroup} checked queries; the group takes them in turns
   * (the first generator's first, the second's first, ...), so a group mixes its generators
   * instead of the first one filling it.
   */
  public static List<Row> generate(GroupContext group, List<QueryGenerator> generators, int perGroup) {
    List<Row> out = new ArrayList<>();
    List<java.util.Deque<Query>> offered = new ArrayList<>();
    for (QueryGenerator generator : generators) {
      QueryGenerator.Outcome outcome = generator.generate(group, perGroup);
      if (outcome.error() != null) out.add(SynthesisRows.error(group.groupId(), generator.name(), outcome.error()));
      outcome.skipped().forEach(reason -> out.add(SynthesisRows.dropped(group.groupId(), generator.name(), reason)));
      java.util.Deque<Query> passed = new java.util.ArrayDeque<>();
      for (Query q : outcome.queries()) {
        Optional<String> problem = EvidenceCheck.problem(q, group);
        if (problem.isEmpty()) {
          problem = unlocated(q, group);
          out.add(SynthesisRows.located(group.groupId(), generator.name(), problem.isEmpty()));
        }
        if (problem.isPresent()) out.add(SynthesisRows.dropped(group.groupId(), generator.name(), problem.get()));
        else passed.add(q);
      }
      offered.add(passed);
    }
    java.util.Set<String> questions = new java.util.HashSet<>();
    int written = 0;
    boolean more = true;
    while (written < perGroup && more) {
      more = false;
      for (java.util.Deque<Query> queue : offered) {
        while (!queue.isEmpty() && written < perGroup) {
          Query q = queue.poll();
          if (questions.add(q.question())) {
            out.add(SynthesisRows.query(q));
            written++;
            more = true;
            break;
          }
        }
      }
    }
    return out;
  }

  /** Why the query's ground truth cannot be found in the noisy text the policy reads, or empty. */
  public static Optional<String> unlocated(Query q, GroupContext group) {
    Map<String, NormalizedText> texts = new HashMap<>();
    for (Evidence e : q.evidence()) {
      NormalizedText text = texts.computeIfAbsent(e.paperId(), id -> NormalizedText.of(group.member(id).orElseThrow().noisyText()));
      if (text.locate(e.text()).isEmpty()) return Optional.of("evidence is not found in the noisy text of " + e.paperId());
    }
    return Optional.empty();
  }
}
