package arbor.pipelines.synthesis;

import arbor.tables.Papers;
import arbor.synthesis.GenerateQueries;
import arbor.synthesis.SynthesisRows;
import static org.apache.spark.sql.functions.*;

import arbor.conf.SynthesisSettings;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;

/**
 * The query stage: groups, papers and source questions in; {@link SynthesisRows#GENERATED} rows
 * (queries, dropped candidates, generator errors) out. Generation runs on the executors, a few
 * groups per task.
 *
 * <p>A source question belongs to exactly one group, so it can never land in two splits: the
 * group its paper seeds, else the first (by id) group that contains the paper. Questions already
 * used by earlier queries ({@code usedSourceIds}) are not offered again.
 */
public final class Synthesize {
  private static final int GROUPS_PER_TASK = 16;
  private final SynthesisSettings settings;
  private final String llmApiKey;

  public Synthesize(SynthesisSettings settings, String llmApiKey) {
    this.settings = settings;
    this.llmApiKey = llmApiKey;
  }

  /**
   * @param groups group_id, seed_paper_id, paper_ids
   * @param questions source_questions rows, or null when there are none
   * @param usedSourceIds one column, source_id, or null
   */
  public Dataset<Row> contexts(Dataset<Row> groups, Dataset<Row> papers, Dataset<Row> questions, Dataset<Row> usedSourceIds) {
    Dataset<Row> members = groups.select(col("group_id"), col("seed_paper_id"), posexplode(col("paper_ids")).as(new String[] {"pos", Papers.PAPER_ID}))
        .withColumn("owner", row_number().over(Window.partitionBy(Papers.PAPER_ID)
            .orderBy(col(Papers.PAPER_ID).equalTo(col("seed_paper_id")).desc(), col("group_id"))).equalTo(1));
    Dataset<Row> owned = members.join(papers.select(col(Papers.PAPER_ID), col(Papers.TITLE), col(Papers.ABSTRACT), col(Papers.CLEAN_PARAGRAPHS),
        sections(papers), col(Papers.NOISY_TEXT), col(Papers.SCORE)), Papers.PAPER_ID);
    if (questions != null) {
      Dataset<Row> open = questions.where(col("answerable"));
      if (usedSourceIds != null) open = open.join(usedSourceIds, open.col("question_id").equalTo(usedSourceIds.col("source_id")), "left_anti");
      Dataset<Row> byPaper = open.groupBy(Papers.PAPER_ID)
          .agg(sort_array(collect_list(struct(col("question_id"), col("question"), col("evidence")))).as("all_questions"));
      owned = owned.join(byPaper, Papers.PAPER_ID, "left")
          .withColumn("questions", when(col("owner").and(col("all_questions").isNotNull()), col("all_questions"))
              .otherwise(expr("array()").cast(SynthesisRows.MEMBER.apply("questions").dataType())));
    } else {
      owned = owned.withColumn("questions", expr("array()").cast(SynthesisRows.MEMBER.apply("questions").dataType()));
    }
    return owned.groupBy("group_id", "seed_paper_id")
        .agg(sort_array(collect_list(struct(col("pos"), col(Papers.PAPER_ID), col(Papers.TITLE), col(Papers.ABSTRACT), col(Papers.CLEAN_PARAGRAPHS),
            col(Papers.SECTIONS), col(Papers.NOISY_TEXT), col(Papers.SCORE), col("questions")))).as("ranked"))
        .select(col("group_id"), col("seed_paper_id"), expr("transform(ranked, m -> named_struct('paper_id', m.paper_id, "
            + "'title', m.title, 'abstract', m.abstract, 'clean_paragraphs', m.clean_paragraphs, 'sections', m.sections, "
            + "'noisy_text', m.noisy_text, 'score', m.score, 'questions', m.questions))").as("members"));
  }

  /** Each paragraph's heading; papers ingested before headings were kept have none ("" for each paragraph). */
  public static org.apache.spark.sql.Column sections(Dataset<Row> papers) {
    boolean known = java.util.Arrays.asList(papers.columns()).contains(Papers.SECTIONS);
    return (known ? coalesce(col("sections"), expr("transform(clean_paragraphs, p -> '')"))
        : expr("transform(clean_paragraphs, p -> '')")).as("sections");
  }

  public Dataset<Row> transform(Dataset<Row> contexts) {
    long groups = contexts.count();
    int partitions = (int) Math.max(1, (groups + GROUPS_PER_TASK - 1) / GROUPS_PER_TASK);
    return contexts.repartition(partitions, col("group_id"))
        .mapPartitions(new GenerateQueries(settings, llmApiKey), Encoders.row(SynthesisRows.GENERATED));
  }
}
