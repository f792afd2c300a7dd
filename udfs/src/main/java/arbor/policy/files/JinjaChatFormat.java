package arbor.policy.files;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.LegacyOverrides;
import com.hubspot.jinjava.interpret.RenderResult;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A family's own {@code chat_template}, rendered by Jinjava the way Hugging Face renders it
 * (trim_blocks, lstrip_blocks, {@code {%-}/{@code -%}} trimming parsed strictly, Python operator
 * precedence, {@code raise_exception}). Jinjava handles simple templates (ChatML, Llama 3 style);
 * it has no {@code [::-1]} slicing, so Qwen3's template needs {@link Qwen3ChatFormat}.
 * {@link #compile} renders a probe conversation first, so a template the engine cannot render is
 * refused when the model loads, not on some node's first turn.
 */
public final class JinjaChatFormat implements ChatFormat {

  private static final JinjavaConfig CONFIG = JinjavaConfig.newBuilder()
      .withTrimBlocks(true)
      .withLstripBlocks(true)
      .withLegacyOverrides(LegacyOverrides.newBuilder()
          .withParseWhitespaceControlStrictly(true)
          .withUseTrimmingForNotesAndExpressions(true)
          .withUseNaturalOperatorPrecedence(true)
          .build())
      .build();

  /**
   * The shape of every conversation Arbor sends: system, metadata, (assistant, observation)*,
   * instruction; so two user messages in a row, which some templates refuse.
   */
  private static final List<ChatMessage> PROBE = List.of(ChatMessage.system("s"),
      ChatMessage.user("metadata"), ChatMessage.assistant("a"), ChatMessage.user("observation"),
      ChatMessage.user("instruction"));

  /**
   * What the template's {@code raise_exception} said during this thread's render: Jinjava
   * reports only "Error invoking function", and the template's own words are the useful part.
   */
  private static final ThreadLocal<String> RAISED = new ThreadLocal<>();

  private final String family;
  private final String template;
  private final Map<String, Object> specialTokens;
  private final List<String> stopTokens;
  private final Jinjava jinjava;

  private JinjaChatFormat(String family, String template, Map<String, Object> specialTokens,
      List<String> stopTokens) {
    this.family = family;
    this.template = template;
    this.specialTokens = Map.copyOf(specialTokens);
    this.stopTokens = List.copyOf(stopTokens);
    this.jinjava = new Jinjava(CONFIG);
    jinjava.getGlobalContext().registerFunction(new ELFunctionDefinition("", "raise_exception",
        JinjaChatFormat.class, "raiseException", String.class));
  }

  /**
   * A format for {@code family} (its HF {@code model_type}, named in errors).
   *
   * @param specialTokens template variables such as {@code bos_token} and {@code eos_token}
   * @param stopTokens tokens that end an assistant turn (e.g. {@code <|eot_id|>})
   * @throws IllegalArgumentException when Jinjava cannot render the template
   */
  public static JinjaChatFormat compile(String family, String template,
      Map<String, Object> specialTokens, List<String> stopTokens) {
    JinjaChatFormat format = new JinjaChatFormat(family, template, specialTokens, stopTokens);
    format.render(PROBE, true);
    return format;
  }

  @Override
  public String render(List<ChatMessage> messages, boolean generationPrompt) {
    List<Map<String, Object>> list = new ArrayList<>();
    for (ChatMessage m : messages) {
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("role", m.role().key());
      item.put("content", m.content());
      list.add(item);
    }
    Map<String, Object> vars = new HashMap<>(specialTokens);
    vars.put("messages", list);
    vars.put("add_generation_prompt", generationPrompt);
    // Arbor never asks for reasoning (as with Qwen3ChatFormat); templates without it ignore it.
    vars.put("enable_thinking", false);
    RAISED.remove();
    RenderResult result = jinjava.renderForResult(template, vars);
    String raised = RAISED.get();
    RAISED.remove();
    if (raised != null) {
      throw new IllegalArgumentException("The chat_template of model_type '" + family
          + "' refuses the conversation Arbor sends (\"" + raised + "\"). Arbor's"
          + " conversations are system, user, (assistant, user)*, user; add a ChatFormat class"
          + " for this family in arbor.policy.model that accepts them.");
    }
    List<TemplateError> fatal = result.getErrors().stream()
        .filter(e -> e.getSeverity() == TemplateError.ErrorType.FATAL).toList();
    if (!fatal.isEmpty()) {
      throw new IllegalArgumentException("No chat format for model_type '" + family
          + "': Jinjava cannot render its chat_template (" + fatal.getFirst().getMessage()
          + (fatal.size() > 1 ? ", and " + (fatal.size() - 1) + " more errors" : "")
          + "). Add a ChatFormat class for this family (tested against the template) in"
          + " arbor.policy.model, as Qwen3ChatFormat does for Qwen3.");
    }
    return result.getOutput();
  }

  @Override
  public List<String> stopTokens() {
    return stopTokens;
  }

  /** The templates' {@code raise_exception(message)}: a render error carrying the message. */
  public static String raiseException(String message) {
    RAISED.set(message);
    throw new IllegalArgumentException("chat_template raised: " + message);
  }
}
