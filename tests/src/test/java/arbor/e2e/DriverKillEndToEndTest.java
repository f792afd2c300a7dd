package arbor.e2e;

import static arbor.e2e.TrainFixture.RUN;
import static arbor.e2e.TrainFixture.duplicates;
import static arbor.e2e.TrainFixture.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.pipelines.checkpoints.CheckpointStore;
import arbor.conf.ArborConfig;
import arbor.policy.checkpoint.AdamWStates;
import arbor.policy.checkpoint.Checkpoint;
import arbor.policy.checkpoint.TableVersion;
import arbor.policy.train.AdamWState;
import arbor.pipelines.rollouts.RolloutWriter;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code arbor train} in a driver JVM of its own, killed with SIGKILL (no finally block, no
 * shutdown hook, no Spark shutdown: what a lost machine or the OOM killer does), twice in one run:
 * right after step 1's checkpoint, and again, once resumed, while step 2's rollouts have trees
 * staged. A third driver resumes the run to its end. Every step table then holds each step's rows
 * once, the checkpoints table each step once (no chunk of a killed save left), the killed step's
 * staged trees are gone, and the step-2 checkpoint (weights and AdamW state) is the uninterrupted
 * run's ({@link TrainFixture#straight()}, same configuration and seeds). The sandbox worker that
 * each killed driver had started ends by itself: it reads end-of-input once its parent is gone.
 */
class DriverKillEndToEndTest {
  private static final long DRIVER_MINUTES = 10;
  /** How long a killed driver's workers may outlive it. */
  private static final long ORPHAN_SECONDS = 30;
  private final Path root = TestEnv.WORK.resolve("driver-kill-e2e");
  private final Path warehouse = root.resolve("warehouse");
  private final Path model = root.resolve("tiny-model");

  /**
   * The processes a driver had started, alive when it was killed; when the SIGKILL went, and
   * when the driver was gone ({@link System#nanoTime}).
   */
  private record Killed(List<ProcessHandle> left, long at, long gone) {}

  /** A moment of the driver's run, judged from its console so far. */
  private interface Moment {
    boolean reached(String console) throws IOException;
  }

  @Test
  void aDriverKilledAfterACheckpointAndAgainInItsRolloutsResumesToTheUninterruptedRunsCheckpoint() throws Exception {
    TrainFixture.Straight straight = TrainFixture.straight();
    ArborConfig config = TrainFixture.prepare(root);
    Warehouse w = new Warehouse(TestEnv.spark(), config.warehouse());
    CheckpointStore store = new CheckpointStore(TestEnv.spark(), w, config.checkpoints());
    Path staging = Path.of(URI.create(new RolloutWriter(w, config.rollouts()).stagingPath(RUN, 1)));

    // (b) Between steps: step 1's console line comes after its checkpoint commit.
    Path log1 = root.resolve("driver-1.log");
    Killed kill1 = killWhen(driver(log1, "--run", RUN), log1, "step 1's checkpoint",
        console -> console.contains("step 1/2"));
    assertAllEnd(kill1, "after step 1's checkpoint");
    assertEquals(List.of(0L, 1L), store.steps(RUN, TableVersion.LATEST), "the first driver checkpointed step 1");

    // (a) In step 2's rollouts: a task has written trees into the step's staging folder.
    Path log2 = root.resolve("driver-2.log");
    Killed kill2 = killWhen(driver(log2, "--run", RUN, "--resume"), log2, "step 2's staged trees",
        console -> TestEnv.hasParquet(staging));
    assertAllEnd(kill2, "in step 2's rollouts");
    assertTrue(Files.readString(log2).contains("steps 2..2 of 2"), "the second driver resumed at step 2:\n" + Files.readString(log2));
    assertTrue(TestEnv.hasParquet(staging), "the killed driver left step 2's staged trees behind");
    assertEquals(List.of(0L, 1L), store.steps(RUN, TableVersion.LATEST), "no step-2 checkpoint from the killed driver");

    // To the end, in a third driver.
    Path log3 = root.resolve("driver-3.log");
    long t0 = System.nanoTime();
    Process last = driver(log3, "--run", RUN, "--resume");
    assertTrue(last.waitFor(DRIVER_MINUTES, TimeUnit.MINUTES), "the resumed driver did not finish in " + DRIVER_MINUTES + " minutes");
    String out = Files.readString(log3);
    System.out.printf("driver kill: the last driver ran %.1f s%n", (System.nanoTime() - t0) / 1e9);
    assertEquals(0, last.exitValue(), "the resumed driver failed:\n" + out);
    assertTrue(out.contains("steps 2..2 of 2") && out.contains("step 2/2") && out.contains("latest checkpoint is step 2"), out);
    assertFalse(Files.exists(staging), "the rerun step removed the staged trees it wrote its tables from");

    // One copy of every step's rows, as many as the uninterrupted run's.
    Warehouse s = straight.warehouse();
    for (Table t : TrainFixture.STEP_TABLES) {
      assertEquals(0, duplicates(w, t), "duplicate keys in " + t.tableName);
      for (long step = 0; step < TrainFixture.STEPS; step++) {
        long n = rows(w, t, step);
        assertTrue(n > 0, t.tableName + " has no rows of step " + step);
        assertEquals(rows(s, t, step), n, t.tableName + " rows of step " + step);
      }
    }
    assertEquals(0, duplicates(w, Table.CHECKPOINTS), "duplicate chunks in checkpoints");
    assertEquals(List.of(0L, 1L, 2L), store.steps(RUN, TableVersion.LATEST));
    for (long step = 0; step <= TrainFixture.STEPS; step++) {
      assertEquals(rows(s, Table.CHECKPOINTS, step), rows(w, Table.CHECKPOINTS, step), "checkpoint rows of step " + step);
    }

    // The uninterrupted run's step 2: weights and optimizer state.
    Checkpoint want = new CheckpointStore(TestEnv.spark(), s, straight.config().checkpoints()).load(RUN, TrainFixture.STEPS);
    Checkpoint got = store.load(RUN, TrainFixture.STEPS);
    assertEquals(TrainFixture.names(want), TrainFixture.names(got));
    double weights = TrainFixture.maxWeightDiff(want, got);
    AdamWState a = AdamWStates.fromOptimizerState(want.optimizer());
    AdamWState b = AdamWStates.fromOptimizerState(got.optimizer());
    assertEquals(a.step(), b.step(), "AdamW's step count");
    assertEquals(TrainFixture.STEPS, b.step(), "AdamW's step count");
    double[] m = maxDiff(a.firstMoments(), b.firstMoments());
    double[] v = maxDiff(a.secondMoments(), b.secondMoments());
    System.out.printf("driver kill: step 2 after two kills against the uninterrupted run: weights differ by at most %g;"
        + " first moments by %g (largest %g), second moments by %g (largest %g)%n", weights, m[0], m[1], v[0], v[1]);
    assertTrue(weights <= 1e-6, "the step-2 weights differ by " + weights);
    assertTrue(m[0] <= 1e-6 * Math.max(1, m[1]), "AdamW's first moments differ by " + m[0]);
    assertTrue(v[0] <= 1e-6 * Math.max(1, v[1]), "AdamW's second moments differ by " + v[0]);
  }

  /** {@code train} in a JVM of its own, over this test's warehouse and the fixture's settings. */
  private Process driver(Path log, String... trainArgs) throws IOException {
    List<String> args = new ArrayList<>(List.of("train"));
    for (String setting : TestEnv.SPARK_SETTINGS) args.addAll(List.of("--set", setting));
    args.addAll(List.of("--set", "spark.local_dir=" + root.resolve("spark")));
    for (String setting : TrainFixture.settings(warehouse, model)) args.addAll(List.of("--set", setting));
    args.addAll(List.of(trainArgs));
    List<String> options = new ArrayList<>(List.of("-Xmx1g", "-XX:TieredStopAtLevel=1"));
    for (String p : List.of("polyglot.engine.userResourceCache", "log4j2.configurationFile")) {
      if (System.getProperty(p) != null) options.add("-D" + p + "=" + System.getProperty(p));
    }
    List<String> cmd = ChildJvm.command(options, System.getProperty("java.class.path"), "arbor.jobs.Main", args);
    return new ProcessBuilder(cmd).directory(root.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  /**
   * Waits for the moment, then SIGKILLs the driver; returns the processes it had started (its
   * sandbox worker among them), alive when it died.
   */
  private static Killed killWhen(Process driver, Path log, String moment, Moment reached) throws Exception {
    long t0 = System.nanoTime();
    long deadline = t0 + TimeUnit.MINUTES.toNanos(DRIVER_MINUTES);
    try {
      while (true) {
        String sofar = Files.readString(log);
        if (reached.reached(sofar)) break;
        assertTrue(driver.isAlive(), "the driver ended before " + moment + ":\n" + sofar);
        assertFalse(sofar.contains("step 2/2"), "step 2 ended before the kill at " + moment + ":\n" + sofar);
        assertTrue(System.nanoTime() < deadline, "no " + moment + " in " + DRIVER_MINUTES + " minutes:\n" + sofar);
        Thread.sleep(50);
      }
      List<ProcessHandle> started = driver.descendants().toList();
      // Read before the kill: a process that has ended has no command line to read.
      boolean worker = started.stream().anyMatch(p -> commandLine(p).contains("arbor.rlm.sandbox.WorkerMain"));
      driver.destroyForcibly();
      long at = System.nanoTime();
      assertTrue(driver.waitFor(1, TimeUnit.MINUTES), "the killed driver did not end");
      long gone = System.nanoTime();
      System.out.printf("driver kill: killed at %s, %.1f s after its start, with %d processes of its own; gone %.2f s"
          + " after the SIGKILL%n", moment, (at - t0) / 1e9, started.size(), (gone - at) / 1e9);
      assertEquals(137, driver.exitValue(), "the driver died of SIGKILL (128 + 9)");
      assertTrue(worker, "the driver had a sandbox worker running at " + moment + ": " + started);
      return new Killed(started, at, gone);
    } finally {
      driver.destroyForcibly();
    }
  }

  /**
   * A process's whole command line. {@link ProcessHandle.Info} cuts it at 4 KiB, before the
   * main class of a JVM with the test class path; Linux's /proc has all of it.
   */
  private static String commandLine(ProcessHandle p) {
    try {
      return new String(Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "cmdline")),
          java.nio.charset.StandardCharsets.UTF_8).replace('\0', ' ');
    } catch (IOException e) {
      return p.info().commandLine().orElse("");
    }
  }

  /** Every process the killed driver left ends by itself, within {@value #ORPHAN_SECONDS} s. */
  private static void assertAllEnd(Killed kill, String moment) throws InterruptedException {
    List<ProcessHandle> orphans = kill.left();
    long deadline = kill.at() + TimeUnit.SECONDS.toNanos(ORPHAN_SECONDS);
    while (orphans.stream().anyMatch(ProcessHandle::isAlive)) {
      if (System.nanoTime() > deadline) {
        List<ProcessHandle> alive = orphans.stream().filter(ProcessHandle::isAlive).toList();
        alive.forEach(ProcessHandle::destroyForcibly);
        throw new AssertionError(alive.size() + " processes of the driver killed " + moment + " still ran "
            + ORPHAN_SECONDS + " s later: " + alive.stream().map(p -> p.pid() + " " + p.info().command().orElse("?")).toList());
      }
      Thread.sleep(50);
    }
    System.out.printf("driver kill: the %d processes left by the driver killed %s had ended %.2f s after the kill%n",
        orphans.size(), moment, (System.nanoTime() - kill.at()) / 1e9);
  }

  /** The largest element-wise difference between two moment maps, and the largest magnitude. */
  private static double[] maxDiff(java.util.Map<String, float[]> a, java.util.Map<String, float[]> b) {
    assertEquals(a.keySet(), b.keySet());
    double diff = 0;
    double max = 0;
    for (var e : a.entrySet()) {
      float[] x = e.getValue();
      float[] y = b.get(e.getKey());
      assertEquals(x.length, y.length, e.getKey());
      for (int i = 0; i < x.length; i++) {
        diff = Math.max(diff, Math.abs(x[i] - y[i]));
        max = Math.max(max, Math.abs(x[i]));
      }
    }
    return new double[] {diff, max};
  }
}
