package arbor.jobs.bench;

import static org.apache.spark.sql.functions.array;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import arbor.conf.AdvantageSettings;
import arbor.jobs.cli.Args;
import arbor.jobs.cli.UsageError;
import arbor.pipelines.advantages.Advantages;
import arbor.tables.Cols;
import arbor.tables.Reward;
import arbor.tables.RolloutNode;
import arbor.tables.Samples;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * The advantages stage on synthetic rollout trees of 10k, 100k and 1M nodes against a
 * single-threaded in-memory Java computation of the same samples (group advantages, inheritance,
 * 1/k weights), same trees, same run; every sample is compared.
 *
 * <p>The trees follow fixed arithmetic rules, so Spark (generating them on the executors) and the
 * Java loop (generating them in arrays) build the same ones: tree {@code r} is sample
 * {@code r % 8} of query {@code r / 8}; it has {@code (7r + 3) % 5} children; child {@code i} has
 * {@code (3r + 5i + 1) % 4}; grandchild {@code j} has 2 children when {@code (r + i + j) % 7 == 0}
 * (depth 3); about 6.1 nodes per tree. Rewards are tenths ({@code (7919r + 13) % 11 / 10}); every
 * tenth query has all rewards 0.5 (a flat group); tree {@code r} with {@code r % 53 == 7} is an
 * infrastructure failure. One turn per node.
 */
final class AdvantagesBench implements Benchmark {

  @Override
  public String summary() {
    return "advantages stage vs in-memory Java at 10k/100k/1M tree nodes, results compared";
  }

  @Override
  public Map<String, Object> run(BenchContext ctx) throws Exception {
    Args args = Args.parse("bench advantages", ctx.args(), Set.of(), Set.of("sizes"));
    List<Integer> sizes = args.value("sizes").map(s -> List.of(s.split(",")).stream().map(x -> Integer.parseInt(x.strip())).toList())
        .orElse(List.of(10_000, 100_000, 1_000_000));
    if (sizes.isEmpty()) throw new UsageError("bench advantages: --sizes needs at least one size");
    PrintStream out = ctx.out();
    SparkSession spark = ctx.spark();
    Advantages stage = new Advantages(new AdvantageSettings(AdvantageSettings.Reduction.TREE, false, 1), 3);
    out.printf("bench advantages: %d cores, shuffle partitions %s%n", Runtime.getRuntime().availableProcessors(),
        spark.conf().get("spark.sql.shuffle.partitions"));
    run(spark, stage, 2_000); // warm-up: code generation and the first Spark jobs
    Map<String, Object> figures = new LinkedHashMap<>();
    boolean allMatch = true;
    out.println("nodes     | samples   | stage s | java s | mismatches");
    for (int target : sizes) {
      Result r = run(spark, stage, target);
      allMatch &= r.mismatches == 0 && r.samples == r.expected;
      out.printf("%-9d | %-9d | %7.2f | %6.2f | %d%n", r.nodes, r.samples, r.stageSeconds, r.javaSeconds, r.mismatches);
      String label = target >= 1_000_000 ? (target / 1_000_000) + "m" : (target / 1_000) + "k";
      figures.put("nodes_" + label, r.nodes);
      figures.put("seconds_" + label, round(r.stageSeconds));
      figures.put("java_seconds_" + label, round(r.javaSeconds));
    }
    figures.put("match", allMatch);
    figures.put("cores", Runtime.getRuntime().availableProcessors());
    return figures;
  }

  record Result(long nodes, long samples, long expected, long mismatches, double stageSeconds, double javaSeconds) {}

  private static Result run(SparkSession spark, Advantages stage, int targetNodes) {
    int trees = treesFor(targetNodes);
    Dataset<Row> nodes = nodes(spark, trees).localCheckpoint(true);
    Dataset<Row> turns = nodes.select(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.NODE_ID), lit(0).as(Cols.TURN),
        array(lit(1), lit(2), lit(3)).as(Cols.PROMPT_IDS), array(col(RolloutNode.DEPTH), lit(1)).as(Cols.RESPONSE_IDS),
        array(lit(-0.1f), lit(-0.2f)).as(Cols.LOGPROBS), lit(1L).as(Cols.POLICY_VERSION)).localCheckpoint(true);
    Dataset<Row> rewards = rewards(spark, trees).localCheckpoint(true);
    long nodeCount = nodes.count();

    long t0 = System.nanoTime();
    Dataset<Row> samples = stage.samples(nodes, turns, rewards).localCheckpoint(true);
    double stageSeconds = (System.nanoTime() - t0) / 1e9;

    long t1 = System.nanoTime();
    Map<String, double[]> expected = java(trees);
    double javaSeconds = (System.nanoTime() - t1) / 1e9;

    long count = 0;
    long mismatches = 0;
    Iterator<Row> it = samples.select(Cols.NODE_ID, Samples.ADVANTAGE, Samples.WEIGHT).toLocalIterator();
    while (it.hasNext()) {
      Row s = it.next();
      count++;
      double[] e = expected.get(s.getString(0));
      if (e == null || Math.abs(e[0] - s.getDouble(1)) > 1e-9 || Math.abs(e[1] - s.getDouble(2)) > 1e-12) mismatches++;
    }
    return new Result(nodeCount, count, expected.size(), mismatches, stageSeconds, javaSeconds);
  }

  /** The trees' nodes, made on the executors: the columns the stage reads. */
  static Dataset<Row> nodes(SparkSession spark, int trees) {
    Column r = col("r");
    Dataset<Row> roots = spark.range(trees).repartition(Math.max(2, trees / 50_000)).select(col("id").as("r"))
        .select(r, concat(lit("r"), r).as(Cols.NODE_ID), lit(null).cast(DataTypes.StringType).as(RolloutNode.PARENT_ID),
            lit(0).as(RolloutNode.DEPTH), lit(-1).as(RolloutNode.CHILD_INDEX), lit(-1L).as("i"), lit(-1L).as("j"));
    Dataset<Row> d1 = level(roots, r.multiply(7).plus(3).mod(5), 1);
    Dataset<Row> d2 = level(d1, r.multiply(3).plus(col("i").multiply(5)).plus(1).mod(4), 2);
    Dataset<Row> d3 = level(d2, when(r.plus(col("i")).plus(col("j")).mod(7).equalTo(0), 2).otherwise(0), 3);
    return roots.unionByName(d1).unionByName(d2).unionByName(d3)
        .select(lit("bench").as(Cols.RUN_ID), lit(1L).as(Cols.STEP), col(Cols.NODE_ID), concat(lit("q"), r.divide(8).cast("long")).as(Cols.QUERY_ID),
            r.mod(8).cast("int").as(Cols.SAMPLE), col(RolloutNode.PARENT_ID), concat(lit("r"), r).as(Cols.ROOT_ID),
            col(RolloutNode.DEPTH), col(RolloutNode.CHILD_INDEX), lit(2L).as(RolloutNode.GEN_TOKENS));
  }

  /** The children of {@code parents}, {@code k} (a column of the parent row) each. */
  private static Dataset<Row> level(Dataset<Row> parents, Column k, int depth) {
    Dataset<Row> withK = parents.withColumn("k", k.cast("int"));
    Dataset<Row> children = withK.select(col("r"), col("i"), col("j"), col(Cols.NODE_ID).as("parent"),
        explode(expr("transform(array_repeat(0, k), (x, n) -> n)")).as("index"));
    Column i = depth == 1 ? col("index").cast("long") : col("i");
    Column j = depth == 2 ? col("index").cast("long") : col("j");
    return children.select(col("r"), concat(col("parent"), lit("."), col("index")).as(Cols.NODE_ID), col("parent").as(RolloutNode.PARENT_ID),
        lit(depth).as(RolloutNode.DEPTH), col("index").as(RolloutNode.CHILD_INDEX), i.as("i"), j.as("j"));
  }

  static Dataset<Row> rewards(SparkSession spark, int trees) {
    Column r = col("id");
    Column reward = when(r.divide(8).cast("long").mod(10).equalTo(0), 0.5).otherwise(r.multiply(7919).plus(13).mod(11).divide(10.0));
    Column infra = r.mod(53).equalTo(7);
    return spark.range(trees).select(lit("bench").as(Cols.RUN_ID), lit(1L).as(Cols.STEP), concat(lit("r"), r).as(Cols.NODE_ID),
        when(infra, lit(null).cast(DataTypes.DoubleType)).otherwise(reward).as(Reward.REWARD),
        when(infra, lit(Reward.INFRA_FAILURE)).otherwise(lit(Reward.OK)).as(Reward.STATUS));
  }

  /** The fewest whole groups of 8 trees (at least 2) that hold {@code targetNodes} nodes or more. */
  static int treesFor(long targetNodes) {
    long nodes = 0;
    int trees = 0;
    while (trees < 16 || nodes < targetNodes) {
      for (int g = 0; g < 8; g++, trees++) nodes += treeSize(trees);
    }
    return trees;
  }

  /** The nodes of tree {@code r}: the shape {@link #nodes} builds and {@link #java} walks. */
  static long treeSize(long r) {
    long n = 1;
    int k1 = (int) ((r * 7 + 3) % 5);
    for (int i = 0; i < k1; i++) {
      int k2 = (int) ((r * 3 + i * 5L + 1) % 4);
      n += 1 + k2;
      for (int j = 0; j < k2; j++) n += (r + i + j) % 7 == 0 ? 2 : 0;
    }
    return n;
  }

  /**
   * The method's group normalisation written again in plain Java, as the single-thread baseline
   * the stage's figures are checked against: reward minus the mean over the sample standard
   * deviation plus {@link Advantages#EPSILON}; zero for a flat group or a lone root.
   */
  static double[] groupAdvantages(double[] rewards) {
    int n = rewards.length;
    double[] out = new double[n];
    if (n < 2 || Arrays.stream(rewards).allMatch(r -> r == rewards[0])) return out;
    double mean = Arrays.stream(rewards).average().orElseThrow();
    double squares = Arrays.stream(rewards).map(r -> (r - mean) * (r - mean)).sum();
    double std = Math.sqrt(squares / (n - 1));
    for (int i = 0; i < n; i++) out[i] = (rewards[i] - mean) / (std + Advantages.EPSILON);
    return out;
  }

  /** The same trees, advantages and weights in one thread: node id to {advantage, weight}. */
  static Map<String, double[]> java(int trees) {
    Map<String, double[]> out = new HashMap<>(trees * 10);
    for (int q = 0; q * 8 < trees; q++) {
      List<Integer> scored = new ArrayList<>();
      List<Double> rewards = new ArrayList<>();
      for (int g = 0; g < 8 && q * 8 + g < trees; g++) {
        long r = q * 8L + g;
        if (r % 53 == 7) continue;
        scored.add((int) r);
        rewards.add(q % 10 == 0 ? 0.5 : ((r * 7919 + 13) % 11) / 10.0);
      }
      double[] a = groupAdvantages(rewards.stream().mapToDouble(Double::doubleValue).toArray());
      for (int s = 0; s < scored.size(); s++) {
        long r = scored.get(s);
        double adv = a[s];
        String root = "r" + r;
        out.put(root, new double[] {adv, 1});
        int k1 = (int) ((r * 7 + 3) % 5);
        for (int i = 0; i < k1; i++) {
          double w1 = 1.0 / k1;
          String c1 = root + "." + i;
          out.put(c1, new double[] {adv, w1});
          int k2 = (int) ((r * 3 + i * 5L + 1) % 4);
          for (int j = 0; j < k2; j++) {
            double w2 = w1 / k2;
            String c2 = c1 + "." + j;
            out.put(c2, new double[] {adv, w2});
            int k3 = (r + i + j) % 7 == 0 ? 2 : 0;
            for (int m = 0; m < k3; m++) out.put(c2 + "." + m, new double[] {adv, w2 / k3});
          }
        }
      }
    }
    return out;
  }

  private static double round(double x) {
    return Math.round(x * 1000) / 1000.0;
  }
}
