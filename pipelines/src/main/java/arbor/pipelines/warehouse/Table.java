package arbor.pipelines.warehouse;

import java.util.List;

/** Every Delta table of the warehouse, with its fixed name and key columns. */
public enum Table {
  PAPERS("papers", "paper_id"),
  PAPER_EMBEDDINGS("paper_embeddings", "paper_id", "model"),
  INGEST_ERRORS("ingest_errors", "source", "path"),
  SOURCE_QUESTIONS("source_questions", "question_id"),
  PAPER_GROUPS("paper_groups", "group_id"),
  QUERIES("queries", "query_id"),
  SYNTHESIS_ERRORS("synthesis_errors", "group_id", "generator"),
  REFRESH_RUNS("refresh_runs", "run_id"),
  ROLLOUT_NODES("rollout_nodes", "run_id", "step", "node_id"),
  ROLLOUT_TURNS("rollout_turns", "run_id", "step", "node_id", "turn"),
  REWARDS("rewards", "run_id", "step", "node_id"),
  SAMPLES("samples", "run_id", "step", "node_id", "turn"),
  TEACHER_RUNS("teacher_runs", "trace_key"),
  CHECKPOINTS("checkpoints", "run_id", "step", "tensor", "chunk"),
  METRICS("metrics", "run_id", "step", "name"),
  EVAL("eval", "run_id", "step", "policy", "split", "query_id", "sample");

  public final String tableName;
  public final List<String> keys;

  Table(String tableName, String... keys) {
    this.tableName = tableName;
    this.keys = List.of(keys);
  }

  /** The command that first writes the table: what a job that finds it missing tells the user to run. */
  public String writtenBy() {
    return switch (this) {
      case PAPERS, INGEST_ERRORS, SOURCE_QUESTIONS -> "bin/arbor ingest --papers PATH (after bin/arbor setup, or bin/arbor demo)";
      case PAPER_EMBEDDINGS, PAPER_GROUPS, QUERIES, SYNTHESIS_ERRORS -> "bin/arbor synthesize (after ingest)";
      case REFRESH_RUNS -> "bin/arbor refresh";
      case ROLLOUT_NODES, ROLLOUT_TURNS, REWARDS, SAMPLES, METRICS, CHECKPOINTS -> "bin/arbor train (or sft)";
      case TEACHER_RUNS -> "bin/arbor sft";
      case EVAL -> "bin/arbor eval";
    };
  }
}
