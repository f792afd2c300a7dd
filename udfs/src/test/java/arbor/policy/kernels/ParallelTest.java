package arbor.policy.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class ParallelTest {

  @Test
  @Timeout(60)
  void everyTaskRunsExactlyOnceOverManySmallJobs() {
    try (Parallel p = new Parallel(3, "test-parallel")) {
      Set<String> threads = ConcurrentHashMap.newKeySet();
      for (int job = 0; job < 20_000; job++) {
        int tasks = 1 + job % 7;
        AtomicIntegerArray runs = new AtomicIntegerArray(tasks);
        p.forEach(tasks, i -> {
          runs.incrementAndGet(i);
          threads.add(Thread.currentThread().getName());
          if (i % 3 == 0) {
            Thread.onSpinWait();
          }
        });
        for (int i = 0; i < tasks; i++) {
          assertEquals(1, runs.get(i), "job " + job + ", task " + i);
        }
      }
      assertTrue(threads.size() > 1, "only " + threads + " ran tasks");
    }
  }

  @Test
  @Timeout(60)
  void idleHelpersWakeForTheNextJob() throws InterruptedException {
    try (Parallel p = new Parallel(2, "test-parallel")) {
      for (int round = 0; round < 5; round++) {
        Thread.sleep(Duration.ofMillis(2));
        Set<String> threads = ConcurrentHashMap.newKeySet();
        p.forEach(2, i -> {
          threads.add(Thread.currentThread().getName());
          long until = System.nanoTime() + 20_000_000;
          while (System.nanoTime() < until) {
            Thread.onSpinWait();
          }
        });
        assertEquals(2, threads.size(), "round " + round + ": " + threads);
      }
    }
  }

  @Test
  @Timeout(60)
  void aFailedTaskIsRethrownAndTheRestAreSkipped() {
    try (Parallel p = new Parallel(2, "test-parallel")) {
      AtomicInteger ran = new AtomicInteger();
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> p.forEach(1000, i -> {
            ran.incrementAndGet();
            if (i == 3) {
              throw new IllegalArgumentException("task 3");
            }
            long until = System.nanoTime() + 100_000;
            while (System.nanoTime() < until) {
              Thread.onSpinWait();
            }
          }));
      assertEquals("task 3", e.getMessage());
      assertTrue(ran.get() < 1000, ran.get() + " tasks ran");
      // The pool still works after a failure.
      AtomicInteger sum = new AtomicInteger();
      p.forEach(10, sum::addAndGet);
      assertEquals(45, sum.get());
    }
  }

  @Test
  @Timeout(60)
  void aTaskFailingOnAHelperStopsTheCallerToo() {
    // CI caught this: a helper's failure was only seen after the caller had run every task.
    try (Parallel p = new Parallel(2, "test-parallel")) {
      Thread caller = Thread.currentThread();
      AtomicInteger ran = new AtomicInteger();
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> p.forEach(10_000, i -> {
            ran.incrementAndGet();
            if (Thread.currentThread() != caller) {
              throw new IllegalStateException("helper task " + i);
            }
            long until = System.nanoTime() + 100_000;
            while (System.nanoTime() < until) {
              Thread.onSpinWait();
            }
          }));
      assertTrue(e.getMessage().startsWith("helper task"), e.getMessage());
      assertTrue(ran.get() < 5_000, ran.get() + " of 10000 tasks ran");
    }
  }

  @Test
  @Timeout(60)
  void aCallFromInsideATaskAndCallsFromTwoThreadsAllFinish() throws Exception {
    try (Parallel p = new Parallel(2, "test-parallel")) {
      AtomicIntegerArray inner = new AtomicIntegerArray(4 * 5);
      p.forEach(4, i -> p.forEach(5, j -> inner.incrementAndGet(i * 5 + j)));
      for (int i = 0; i < inner.length(); i++) {
        assertEquals(1, inner.get(i), "inner task " + i);
      }
      AtomicInteger sum = new AtomicInteger();
      Runnable jobs = () -> {
        for (int job = 0; job < 2_000; job++) {
          p.forEach(3, sum::addAndGet);  // 0 + 1 + 2 per job
        }
      };
      Thread other = Thread.ofPlatform().start(jobs);
      jobs.run();
      other.join();
      assertEquals(2 * 2_000 * 3, sum.get());
    }
  }

  @Test
  void afterCloseTasksRunOnTheCaller() {
    Parallel p = new Parallel(3, "test-parallel");
    p.close();
    Set<String> threads = ConcurrentHashMap.newKeySet();
    p.forEach(10, i -> threads.add(Thread.currentThread().getName()));
    assertEquals(Set.of(Thread.currentThread().getName()), threads);
  }
}
