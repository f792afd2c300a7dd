package arbor.jobs.bench;

import static org.apache.spark.sql.functions.*;

import arbor.conf.SynthesisSettings;
import arbor.jobs.cli.Args;
import arbor.jobs.cli.UsageError;
import arbor.pipelines.synthesis.Embed;
import arbor.pipelines.synthesis.Grouping;
import arbor.pipelines.synthesis.Seeds;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.types.DataTypes;

/**
 * Grouping time of the LSH method (what {@code synthesize} runs) against exact grouping (every
 * seed compared with every paper) at growing corpus sizes, with the share of the exact
 * neighbours that LSH finds; and embedding throughput of the real model on the executors.
 * Vectors are synthetic (clusters of about 30 papers with a cosine similarity around 0.65 inside
 * a cluster and about 0 across), generated on the executors.
 */
final class GroupsBench implements Benchmark {
  private static final int DIM = 384;

  @Override
  public String summary() {
    return "LSH vs exact grouping time at 1k/10k/100k papers, and embedding papers/s";
  }

  @Override
  public Map<String, Object> run(BenchContext ctx) throws Exception {
    Args args = Args.parse("bench groups", ctx.args(), Set.of(), Set.of("sizes", "exact-max", "seeds", "embed"));
    List<Integer> sizes = args.value("sizes").map(s -> List.of(s.split(",")).stream().map(x -> Integer.parseInt(x.strip())).toList())
        .orElse(List.of(1_000, 10_000, 100_000));
    int exactMax = Integer.parseInt(args.value("exact-max").orElse("10000"));
    SynthesisSettings s = ctx.config().synthesis();
    long seeds = Long.parseLong(args.value("seeds").orElse(Long.toString((s.targetQueries() + s.queriesPerGroup() - 1) / s.queriesPerGroup())));
    int embedPapers = Integer.parseInt(args.value("embed").orElse("2000"));
    if (sizes.isEmpty() || seeds < 1) throw new UsageError("bench groups: --sizes needs sizes and --seeds at least 1");

    PrintStream out = ctx.out();
    SparkSession spark = ctx.spark();
    out.printf("bench groups: %d seeds per size, LSH %d bands x %d hashes, %d cores%n", seeds, s.groups().lshBands(),
        s.groups().lshHashesPerBand(), Runtime.getRuntime().availableProcessors());
    Grouping grouping = new Grouping(s.groups(), s.seed());
    grouping.transform(synthetic(spark, 500, s.seed()), Seeds.draw(synthetic(spark, 500, s.seed()), 20, s.seed())).count(); // warm-up

    Map<String, Object> figures = new LinkedHashMap<>();
    out.println("papers   | LSH s   | exact s | LSH recall of exact neighbours");
    for (int n : sizes) {
      Dataset<Row> papers = synthetic(spark, n, s.seed()).localCheckpoint(true);
      Dataset<Row> seedIds = Seeds.draw(papers, seeds, s.seed()).localCheckpoint(true);
      long t0 = System.nanoTime();
      Dataset<Row> lsh = grouping.transform(papers, seedIds).localCheckpoint(true);
      double lshSeconds = (System.nanoTime() - t0) / 1e9;
      figures.put("lsh_seconds_" + label(n), round(lshSeconds));
      String exactText = "-";
      String recallText = "-";
      if (n <= exactMax) {
        long t1 = System.nanoTime();
        Dataset<Row> exact = grouping.exact(papers, seedIds).localCheckpoint(true);
        double exactSeconds = (System.nanoTime() - t1) / 1e9;
        double recall = recall(lsh, exact);
        figures.put("allpairs_seconds_" + label(n), round(exactSeconds));
        figures.put("lsh_recall_" + label(n), round(recall));
        exactText = String.format("%7.2f", exactSeconds);
        recallText = String.format("%.3f", recall);
      }
      out.printf("%-8d | %7.2f | %7s | %s%n", n, lshSeconds, exactText, recallText);
    }

    double perSecond = embedThroughput(ctx, spark, embedPapers);
    out.printf("bench groups: embedding %d synthetic abstracts on the executors: %.1f papers/s%n", embedPapers, perSecond);
    figures.put("embed_papers_per_s", round(perSecond));
    figures.put("seeds", seeds);
    figures.put("cores", Runtime.getRuntime().availableProcessors());
    return figures;
  }

  /** The share of the exact method's (seed, neighbour) pairs that the LSH method also found. */
  private static double recall(Dataset<Row> lsh, Dataset<Row> exact) {
    Dataset<Row> e = pairs(exact);
    long total = e.count();
    if (total == 0) return 1.0;
    scala.collection.immutable.Seq<String> keys = scala.jdk.javaapi.CollectionConverters.asScala(List.of("seed_paper_id", "paper_id")).toSeq();
    return (double) e.join(pairs(lsh), keys).count() / total;
  }

  private static Dataset<Row> pairs(Dataset<Row> groups) {
    return groups.select(col("seed_paper_id"), explode(col("paper_ids")).as("paper_id"))
        .where(col("paper_id").notEqual(col("seed_paper_id")));
  }

  /** {@code n} papers with unit vectors in clusters of about 30, made on the executors. */
  static Dataset<Row> synthetic(SparkSession spark, int n, long seed) {
    int clusters = Math.max(1, n / 30);
    UserDefinedFunction vector = udf((UDF1<Long, float[]>) id -> vector(id, clusters, seed), DataTypes.createArrayType(DataTypes.FloatType, false));
    return spark.range(n).repartition(Math.max(2, n / 20_000))
        .select(concat(lit("p"), col("id")).as("paper_id"), rand(seed).as("score"), vector.apply(col("id")).as("embedding"));
  }

  private static float[] vector(long id, int clusters, long seed) {
    Random center = new Random(seed * 31 + id % clusters);
    Random noise = new Random(seed * 17 + id * 1_000_003L);
    double[] v = new double[DIM];
    double norm = 0;
    for (int i = 0; i < DIM; i++) {
      // Unit centre plus noise of norm about 0.7: cosine about 1 / (1 + 0.49) = 0.67 inside a cluster.
      v[i] = center.nextGaussian() / Math.sqrt(DIM) + 0.7 * noise.nextGaussian() / Math.sqrt(DIM);
      norm += v[i] * v[i];
    }
    float[] out = new float[DIM];
    for (int i = 0; i < DIM; i++) out[i] = (float) (v[i] / Math.sqrt(norm));
    return out;
  }

  /** Papers per second through the embedding stage (model loaded first, so this is steady state). */
  private static double embedThroughput(BenchContext ctx, SparkSession spark, int n) {
    Embed embed = new Embed(ctx.config().synthesis().embedding());
    List<Row> texts = new ArrayList<>();
    Random random = new Random(5);
    String[] words = ("model training data graph network language evaluation results method learning corpus "
        + "neural attention retrieval evidence paper question answer semantic parsing embedding vector cluster "
        + "benchmark accuracy baseline transformer annotation dataset experiment analysis").split(" ");
    for (int i = 0; i < n; i++) {
      StringBuilder abs = new StringBuilder();
      for (int w = 0; w < 150; w++) abs.append(words[random.nextInt(words.length)]).append(w % 15 == 14 ? ". " : " ");
      texts.add(org.apache.spark.sql.RowFactory.create("b" + i, "h" + i, "A study of " + words[i % words.length] + " number " + i, abs.toString()));
    }
    Dataset<Row> papers = spark.createDataFrame(texts, arbor.synthesis.SynthesisRows.TO_EMBED).localCheckpoint(true);
    embed.transform(papers.limit(64)).count(); // loads the model in this JVM
    long t0 = System.nanoTime();
    long done = embed.transform(papers).count();
    return done / ((System.nanoTime() - t0) / 1e9);
  }

  private static String label(int n) {
    return n % 1000 == 0 ? (n / 1000) + "k" : Integer.toString(n);
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
