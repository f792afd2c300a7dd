package arbor.rlm.sandbox;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The stdout or stderr of one session: keeps what one cell writes up to a cap, counts the rest,
 * and fails the writer once a cell floods far past the cap, so that {@code while True: print(x)}
 * ends with an error instead of filling memory until its time runs out.
 */
final class CappedOutput extends OutputStream {
  private final int keepBytes;
  private final long failAfterBytes;
  private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
  private long dropped;

  /** @param maxChars the characters to keep; UTF-8 needs at most 4 bytes for each */
  CappedOutput(int maxChars) {
    this.keepBytes = Math.max(1, maxChars) * 4;
    this.failAfterBytes = Math.max(1_000_000L, 20L * keepBytes);
  }

  @Override
  public synchronized void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public synchronized void write(byte[] b, int off, int len) throws IOException {
    int room = keepBytes - kept.size();
    int keep = Math.max(0, Math.min(room, len));
    kept.write(b, off, keep);
    dropped += len - keep;
    if (kept.size() + dropped > failAfterBytes) {
      throw new IOException("output limit exceeded: the cell wrote more than "
          + failAfterBytes + " bytes; print less (slice, summarise) and try again");
    }
  }

  /** What the current cell wrote, and resets for the next cell. */
  synchronized Taken take() {
    Taken taken = new Taken(kept.toString(StandardCharsets.UTF_8), dropped);
    kept.reset();
    dropped = 0;
    return taken;
  }

  record Taken(String text, long droppedBytes) {}
}
