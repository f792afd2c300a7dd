package arbor.pipelines.learner;

import static arbor.tables.Cols.LOGPROBS;
import static arbor.tables.Cols.NODE_ID;
import static arbor.tables.Cols.PROMPT_IDS;
import static arbor.tables.Cols.QUERY_ID;
import static arbor.tables.Cols.RESPONSE_IDS;
import static arbor.tables.Cols.ROOT_ID;
import static arbor.tables.Cols.TURN;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.countDistinct;
import static org.apache.spark.sql.functions.size;
import static org.apache.spark.sql.functions.sum;

import arbor.conf.LearnerSettings;
import arbor.policy.model.Qwen3Model;
import arbor.policy.train.AdamW;
import arbor.policy.train.BatchShape;
import arbor.policy.train.PolicyUpdate;
import arbor.policy.train.StepStats;
import arbor.policy.train.TrainSample;
import arbor.progress.Tally;
import arbor.tables.Metric;
import arbor.tables.Samples;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The driver-side learner: one optimizer step per step's {@code samples}.
 *
 * <pre>{@code
 * try (Learner learner = Learner.create(policy, config.learner(), temperature)) {
 *   LearnerStepResult r = learner.step(samples, runId, step);
 *   AdamWState state = learner.optimizer().exportState();   // for the checkpoint
 * }
 * }</pre>
 *
 * <p>The samples reach the driver as a stream ({@code toLocalIterator}, one partition at a
 * time, longest first), never as one collect; a first, small aggregation gives the per-query
 * totals the loss normalisation needs. The samples are read twice, so pass a Delta read or a
 * cached Dataset, not one that re-samples. Owns the reference model and the optimizer; the
 * policy model stays the caller's.
 */
public final class Learner implements AutoCloseable {

  private static final List<String> COLUMNS = List.of(QUERY_ID, ROOT_ID, NODE_ID, TURN,
      Samples.ADVANTAGE, Samples.WEIGHT, Samples.NODE_GEN_TOKENS, PROMPT_IDS, RESPONSE_IDS,
      LOGPROBS);

  private final Qwen3Model reference;
  private final PolicyUpdate update;

  private Learner(Qwen3Model policy, Qwen3Model reference, LearnerSettings settings,
      double temperature) {
    this.reference = reference;
    this.update = new PolicyUpdate(policy, reference, settings, temperature);
  }

  /**
   * A learner for a fresh run: {@code policy} (made trainable here) is where the run starts, so
   * the reference is a frozen copy of it as it is now, unless {@code beta_kl} is 0.
   *
   * @param temperature the sampler's temperature: the samples' logprobs are under it
   */
  public static Learner create(Qwen3Model policy, LearnerSettings settings, double temperature) {
    requireDriver("Learner.create");
    return withReference(policy,
        settings.betaKl() > 0 ? PolicyUpdate.frozenCopy(policy) : null, settings, temperature);
  }

  /**
   * A learner for a resumed run: the reference is the policy the run started from (its first
   * checkpoint), not the resumed weights. Takes ownership of {@code reference} (null when
   * {@code beta_kl} is 0); restore the optimizer with {@code optimizer().importState(...)}.
   */
  public static Learner withReference(Qwen3Model policy, Qwen3Model reference,
      LearnerSettings settings, double temperature) {
    requireDriver("Learner.withReference");
    try {
      policy.setTrainable(true);
      return new Learner(policy, reference, settings, temperature);
    } catch (RuntimeException e) {
      if (reference != null) {
        reference.close();
      }
      throw e;
    }
  }

  /**
   * Refuses to run inside a Spark task: the learner holds the policy's only trainable copy
   * and its optimizer state, which exist once, on the driver.
   */
  static void requireDriver(String what) {
    TaskContext task = TaskContext.get();
    if (task != null) {
      throw new IllegalStateException(what + " runs on the driver only, but was called in a"
          + " Spark task (stage " + task.stageId() + ", partition " + task.partitionId()
          + "); call it from the job's main thread, outside any map function");
    }
  }

  /** The policy being trained (its weights are the checkpoint's). */
  public Qwen3Model policy() {
    return update.policy();
  }

  /** The optimizer; {@code exportState}/{@code importState} for checkpoints and resume. */
  public AdamW optimizer() {
    return update.optimizer();
  }

  /** One optimizer step over every row of {@code samples} (schema {@link Samples}). */
  public LearnerStepResult step(Dataset<Row> samples, String runId, long step) {
    return step(samples, runId, step, new Tally());
  }

  /** As above, counting the response tokens learned from in {@code tokens} (its total: all of them). */
  public LearnerStepResult step(Dataset<Row> samples, String runId, long step, Tally tokens) {
    requireDriver("Learner.step");
    List<String> missing = COLUMNS.stream()
        .filter(c -> !Arrays.asList(samples.columns()).contains(c)).toList();
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException("samples for step " + step + " of run " + runId
          + " lack column(s) " + missing + "; expected the samples table's schema");
    }
    BatchShape shape = totals(samples);
    tokens.total(shape.tokens());
    Column length = size(col(PROMPT_IDS)).plus(size(col(RESPONSE_IDS)));
    Iterator<Row> rows = samples.select(COLUMNS.stream().map(c -> col(c)).toArray(Column[]::new))
        .orderBy(length.desc(), col(NODE_ID), col(TURN))
        .toLocalIterator();
    StepStats stats = update.step(shape, new Iterator<>() {
      @Override
      public boolean hasNext() {
        return rows.hasNext();
      }

      @Override
      public TrainSample next() {
        TrainSample s = sample(rows.next());
        tokens.add(s.responseIds().length);
        return s;
      }
    });
    return new LearnerStepResult(stats, metrics(samples.sparkSession(), runId, step, stats));
  }

  private static BatchShape totals(Dataset<Row> samples) {
    Column len = size(col(RESPONSE_IDS));
    List<Row> perQuery = samples.groupBy(col(QUERY_ID))
        .agg(countDistinct(col(ROOT_ID)), sum(len),
            sum(col(Samples.WEIGHT).multiply(len).divide(col(Samples.NODE_GEN_TOKENS))))
        .collectAsList();  // one small row per query
    List<BatchShape.QueryTotals> totals = new ArrayList<>();
    for (Row r : perQuery) {
      totals.add(new BatchShape.QueryTotals(r.getString(0), (int) r.getLong(1), r.getLong(2),
          r.getDouble(3)));
    }
    return BatchShape.of(totals);
  }

  private static TrainSample sample(Row r) {
    return new TrainSample(r.getString(0), r.getString(2), r.getInt(3), r.getDouble(4),
        r.getDouble(5), r.getLong(6), ints(r.getList(7)), ints(r.getList(8)),
        floats(r.getList(9)));
  }

  private static int[] ints(List<Integer> v) {
    int[] out = new int[v.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = v.get(i);
    }
    return out;
  }

  private static float[] floats(List<Float> v) {
    float[] out = new float[v.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = v.get(i);
    }
    return out;
  }

  private static Dataset<Row> metrics(SparkSession spark, String runId, long step,
      StepStats stats) {
    return spark.createDataFrame(Metric.rows(runId, step, stats.metrics()), Metric.SCHEMA);
  }

  @Override
  public void close() {
    update.close();
    if (reference != null) {
      reference.close();
    }
  }
}
