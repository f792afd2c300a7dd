package arbor.pipelines.sft;

import static org.apache.spark.sql.functions.*;

import arbor.conf.ArborConfig;
import arbor.conf.PolicyKind;
import arbor.pipelines.rollouts.Rollouts;
import arbor.rlm.Prompts;
import arbor.synthesis.Queries;
import arbor.text.Hashes;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;

/**
 * What a teacher's traces depend on, as the key under which sft files and finds them
 * ({@code teacher_runs}): the data (each sft query's id, group, question and evidence; each
 * group's papers; each paper's noisy text) and the teacher (its kind and settings, the scripted
 * expert's program as compiled, the prompts' text, the REPL and turn caps, the judge that keeps
 * or drops its trees, the samples per query). The seeds are not in it: traces are reused by a
 * later run whatever its name, so they keep the seeds of the run that made them.
 */
public record TeacherKey(String dataset, String settings) {
  /** The classes whose code writes the scripted expert's turns: a change to them is a new teacher. */
  private static final List<String> SCRIPTED_PROGRAM = List.of("ExpertPolicy", "PassageExpert", "QuestionKeywords");

  public static TeacherKey of(ArborConfig config, PolicyKind teacher, Dataset<Row> queries, Dataset<Row> groups,
      Dataset<Row> papers) {
    return new TeacherKey(dataset(queries, groups, papers), settings(config, teacher));
  }

  /** The key itself: hex SHA-256 of the dataset's hash and the settings' text. */
  public String hash() {
    return Hashes.sha256(dataset + "\n" + settings);
  }

  static String dataset(Dataset<Row> queries, Dataset<Row> groups, Dataset<Row> papers) {
    Dataset<Row> q = queries.select(col(Queries.QUERY_ID), col(Queries.GROUP_ID), col(Queries.QUESTION),
        col(Queries.EVIDENCE));
    Dataset<Row> g = groups.join(q.select(Queries.GROUP_ID).distinct(), Rollouts.GROUP_ID)
        .select(col(Rollouts.GROUP_ID), col(Rollouts.GROUP_PAPER_IDS));
    Dataset<Row> p = papers.join(g.select(explode(col(Rollouts.GROUP_PAPER_IDS)).as(Rollouts.PAPER_ID)).distinct(),
        Rollouts.PAPER_ID).select(col(Rollouts.PAPER_ID), sha2(col(Rollouts.NOISY_TEXT), 256).as("text"));
    List<String> lines = new ArrayList<>();
    for (Dataset<Row> part : List.of(q, g, p)) {
      lines.addAll(part.select(to_json(struct(col("*")))).as(Encoders.STRING()).collectAsList().stream().sorted().toList());
      lines.add("");
    }
    return Hashes.sha256(String.join("\n", lines));
  }

  static String settings(ArborConfig config, PolicyKind teacher) {
    var policy = config.policy();
    String who = switch (teacher) {
      case SCRIPTED -> policy.scripted() + " " + SCRIPTED_PROGRAM.stream().map(TeacherKey::classHash).toList();
      case OPENAI -> policy.openai().toString();
      case ANTHROPIC -> policy.anthropic().toString();
      default -> throw new IllegalArgumentException("no teacher traces for policy " + teacher.key());
    };
    return String.join("\n", "teacher " + teacher.key() + " " + who,
        "samples " + config.sft().samples(),
        "rlm " + config.rlm(),
        "prompts " + Hashes.sha256(Prompts.of(config.rlm()).toString()),
        "repl " + config.repl(),
        "judge " + config.judge());
  }

  private static String classHash(String simpleName) {
    String resource = "arbor/rlm/policy/" + simpleName + ".class";
    try (InputStream in = TeacherKey.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("the scripted expert's class " + resource + " is not on the classpath");
      }
      return simpleName + ":" + Hashes.sha256(in.readAllBytes()).substring(0, 16);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
