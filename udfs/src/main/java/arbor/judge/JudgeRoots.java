package arbor.judge;

import arbor.synthesis.Evidence;
import arbor.tables.Cols;
import arbor.tables.Reward;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The executor side of the judge stage: one row per query ({@link #INPUT}: its question,
 * evidence, the group's noisy papers and the roots to judge) in, one {@link Reward} row per root
 * out. A root whose tree ended in an infrastructure failure is recorded as such without asking
 * the judge. An endpoint judge's calls run concurrently, bounded per JVM by
 * {@code judge.concurrency}; a judge that fails leaves a {@code judge_error} row, never a failed task.
 */
public final class JudgeRoots implements MapPartitionsFunction<Row, Row> {
  public static final String QUESTION = "question";
  public static final String EVIDENCE = "evidence";
  public static final String PAPERS = "papers";
  public static final String NOISY_TEXT = "noisy_text";
  public static final String PAPER_ID = "paper_id";
  public static final String TEXT = "text";
  public static final String ROOTS = "roots";
  public static final String FINAL_ANSWER = "final_answer";
  public static final String STATUS = "status";
  public static final String POLICY = "policy";
  public static final String ERROR = "error";
  /** The statuses of every node of the root's tree, the root's included. */
  public static final String TREE_STATUSES = "tree_statuses";

  public static final StructType ROOT = new StructType()
      .add(Cols.RUN_ID, DataTypes.StringType, false)
      .add(Cols.STEP, DataTypes.LongType, false)
      .add(Cols.NODE_ID, DataTypes.StringType, false)
      .add(Cols.SAMPLE, DataTypes.IntegerType, false)
      .add(FINAL_ANSWER, DataTypes.StringType, true)
      .add(STATUS, DataTypes.StringType, false)
      .add(POLICY, DataTypes.StringType, false)
      .add(ERROR, DataTypes.StringType, true)
      .add(TREE_STATUSES, DataTypes.createArrayType(DataTypes.StringType, false), false);

  public static final StructType INPUT = new StructType()
      .add(Cols.QUERY_ID, DataTypes.StringType, false)
      .add(QUESTION, DataTypes.StringType, true)
      .add(EVIDENCE, DataTypes.createArrayType(new StructType()
          .add(PAPER_ID, DataTypes.StringType, false).add(TEXT, DataTypes.StringType, false), false), true)
      .add(PAPERS, DataTypes.createArrayType(new StructType()
          .add(PAPER_ID, DataTypes.StringType, false).add(NOISY_TEXT, DataTypes.StringType, true), false), true)
      .add(ROOTS, DataTypes.createArrayType(ROOT, false), false);

  private final JudgeSpec spec;

  public JudgeRoots(JudgeSpec spec) {
    this.spec = spec;
  }

  @Override
  public Iterator<Row> call(Iterator<Row> queries) throws Exception {
    List<Callable<Row>> work = new ArrayList<>();
    try (RootJudge judge = spec.create()) {
      while (queries.hasNext()) {
        Row q = queries.next();
        String queryId = q.getAs(Cols.QUERY_ID);
        JudgeCase base = caseOf(q);
        for (Row root : q.<Row>getList(q.fieldIndex(ROOTS))) {
          work.add(() -> judgeRoot(judge, queryId, base, root));
        }
      }
      return run(work, judge.remote()).iterator();
    }
  }

  private List<Row> run(List<Callable<Row>> work, boolean remote) throws Exception {
    List<Row> out = new ArrayList<>(work.size());
    if (!remote) {
      for (Callable<Row> w : work) out.add(w.call());
      return out;
    }
    Semaphore slots = JudgeSlots.shared(spec.settings().concurrency());
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<Row>> futures = new ArrayList<>();
      for (Callable<Row> w : work) {
        futures.add(threads.submit(() -> {
          slots.acquire();
          try {
            return w.call();
          } finally {
            slots.release();
          }
        }));
      }
      for (Future<Row> f : futures) out.add(f.get());
    }
    return out;
  }

  private Row judgeRoot(RootJudge judge, String queryId, JudgeCase base, Row root) {
    String runId = root.getAs(Cols.RUN_ID);
    long step = root.getAs(Cols.STEP);
    String nodeId = root.getAs(Cols.NODE_ID);
    int sample = root.getAs(Cols.SAMPLE);
    String infra = InfraFailure.of(root.getAs(POLICY), root.getAs(STATUS), root.getAs(ERROR), root.getList(root.fieldIndex(TREE_STATUSES)));
    if (infra != null) {
      return Reward.failed(runId, step, nodeId, queryId, sample, spec.judgeName(), Reward.INFRA_FAILURE, infra).toRow();
    }
    if (base.evidence().isEmpty()) {
      return Reward.failed(runId, step, nodeId, queryId, sample, judge.name(), Reward.JUDGE_ERROR,
          "query " + queryId + " has no evidence in the queries table").toRow();
    }
    JudgeCase c = new JudgeCase(base.question(), base.evidence(), base.papers(), FinalAnswer.spans(root.getAs(FINAL_ANSWER)));
    AlignedCase aligned = AlignedCase.of(c);
    SpanMetrics span = SpanMetrics.of(aligned);
    Verdict v;
    try {
      v = judge.judge(c, aligned);
    } catch (RuntimeException e) {
      // A judge must not throw; if one does, the row says so and the step goes on.
      v = Verdict.failed(judge.name() + " judge raised " + e);
    }
    return new Reward(runId, step, nodeId, queryId, sample, v.reward(), v.precision(), v.recall(), v.reasoning(),
        judge.name(), span.precision(), span.recall(), span.f1(), v.ok() ? Reward.OK : Reward.JUDGE_ERROR, v.error())
        .toRow();
  }

  /** The query's question, evidence and papers (no predicted spans yet). */
  public static JudgeCase caseOf(Row q) {
    List<Evidence> evidence = new ArrayList<>();
    List<Row> ev = q.isNullAt(q.fieldIndex(EVIDENCE)) ? List.of() : q.getList(q.fieldIndex(EVIDENCE));
    for (Row e : ev) evidence.add(new Evidence(e.getAs(PAPER_ID), e.getAs(TEXT)));
    Map<String, String> papers = new LinkedHashMap<>();
    List<Row> ps = q.isNullAt(q.fieldIndex(PAPERS)) ? List.of() : q.getList(q.fieldIndex(PAPERS));
    for (Row p : ps) papers.put(p.getAs(PAPER_ID), p.getAs(NOISY_TEXT));
    String question = q.getAs(QUESTION);
    return new JudgeCase(question == null ? "" : question, evidence, papers, List.of());
  }
}
