package arbor.ingest;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Strict decoding of text inputs: a file that is not UTF-8 is an error, never mojibake. */
public final class TextFiles {
  private TextFiles() {}

  /** The file is empty or not valid UTF-8; the message says which and where. */
  public static final class NotText extends Exception {
    NotText(String message) { super(message); }
  }

  public static String utf8(byte[] bytes) throws NotText {
    if (bytes.length == 0) throw new NotText("empty file");
    try {
      String text = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes)).toString();
      if (text.isBlank()) throw new NotText("file holds only whitespace");
      return text.startsWith("\uFEFF") ? text.substring(1) : text;
    } catch (CharacterCodingException e) {
      throw new NotText("not valid UTF-8 (" + firstBadByte(bytes) + ")");
    }
  }

  private static String firstBadByte(byte[] bytes) {
    var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    var out = java.nio.CharBuffer.allocate(bytes.length + 1);
    var result = decoder.decode(in, out, true);
    return result.isError() ? "bad byte 0x" + Integer.toHexString(bytes[in.position()] & 0xff)
        + " at offset " + in.position() : "bad encoding";
  }
}
