package arbor.policy.train;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The batch-wide counts the loss normalisation needs before any micro-batch runs, computed from
 * one small aggregate row per query (so the learner knows them without holding the batch).
 *
 * @param rootsPerQuery G_q: distinct roots of each query present in the batch
 * @param tokens N: response tokens in the batch
 * @param treeMass the sum over all tokens of their {@link Reduction#TREE} policy coefficient,
 *     i.e. the mean over roots of their tree's total weight (1 for trees without children)
 */
public record BatchShape(Map<String, Integer> rootsPerQuery, long tokens, double treeMass) {

  /**
   * One query's totals: its distinct roots, response tokens, and the sum over its samples of
   * weight * response length / node_gen_tokens (each node contributes its weight once when
   * all its turns are present).
   */
  public record QueryTotals(String queryId, int roots, long tokens, double nodeWeight) {}

  public BatchShape {
    rootsPerQuery = Map.copyOf(rootsPerQuery);
    if (rootsPerQuery.isEmpty() || tokens <= 0) {
      throw new IllegalArgumentException("the learner's batch is empty (" + rootsPerQuery.size()
          + " queries, " + tokens + " response tokens): no samples for this step?");
    }
  }

  public static BatchShape of(List<QueryTotals> queries) {
    Map<String, Integer> roots = queries.stream()
        .collect(Collectors.toMap(QueryTotals::queryId, QueryTotals::roots));
    long tokens = queries.stream().mapToLong(QueryTotals::tokens).sum();
    double mass = queries.stream().mapToDouble(q -> q.nodeWeight() / q.roots()).sum()
        / queries.size();
    return new BatchShape(roots, tokens, mass);
  }

  public int queries() {
    return rootsPerQuery.size();
  }

  /** G_q of a query of this batch. */
  public int roots(String query) {
    Integer g = rootsPerQuery.get(query);
    if (g == null) {
      throw new IllegalArgumentException("sample of query '" + query + "' is not in the batch"
          + " totals (" + rootsPerQuery.size() + " queries); the samples changed between the"
          + " two passes over them");
    }
    return g;
  }
}
