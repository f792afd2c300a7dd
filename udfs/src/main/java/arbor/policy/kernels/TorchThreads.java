package arbor.policy.kernels;

import ai.djl.engine.Engine;
import ai.djl.pytorch.jni.JniUtils;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * libtorch's intra-op thread count, which is global to the JVM. Give it the cores one engine
 * really has: on cores shared with other busy processes (a Spark executor's sandbox workers,
 * or other builds), every parallel op waits at a barrier for a descheduled worker, and one
 * thread measured 3-6x faster than two for prefill and training on this project's shared
 * 2-core machine.
 */
public final class TorchThreads {

  private TorchThreads() {}

  /** Sets the thread count (loading libtorch first if needed); returns what is now in effect. */
  public static int set(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("torch threads must be >= 1, got " + threads);
    }
    Engine.getInstance();  // libtorch's native calls fail before the engine has loaded it
    JniUtils.setNumThreads(threads);
    return JniUtils.getNumThreads();
  }

  /** {@code configured} threads, or {@link #auto()} when it is 0; returns what is in effect. */
  public static int configure(int configured) {
    return set(configured > 0 ? configured : auto());
  }

  /**
   * The automatic choice for this JVM now: {@link #choose} of its cores and of how many cores
   * other processes keep busy, measured over a short window ({@link #busyElsewhere}); where
   * {@code /proc} cannot tell, the 1-minute load average. (The load average alone lags by a
   * minute: right after a build it still counts the build and chose 1 thread on an idle machine,
   * where 2 measured faster.)
   */
  public static int auto() {
    double busy;
    try {
      busy = busyElsewhere(Duration.ofMillis(300));
    } catch (IOException | RuntimeException e) {
      busy = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
    return choose(Runtime.getRuntime().availableProcessors(), busy);
  }

  /** Cores kept busy by processes other than this one, on average over {@code window}. */
  static double busyElsewhere(Duration window) throws IOException {
    Path stat = Path.of("/proc/stat");
    Path self = Path.of("/proc/self/stat");
    String before = Files.readString(stat);
    String selfBefore = Files.readString(self);
    try {
      Thread.sleep(window.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while measuring the load", e);
    }
    return busyElsewhere(before, Files.readString(stat), selfBefore, Files.readString(self));
  }

  /**
   * Cores kept busy by other processes between two readings of {@code /proc/stat} and of this
   * process's {@code /proc/self/stat}: the machine's busy share (all but idle and iowait) times
   * its cores, less this process's own CPU time over the same ticks.
   */
  static double busyElsewhere(String statBefore, String statAfter, String selfBefore, String selfAfter) {
    long[] a = cpuTicks(statBefore);
    long[] b = cpuTicks(statAfter);
    long total = b[0] - a[0];
    if (total <= 0) return 0;
    long busy = (b[0] - b[1]) - (a[0] - a[1]);
    long own = selfTicks(selfAfter) - selfTicks(selfBefore);
    double cpus = cpuCount(statAfter);
    return Math.max(0, (double) (busy - own) / total * cpus);
  }

  /** {total, idle + iowait} ticks of the machine's summary {@code cpu} line. */
  private static long[] cpuTicks(String stat) {
    String line = stat.lines().filter(l -> l.startsWith("cpu ")).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no cpu line in /proc/stat"));
    String[] f = line.trim().split("\\s+");
    long total = 0;
    // user nice system idle iowait irq softirq steal; guest time is counted in user already.
    for (int i = 1; i <= Math.min(8, f.length - 1); i++) total += Long.parseLong(f[i]);
    return new long[] {total, Long.parseLong(f[4]) + (f.length > 5 ? Long.parseLong(f[5]) : 0)};
  }

  private static long cpuCount(String stat) {
    return Math.max(1, stat.lines().filter(l -> l.startsWith("cpu") && !l.startsWith("cpu ")).count());
  }

  /** utime + stime of a {@code /proc/<pid>/stat} line (fields 14 and 15; the name may hold spaces). */
  private static long selfTicks(String stat) {
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
    return Long.parseLong(f[14 - 3]) + Long.parseLong(f[15 - 3]);
  }

  /**
   * The cores nobody else is using: the cores this JVM may run on (its CPU set or container
   * quota) less the cores busy elsewhere (or the load average), at least 1. An oversubscribed libtorch pool costs
   * far more than an idle core (each op waits for its slowest thread), so rounding goes down.
   * A negative load (not available on this OS) counts as an idle machine.
   */
  public static int choose(int cores, double busyElsewhere) {
    double load = busyElsewhere < 0 ? 0 : busyElsewhere;
    return (int) Math.max(1, Math.min(cores, Math.floor(cores - load + 0.25)));
  }

  /** The thread count in effect. */
  public static int get() {
    Engine.getInstance();
    return JniUtils.getNumThreads();
  }
}
