package arbor.notebook;

import static org.apache.spark.sql.functions.col;

import arbor.conf.ApiKeys;
import arbor.judge.JudgeSpec;
import arbor.pipelines.checkpoints.CheckpointStore;
import arbor.pipelines.judge.Judge;
import arbor.pipelines.judge.References;
import arbor.pipelines.rollouts.Rollouts;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import arbor.policy.checkpoint.Checkpoint;
import arbor.policy.checkpoint.DeltaCheckpointReader;
import arbor.policy.checkpoint.TableVersion;
import arbor.policy.files.HostTensor;
import arbor.policy.holder.DeltaCheckpointSource;
import arbor.policy.holder.RunCheckpoints;
import arbor.synthesis.Queries;
import arbor.tables.Checkpoints.Kind;
import arbor.tables.Cols;
import arbor.tables.Reward;
import arbor.tables.RolloutNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Two checkpoints of a training run side by side: the weights of an old step against the
 * latest's (the largest element-wise difference), and both policies run afresh in the training
 * harness (the {@link Rollouts} stage, then the {@link Judge}) on a few queries of a split, their
 * answers and rewards next to each other. Nothing is written to the warehouse: the trees live
 * only in the notebook's session.
 *
 * <pre>{@code
 * var cmp = CheckpointComparison.of(nb, "demo", 0, 2);
 * { display("text/html", cmp.weights().html()); }
 * { display("text/html", CheckpointComparison.html(cmp.answers(nb, "validation", 2, 1))); }
 * }</pre>
 */
public final class CheckpointComparison {

  /** The largest difference between two checkpoints' weights, and in which tensor. */
  public record WeightDiff(long oldStep, long newStep, String tensor, double maxAbsDiff, int tensors, int changed,
      long elements) {
    public String html() {
      if (changed == 0) {
        // Not an error: a step whose advantages were all zero (every reward equal) moves nothing.
        return String.format(Locale.ROOT, "<p>step %d vs step %d: the weights are identical (%d tensors,"
            + " %,d weights)</p>", oldStep, newStep, tensors, elements);
      }
      return String.format(Locale.ROOT, "<p>step %d vs step %d: %d of %d tensors changed (%,d weights);"
          + " the largest difference is <b>%.6g</b>, in <code>%s</code></p>", oldStep, newStep, changed, tensors,
          elements, maxAbsDiff, Html.escape(tensor));
    }
  }

  /** One tree's outcome: its root's final answer, and the judge's verdict on it. */
  public record Answer(String queryId, int sample, String status, String finalAnswer, Double reward, Double spanF1) {}

  /** A query's tree of the same sample under both checkpoints (either may be null: no tree). */
  public record Pair(String queryId, String question, int sample, Answer old, Answer latest) {}

  private final Warehouse warehouse;
  private final CheckpointStore store;
  private final String runId;
  private final long oldStep;
  private final long newStep;

  private CheckpointComparison(Warehouse warehouse, CheckpointStore store, String runId, long oldStep, long newStep) {
    this.warehouse = warehouse;
    this.store = store;
    this.runId = runId;
    this.oldStep = oldStep;
    this.newStep = newStep;
  }

  /** Steps {@code oldStep} and {@code newStep} of run {@code runId}; both must be complete checkpoints. */
  public static CheckpointComparison of(Notebook nb, String runId, long oldStep, long newStep) {
    CheckpointStore store = new CheckpointStore(nb.spark(), nb.warehouse(), nb.config().checkpoints());
    List<Long> steps = store.steps(runId, TableVersion.LATEST);
    for (long s : new long[] {oldStep, newStep}) {
      if (!steps.contains(s)) {
        throw new IllegalArgumentException("run '" + runId + "' has no complete checkpoint at step " + s + " in "
            + store.tablePath() + "; its steps: " + steps);
      }
    }
    return new CheckpointComparison(nb.warehouse(), store, runId, oldStep, newStep);
  }

  /** The run's first and latest checkpoints. */
  public static CheckpointComparison firstAndLatest(Notebook nb, String runId) {
    List<Long> steps = new CheckpointStore(nb.spark(), nb.warehouse(), nb.config().checkpoints())
        .steps(runId, TableVersion.LATEST);
    if (steps.size() < 2) {
      throw new IllegalArgumentException("run '" + runId + "' has " + steps.size() + " complete checkpoint(s) "
          + steps + "; a comparison needs two (bin/arbor train writes one per step)");
    }
    return of(nb, runId, steps.getFirst(), steps.getLast());
  }

  public long oldStep() { return oldStep; }
  public long newStep() { return newStep; }

  /** The weights of both steps compared tensor by tensor (the optimizer's state is not read). */
  public WeightDiff weights() {
    DeltaCheckpointSource source = store.source();
    DeltaCheckpointReader reader = new DeltaCheckpointReader(source.table(), source.hadoop());
    EnumSet<Kind> weightsOnly = EnumSet.of(Kind.WEIGHT);
    return diff(reader.read(runId, oldStep, TableVersion.LATEST, weightsOnly),
        reader.read(runId, newStep, TableVersion.LATEST, weightsOnly));
  }

  /** The largest |new - old| over every weight; both checkpoints must hold the same tensors and shapes. */
  static WeightDiff diff(Checkpoint old, Checkpoint latest) {
    Map<String, HostTensor> after = new LinkedHashMap<>();
    latest.weights().forEach(t -> after.put(t.name(), t));
    List<String> onlyOld = new ArrayList<>();
    String worst = null;
    double max = -1;
    int changed = 0;
    long elements = 0;
    for (HostTensor a : old.weights()) {
      HostTensor b = after.remove(a.name());
      if (b == null) {
        onlyOld.add(a.name());
        continue;
      }
      if (!Arrays.equals(a.shape(), b.shape())) {
        throw new IllegalArgumentException("weight '" + a.name() + "' has shape " + Arrays.toString(a.shape())
            + " at step " + old.step() + " but " + Arrays.toString(b.shape()) + " at step " + latest.step());
      }
      double tensorMax = 0;
      float[] x = a.values();
      float[] y = b.values();
      for (int i = 0; i < x.length; i++) {
        tensorMax = Math.max(tensorMax, Math.abs((double) y[i] - x[i]));
      }
      if (tensorMax > 0) changed++;
      if (tensorMax > max) {
        max = tensorMax;
        worst = a.name();
      }
      elements += x.length;
    }
    if (!onlyOld.isEmpty() || !after.isEmpty()) {
      throw new IllegalArgumentException("steps " + old.step() + " and " + latest.step() + " of run " + old.runId()
          + " hold different weights: only at step " + old.step() + ": " + onlyOld + "; only at step "
          + latest.step() + ": " + after.keySet());
    }
    if (worst == null) {
      throw new IllegalArgumentException("checkpoint " + old.runId() + " step " + old.step() + " has no weights");
    }
    return new WeightDiff(old.step(), latest.step(), worst, max, old.weights().size(), changed, elements);
  }

  /**
   * Runs both checkpoints on the first {@code queries} active queries of {@code split} (by
   * query id), {@code samples} trees each (at most {@code rollouts.samples}), with the
   * notebook's configuration, and pairs their answers by query and sample.
   */
  public List<Pair> answers(Notebook nb, String split, int queries, int samples) {
    if (queries < 1 || samples < 1) {
      throw new IllegalArgumentException("queries and samples must be >= 1, got " + queries + " and " + samples);
    }
    Dataset<Row> chosen = Queries.active(warehouse.read(Table.QUERIES)).where(col(Queries.SPLIT).equalTo(split))
        .orderBy(Queries.QUERY_ID).limit(queries).cache();
    if (chosen.isEmpty()) {
      throw new IllegalArgumentException("the queries table has no active query in split '" + split + "' ("
          + warehouse.path(Table.QUERIES) + ")");
    }
    Dataset<Row> groups = warehouse.read(Table.PAPER_GROUPS);
    Dataset<Row> papers = warehouse.read(Table.PAPERS);
    Map<String, String> questions = new TreeMap<>();
    chosen.select(Queries.QUERY_ID, Queries.QUESTION).collectAsList().forEach(r -> questions.put(r.getString(0), r.getString(1)));
    ApiKeys keys = ApiKeys.read(nb.config(), System.getenv());
    Rollouts rollouts = new Rollouts(nb.config()).withCheckpoints(new RunCheckpoints(store.source())).withKeys(keys);
    Judge judge = new Judge(JudgeSpec.resolve(nb.config().judge(), keys.byVariable()));
    Dataset<Row> references = References.of(chosen, groups, papers);
    List<Answer> before = run(rollouts, judge, references, chosen, groups, papers, oldStep, samples);
    List<Answer> after = run(rollouts, judge, references, chosen, groups, papers, newStep, samples);
    chosen.unpersist();
    return pair(questions, before, after);
  }

  private List<Answer> run(Rollouts rollouts, Judge judge, Dataset<Row> references, Dataset<Row> queries,
      Dataset<Row> groups, Dataset<Row> papers, long step, int samples) {
    // Under a run id of the notebook's own (never written), rolling out the run's checkpoint.
    Rollouts.Tasks tasks = rollouts.tasks(queries, groups, papers,
        Rollouts.Step.of(runId + "-notebook-v" + step, step, step).rollingOut(runId, step)).firstSamples(samples);
    // Materialised once: the judge and the answers below read the same trees.
    Dataset<Row> nodes = Rollouts.nodes(rollouts.transform(tasks)).localCheckpoint();
    Dataset<Row> rewards = judge.transform(nodes, references);
    Dataset<Row> roots = nodes.where(col(RolloutNode.PARENT_ID).isNull())
        .join(rewards.select(col(Cols.NODE_ID), col(Reward.REWARD), col(Reward.SPAN_F1)),
            new String[] {Cols.NODE_ID}, "left")
        .select(col(Cols.QUERY_ID), col(Cols.SAMPLE), col(RolloutNode.STATUS), col(RolloutNode.FINAL_ANSWER),
            col(Reward.REWARD), col(Reward.SPAN_F1));
    List<Answer> out = new ArrayList<>();
    for (Row r : roots.collectAsList()) {
      out.add(new Answer(r.getString(0), r.getInt(1), r.getString(2), r.getString(3), number(r, 4), number(r, 5)));
    }
    return out;
  }

  private static Double number(Row r, int i) {
    return r.isNullAt(i) ? null : ((Number) r.get(i)).doubleValue();
  }

  /** Both steps' answers by (query, sample), in query order; a tree only one step has is paired with null. */
  static List<Pair> pair(Map<String, String> questions, List<Answer> old, List<Answer> latest) {
    record Key(String queryId, int sample) {}
    Map<Key, Answer[]> byKey = new TreeMap<>(java.util.Comparator.comparing(Key::queryId).thenComparingInt(Key::sample));
    for (Answer a : old) {
      if (byKey.computeIfAbsent(new Key(a.queryId(), a.sample()), k -> new Answer[2])[0] != null) {
        throw new IllegalArgumentException("two old trees for query " + a.queryId() + " sample " + a.sample());
      }
      byKey.get(new Key(a.queryId(), a.sample()))[0] = a;
    }
    for (Answer a : latest) {
      if (byKey.computeIfAbsent(new Key(a.queryId(), a.sample()), k -> new Answer[2])[1] != null) {
        throw new IllegalArgumentException("two latest trees for query " + a.queryId() + " sample " + a.sample());
      }
      byKey.get(new Key(a.queryId(), a.sample()))[1] = a;
    }
    List<Pair> out = new ArrayList<>();
    byKey.forEach((k, v) -> out.add(new Pair(k.queryId(), questions.get(k.queryId()), k.sample(), v[0], v[1])));
    return out;
  }

  /** The pairs as one HTML table: the question, then each step's status, answer and reward. */
  public String html(List<Pair> pairs) {
    return html(pairs, oldStep, newStep, 300);
  }

  static String html(List<Pair> pairs, long oldStep, long newStep, int maxChars) {
    StringBuilder s = new StringBuilder("<table><thead><tr><th>query</th><th>sample</th><th>question</th>");
    for (long step : new long[] {oldStep, newStep}) {
      s.append("<th>step ").append(step).append(" answer</th><th>step ").append(step).append(" reward</th>");
    }
    s.append("</tr></thead><tbody>");
    for (Pair p : pairs) {
      s.append("<tr><td>").append(Html.escape(p.queryId())).append("</td><td>").append(p.sample()).append("</td><td>")
          .append(Html.escape(Html.clip(p.question(), maxChars))).append("</td>");
      for (Answer a : new Answer[] {p.old(), p.latest()}) {
        if (a == null) {
          s.append("<td><i>no tree</i></td><td></td>");
          continue;
        }
        s.append("<td><small>").append(Html.escape(a.status())).append("</small><br>")
            .append(a.finalAnswer() == null ? "<i>no final answer</i>" : Html.escape(Html.clip(a.finalAnswer(), maxChars)))
            .append("</td><td>").append(a.reward() == null ? "" : String.format(Locale.ROOT, "%.3f", a.reward()))
            .append(a.spanF1() == null ? "" : String.format(Locale.ROOT, " (F1 %.3f)", a.spanF1())).append("</td>");
      }
      s.append("</tr>");
    }
    return s.append("</tbody></table>").toString();
  }
}
