package arbor.rlm.sandbox;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Linux threads of a worker's cells, and a way to leave a runaway one only the CPU time nobody
 * else wants. A built-in that ignores its interrupt cannot be stopped short of killing its
 * process; demoted to the idle scheduling class, it no longer slows the cells beside it, so its
 * worker can serve its other REPLs to their end instead of losing them all at once.
 */
final class IdleThreads {
  private IdleThreads() {}

  /** Looked up once per thread, not once per cell: cells run on pooled threads. */
  private static final ThreadLocal<Long> TID = ThreadLocal.withInitial(IdleThreads::lookUpTid);

  /** The calling thread's Linux thread id, or -1 where there is none to be had. */
  static long currentTid() {
    return TID.get();
  }

  private static long lookUpTid() {
    try {
      Path self = Files.readSymbolicLink(Path.of("/proc/thread-self"));
      return Long.parseLong(self.getFileName().toString());
    } catch (Exception e) {
      return -1;
    }
  }

  /** Gives thread {@code tid} idle priority (SCHED_IDLE, else nice 19); true when it took. */
  static boolean demote(long tid) {
    if (tid <= 0) {
      return false;
    }
    String id = Long.toString(tid);
    return run(List.of("chrt", "--idle", "-p", "0", id)) || run(List.of("renice", "-n", "19", "-p", id));
  }

  private static boolean run(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!p.waitFor(5, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return false;
      }
      return p.exitValue() == 0;
    } catch (java.io.IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
