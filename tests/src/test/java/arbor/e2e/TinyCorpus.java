package arbor.e2e;

import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The training tests' corpus: three papers (the rollouts test's) in two groups, and two queries
 * with their evidence, one per group.
 */
record TinyCorpus(Dataset<Row> papers, Dataset<Row> groups, Dataset<Row> queries) {
  /** The evidence of q1 and q3, as clean text: the papers hold it with a PDF line break. */
  static final String MT_DATA = "Our systems are trained on the WMT 2015 English-German parallel corpus of 4.2 million sentence"
      + " pairs, and tuned on newstest2013.";
  static final String PARSER_DATA = "The parser is trained on sections 2-21 of the Penn Treebank converted to Stanford dependencies.";
  static final StructType EVIDENCE = new StructType().add("paper_id", DataTypes.StringType).add("text", DataTypes.StringType);
  static final StructType QUERIES = new StructType().add("query_id", DataTypes.StringType)
      .add("group_id", DataTypes.StringType).add("question", DataTypes.StringType)
      .add("evidence", DataTypes.createArrayType(EVIDENCE));

  /** The training tests' student: a tiny random byte-level model of the Qwen3 architecture, written to {@code dir}. */
  static java.nio.file.Path student(java.nio.file.Path dir) throws java.io.IOException {
    arbor.policy.model.TinyModels.write(arbor.policy.model.ModelConfig.qwen3(300, 32, 64, 2, 4, 2, 8, true), 3,
        new arbor.policy.model.TinyModels.TokenizerSource.ByteLevel(), arbor.policy.files.TensorDtype.F32, dir);
    return dir;
  }

  static TinyCorpus of(SparkSession spark) {
    Dataset<Row> papers = spark.createDataFrame(List.of(RowFactory.create("mt", RolloutsEndToEndTest.MT),
        RowFactory.create("parser", RolloutsEndToEndTest.PARSER), RowFactory.create("fold", RolloutsEndToEndTest.FOLDING)),
        RolloutsEndToEndTest.PAPERS);
    Dataset<Row> groups = spark.createDataFrame(List.of(RowFactory.create("g1", List.of("mt", "parser", "fold")),
        RowFactory.create("g2", List.of("parser"))), RolloutsEndToEndTest.GROUPS);
    Dataset<Row> queries = spark.createDataFrame(List.of(
        RowFactory.create("q1", "g1", "Which training corpus do the systems train on?", List.of(RowFactory.create("mt", MT_DATA))),
        RowFactory.create("q3", "g2", "Which treebank is the parser trained on?", List.of(RowFactory.create("parser", PARSER_DATA)))),
        QUERIES);
    return new TinyCorpus(papers, groups, queries);
  }
}
