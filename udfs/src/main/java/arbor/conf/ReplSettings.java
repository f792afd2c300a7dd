package arbor.conf;

import java.io.Serializable;
import java.time.Duration;

/**
 * Limits of one REPL execution, enforced outside the sandbox.
 *
 * @param cellWallTime computing time one cell may take (time waiting for children not counted)
 * @param interruptGrace how long an interrupted cell may take to stop before its worker is killed
 * @param maxOutputChars characters of one observation; the rest is cut with a marker
 */
public record ReplSettings(Duration cellWallTime, Duration interruptGrace, int maxOutputChars) implements Serializable {}
