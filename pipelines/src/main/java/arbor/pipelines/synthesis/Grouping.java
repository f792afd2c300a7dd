package arbor.pipelines.synthesis;

import arbor.tables.Papers;
import static org.apache.spark.sql.functions.*;

import arbor.conf.GroupSettings;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.ml.feature.BucketedRandomProjectionLSH;
import org.apache.spark.ml.feature.BucketedRandomProjectionLSHModel;
import org.apache.spark.ml.linalg.DenseVector;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.types.DataTypes;

/**
 * The grouping stage: papers with unit vectors and seed papers in; one group per seed out: the
 * seed and up to {@code max_size - 1} of its most similar papers with a cosine similarity of at
 * least {@code min_similarity}, nearest first, where similarities within {@code tie_margin} are
 * tied and the higher {@code score} wins. Groups may overlap.
 *
 * <p>Neighbours come from locality-sensitive hashing, never from comparing all pairs and never on
 * the driver. MLlib's {@link BucketedRandomProjectionLSH} computes the hashes; its own
 * {@code approxSimilarityJoin} makes two vectors candidates when any single hash agrees, which on
 * 384-dimensional unit vectors lets most unrelated pairs through, so the hashes are banded
 * here instead: candidates share all {@code lsh_hashes_per_band} hashes of at least one of the
 * {@code lsh_bands} bands (AND within a band, OR across bands). Exact cosine similarity is then
 * computed for the candidates only. {@link #exact} is the all-pairs baseline for the benchmark.
 *
 * <p>Input columns: {@code paper_id}, {@code score}, {@code embedding} (array of floats, unit
 * length). Output: {@code group_id}, {@code seed_paper_id}, {@code paper_ids} (seed first).
 */
public final class Grouping {
  private final GroupSettings settings;
  private final long seed;

  public Grouping(GroupSettings settings, long seed) {
    this.settings = settings;
    this.seed = seed;
  }

  /** The stable id of the group a paper seeds. */
  public static Column groupId(Column seedPaperId) {
    return concat(lit("g-"), substring(sha2(seedPaperId, 256), 1, 16));
  }

  public Dataset<Row> transform(Dataset<Row> papers, Dataset<Row> seeds) {
    return groups(neighbours(lshCandidates(papers, seeds), papers), seeds);
  }

  /** The same groups from comparing every seed with every paper: the benchmark's baseline. */
  public Dataset<Row> exact(Dataset<Row> papers, Dataset<Row> seeds) {
    Dataset<Row> pairs = seeds.select(col(Papers.PAPER_ID).as("seed_id"))
        .crossJoin(papers.select(Papers.PAPER_ID)).where(col("seed_id").notEqual(col(Papers.PAPER_ID)));
    return groups(neighbours(pairs, papers), seeds);
  }

  /** Pairs (seed_id, paper_id) that share a band. */
  Dataset<Row> lshCandidates(Dataset<Row> papers, Dataset<Row> seeds) {
    int k = settings.lshHashesPerBand();
    Dataset<Row> vectors = papers.select(col(Papers.PAPER_ID), org.apache.spark.ml.functions.array_to_vector(col("embedding")).as("vector"));
    BucketedRandomProjectionLSHModel lsh = new BucketedRandomProjectionLSH()
        .setInputCol("vector").setOutputCol("hashes")
        .setBucketLength(settings.lshBucketLength())
        .setNumHashTables(k * settings.lshBands())
        .setSeed(seed)
        .fit(vectors);
    UserDefinedFunction bands = udf((UDF1<scala.collection.Seq<Vector>, List<Long>>) hashes -> bandKeys(hashes, k),
        DataTypes.createArrayType(DataTypes.LongType, false));
    Dataset<Row> banded = lsh.transform(vectors)
        .select(col(Papers.PAPER_ID), posexplode(bands.apply(col("hashes"))).as(new String[] {"band", "key"}));
    Dataset<Row> seedBands = banded.join(seeds.select(Papers.PAPER_ID), Papers.PAPER_ID).withColumnRenamed(Papers.PAPER_ID, "seed_id");
    return seedBands.join(banded, new scala.collection.immutable.Set.Set2<>("band", "key").toSeq())
        .where(col("seed_id").notEqual(col(Papers.PAPER_ID)))
        .select("seed_id", Papers.PAPER_ID).distinct();
  }

  /** One key per band: a hash of the band's bucket numbers. */
  static List<Long> bandKeys(scala.collection.Seq<Vector> hashes, int perBand) {
    List<Long> keys = new ArrayList<>(hashes.size() / perBand);
    long key = 1125899906842597L;
    for (int i = 0; i < hashes.size(); i++) {
      key = 31 * key + (long) hashes.apply(i).apply(0);
      if ((i + 1) % perBand == 0) {
        keys.add(key);
        key = 1125899906842597L;
      }
    }
    return keys;
  }

  /** Each seed's best neighbours among {@code pairs} (seed_id, paper_id), ranked. */
  Dataset<Row> neighbours(Dataset<Row> pairs, Dataset<Row> papers) {
    UserDefinedFunction cosine = udf((UDF2<Vector, Vector, Double>) (a, b) -> dot(a, b), DataTypes.DoubleType);
    Dataset<Row> vectors = papers.select(col(Papers.PAPER_ID), col(Papers.SCORE),
        org.apache.spark.ml.functions.array_to_vector(col("embedding")).as("vector"));
    Dataset<Row> seedVectors = vectors.select(col(Papers.PAPER_ID).as("seed_id"), col("vector").as("seed_vector"));
    Dataset<Row> scored = pairs.join(seedVectors, "seed_id").join(vectors, Papers.PAPER_ID)
        .withColumn("similarity", cosine.apply(col("seed_vector"), col("vector")))
        .where(col("similarity").geq(settings.minSimilarity()));
    // Near ties (the same tie_margin-wide band of similarity) go to the higher-scored paper.
    var order = Window.partitionBy("seed_id").orderBy(
        floor(col("similarity").divide(settings.tieMargin())).desc(), col(Papers.SCORE).desc(), col("similarity").desc(), col(Papers.PAPER_ID));
    return scored.withColumn("rank", row_number().over(order))
        .where(col("rank").leq(settings.maxSize() - 1))
        .select("seed_id", Papers.PAPER_ID, "rank", "similarity");
  }

  private static double dot(Vector a, Vector b) {
    double[] x = ((DenseVector) a.toDense()).values();
    double[] y = ((DenseVector) b.toDense()).values();
    if (x.length != y.length) throw new IllegalArgumentException("embeddings have different lengths: (" + x.length + ", " + y.length + ")");
    double s = 0;
    for (int i = 0; i < x.length; i++) s += x[i] * y[i];
    return s;
  }

  private static Dataset<Row> groups(Dataset<Row> neighbours, Dataset<Row> seeds) {
    Dataset<Row> ranked = neighbours.groupBy("seed_id")
        .agg(sort_array(collect_list(struct(col("rank"), col(Papers.PAPER_ID)))).as("ranked"));
    return seeds.select(col(Papers.PAPER_ID).as("seed_paper_id"))
        .join(ranked, col("seed_paper_id").equalTo(col("seed_id")), "left")
        .select(groupId(col("seed_paper_id")).as("group_id"), col("seed_paper_id"),
            concat(array(col("seed_paper_id")), coalesce(expr("transform(ranked, r -> r.paper_id)"), expr("array()").cast("array<string>")))
                .as("paper_ids"));
  }
}
