package arbor.rlm.sandbox;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * The messages between a host JVM and a sandbox worker process: length-prefixed JSON frames on
 * the worker's stdin and stdout. Only data crosses: code, JSON values, results.
 */
final class WorkerProtocol {
  private static final int MAX_FRAME_BYTES = 512 << 20;

  private WorkerProtocol() {}

  @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "t")
  @JsonSubTypes({
      @JsonSubTypes.Type(value = Open.class, name = "open"),
      @JsonSubTypes.Type(value = Exec.class, name = "exec"),
      @JsonSubTypes.Type(value = Interrupt.class, name = "interrupt"),
      @JsonSubTypes.Type(value = Close.class, name = "close"),
      @JsonSubTypes.Type(value = Reply.class, name = "reply"),
      @JsonSubTypes.Type(value = Ready.class, name = "ready"),
      @JsonSubTypes.Type(value = Opened.class, name = "opened"),
      @JsonSubTypes.Type(value = Result.class, name = "result"),
      @JsonSubTypes.Type(value = Call.class, name = "call"),
      @JsonSubTypes.Type(value = Running.class, name = "running"),
      @JsonSubTypes.Type(value = Ping.class, name = "ping"),
      @JsonSubTypes.Type(value = Pong.class, name = "pong")})
  sealed interface Message {}

  // host -> worker
  /** @param question the REPL's reserved {@code question}, or null for none */
  record Open(long sid, String contextJson, String question, int maxOutputChars) implements Message {}

  record Exec(long sid, String code) implements Message {}

  record Interrupt(long sid, long graceMillis) implements Message {}

  record Close(long sid) implements Message {}

  /** Are you still there? Answered at once by the worker's reader, whatever its cells do. */
  record Ping(long seq) implements Message {}

  /** The answer to a {@link Call}: a JSON value, or an error message when {@code error} is set. */
  record Reply(long callId, String valueJson, String error) implements Message {}

  // worker -> host
  record Ready(long pid) implements Message {}

  record Opened(long sid, String error) implements Message {}

  /** @param reset the REPL kept too much heap after the cell and its variables were cleared */
  record Result(long sid, CellResult result, boolean reset) implements Message {}

  record Pong(long seq) implements Message {}

  record Call(long sid, long callId, String name, String argsJson) implements Message {}

  /**
   * A cell started or stopped computing: it got a CPU slot, or gave it back to wait for a host
   * callback. The host's clock for the cell runs only in between.
   */
  record Running(long sid, boolean running) implements Message {}

  static void write(DataOutputStream out, Message message) throws IOException {
    byte[] bytes = Json.MAPPER.writeValueAsBytes(message);
    synchronized (out) {
      out.writeInt(bytes.length);
      out.write(bytes);
      out.flush();
    }
  }

  /** The next message, or null at the end of the stream. */
  static Message read(DataInputStream in) throws IOException {
    int length;
    try {
      length = in.readInt();
    } catch (java.io.EOFException e) {
      return null;
    }
    if (length < 0 || length > MAX_FRAME_BYTES) {
      throw new IOException("corrupt frame length " + length);
    }
    byte[] bytes = in.readNBytes(length);
    if (bytes.length < length) {
      return null;
    }
    return Json.MAPPER.readValue(bytes, Message.class);
  }
}
