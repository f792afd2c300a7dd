package arbor.rlm.runtime;

import static arbor.tables.Cols.*;

import arbor.conf.PolicyKind;
import arbor.policy.files.ChatMessage;
import arbor.rlm.NodeRecord;
import arbor.rlm.NodeStatus;
import arbor.rlm.Turn;
import arbor.tables.RolloutNode;
import arbor.tables.RolloutTurn;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The rows the rollout stage moves: one {@link #TASK} row per tree to run (a query's question and
 * papers, and which sample of it), and one {@link #TREE} row per tree that ran, holding its
 * {@code rollout_nodes} and {@code rollout_turns} rows nested, so that a step's trees are computed
 * once and both tables are written from the same result.
 */
public final class TreeRows {
  private TreeRows() {}

  public static final String QUESTION = "question";
  /** The query's papers, in their group's order; the tree's context is paper id -> noisy text. */
  public static final String PAPER_IDS = "paper_ids";
  public static final String PAPER_TEXTS = "paper_texts";
  public static final String STATUS = "status";
  /** Whether the tree ended in an infrastructure failure: left out of its group, never a zero reward. */
  public static final String INFRA_FAILURE = "infra_failure";
  public static final String ERROR = "error";
  public static final String LATENCY_MS = "latency_ms";
  /** The run whose checkpoints serve the policy version (a task's own run, or the run an evaluation rolls out). */
  public static final String POLICY_RUN = "policy_run_id";
  /**
   * What a tree's seed is drawn from, with its query and sample ({@link arbor.rlm.TreeSeed#of}):
   * a training step's own run and step, or a key shared by the runs that must draw the same
   * seeds (an evaluation's split, so that every policy and checkpoint meets the same draws).
   */
  public static final String SEED_RUN = "seed_run";
  public static final String SEED_STEP = "seed_step";
  public static final String NODES = "nodes";
  public static final String TURNS = "turns";

  /**
   * The status of a tree the harness could not run at all (the runner itself failed); its root
   * row carries it. Like {@code sandbox_lost}, an infrastructure failure.
   */
  public static final String INFRA_ERROR = "infra_error";
  /** The status of a node whose REPL was lost to another node's cell and could not be restored. */
  public static final String SANDBOX_LOST = NodeStatus.SANDBOX_LOST.key();

  public static final StructType TASK = new StructType()
      .add(RUN_ID, DataTypes.StringType, false)
      .add(STEP, DataTypes.LongType, false)
      .add(QUERY_ID, DataTypes.StringType, false)
      .add(SAMPLE, DataTypes.IntegerType, false)
      .add(QUESTION, DataTypes.StringType, false)
      .add(PAPER_IDS, STRINGS, false)
      .add(PAPER_TEXTS, STRINGS, false)
      .add(POLICY_VERSION, DataTypes.LongType, false)
      .add(POLICY_RUN, DataTypes.StringType, false)
      .add(SEED_RUN, DataTypes.StringType, false)
      .add(SEED_STEP, DataTypes.LongType, false);

  public static final StructType TREE = new StructType()
      .add(RUN_ID, DataTypes.StringType, false)
      .add(STEP, DataTypes.LongType, false)
      .add(QUERY_ID, DataTypes.StringType, false)
      .add(SAMPLE, DataTypes.IntegerType, false)
      .add(ROOT_ID, DataTypes.StringType, false)
      .add(STATUS, DataTypes.StringType, false)
      .add(INFRA_FAILURE, DataTypes.BooleanType, false)
      .add(ERROR, DataTypes.StringType, true)
      .add(LATENCY_MS, DataTypes.LongType, false)
      .add(NODES, DataTypes.createArrayType(RolloutNode.SCHEMA, false), false)
      .add(TURNS, DataTypes.createArrayType(RolloutTurn.SCHEMA, false), false);

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The id of a tree within its step; its node ids are {@code <tree id>:root}, {@code <tree id>:root.0}, ... */
  public static String treeId(String queryId, int sample) {
    return queryId + "#" + sample;
  }

  /** A tree's identity in its step, what policy wrote it and with which version. */
  public record TreeKey(String runId, long step, String queryId, int sample, PolicyKind policy, long version) {}

  /** Whether a node's end is the harness's fault rather than the policy's. */
  public static boolean isInfraFailure(String statusKey, PolicyKind policy) {
    return statusKey.equals(SANDBOX_LOST) || statusKey.equals(INFRA_ERROR)
        // An endpoint that still fails after its retries never answered; a djl policy_error
        // (a prompt longer than the model) is the policy's own doing.
        || (policy.isEndpoint() && statusKey.equals(NodeStatus.POLICY_ERROR.key()));
  }

  /** The tree row of a finished tree. */
  public static Row tree(TreeKey k, List<NodeRecord> nodes, long latencyMillis) {
    List<Row> nodeRows = new ArrayList<>();
    List<Row> turnRows = new ArrayList<>();
    boolean infra = false;
    String rootId = nodes.getFirst().rootId();
    for (NodeRecord n : nodes) {
      infra |= isInfraFailure(n.status().key(), k.policy());
      long latency = n.parentId() == null ? latencyMillis : n.latencyMillis();
      nodeRows.add(node(k, n.nodeId(), n.parentId(), n.rootId(), n.depth(), n.childIndex(), n.numChildren(), n.prompt(),
          n.finalAnswerJson(), n.status().key(), describe(n), n.turns().size(), n.genTokens(), latency));
      for (Turn t : n.turns()) {
        turnRows.add(turn(k, n.nodeId(), t));
      }
    }
    NodeRecord root = nodes.getFirst();
    return RowFactory.create(k.runId(), k.step(), k.queryId(), k.sample(), rootId, root.status().key(), infra,
        infra ? "a node of the tree ended in an infrastructure failure" : describe(root), latencyMillis,
        seq(nodeRows), seq(turnRows));
  }

  /** The tree row of a tree the harness could not run: a root row with {@link #INFRA_ERROR}. */
  public static Row failed(TreeKey k, String question, Throwable error, long latencyMillis) {
    String treeId = treeId(k.queryId(), k.sample());
    String rootId = treeId + ":root";
    String why = "the tree could not run: " + error;
    Row root = node(k, rootId, null, rootId, 0, -1, 0, question, null, INFRA_ERROR, why, 0, 0, latencyMillis);
    return RowFactory.create(k.runId(), k.step(), k.queryId(), k.sample(), rootId, INFRA_ERROR, true, why,
        latencyMillis, seq(List.of(root)), seq(List.of()));
  }

  private static Row node(TreeKey k, String nodeId, String parentId, String rootId, int depth, int childIndex,
      int numChildren, String prompt, String finalAnswer, String status, String error, int turns, long genTokens,
      long latency) {
    return new RolloutNode(k.runId(), k.step(), nodeId, k.queryId(), k.sample(), parentId, rootId, depth, childIndex,
        numChildren, prompt, finalAnswer, status, error, turns, genTokens, latency, k.policy().key(), k.version())
        .toRow();
  }

  private static Row turn(TreeKey k, String nodeId, Turn t) {
    return new RolloutTurn(k.runId(), k.step(), nodeId, t.index(), messages(t.prompt()), ints(t.promptTokenIds()),
        ints(t.responseTokenIds()), floats(t.logprobs()), t.response(), t.code(), t.observation(), t.replError(),
        t.finish().key(), t.truncated(), t.sampling().temperature(), t.sampling().topP(), t.sampling().topK(),
        t.seed(), k.version(), t.genMillis(), t.execMillis()).toRow();
  }

  /** Why a node ended without a final answer, in words (null when it gave one). */
  static String describe(NodeRecord n) {
    return switch (n.status()) {
      case FINAL -> null;
      case MAX_TURNS -> "used its " + n.turns().size() + " turns without a final answer";
      case SANDBOX_ERROR -> "its own cell ran away (ignored its interrupt) and cost it its REPL";
      case SANDBOX_LOST -> "its REPL was lost to another node's cell or a worker failure and could not be restored";
      case POLICY_ERROR -> "the policy failed to answer";
      case CANCELLED -> "stopped because an ancestor stopped";
      case BUDGET -> "a budget of its tree ran out (nodes, tokens or wall time)";
      default -> n.status().key();
    };
  }

  private static String messages(List<ChatMessage> messages) {
    ArrayNode out = JSON.createArrayNode();
    for (ChatMessage m : messages) {
      out.addObject().put("role", m.role().key()).put("content", m.content());
    }
    try {
      return JSON.writeValueAsString(out);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<Integer> ints(int[] v) {
    if (v == null) {
      return null;
    }
    List<Integer> list = new ArrayList<>(v.length);
    for (int x : v) {
      list.add(x);
    }
    return list;
  }

  private static List<Float> floats(float[] v) {
    if (v == null) {
      return null;
    }
    List<Float> list = new ArrayList<>(v.length);
    for (float x : v) {
      list.add(x);
    }
    return list;
  }
}
