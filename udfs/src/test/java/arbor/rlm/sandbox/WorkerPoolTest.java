package arbor.rlm.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The isolated sandbox: cells run in worker processes that the host can kill and replace. */
class WorkerPoolTest {
  static final String CONTEXT = "{\"p1\": \"Title\\nAbstract\\nSome text about parameters.\"}";

  @Test
  void cellsRunInAWorkerProcessNotInThisJvm() {
    WorkerPool pool = TestPools.shared();
    try (SandboxSession s = pool.open(CONTEXT, HostBridge.NONE)) {
      CellResult r = s.execute("x = sorted(context)\nprint(x, len(search(context, 'parameters')))");
      assertTrue(r.stdout().endsWith("\n['p1'] 1\n"), r.stdout() + r.stderr());
      assertEquals(CellStatus.COMPLETED, r.status());
    }
    List<Long> pids = pool.workerPids();
    assertFalse(pids.isEmpty());
    assertFalse(pids.contains(ProcessHandle.current().pid()));
  }

  @Test
  void hostCallbacksCrossTheProcessBoundaryAndPauseTheClock() {
    AtomicInteger calls = new AtomicInteger();
    HostBridge bridge = (name, args) -> {
      calls.incrementAndGet();
      sleep(4_000); // longer than the 3 s cell limit: waiting for a child must not count
      return "{\"name\": \"" + name + "\", \"args\": " + args + "}";
    };
    try (SandboxSession s = TestPools.shared().open(CONTEXT, bridge)) {
      CellResult r = s.execute("r = rlm_query_batched(['a', 'b'], ['x', 'y'])\nprint(r['name'], r['args'])");
      assertEquals(CellStatus.COMPLETED, r.status(), r.stderr());
      assertEquals("rlm_query_batched [['a', 'b'], ['x', 'y']]\n", r.stdout());
      assertEquals(1, calls.get());
    }
  }

  @Test
  void anInterruptibleRunawayCellTimesOutAndTheReplKeepsItsState() {
    try (SandboxSession s = TestPools.shared().open(CONTEXT, HostBridge.NONE)) {
      CellResult r = s.execute("kept = 'yes'\nwhile True:\n  pass");
      assertEquals(CellStatus.TIMED_OUT, r.status(), r.stderr());
      assertTrue(r.stderr().contains("wall-time limit"), r.stderr());
      assertEquals("yes\n", s.execute("print(kept)").stdout());
    }
  }

  @Test
  void aRunawayCellCostsOnlyItsOwnReplItsWorkerServesTheOthersToTheirEndAtFullSpeed() throws Exception {
    // One worker, so that the parent, the co-tenant and the runaway surely share it, with one CPU
    // slot: if the runaway kept its slot after it was stopped, the parent and the co-tenant could
    // never compute again.
    CountDownLatch parentWaits = new CountDownLatch(1);
    CountDownLatch childAnswers = new CountDownLatch(1);
    AtomicInteger children = new AtomicInteger();
    AtomicInteger completions = new AtomicInteger();
    HostBridge parentBridge = (name, args) -> {
      children.incrementAndGet();
      parentWaits.countDown();
      await(childAnswers);
      return "\"child answer\"";
    };
    HostBridge llm = (name, args) -> {
      completions.incrementAndGet();
      return "\"completion\"";
    };
    ExecutorService cells = Executors.newVirtualThreadPerTaskExecutor();
    try (WorkerPool pool = new WorkerPool(TestPools.config(1, 1), TestPools.LIMITS)) {
      SandboxSession cotenant = pool.open(CONTEXT, llm);
      SandboxSession parent = pool.open(CONTEXT, parentBridge);
      SandboxSession runaway = pool.open(CONTEXT, HostBridge.NONE);
      assertEquals(CellStatus.COMPLETED, cotenant.execute("y = 2\nz = llm_query('x')\nw = [y] * 3").status());
      Future<CellResult> parentCell = cells.submit(() -> parent.execute("before = 'kept'\nr = rlm_query('q')\nprint(before, r)"));
      assertTrue(parentWaits.await(60, TimeUnit.SECONDS));
      long pid = pool.workerPids().getFirst();

      CellResult r = runaway.execute("sum(range(10**13))");
      assertEquals(CellStatus.KILLED, r.status());
      assertTrue(r.stderr().contains("did not stop when interrupted"), r.stderr());
      assertTrue(runaway.execute("print(1)").status().replGone());
      // Retired, not killed: it takes no new REPL, and the runaway computes on idle CPU time only.
      assertFalse(pool.workerPids().contains(pid));
      assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the retired worker serves on");
      // The worker demotes the thread once its own interrupt grace has passed, which it counts
      // from the interrupt's arrival: a moment after the host has given the cell up.
      long demotedBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (idleThreads(pid) < 1 && System.nanoTime() < demotedBy) sleep(100);
      assertTrue(idleThreads(pid) >= 1, "the runaway's thread runs at idle priority");
      try (SandboxSession fresh = pool.open(CONTEXT, HostBridge.NONE)) {
        assertEquals("2\n", fresh.execute("print(1 + 1)").stdout());
        assertFalse(pool.workerPids().contains(pid));
      }

      // The parent's cell, waiting for its child, goes on where it was; the co-tenant too: no
      // replay, so no child or completion is asked twice.
      childAnswers.countDown();
      CellResult p = parentCell.get(120, TimeUnit.SECONDS);
      assertEquals(CellStatus.COMPLETED, p.status(), p.stderr());
      assertEquals("kept child answer\n", p.stdout());
      assertEquals(1, children.get());
      CellResult other = cotenant.execute("print(y, z, w)");
      assertEquals(CellStatus.COMPLETED, other.status(), other.stderr());
      assertEquals("2 completion [2, 2, 2]\n", other.stdout());
      assertEquals(1, completions.get());

      // Once its REPLs have closed, the retired worker is stopped.
      runaway.close();
      parent.close();
      cotenant.close();
      ProcessHandle old = ProcessHandle.of(pid).orElseThrow();
      old.onExit().get(30, TimeUnit.SECONDS);
      assertFalse(old.isAlive());
    } finally {
      cells.shutdownNow();
    }
  }

  /** Threads of process {@code pid} at idle priority: SCHED_IDLE (policy 5), or nice 19 where chrt is absent. */
  private static long idleThreads(long pid) throws java.io.IOException {
    try (var tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc", Long.toString(pid), "task"))) {
      return tasks.filter(t -> {
        try {
          String stat = java.nio.file.Files.readString(t.resolve("stat"));
          String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          return fields[41 - 3].equals("5") || fields[19 - 3].equals("19");
        } catch (java.io.IOException e) {
          return false;
        }
      }).count();
    }
  }

  @Test
  void everyReplOfAKilledWorkerIsRestoredThoughItsReplayQueuesLongerThanACellMayRun() throws Exception {
    // One worker with one CPU slot. When it dies, its busy REPLs restart their running cells
    // in the fresh worker ahead of the idle REPLs' replays, which then wait for the slot for longer
    // than any one cell may compute. A replay waiting its turn is not late; only one that
    // computes too long has diverged.
    SandboxLimits limits = new SandboxLimits(Duration.ofSeconds(3), Duration.ofMillis(500), 4_000);
    ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    List<SandboxSession> busy = new java.util.ArrayList<>();
    List<SandboxSession> idle = new java.util.ArrayList<>();
    try (WorkerPool pool = new WorkerPool(TestPools.config(1, 1), limits)) {
      SandboxSession probe = pool.open(CONTEXT, HostBridge.NONE);
      busy.add(probe);
      // About 1.2 s of computing per busy cell on this machine, measured, not assumed: much more
      // than opening a REPL, so that the restarted cells pile up while the REPLs reopen.
      long k = 200_000;
      k = k * 1200 / Math.max(1, probe.execute(busy(k)).activeMillis());
      long perCell = Math.max(1, probe.execute(busy(k)).activeMillis());
      // Past the cell limit plus the fixed allowance a replay once had, counted from its sending.
      long queue = limits.cellWallTime().toMillis() + 2 * limits.interruptGrace().toMillis() + 16_000;
      int count = (int) Math.min(32, queue / perCell + 1);
      List<Future<SandboxSession>> opening = new java.util.ArrayList<>();
      for (int i = 1; i < count; i++) {
        opening.add(threads.submit(() -> pool.open(CONTEXT, HostBridge.NONE)));
      }
      for (Future<SandboxSession> f : opening) {
        busy.add(f.get(120, TimeUnit.SECONDS));
      }
      // Opened last, so restored last.
      for (int i = 0; i < 4; i++) {
        SandboxSession s = pool.open(CONTEXT, HostBridge.NONE);
        assertEquals(CellStatus.COMPLETED, s.execute("mine = " + i).status());
        idle.add(s);
      }
      long pid = pool.workerPids().getFirst();
      final long n = k;
      List<Future<CellResult>> running = new java.util.ArrayList<>();
      for (SandboxSession s : busy) {
        running.add(threads.submit(() -> s.execute(busy(n) + "done = True")));
      }
      Thread.sleep(500);
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      for (int i = 0; i < idle.size(); i++) {
        CellResult r = idle.get(i).execute("print(mine)");
        assertEquals(CellStatus.COMPLETED, r.status(), "idle REPL " + i + ": " + r.stderr());
        assertEquals(i + "\n", r.stdout());
      }
      for (int i = 0; i < busy.size(); i++) {
        CellResult r = running.get(i).get(300, TimeUnit.SECONDS);
        assertEquals(CellStatus.COMPLETED, r.status(), "busy REPL " + i + " of " + busy.size() + ": " + r.stderr());
      }
    } finally {
      threads.shutdownNow();
      busy.forEach(SandboxSession::close);
      idle.forEach(SandboxSession::close);
    }
  }

  @Test
  void aReplWhoseFreshWorkerIsLostDuringItsRestoreIsRestoredInTheNext() throws Exception {
    try (WorkerPool pool = new WorkerPool(TestPools.config(1), TestPools.LIMITS);
        SandboxSession s = pool.open(CONTEXT, HostBridge.NONE)) {
      // A history whose replay computes for about a second: time enough to lose the fresh worker under it.
      long k = 200_000;
      k = k * 1000 / Math.max(1, s.execute(busy(k)).activeMillis());
      assertEquals(CellStatus.COMPLETED, s.execute(busy(k) + "z = 1").status());
      long first = pool.workerPids().getFirst();
      ProcessHandle.of(first).ifPresent(ProcessHandle::destroyForcibly);
      long second = first;
      for (int i = 0; i < 600 && second == first; i++) {
        sleep(50);
        List<Long> pids = pool.workerPids();
        second = pids.isEmpty() ? first : pids.getFirst();
      }
      assertTrue(second != first, "no fresh worker started");
      sleep(400);
      ProcessHandle.of(second).ifPresent(ProcessHandle::destroyForcibly);
      CellResult r = s.execute("print(z)");
      assertEquals(CellStatus.COMPLETED, r.status(), r.stderr());
      assertEquals("1\n", r.stdout());
      assertFalse(pool.workerPids().contains(second));
    }
  }

  private static String busy(long n) {
    return "x = 0\nfor i in range(" + n + "):\n    x += i % 7\n";
  }

  @Test
  void aWorkerThatDiesHasItsReplsRestored() {
    WorkerPool pool = TestPools.shared();
    try (SandboxSession s = pool.open(CONTEXT, HostBridge.NONE)) {
      s.execute("z = 1");
      for (long pid : pool.workerPids()) {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      }
      CellResult r = s.execute("print(z)");
      assertEquals(CellStatus.COMPLETED, r.status(), r.stderr());
      assertEquals("1\n", r.stdout());
    }
    try (SandboxSession fresh = pool.open(CONTEXT, HostBridge.NONE)) {
      assertEquals("2\n", fresh.execute("print(1 + 1)").stdout());
    }
  }

  @Test
  void aBoundQuestionCrossesToTheWorkerStaysReservedAndSurvivesARestore() {
    String question = "Which \"results\" hold?\nName them.";
    try (WorkerPool pool = new WorkerPool(TestPools.config(1), TestPools.LIMITS);
        SandboxSession s = pool.open(CONTEXT, question, HostBridge.NONE);
        SandboxSession unbound = pool.open(CONTEXT, HostBridge.NONE)) {
      CellResult r = s.execute("print(question)");
      assertEquals(CellStatus.COMPLETED, r.status(), r.stderr());
      assertEquals(question + "\n", r.stdout());
      assertEquals(List.of(), r.variables());
      assertEquals("1\n", s.execute("question = 1\nkept = 'yes'\nprint(question)").stdout());
      assertEquals(question + "\n", s.execute("print(question)").stdout());
      assertEquals("kept: str\n", s.execute("print(SHOW_VARS())").stdout());
      CellResult none = unbound.execute("print(question)");
      assertEquals(CellStatus.RAISED, none.status());
      assertTrue(none.stderr().contains("NameError: name 'question' is not defined"), none.stderr());

      long pid = pool.workerPids().getFirst();
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      CellResult restored = s.execute("print(kept, question)");
      assertEquals(CellStatus.COMPLETED, restored.status(), restored.stderr());
      assertEquals("yes " + question + "\n", restored.stdout());
      assertFalse(pool.workerPids().contains(pid));
      CellResult stillNone = unbound.execute("print(question)");
      assertTrue(stillNone.stderr().contains("NameError: name 'question' is not defined"), stillNone.stderr());
    }
  }

  @Test
  void aReplThatCannotBeRestoredIsLostWithAClearMessage() {
    try (WorkerPool pool = new WorkerPool(TestPools.config(1).withRestoreMaxActive(Duration.ZERO), TestPools.LIMITS);
        SandboxSession s = pool.open(CONTEXT, HostBridge.NONE)) {
      s.execute("z = 1");
      pool.workerPids().forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
      CellResult r = s.execute("print(z)");
      assertEquals(CellStatus.SANDBOX_LOST, r.status());
      assertTrue(r.stderr().contains("exited unexpectedly") && r.stderr().contains("could not be restored"), r.stderr());
    }
  }

  @Test
  void aWorkerThatStopsAnsweringIsDetectedByItsHeartbeatAndItsReplsRestored() throws Exception {
    WorkerPoolConfig config = TestPools.config(1).withHeartbeat(Duration.ofMillis(500), Duration.ofSeconds(3));
    try (WorkerPool pool = new WorkerPool(config, TestPools.LIMITS);
        SandboxSession s = pool.open(CONTEXT, HostBridge.NONE)) {
      s.execute("x = 41");
      long pid = pool.workerPids().getFirst();
      // Stopped, not dead: no exit for the reader to see, and no cell clock runs while it waits.
      assertEquals(0, new ProcessBuilder("kill", "-STOP", String.valueOf(pid)).start().waitFor());
      CellResult r = assertTimeoutPreemptively(Duration.ofSeconds(90), () -> s.execute("print(x + 1)"));
      assertEquals(CellStatus.COMPLETED, r.status(), r.stderr());
      assertEquals("42\n", r.stdout());
      assertFalse(pool.workerPids().contains(pid));
    }
  }

  @Test
  void aWorkerBusyReadingABurstOfLargeOpensIsNotMistakenForAHungOne() throws Exception {
    // A full batch opens a REPL per tree at once, each with its papers: the worker's input queues
    // megabytes, and a ping written behind them arrives late although the worker is working.
    WorkerPoolConfig one = TestPools.config(1);
    WorkerPoolConfig config = new WorkerPoolConfig(1, 64, 1024, one.jvmOptions(), one.resourceCache(), one.startTimeout(),
        one.logDir(), 1).withHeartbeat(Duration.ofMillis(50), Duration.ofMillis(500));
    String paper = "Some text about parameters. ".repeat(110_000);
    int repls = 32;
    ExecutorService opens = Executors.newVirtualThreadPerTaskExecutor();
    try (WorkerPool pool = new WorkerPool(config, TestPools.LIMITS)) {
      pool.warmUp();
      long pid = pool.workerPids().getFirst();
      List<Future<SandboxSession>> opened = new java.util.ArrayList<>();
      for (int i = 0; i < repls; i++) {
        String context = "{\"p" + i + "\": \"" + paper + i + "\"}";
        opened.add(opens.submit(() -> pool.open(context, HostBridge.NONE)));
      }
      // The worker reads the opens one after another: on a loaded machine the last waits for all
      // the others, so the bound is on the burst, not on each open.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
      for (int i = 0; i < repls; i++) {
        try (SandboxSession s = opened.get(i).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
          CellResult r = s.execute("print(sorted(context), len(context['p" + i + "']))");
          assertEquals(CellStatus.COMPLETED, r.status(), r.stderr());
          assertEquals("['p" + i + "'] " + (paper.length() + String.valueOf(i).length()) + "\n", r.stdout());
        }
      }
      assertEquals(List.of(pid), pool.workerPids(), "the worker was working, not hung");
    } finally {
      opens.shutdownNow();
    }
  }

  @Test
  void aCellCancelledWhileItQueuesForASlotEndsAtOnceAndCostsNoWorker() throws Exception {
    // One slot, held by a long cell: a second node's cell queues; that node is cancelled (its
    // tree ran out of time). The queued cell must answer at once, not be taken for a runaway.
    SandboxLimits tenSeconds = new SandboxLimits(Duration.ofSeconds(10), Duration.ofSeconds(2), 4_000);
    WorkerPoolConfig one = TestPools.config(1);
    WorkerPoolConfig oneSlot = new WorkerPoolConfig(1, 64, 384, one.jvmOptions(), one.resourceCache(), one.startTimeout(),
        one.logDir(), 1);
    ExecutorService cells = Executors.newVirtualThreadPerTaskExecutor();
    try (WorkerPool pool = new WorkerPool(oneSlot, tenSeconds);
        SandboxSession busy = pool.open(CONTEXT, HostBridge.NONE);
        SandboxSession queued = pool.open(CONTEXT, HostBridge.NONE)) {
      long pid = pool.workerPids().getFirst();
      Future<CellResult> long_ = cells.submit(() -> busy.execute("kept = 1\nwhile True:\n  pass"));
      sleep(1_500);
      Future<CellResult> waiting = cells.submit(() -> queued.execute("print('ran')"));
      sleep(1_000);
      waiting.cancel(true);
      // The host gives a cancelled cell 2 x 2 s + 1 s before it kills the worker.
      sleep(7_000);
      assertEquals(List.of(pid), pool.workerPids(), "the worker was not killed for a cell that never ran");
      CellResult r = long_.get(60, TimeUnit.SECONDS);
      assertEquals(CellStatus.TIMED_OUT, r.status(), r.stderr());
      assertEquals("1\n", busy.execute("print(kept)").stdout());
    } finally {
      cells.shutdownNow();
    }
  }

  @Test
  void aReplThatKeepsALargeHeapIsResetInsteadOfStarvingItsCotenants() {
    SandboxLimits roomy = new SandboxLimits(Duration.ofSeconds(60), Duration.ofSeconds(2), 4_000);
    // About 100 MB each in a 256 MB worker: two of them do not fit, one after a reset does.
    String allocate = "big = ['x' * 200 + str(i) for i in range(400000)]\nprint(len(big))";
    WorkerPoolConfig small = TestPools.config(1);
    small = new WorkerPoolConfig(1, 64, 256, small.jvmOptions(), small.resourceCache(), small.startTimeout(),
        small.logDir(), 1).withReplHeapMb(32);
    try (WorkerPool pool = new WorkerPool(small, roomy);
        SandboxSession hog = pool.open(CONTEXT, HostBridge.NONE);
        SandboxSession cotenant = pool.open(CONTEXT, HostBridge.NONE)) {
      CellResult r = hog.execute(allocate);
      assertEquals(CellStatus.RAISED, r.status(), r.stderr());
      assertEquals("400000\n", r.stdout());
      assertTrue(r.stderr().contains("MemoryError: this REPL kept about") && r.stderr().contains("variables were cleared"),
          r.stderr());
      assertTrue(hog.execute("print(big)").stderr().contains("NameError"));
      assertEquals(CellStatus.COMPLETED, hog.execute("print(sorted(context))").status());
      CellResult other = cotenant.execute(allocate.replace("big", "mine"));
      assertEquals("400000\n", other.stdout(), other.stderr());
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(120, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
