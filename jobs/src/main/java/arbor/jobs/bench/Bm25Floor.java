package arbor.jobs.bench;

import static org.apache.spark.sql.functions.col;

import arbor.jobs.bench.rlm.Bm25Paragraphs;
import arbor.judge.JudgeSpec;
import arbor.pipelines.judge.Judge;
import arbor.pipelines.judge.References;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import arbor.synthesis.Queries;
import arbor.tables.Cols;
import arbor.tables.Reward;
import arbor.tables.RolloutNode;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The floor a policy must clear: no REPL, no model, BM25's top {@code k} paragraphs of the query's
 * papers (the noisy text the policies read, cut at blank lines) given as the answer, verbatim, and
 * judged by the same judge as the policies' trees. One answer per query: BM25 draws nothing.
 */
final class Bm25Floor {
  static final String POLICY = "bm25";
  private static final Pattern BLANK_LINES = Pattern.compile("\\n\\s*\\n");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final StructType ROOTS = new StructType()
      .add(Cols.RUN_ID, DataTypes.StringType, false)
      .add(Cols.STEP, DataTypes.LongType, false)
      .add(Cols.NODE_ID, DataTypes.StringType, false)
      .add(Cols.ROOT_ID, DataTypes.StringType, false)
      .add(RolloutNode.PARENT_ID, DataTypes.StringType, true)
      .add(Cols.QUERY_ID, DataTypes.StringType, false)
      .add(Cols.SAMPLE, DataTypes.IntegerType, false)
      .add(RolloutNode.FINAL_ANSWER, DataTypes.StringType, true)
      .add(RolloutNode.STATUS, DataTypes.StringType, false)
      .add(RolloutNode.POLICY, DataTypes.StringType, false)
      .add(RolloutNode.ERROR, DataTypes.StringType, true);

  private Bm25Floor() {}

  /** The judge's reward of BM25's answer to each active query of {@code split}, by query id. */
  static Map<String, Double> rewards(Warehouse w, String split, int k, JudgeSpec judge) {
    Dataset<Row> queries = Queries.active(w.read(Table.QUERIES)).where(col(Queries.SPLIT).equalTo(split));
    Dataset<Row> groups = w.read(Table.PAPER_GROUPS);
    Dataset<Row> papers = w.read(Table.PAPERS);
    Map<String, String> texts = new HashMap<>();
    for (Row p : papers.select("paper_id", "noisy_text").collectAsList()) texts.put(p.getString(0), p.getString(1));
    Map<String, List<String>> members = new HashMap<>();
    for (Row g : groups.select("group_id", "paper_ids").collectAsList()) members.put(g.getString(0), g.getList(1));
    List<Row> roots = new ArrayList<>();
    for (Row q : queries.select(Queries.QUERY_ID, Queries.GROUP_ID, Queries.QUESTION).collectAsList()) {
      String id = q.getString(0);
      List<String> paragraphs = new ArrayList<>();
      for (String paper : members.getOrDefault(q.getString(1), List.of())) {
        for (String p : BLANK_LINES.split(texts.getOrDefault(paper, ""))) if (!p.isBlank()) paragraphs.add(p.strip());
      }
      List<String> answer = new ArrayList<>();
      if (!paragraphs.isEmpty()) {
        try (Bm25Paragraphs bm = new Bm25Paragraphs(paragraphs)) {
          for (int i : bm.top(q.getString(2), k)) answer.add(paragraphs.get(i));
        }
      }
      roots.add(RowFactory.create(POLICY, 0L, id + "/bm25", id + "/bm25", null, id, 0, json(answer), "final", POLICY,
          null));
    }
    Dataset<Row> nodes = w.read(Table.QUERIES).sparkSession().createDataFrame(roots, ROOTS);
    Map<String, Double> rewards = new TreeMap<>();
    for (Row r : new Judge(judge).transform(nodes, References.of(queries, groups, papers))
        .select(Cols.QUERY_ID, Reward.REWARD).collectAsList()) {
      if (!r.isNullAt(1)) rewards.put(r.getString(0), r.getDouble(1));
    }
    return rewards;
  }

  private static String json(List<String> spans) {
    try {
      return JSON.writeValueAsString(spans);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
