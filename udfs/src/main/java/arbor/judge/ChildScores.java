package arbor.judge;

import arbor.text.Interval;
import arbor.text.NormalizedText;
import arbor.synthesis.Evidence;
import arbor.tables.Cols;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The child metrics of method section 7, executor side: for each child node, the paper it was
 * delegated and, when that paper holds evidence, the child's span F1 against that paper's
 * evidence. Input: one row per query ({@link JudgeRoots#INPUT}'s question, evidence and papers)
 * with its children ({@link #CHILD}); output: {@link #OUTPUT} rows.
 *
 * <p>The delegated paper is the one whose title (the first line of its text) the child's prompt
 * quotes, as the strategy prompt asks (question plus title and abstract); failing that, the paper
 * where most of the child's submitted text lies; failing both, none.
 */
public final class ChildScores implements MapPartitionsFunction<Row, Row> {
  public static final String CHILDREN = "children";
  public static final String PROMPT = "prompt";
  public static final String PAPER_ID = "paper_id";
  public static final String ON_EVIDENCE = "on_evidence";
  public static final String SPAN_F1 = "span_f1";
  /** Titles shorter than this (reduced) are too unspecific to identify a paper. */
  static final int MIN_TITLE = 12;

  public static final StructType CHILD = new StructType()
      .add(Cols.RUN_ID, DataTypes.StringType, false)
      .add(Cols.STEP, DataTypes.LongType, false)
      .add(Cols.ROOT_ID, DataTypes.StringType, false)
      .add(Cols.NODE_ID, DataTypes.StringType, false)
      .add(PROMPT, DataTypes.StringType, true)
      .add(JudgeRoots.FINAL_ANSWER, DataTypes.StringType, true);

  public static final StructType OUTPUT = new StructType()
      .add(Cols.RUN_ID, DataTypes.StringType, false)
      .add(Cols.STEP, DataTypes.LongType, false)
      .add(Cols.ROOT_ID, DataTypes.StringType, false)
      .add(Cols.NODE_ID, DataTypes.StringType, false)
      .add(PAPER_ID, DataTypes.StringType, true)
      .add(ON_EVIDENCE, DataTypes.BooleanType, false)
      .add(SPAN_F1, DataTypes.DoubleType, true);

  @Override
  public Iterator<Row> call(Iterator<Row> queries) {
    List<Row> out = new ArrayList<>();
    while (queries.hasNext()) {
      Row q = queries.next();
      JudgeCase base = JudgeRoots.caseOf(q);
      Map<String, String> titles = titles(base.papers());
      for (Row child : q.<Row>getList(q.fieldIndex(CHILDREN))) {
        List<String> spans = FinalAnswer.spans(child.getAs(JudgeRoots.FINAL_ANSWER));
        String paper = delegated(child.getAs(PROMPT), spans, titles, base);
        List<Evidence> evidence = base.evidence().stream().filter(e -> e.paperId().equals(paper)).toList();
        Double f1 = null;
        if (!evidence.isEmpty()) {
          JudgeCase c = new JudgeCase(base.question(), evidence, Map.of(paper, base.papers().get(paper)), spans);
          f1 = SpanMetrics.of(AlignedCase.of(c)).f1();
        }
        out.add(RowFactory.create(child.getAs(Cols.RUN_ID), child.getAs(Cols.STEP), child.getAs(Cols.ROOT_ID),
            child.getAs(Cols.NODE_ID), paper, !evidence.isEmpty(), f1));
      }
    }
    return out.iterator();
  }

  static Map<String, String> titles(Map<String, String> papers) {
    Map<String, String> out = new LinkedHashMap<>();
    papers.forEach((id, text) -> {
      String first = text == null ? "" : text.strip().lines().findFirst().orElse("");
      out.put(id, NormalizedText.of(first).text());
    });
    return out;
  }

  static String delegated(String prompt, List<String> spans, Map<String, String> titles, JudgeCase base) {
    String reduced = NormalizedText.of(prompt == null ? "" : prompt).text();
    String best = null;
    int bestLength = MIN_TITLE - 1;
    for (var t : titles.entrySet()) {
      if (t.getValue().length() > bestLength && reduced.contains(t.getValue())) {
        best = t.getKey();
        bestLength = t.getValue().length();
      }
    }
    if (best != null) return best;
    Map<String, List<Interval>> located = AlignedCase.byPaper(
        AlignedCase.of(new JudgeCase(base.question(), List.of(), base.papers(), spans)).predicted());
    long most = 0;
    for (var p : located.entrySet()) {
      long n = Interval.covered(p.getValue());
      if (n > most) {
        most = n;
        best = p.getKey();
      }
    }
    return best;
  }
}
