package arbor.rlm.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
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
  void aLongBuiltinCostsItsWorkerWhichIsReplaced() {
    // Its own pool with one worker, so that the co-tenant surely shares the killed process.
    try (WorkerPool pool = new WorkerPool(TestPools.config(1), TestPools.LIMITS);
        SandboxSession victim = pool.open(CONTEXT, HostBridge.NONE);
        SandboxSession cotenant = pool.open(CONTEXT, HostBridge.NONE)) {
      cotenant.execute("y = 2");
      long before = pool.workerPids().getFirst();
      CellResult r = victim.execute("sum(range(10**12))");
      assertEquals(CellStatus.SANDBOX_LOST, r.status());
      assertTrue(r.stderr().contains("did not stop when interrupted"), r.stderr());
      assertFalse(ProcessHandle.of(before).map(ProcessHandle::isAlive).orElse(false), "worker killed");
      assertEquals(CellStatus.SANDBOX_LOST, victim.execute("print(1)").status());
      CellResult other = cotenant.execute("print(y)");
      assertEquals(CellStatus.SANDBOX_LOST, other.status());
      assertTrue(other.stderr().contains("REPL state is lost"), other.stderr());
      try (SandboxSession fresh = pool.open(CONTEXT, HostBridge.NONE)) {
        assertEquals("ok\n", fresh.execute("print('ok')").stdout());
      }
      assertFalse(pool.workerPids().contains(before));
    }
  }

  @Test
  void aWorkerThatDiesLosesItsReplsWithAClearMessage() {
    WorkerPool pool = TestPools.shared();
    try (SandboxSession s = pool.open(CONTEXT, HostBridge.NONE)) {
      s.execute("z = 1");
      for (long pid : pool.workerPids()) {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      }
      CellResult r = s.execute("print(z)");
      assertEquals(CellStatus.SANDBOX_LOST, r.status());
      assertTrue(r.stderr().contains("exited unexpectedly"), r.stderr());
    }
    try (SandboxSession fresh = pool.open(CONTEXT, HostBridge.NONE)) {
      assertEquals("2\n", fresh.execute("print(1 + 1)").stdout());
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
