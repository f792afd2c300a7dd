package arbor.judge;

import arbor.conf.JudgeSettings.RubricSettings;
import arbor.llm.InvalidReply;
import arbor.llm.OpenAiChat;
import arbor.llm.Retries;
import arbor.synthesis.Evidence;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.core.JsonValue;
import com.openai.models.ResponseFormatJsonObject;
import com.openai.models.ResponseFormatJsonSchema;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import java.util.List;
import java.util.Map;

/**
 * The training reward of method section 7: an LLM behind any OpenAI-compatible endpoint (the
 * official SDK) reads the question, the ground truth as a perfect reference and the predicted
 * spans, and replies with strict JSON: PRECISION and RECALL on anchored 1-10 scales (the rubric
 * file) and a short reasoning. Reward {@code (P + R) / 20}. Temperature from the settings (0 by
 * default); each attempt has a timeout; a failed request or an unusable reply is retried with
 * exponential backoff, and after the last attempt the verdict is the error, never an exception.
 */
public final class RubricJudge implements RootJudge {
  public static final String NAME = "rubric";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final RubricSettings settings;
  private final String rubric;
  private final OpenAiChat chat;
  private final Retries retries;

  /** {@code rubric} is the rubric file's text; {@code apiKey} any non-empty text for servers without keys. */
  public RubricJudge(RubricSettings settings, String rubric, String apiKey) {
    this.settings = settings;
    this.rubric = rubric;
    // Retries are ours (they also cover unusable replies), so the SDK makes one request per attempt.
    this.chat = new OpenAiChat(settings.baseUrl(), apiKey, OpenAiChat.seconds(settings.timeoutSeconds()), 0);
    this.retries = new Retries(settings.attempts(), settings.backoffMillis(), settings.timeoutSeconds(),
        "judge.rubric.timeout_seconds");
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean remote() {
    return true;
  }

  @Override
  public Verdict judge(JudgeCase c, AlignedCase aligned) {
    String request = render(c, settings.maxSpanChars());
    return switch (retries.run(() -> parse(ask(request)))) {
      case Retries.Outcome.Replied<Verdict> r -> r.value();
      case Retries.Outcome.Failed<Verdict> f ->
          Verdict.failed("rubric judge (" + settings.model() + " at " + settings.baseUrl() + ") " + f.reason());
    };
  }

  /** The user message: question, reference and predicted spans, numbered; predictions cut to {@code maxChars}. */
  static String render(JudgeCase c, int maxChars) {
    StringBuilder out = new StringBuilder("QUESTION:\n").append(c.question().strip()).append("\n\nREFERENCE:\n");
    int i = 0;
    for (Evidence e : c.evidence()) out.append('[').append(++i).append("] ").append(e.text().strip()).append('\n');
    out.append("\nPREDICTED:\n");
    if (c.predicted().isEmpty()) out.append("(nothing)\n");
    int budget = maxChars;
    int cut = 0;
    i = 0;
    for (String span : c.predicted()) {
      String s = span.strip();
      if (budget <= 0) {
        cut += s.length();
        continue;
      }
      String shown = s.length() > budget ? s.substring(0, budget) : s;
      cut += s.length() - shown.length();
      budget -= shown.length();
      out.append('[').append(++i).append("] ").append(shown).append('\n');
    }
    if (cut > 0) out.append("(").append(cut).append(" more predicted characters not shown; count them as padding)\n");
    return out.toString();
  }

  static Verdict parse(String reply) throws InvalidReply {
    String text = reply == null ? "" : reply.strip();
    if (text.startsWith("```")) {
      text = text.replaceFirst("^```[a-zA-Z]*\\s*", "").replaceFirst("\\s*```$", "");
    }
    JsonNode root;
    try {
      root = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new InvalidReply("not JSON (" + e.getOriginalMessage() + ")");
    }
    if (root == null || !root.isObject()) throw new InvalidReply("not a JSON object");
    int p = score(root, "precision");
    int r = score(root, "recall");
    String reasoning = root.path("reasoning").isTextual() ? root.path("reasoning").asText().strip() : "";
    return Verdict.scored(p, r, (p + r) / 20.0, reasoning);
  }

  private static int score(JsonNode root, String field) throws InvalidReply {
    JsonNode v = root.get(field);
    if (v == null || !v.isNumber()) throw new InvalidReply("no numeric '" + field + "'");
    double d = v.asDouble();
    if (d != Math.rint(d) || d < 1 || d > 10) throw new InvalidReply("'" + field + "' is " + v + ", not an integer from 1 to 10");
    return (int) d;
  }

  private String ask(String request) {
    ChatCompletionCreateParams.Builder params = ChatCompletionCreateParams.builder()
        .model(settings.model())
        .temperature(settings.temperature())
        .maxCompletionTokens(settings.maxTokens())
        .addSystemMessage(rubric)
        .addUserMessage(request);
    switch (settings.responseFormat()) {
      case JSON_SCHEMA -> params.responseFormat(schema());
      case JSON_OBJECT -> params.responseFormat(ResponseFormatJsonObject.builder().build());
      case TEXT -> { }
    }
    return chat.reply(params.build());
  }

  private static ResponseFormatJsonSchema schema() {
    Map<String, Object> score = Map.of("type", "integer", "minimum", 1, "maximum", 10);
    return ResponseFormatJsonSchema.builder().jsonSchema(ResponseFormatJsonSchema.JsonSchema.builder()
        .name("verdict").strict(true)
        .schema(ResponseFormatJsonSchema.JsonSchema.Schema.builder()
            .putAdditionalProperty("type", JsonValue.from("object"))
            .putAdditionalProperty("properties", JsonValue.from(Map.of(
                "precision", score, "recall", score, "reasoning", Map.of("type", "string"))))
            .putAdditionalProperty("required", JsonValue.from(List.of("precision", "recall", "reasoning")))
            .putAdditionalProperty("additionalProperties", JsonValue.from(false))
            .build())
        .build()).build();
  }

  @Override
  public void close() {
    chat.close();
  }
}
