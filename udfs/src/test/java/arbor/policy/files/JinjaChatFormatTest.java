package arbor.policy.files;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import arbor.policy.model.ByteLevelTokenizerFiles;
import arbor.policy.model.HfModelFolder;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.PolicyModel;
import arbor.policy.model.Qwen3Tokenizer;
import arbor.policy.model.TinyModels;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Chat templates of other families rendered by Jinjava, exactly as Hugging Face renders them. */
class JinjaChatFormatTest {

  /** Arbor's conversation shape: system, metadata, assistant, observation, instruction. */
  static final List<ChatMessage> CONVERSATION = List.of(ChatMessage.system("Be brief."),
      ChatMessage.user("Context: 2 papers"), ChatMessage.assistant("```repl\nprint(1)\n```"),
      ChatMessage.user("1\n"), ChatMessage.user("  Answer now. "));

  /** ChatML as HF templates write it: whitespace control everywhere, escapes in literals. */
  static final String CHATML = """
      {%- for message in messages %}
          {{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}
      {%- endfor %}
      {%- if add_generation_prompt %}
          {{- '<|im_start|>assistant\\n' }}
      {%- endif %}
      """;

  /** In the style of Llama 3's template: bos, headers, trimmed content, eot. */
  static final String LLAMA3_STYLE = """
      {%- for message in messages %}
          {%- set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' %}
          {%- if loop.index0 == 0 %}
              {%- set content = bos_token + content %}
          {%- endif %}
          {{- content }}
      {%- endfor %}
      {%- if add_generation_prompt %}
          {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}
      {%- endif %}
      """;

  @TempDir Path dir;

  @Test
  void aChatMlTemplateRendersTheConversationExactly() {
    JinjaChatFormat f = JinjaChatFormat.compile("chatml-test", CHATML, Map.of(),
        List.of("<|im_end|>"));
    String body = "<|im_start|>system\nBe brief.<|im_end|>\n"
        + "<|im_start|>user\nContext: 2 papers<|im_end|>\n"
        + "<|im_start|>assistant\n```repl\nprint(1)\n```<|im_end|>\n"
        + "<|im_start|>user\n1\n<|im_end|>\n"
        + "<|im_start|>user\n  Answer now. <|im_end|>\n";
    assertEquals(body, f.render(CONVERSATION, false));
    assertEquals(body + "<|im_start|>assistant\n", f.render(CONVERSATION, true));
    assertEquals(List.of("<|im_end|>"), f.stopTokens());
  }

  @Test
  void aLlama3StyleTemplateRendersBosHeadersAndTrimmedContentExactly() {
    JinjaChatFormat f = JinjaChatFormat.compile("llama", LLAMA3_STYLE,
        Map.of("bos_token", "<|begin_of_text|>"), List.of("<|eot_id|>"));
    assertEquals("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
        + "<|start_header_id|>user<|end_header_id|>\n\nContext: 2 papers<|eot_id|>"
        + "<|start_header_id|>assistant<|end_header_id|>\n\n```repl\nprint(1)\n```<|eot_id|>"
        + "<|start_header_id|>user<|end_header_id|>\n\n1<|eot_id|>"
        + "<|start_header_id|>user<|end_header_id|>\n\nAnswer now.<|eot_id|>"
        + "<|start_header_id|>assistant<|end_header_id|>\n\n", f.render(CONVERSATION, true));
  }

  @Test
  void theTestTokenizersChatMlTemplateAgreesWithQwen3sJavaFormat() {
    JinjaChatFormat f = JinjaChatFormat.compile("qwen3-like", ByteLevelTokenizerFiles.CHAT_TEMPLATE,
        Map.of(), List.of("<|im_end|>"));
    assertEquals(new Qwen3ChatFormat(false).render(CONVERSATION, true), f.render(CONVERSATION, true));
  }

  @Test
  void aTemplateJinjavaCannotRenderIsRefusedNamingTheFamily() {
    String reversed = "{%- for m in messages[::-1] %}{{ m['content'] }}{%- endfor %}";
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> JinjaChatFormat.compile("exotic", reversed, Map.of(), List.of()));
    assertTrue(e.getMessage().contains("model_type 'exotic'")
        && e.getMessage().contains("Add a ChatFormat class"), e.getMessage());
  }

  @Test
  void qwen3sRealTemplateIsBeyondJinjavaWhichIsWhyItHasAJavaFormat() throws Exception {
    String template = HfModelFolder.chatTemplate(Qwen3Tokenizer.folder());
    assertThrows(IllegalArgumentException.class,
        () -> JinjaChatFormat.compile("qwen3", template, Map.of(), List.of("<|im_end|>")));
    assertInstanceOf(Qwen3ChatFormat.class, ChatFormat.forModel("qwen3",
        new ObjectMapper().createObjectNode().put("chat_template", template)));
  }

  @Test
  void aTemplateThatRefusesArborsConversationsSaysSoAtLoad() {
    String alternating = """
        {%- for message in messages %}
            {%- if loop.index0 > 0 and message['role'] == messages[loop.index0 - 1]['role'] %}
                {{- raise_exception('Conversation roles must alternate') }}
            {%- endif %}
            {{- message['content'] }}
        {%- endfor %}""";
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> JinjaChatFormat.compile("mistral-like", alternating, Map.of(), List.of()));
    assertTrue(e.getMessage().contains("refuses the conversation")
        && e.getMessage().contains("roles must alternate"), e.getMessage());
  }

  @Test
  void forModelTakesTheTemplateAndEosTokenOfTheTokenizerConfig() throws Exception {
    JsonNode config = new ObjectMapper().readTree("""
        {"bos_token": "<|begin_of_text|>", "eos_token": {"content": "<|eot_id|>", "special": true},
         "chat_template": [{"name": "tool_use", "template": "{{ tools }}"},
                           {"name": "default", "template": %s}]}"""
        .formatted(new ObjectMapper().writeValueAsString(LLAMA3_STYLE)));
    ChatFormat f = ChatFormat.forModel("llama", config);
    assertEquals(List.of("<|eot_id|>"), f.stopTokens());
    assertTrue(f.render(CONVERSATION, true).startsWith("<|begin_of_text|><|start_header_id|>"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ChatFormat.forModel("mistral", new ObjectMapper().createObjectNode()));
    assertTrue(e.getMessage().contains("'mistral'"), e.getMessage());
  }

  @Test
  void aLlamaFamilyCheckpointWithASimpleTemplateLoadsAndPromptsWithIt() throws Exception {
    ModelConfig llama = ModelConfig.qwen3(300, 32, 64, 2, 4, 2, 8, true)
        .withFamily("llama", false, false, false);
    TinyModels.write(llama, 5, new TinyModels.TokenizerSource.ByteLevel(), TensorDtype.F32, dir);
    try (PolicyModel p = HfModelFolder.load(dir, Device.cpu())) {
      assertInstanceOf(JinjaChatFormat.class, p.chat());
      String text = new Qwen3ChatFormat(false).render(CONVERSATION, true);
      assertArrayEquals(p.tokenizer().encode(text), p.promptIds(CONVERSATION));
      assertTrue(p.stopTokenIds().contains(ByteLevelTokenizerFiles.IM_END));
    }
  }
}
