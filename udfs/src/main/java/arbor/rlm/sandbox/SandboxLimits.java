package arbor.rlm.sandbox;

import arbor.conf.ReplSettings;
import java.time.Duration;

/**
 * Limits of one cell, enforced by the JVM that runs the sandbox and never by code inside it.
 *
 * @param cellWallTime wall time of one cell, not counting time spent waiting for host callbacks
 *     (children, plain completions) [30 s]
 * @param interruptGrace how long an interrupted cell may take to stop before its sandbox is
 *     killed (long-running built-ins ignore interrupts) [3 s]
 * @param maxOutputChars characters of stdout and of stderr kept per cell [20,000]
 */
public record SandboxLimits(Duration cellWallTime, Duration interruptGrace, int maxOutputChars)
    implements java.io.Serializable {
  public SandboxLimits {
    if (cellWallTime.isNegative() || cellWallTime.isZero()) {
      throw new IllegalArgumentException("cellWallTime must be positive, got " + cellWallTime);
    }
    if (interruptGrace.isNegative() || interruptGrace.isZero()) {
      throw new IllegalArgumentException("interruptGrace must be positive, got " + interruptGrace);
    }
    if (maxOutputChars < 100) {
      throw new IllegalArgumentException("maxOutputChars must be at least 100, got " + maxOutputChars);
    }
  }

  public static SandboxLimits of(ReplSettings repl) {
    return new SandboxLimits(repl.cellWallTime(), repl.interruptGrace(), repl.maxOutputChars());
  }

  public static SandboxLimits defaults() {
    return new SandboxLimits(Duration.ofSeconds(30), Duration.ofSeconds(3), 20_000);
  }
}
