package arbor.rlm;

import arbor.conf.OnMaxTurns;
import arbor.policy.files.ChatMessage;
import arbor.rlm.ResponseParser.FinalText;
import arbor.rlm.policy.Generation;
import arbor.rlm.policy.NodePath;
import arbor.rlm.policy.Policy;
import arbor.rlm.policy.PolicyCall;
import arbor.rlm.sandbox.CellResult;
import arbor.rlm.sandbox.CellStatus;
import arbor.rlm.sandbox.SandboxSession;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One RLM node: turns of generate, execute, observe until a final answer, the turn limit, or a
 * stop. The conversation of each turn is {@code [system, metadata, (assistant, observation)*,
 * instruction]}, with only the latest instruction kept at the tail, so every turn is recorded with
 * the exact prompt it was given.
 */
public final class NodeLoop {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Policy policy;
  private final Prompts prompts;
  private final RlmLimits limits;

  public NodeLoop(Policy policy, Prompts prompts, RlmLimits limits) {
    this.policy = policy;
    this.prompts = prompts;
    this.limits = limits;
  }

  /** The node to run: where it sits, the prompt it answers, its context and system prompt. */
  public record NodeSpec(NodePath path, String prompt, RlmContext context, Prompts.Role role, long treeSeed) {
    /** A node of a tree with seed 0 (tests, single nodes). */
    public NodeSpec(NodePath path, String prompt, RlmContext context, Prompts.Role role) {
      this(path, prompt, context, role, 0L);
    }

    long seed(int turn) {
      return TreeSeed.turn(treeSeed, path, turn);
    }
  }

  /** How the node ended, its final answer as JSON (or null), and what it did. */
  public record Outcome(NodeStatus status, String finalAnswerJson, List<Turn> turns, long genTokens) {}

  public Outcome run(NodeSpec spec, SandboxSession session, NodeGuard guard) {
    return run(spec, session, guard, turn -> {});
  }

  /** As {@link #run(NodeSpec, SandboxSession, NodeGuard)}, telling {@code onTurn} of each turn as it ends. */
  public Outcome run(NodeSpec spec, SandboxSession session, NodeGuard guard, java.util.function.Consumer<Turn> onTurn) {
    List<ChatMessage> head = List.of(
        ChatMessage.system(prompts.system(spec.role())), ChatMessage.user(spec.context().metadata()));
    List<ChatMessage> history = new ArrayList<>();
    List<Turn> turns = new ArrayList<>();
    long tokens = 0;
    for (int t = 0; t < limits.maxTurns(); t++) {
      NodeStatus stop = guard.stopReason();
      if (stop != null) {
        return new Outcome(stop, null, turns, tokens);
      }
      List<ChatMessage> messages = conversation(head, history, prompts.instruction(t, spec.prompt()));
      long g0 = System.nanoTime();
      Generation gen;
      try {
        gen = generate(spec, t, messages, guard);
      } catch (Policy.PolicyException | RuntimeException | LinkageError e) {
        // A policy interrupted by a stop fails too; the stop, not the failure, is the status,
        // and the interrupted turn is recorded as cancelled.
        NodeStatus stopped = guard.stopReason();
        if (stopped != null) {
          turns.add(new Turn(t, messages, "", null, null, null, List.of(), null, false,
              (System.nanoTime() - g0) / 1_000_000, 0, Generation.Finish.CANCELLED, Generation.Sampling.NONE,
              spec.seed(t)));
          onTurn.accept(turns.getLast());
        }
        return new Outcome(stopped != null ? stopped : NodeStatus.POLICY_ERROR, null, turns, tokens);
      }
      long genMillis = (System.nanoTime() - g0) / 1_000_000;
      tokens += gen.tokenCount();
      guard.chargeTokens(gen.tokenCount());

      long e0 = System.nanoTime();
      Step step = execute(gen.text(), session, guard);
      long execMillis = (System.nanoTime() - e0) / 1_000_000;
      turns.add(new Turn(t, messages, gen.text(), gen.promptTokenIds(), gen.tokenIds(), gen.logprobs(),
          step.code(), step.observation(), step.replError(), genMillis, execMillis, gen.finish(), gen.sampling(),
          spec.seed(t)));
      onTurn.accept(turns.getLast());
      if (step.finalJson() != null) {
        NodeStatus stopped = guard.stoppedBy();
        return stopped != null
            ? new Outcome(stopped, null, turns, tokens)
            : new Outcome(NodeStatus.FINAL, step.finalJson(), turns, tokens);
      }
      if (step.lost() != null) {
        NodeStatus after = guard.stopReason();
        // Its own runaway cell is the node's doing; a REPL lost to anything else is the infrastructure's.
        NodeStatus lost = step.lost() == CellStatus.KILLED ? NodeStatus.SANDBOX_ERROR : NodeStatus.SANDBOX_LOST;
        return new Outcome(after != null ? after : lost, null, turns, tokens);
      }
      history.add(ChatMessage.assistant(gen.text()));
      history.add(ChatMessage.user(step.observation()));
    }
    if (limits.onMaxTurns() == OnMaxTurns.ASK && guard.stopReason() == null) {
      Outcome asked = askForFinal(spec, session, guard, head, history, turns, tokens);
      onTurn.accept(asked.turns().getLast());
      return asked;
    }
    return new Outcome(NodeStatus.MAX_TURNS, null, turns, tokens);
  }

  private Generation generate(NodeSpec spec, int turn, List<ChatMessage> messages, NodeGuard guard)
      throws Policy.PolicyException {
    return policy.generate(new PolicyCall(spec.path(), turn, messages, spec.prompt(),
        spec.context() instanceof RlmContext.Papers, spec.seed(turn), Math.max(1, guard.tokensLeft())));
  }

  /** One extra plain turn: the response is read for a final answer only; its code is not run. */
  private Outcome askForFinal(NodeSpec spec, SandboxSession session, NodeGuard guard,
      List<ChatMessage> head, List<ChatMessage> history, List<Turn> turns, long tokens) {
    int t = turns.size();
    List<ChatMessage> messages = conversation(head, history, prompts.finalInstruction(spec.prompt()));
    long g0 = System.nanoTime();
    Generation gen;
    try {
      gen = generate(spec, t, messages, guard);
    } catch (Policy.PolicyException | RuntimeException | LinkageError e) {
      return new Outcome(NodeStatus.MAX_TURNS, null, turns, tokens);
    }
    long genMillis = (System.nanoTime() - g0) / 1_000_000;
    tokens += gen.tokenCount();
    guard.chargeTokens(gen.tokenCount());
    Optional<FinalText> ft = ResponseParser.finalText(gen.text());
    String finalJson = null;
    String observation = "No final answer given.";
    List<String> code = new ArrayList<>();
    boolean error = false;
    if (ft.isPresent()) {
      code.add(ft.get().asCode());
      CellResult r = session.execute(ft.get().asCode());
      finalJson = r.hasFinal() ? normalise(r.finalJson()) : null;
      error = r.status() != CellStatus.COMPLETED;
      observation = Observation.format(List.of(r), limits.maxOutputChars());
    }
    turns.add(new Turn(t, messages, gen.text(), gen.promptTokenIds(), gen.tokenIds(), gen.logprobs(),
        code, observation, error, genMillis, 0, gen.finish(), gen.sampling(), spec.seed(t)));
    NodeStatus stopped = guard.stoppedBy();
    if (stopped != null) {
      return new Outcome(stopped, null, turns, tokens);
    }
    return new Outcome(finalJson != null ? NodeStatus.FINAL : NodeStatus.MAX_TURNS, finalJson, turns, tokens);
  }

  /** @param lost how the REPL was lost ({@code KILLED} or {@code SANDBOX_LOST}), or null */
  private record Step(List<String> code, String observation, String finalJson, CellStatus lost, boolean replError) {}

  /** Runs every code block in order, stopping at the first that submits; then a text FINAL. */
  private Step execute(String response, SandboxSession session, NodeGuard guard) {
    List<String> blocks = ResponseParser.codeBlocks(response);
    Optional<FinalText> finalText = ResponseParser.finalText(response);
    if (blocks.isEmpty() && finalText.isEmpty()) {
      return new Step(List.of(), Observation.NO_CODE, null, null, false);
    }
    List<String> ran = new ArrayList<>();
    List<CellResult> cells = new ArrayList<>();
    String finalJson = null;
    CellStatus lost = null;
    for (String block : blocks) {
      if (guard.stopReason() != null) {
        lost = CellStatus.SANDBOX_LOST;
        break;
      }
      ran.add(block);
      CellResult r = session.execute(block);
      cells.add(r);
      if (r.hasFinal()) {
        finalJson = normalise(r.finalJson());
        break;
      }
      if (r.status().replGone()) {
        lost = r.status();
        break;
      }
    }
    if (finalJson == null && lost == null && finalText.isPresent()) {
      String code = finalText.get().asCode();
      ran.add(code);
      CellResult r = session.execute(code);
      cells.add(r);
      finalJson = r.hasFinal() ? normalise(r.finalJson()) : null;
      lost = r.status().replGone() ? r.status() : null;
    }
    boolean replError = cells.stream().anyMatch(c -> c.status() != CellStatus.COMPLETED);
    return new Step(ran, Observation.format(cells, limits.maxOutputChars()), finalJson, lost, replError);
  }

  private static List<ChatMessage> conversation(List<ChatMessage> head, List<ChatMessage> history, String instruction) {
    List<ChatMessage> messages = new ArrayList<>(head);
    messages.addAll(history);
    messages.add(ChatMessage.user(instruction));
    return messages;
  }

  /** Final answers are stored as JSON; what the sandbox sent is checked, never trusted. */
  static String normalise(String json) {
    try {
      return JSON.writeValueAsString(JSON.readTree(json));
    } catch (JsonProcessingException e) {
      try {
        return JSON.writeValueAsString(json);
      } catch (JsonProcessingException impossible) {
        throw new IllegalStateException(impossible);
      }
    }
  }
}
