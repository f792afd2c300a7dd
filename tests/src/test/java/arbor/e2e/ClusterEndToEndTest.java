package arbor.e2e;

import static org.apache.spark.sql.functions.array;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.sum;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.ingest.TestPdfs;
import arbor.tables.Cols;
import arbor.tables.RolloutNode;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A real Spark standalone cluster on loopback (bin/local-cluster: a master and two workers,
 * each a JVM, whose executors are JVMs again) runs the ingest job from a driver JVM of its own.
 * The driver is given relative paths from a working folder no executor shares, so any path an
 * executor would resolve on its own fails. While the executors parse (some papers done, not
 * all), worker 1 and its executor are killed: the job must still finish with every paper
 * exactly once. Then one {@code train} step over those papers (a tiny djl student that exists only
 * in the driver's folder, so executors must load it from the checkpoints table) runs on a fresh
 * pair of workers, and worker 1 is killed again while a rollout task runs on it (its executor's
 * log shows the attempt started, not ended; another attempt ends on worker 2): every tree is written
 * exactly once with all its nodes and turns, every root judged, every turn a sample, and the
 * learner's step-1 checkpoint is in the warehouse.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterEndToEndTest {
  private static final int PAPERS = 24;
  private static final int QUERIES_PER_STEP = 12;
  private static final Path JAR = TestEnv.REPO.resolve("jobs/target/arbor-jobs.jar");
  private final Path root = TestEnv.WORK.resolve("cluster-e2e");
  private final Path cluster = root.resolve("cluster");
  private final Path driverDir = root.resolve("driver");
  private final Set<String> titles = new TreeSet<>();

  @BeforeAll
  void startTheCluster() throws Exception {
    Assumptions.assumeTrue(Files.isRegularFile(JAR) && Files.isRegularFile(ChildJvm.FLAGS),
        "no jobs jar at " + JAR + " (mvn package builds it before this module's tests): cluster test skipped");
    if (Files.exists(cluster)) script("stop");
    arbor.jobs.cli.FileTrees.delete(root);
    Path corpus = Files.createDirectories(driverDir.resolve("corpus"));
    for (int i = 0; i < PAPERS; i++) {
      String title = String.format("Cluster Paper %02d On Distributed Evidence", i);
      titles.add(title);
      List<String> body = new ArrayList<>();
      for (int p = 0; p < 80; p++) {
        body.add("Paragraph " + p + " of paper " + i + " says something only this paper says, number " + (i * 100 + p) + ".");
      }
      Files.write(corpus.resolve("paper-" + i + ".pdf"),
          TestPdfs.paper(title, "The abstract of cluster paper " + i + ", long enough to be read as one.", body));
    }
    script("start", "--workers", "2", "--cores", "1", "--memory", "2500m", "--executor-memory", "2g");
  }

  @AfterAll
  void stopTheCluster() throws Exception {
    if (Files.exists(cluster.resolve("master.pid"))) script("stop");
  }

  private Process driver(Path log, String classPath, String mainClass, String... args) throws IOException {
    List<String> cmd = ChildJvm.command(List.of("-Xmx1g", "-Djava.io.tmpdir=" + root.resolve("tmp"),
        "-Dlog4j2.configurationFile=" + cluster.resolve("log4j2.properties")), classPath, mainClass, List.of(args));
    Files.createDirectories(root.resolve("tmp"));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(driverDir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    return pb.start();
  }

  @Test
  @Order(1)
  void ingestOnTwoWorkersSurvivesTheLossOfOneWithNoPaperLostOrDuplicated() throws Exception {
    Path log = root.resolve("driver.log");
    Process driver = driver(log, JAR.toString(), "arbor.jobs.Main", "ingest", "--conf", cluster.resolve("cluster.conf").toString(),
        // relative on purpose: only the driver's working folder resolves them
        "--set", "warehouse=warehouse", "--set", "data_dir=data", "--set", "ingest.files_per_task=1",
        // A progress line a second: the kill waits for one that shows parsing under way.
        "--set", "train.progress_seconds=1", "--papers", "corpus");
    try {
      // Kill worker 1 while the executors parse: some papers are done, not all, and worker 1's
      // executor has run tasks (so it holds work in flight or finished output to lose).
      Path executorLogs = cluster.resolve("worker-1/work");
      Pattern parsing = Pattern.compile("ingest: ([1-9]\\d*)/" + PAPERS + " files");
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
      while (true) {
        String sofar = Files.readString(log);
        Matcher m = parsing.matcher(sofar);
        boolean midParse = false;
        while (m.find()) midParse = Integer.parseInt(m.group(1)) < PAPERS;
        if (midParse && runsATask(executorLogs)) break;
        assertTrue(driver.isAlive(), "the driver ended before the kill:\n" + sofar);
        assertTrue(!sofar.contains("files parsed in"), "parsing ended before worker 1 could be killed:\n" + sofar);
        assertTrue(System.nanoTime() < deadline, "no parse progress with worker 1 busy in 10 minutes:\n" + sofar);
        Thread.sleep(100);
      }
      script("kill-worker", "1");
      assertTrue(driver.waitFor(20, TimeUnit.MINUTES), "the driver did not finish in 20 minutes");
    } finally {
      driver.destroyForcibly();
    }
    String out = Files.readString(log);
    assertEquals(0, driver.exitValue(), "the driver failed:\n" + out);
    // Worker 1 may host either executor id: any lost executor is the one killed.
    assertTrue(out.contains("Lost executor"), "the driver never noticed the lost executor:\n" + out);

    // No paper lost, none twice: read the warehouse the driver wrote, from this JVM.
    List<Row> rows = TestEnv.spark().read().format("delta").load(driverDir.resolve("warehouse/papers").toString())
        .select("paper_id", "title").collectAsList();
    Set<String> ids = new TreeSet<>();
    Set<String> read = new TreeSet<>();
    for (Row r : rows) {
      ids.add(r.getString(0));
      read.add(r.getString(1));
    }
    assertEquals(PAPERS, rows.size(), "one row per paper");
    assertEquals(PAPERS, ids.size(), "distinct paper ids");
    assertEquals(titles, read);

    // Both workers' executors ran in their own folders under the workers' work dirs.
    assertTrue(runsATask(cluster.resolve("worker-2/work")), "worker 2 ran the job's tasks");
  }

  @Test
  @Order(2)
  void aTrainStepOnTwoWorkersSurvivesTheLossOfOneWithNoRowLostOrDuplicated() throws Exception {
    Assumptions.assumeTrue(Files.isDirectory(driverDir.resolve("warehouse/papers")), "the ingest test wrote no papers");
    // Fresh workers: the first test killed one.
    script("stop");
    script("start", "--workers", "2", "--cores", "1", "--memory", "2500m", "--executor-memory", "2g");
    // The dataset: one query per ingested paper, in the train split, its group that paper alone.
    var spark = TestEnv.spark();
    String warehouse = driverDir.resolve("warehouse").toString();
    var papers = spark.read().format("delta").load(warehouse + "/papers");
    papers.select(concat(lit("g-"), col("paper_id")).as("group_id"), array(col("paper_id")).as("paper_ids"))
        .write().format("delta").save(warehouse + "/paper_groups");
    papers.select(concat(lit("q-"), col("paper_id")).as(Cols.QUERY_ID), concat(lit("g-"), col("paper_id")).as("group_id"),
        concat(lit("Which sentences of the paper state its numbered findings? ("), col("title"), lit(")")).as("question"),
        array(struct(col("paper_id"), lit("Paragraph 3 of the paper.").as("text"))).as("evidence"),
        lit("train").as(arbor.synthesis.Queries.SPLIT))
        .write().format("delta").save(warehouse + "/queries");
    // The student lives only in the driver's folder, under a relative path: executors must get
    // it from the checkpoints table (train saves it as step 0), never from this folder.
    TinyCorpus.student(driverDir.resolve("tiny-model"));

    Path log = root.resolve("train-driver.log");
    Process driver = driver(log, JAR.toString(), "arbor.jobs.Main", "train", "--conf", cluster.resolve("cluster.conf").toString(),
        "--set", "warehouse=warehouse", "--set", "data_dir=data", "--set", "policy.djl.model_dir=tiny-model",
        "--set", "rollouts.policy=djl", "--set", "rollouts.sandbox=in_process", "--set", "rollouts.samples=2",
        "--set", "rollouts.trees_per_task=2", "--set", "rlm.prompts=reduced", "--set", "rlm.max_turns=2",
        "--set", "policy.djl.sampling.max_new_tokens=12", "--set", "train.steps=1",
        "--set", "train.queries_per_step=" + QUERIES_PER_STEP, "--set", "train.progress_seconds=1", "--run", "cluster");
    int trees = QUERIES_PER_STEP * 2;
    Path worker1 = cluster.resolve("worker-1/work");
    List<RolloutAttempt> lost;
    try {
      // Kill worker 1 while rollouts run: trees are being written into the step's staging
      // folder (the Rollouts stage's output), and worker 1's executor has started a rollout
      // task it has not ended (RunTrees logs both).
      Path staging = driverDir.resolve("warehouse/_staging/rollouts");
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(15);
      while (true) {
        String sofar = Files.readString(log);
        if (TestEnv.hasParquet(staging) && !rolloutsInFlight(worker1).isEmpty()) break;
        assertTrue(driver.isAlive(), "the driver ended before worker 1 could be killed:\n" + sofar);
        assertTrue(!sofar.contains("step 1/1"), "the step ended before worker 1 could be killed:\n" + sofar);
        assertTrue(System.nanoTime() < deadline, "no rollout output in 15 minutes:\n" + sofar);
        Thread.sleep(100);
      }
      script("kill-worker", "1");
      // The dead executor's log is final: what it shows started and not ended died with it.
      lost = rolloutsInFlight(worker1);
      assertFalse(lost.isEmpty(), "no rollout task was in flight on worker 1 when it was killed");
      assertTrue(driver.waitFor(25, TimeUnit.MINUTES), "the train driver did not finish in 25 minutes");
    } finally {
      driver.destroyForcibly();
    }
    String out = Files.readString(log);
    assertEquals(0, driver.exitValue(), "the train driver failed:\n" + out);
    assertTrue(out.contains("Lost executor"), "the driver never noticed the lost executor:\n" + out);
    assertTrue(out.contains("step 1/1"), out);

    var nodes = spark.read().format("delta").load(warehouse + "/rollout_nodes").cache();
    var turns = spark.read().format("delta").load(warehouse + "/rollout_turns");
    var roots = nodes.filter(col(RolloutNode.PARENT_ID).isNull());
    assertEquals(trees, roots.count(), "one root per query and sample");
    assertEquals(trees, roots.select(Cols.QUERY_ID, Cols.SAMPLE).distinct().count(), "no tree twice");
    // The attempts killed mid-rollout ran again on worker 2 (another attempt of the same task),
    // and their trees are in the table.
    Set<String> written = new TreeSet<>();
    for (Row r : roots.select(Cols.QUERY_ID, Cols.SAMPLE).collectAsList()) written.add(r.getString(0) + "#" + r.getInt(1));
    String worker2 = rolloutLog(cluster.resolve("worker-2/work"));
    for (RolloutAttempt a : lost) {
      Matcher m = Pattern.compile("rollouts: task " + a.partition() + "\\.\\d+ in stage " + a.stage()
          + "\\.\\d+ \\(TID (\\d+)\\) ended").matcher(worker2);
      boolean rerun = false;
      while (m.find()) rerun |= Long.parseLong(m.group(1)) != a.tid();
      assertTrue(rerun, "the rollout task killed on worker 1 (" + a + ") was not run again on worker 2");
      assertTrue(written.containsAll(a.trees()), "the killed task's trees " + a.trees() + " are not all written");
    }
    assertEquals(nodes.count(), nodes.select(Cols.NODE_ID).distinct().count(), "no node twice");
    long turnRows = turns.count();
    long turnsOfNodes = nodes.agg(sum(RolloutNode.TURNS)).first().getLong(0);
    assertEquals(turnsOfNodes, turnRows, "every node's turns, once each");
    assertEquals(turnRows, turns.select(Cols.NODE_ID, Cols.TURN).distinct().count(), "no turn twice");
    assertEquals(0, roots.where(col(RolloutNode.STATUS).isin("sandbox_lost", "infra_error")).count(),
        "no tree lost to the killed worker");
    assertEquals(trees, spark.read().format("delta").load(warehouse + "/rewards").count(), "one reward per root");
    assertEquals(turnRows, spark.read().format("delta").load(warehouse + "/samples").count(), "one sample per turn");
    nodes.unpersist();
    // The learner's step is a checkpoint in the warehouse, readable from here.
    var store = new arbor.pipelines.checkpoints.CheckpointStore(spark, new arbor.pipelines.warehouse.Warehouse(spark, warehouse),
        arbor.jobs.conf.ConfigLoader.load(List.of(), List.of()).checkpoints());
    assertEquals(List.of(0L, 1L), store.steps("cluster", arbor.policy.checkpoint.TableVersion.LATEST));
    // Both workers' executors ran tasks, in their own folders.
    assertTrue(runsATask(cluster.resolve("worker-2/work")), "worker 2 ran the step's tasks");
  }

  /** A rollout task attempt as RunTrees logs it on its executor. */
  private record RolloutAttempt(int partition, int stage, long tid, List<String> trees) {}

  private static final Pattern ROLLOUT_STARTED =
      Pattern.compile("rollouts: task (\\d+)\\.\\d+ in stage (\\d+)\\.\\d+ \\(TID (\\d+)\\) runs \\d+ trees \\[(.*)\\]");
  private static final Pattern ROLLOUT_ENDED = Pattern.compile("rollouts: task \\d+\\.\\d+ in stage \\d+\\.\\d+ \\(TID (\\d+)\\) ended");

  /** The rollout task attempts that the executors under {@code workDir} started and did not end. */
  private static List<RolloutAttempt> rolloutsInFlight(Path workDir) throws IOException {
    String logs = rolloutLog(workDir);
    Set<Long> ended = new TreeSet<>();
    for (Matcher m = ROLLOUT_ENDED.matcher(logs); m.find(); ) ended.add(Long.parseLong(m.group(1)));
    List<RolloutAttempt> out = new ArrayList<>();
    for (Matcher m = ROLLOUT_STARTED.matcher(logs); m.find(); ) {
      long tid = Long.parseLong(m.group(3));
      if (!ended.contains(tid)) {
        out.add(new RolloutAttempt(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), tid,
            List.of(m.group(4).split(", "))));
      }
    }
    return out;
  }

  /** The executors' logs under {@code workDir}, together. */
  private static String rolloutLog(Path workDir) throws IOException {
    if (!Files.isDirectory(workDir)) return "";
    StringBuilder all = new StringBuilder();
    try (Stream<Path> files = Files.walk(workDir)) {
      for (Path f : files.filter(p -> p.getFileName().toString().equals("stderr")).toList()) {
        all.append(Files.readString(f, StandardCharsets.UTF_8)).append('\n');
      }
    } catch (java.io.UncheckedIOException e) {
      return ""; // an executor's folder appeared as we walked: the next poll sees it
    }
    return all.toString();
  }

  private static boolean runsATask(Path workDir) throws IOException {
    if (!Files.isDirectory(workDir)) return false;
    try (Stream<Path> files = Files.walk(workDir)) {
      for (Path f : files.filter(p -> p.getFileName().toString().equals("stderr")).toList()) {
        if (Files.readString(f, StandardCharsets.UTF_8).contains("Running task")) return true;
      }
    }
    return false;
  }

  private void script(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(TestEnv.REPO.resolve("bin/local-cluster").toString()));
    cmd.addAll(List.of(args));
    cmd.addAll(List.of("--dir", cluster.toString()));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    File out = root.resolve("local-cluster-" + args[0] + ".log").toFile();
    Files.createDirectories(root);
    Process p = pb.redirectOutput(out).start();
    assertTrue(p.waitFor(5, TimeUnit.MINUTES), "bin/local-cluster " + args[0] + " hung");
    assertEquals(0, p.exitValue(), "bin/local-cluster " + String.join(" ", args) + " failed:\n" + Files.readString(out.toPath()));
  }
}
