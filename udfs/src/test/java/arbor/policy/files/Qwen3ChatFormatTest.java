package arbor.policy.files;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.policy.model.HfModelFolder;
import arbor.policy.model.Qwen3Tokenizer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The expected strings below were worked out by hand from Qwen3's chat_template (the
 * tokenizer_config.json of the package in {@link Qwen3Tokenizer}), branch by branch, and
 * cross-checked once with Python's jinja2 while writing this test.
 */
class Qwen3ChatFormatTest {

  private final Qwen3ChatFormat format = new Qwen3ChatFormat(false);

  @Test
  void aSystemUserAssistantUserConversationRendersAsTheTemplateDefines() {
    List<ChatMessage> messages = List.of(
        ChatMessage.system("You are Arbor."),
        ChatMessage.user("What is 2+2?"),
        // History turns before the last user query lose their reasoning block.
        ChatMessage.assistant("<think>\nadd\n</think>\n\nIt is 4."),
        ChatMessage.user("And 3+3?"));
    String expected = "<|im_start|>system\nYou are Arbor.<|im_end|>\n"
        + "<|im_start|>user\nWhat is 2+2?<|im_end|>\n"
        + "<|im_start|>assistant\nIt is 4.<|im_end|>\n"
        + "<|im_start|>user\nAnd 3+3?<|im_end|>\n"
        // Generation prompt with thinking disabled: an empty think block.
        + "<|im_start|>assistant\n<think>\n\n</think>\n\n";
    assertEquals(expected, format.render(messages, true));
  }

  @Test
  void aFinalAssistantTurnGetsANormalisedThinkBlock() {
    List<ChatMessage> messages = List.of(ChatMessage.user("Hi"),
        ChatMessage.assistant("Plain answer"));
    assertEquals("<|im_start|>user\nHi<|im_end|>\n"
        + "<|im_start|>assistant\n<think>\n\n</think>\n\nPlain answer<|im_end|>\n",
        format.render(messages, false));
  }

  @Test
  void reasoningAfterTheLastQueryIsKeptAndToolResponsesAreNotQueries() {
    List<ChatMessage> messages = List.of(ChatMessage.user("Hi"),
        ChatMessage.assistant("\n<think>\n\nwhy\n\n</think>\n\nA"),
        ChatMessage.user("<tool_response>x</tool_response>"),
        ChatMessage.assistant("<think>r</think>B"));
    assertEquals("<|im_start|>user\nHi<|im_end|>\n"
        + "<|im_start|>assistant\n<think>\nwhy\n</think>\n\nA<|im_end|>\n"
        + "<|im_start|>user\n<tool_response>x</tool_response><|im_end|>\n"
        + "<|im_start|>assistant\n<think>\nr\n</think>\n\nB<|im_end|>\n"
        + "<|im_start|>assistant\n", new Qwen3ChatFormat(true).render(messages, true));
  }

  @Test
  void theRealQwen3TemplateHasTheBranchesThisClassImplements() throws Exception {
    String template = HfModelFolder.chatTemplate(Qwen3Tokenizer.folder());
    // If Qwen changes its template these fragments move, and the hand check must be redone.
    for (String fragment : List.of(
        "{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}",
        "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}",
        "{%- set content = message.content.split('</think>')[-1].lstrip('\\n') %}",
        "{{- '<|im_start|>' + message.role + '\\n' + content }}",
        "{{- '<think>\\n\\n</think>\\n\\n' }}")) {
      assertTrue(template.contains(fragment), "template lacks: " + fragment);
    }
  }

  @Test
  void theRenderedPromptTokenisesWithSingleIdsForTheChatMarkers() throws Exception {
    Path dir = Qwen3Tokenizer.folder();
    try (PolicyTokenizer tok = PolicyTokenizer.load(dir.resolve("tokenizer.json"))) {
      int start = tok.tokenId("<|im_start|>");
      int end = tok.tokenId("<|im_end|>");
      assertEquals(151644, start);
      assertEquals(151645, end);
      String text = format.render(List.of(ChatMessage.user("Hello")), true);
      int[] ids = tok.encode(text);
      assertEquals(start, ids[0]);
      assertEquals(text, tok.decode(ids));
      assertArrayEquals(tok.encode("Hello"), java.util.Arrays.copyOfRange(ids, 3, 3
          + tok.encode("Hello").length));
    }
  }
}
