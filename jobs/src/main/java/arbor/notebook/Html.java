package arbor.notebook;

import java.util.List;

/** Small HTML pieces the notebook views share; every text that reaches HTML goes through {@link #escape}. */
public final class Html {
  private Html() {}

  public static String escape(String text) {
    if (text == null) return "";
    StringBuilder s = new StringBuilder(text.length() + 16);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '<' -> s.append("&lt;");
        case '>' -> s.append("&gt;");
        case '&' -> s.append("&amp;");
        case '"' -> s.append("&quot;");
        case '\'' -> s.append("&#39;");
        default -> s.append(c);
      }
    }
    return s.toString();
  }

  /** {@code text} cut to {@code max} characters, with an ellipsis and the full length when cut. */
  public static String clip(String text, int max) {
    if (text == null || text.length() <= max) return text;
    return text.substring(0, max) + "\u2026 (" + text.length() + " chars)";
  }

  /** Blocks side by side, each in a column of equal width that scrolls on its own. */
  public static String columns(List<String> blocks) {
    StringBuilder s = new StringBuilder("<div style=\"display:flex;gap:12px;align-items:flex-start\">");
    for (String b : blocks) {
      s.append("<div style=\"flex:1 1 0;min-width:0;max-height:640px;overflow:auto;border:1px solid #ccc;padding:6px\">")
          .append(b).append("</div>");
    }
    return s.append("</div>").toString();
  }

  /** Preformatted text (code, observations), escaped. */
  public static String pre(String text) {
    return "<pre style=\"white-space:pre-wrap;margin:2px 0\">" + escape(text) + "</pre>";
  }
}
