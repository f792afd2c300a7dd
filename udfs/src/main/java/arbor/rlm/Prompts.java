package arbor.rlm;

import arbor.conf.RlmSettings;
import arbor.conf.PromptStrategy;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;

/**
 * The prompt texts of method.md section 4, read from files ({@code conf/prompts/} in the repo,
 * {@code conf/prompts/} on the classpath in the jobs jar) so that the full vs. reduced strategy
 * ablation is a configuration change. Templates hold {@code {{prompt}}} where the node's root
 * prompt goes.
 */
public record Prompts(Map<Role, String> systems, String instruction, String firstInstruction,
    String finalInstruction) {

  /** Which system prompt a node gets. */
  public enum Role {
    ROOT_MULTI("root_multi"), CHILD("child"), SINGLE("single");

    final String file;

    Role(String file) {
      this.file = file;
    }
  }


  public Prompts {
    systems = Map.copyOf(systems);
  }

  /** The configured strategy's prompts from {@code rlm.prompt_dir}, or the jar's copies when that folder does not exist. */
  public static Prompts of(RlmSettings rlm) {
    Path dir = Path.of(rlm.promptDir());
    return Files.isDirectory(dir) ? load(dir, rlm.prompts()) : fromClasspath("conf/prompts", rlm.prompts());
  }

  public static Prompts load(Path dir, PromptStrategy strategy) {
    return load(name -> Files.readString(dir.resolve(name), StandardCharsets.UTF_8), strategy);
  }

  public static Prompts fromClasspath(String prefix, PromptStrategy strategy) {
    return load(name -> {
      try (InputStream in = Prompts.class.getClassLoader().getResourceAsStream(prefix + "/" + name)) {
        if (in == null) {
          throw new IOException("prompt file " + prefix + "/" + name + " is not on the classpath");
        }
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
    }, strategy);
  }

  private interface Reader {
    String read(String name) throws IOException;
  }

  private static Prompts load(Reader reader, PromptStrategy strategy) {
    try {
      Map<Role, String> systems = new EnumMap<>(Role.class);
      String suffix = "." + strategy.name().toLowerCase(java.util.Locale.ROOT) + ".md";
      for (Role role : Role.values()) {
        systems.put(role, reader.read(role.file + suffix).strip());
      }
      return new Prompts(systems, reader.read("instruction.md").strip(),
          reader.read("instruction_first.md").strip(), reader.read("instruction_final.md").strip());
    } catch (IOException e) {
      throw new UncheckedIOException("could not read the prompt files: " + e.getMessage(), e);
    }
  }

  public String system(Role role) {
    return systems.get(role);
  }

  /** The ephemeral instruction at the tail of turn {@code turn}; it re-quotes the root prompt. */
  public String instruction(int turn, String rootPrompt) {
    String text = turn == 0 ? firstInstruction + "\n\n" + instruction : instruction;
    return text.replace("{{prompt}}", rootPrompt);
  }

  public String finalInstruction(String rootPrompt) {
    return finalInstruction.replace("{{prompt}}", rootPrompt);
  }
}
