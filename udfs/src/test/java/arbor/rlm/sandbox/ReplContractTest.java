package arbor.rlm.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The REPL contract of method.md section 2, on the trusted in-process sandbox. */
class ReplContractTest {
  static final String PAPERS = "{\"p1\": \"Sparse Attention\\nAbstract\\nWe cut pa-\\nrameters. More.\\n\\nBody.\","
      + " \"p2\": \"Dense Retrieval\\nAbstract\\nDual encoders.\\n\\nThe encoder has parameters.\"}";
  static InProcessSandbox sandbox;

  @BeforeAll
  static void start() {
    // 5 s a cell: a first import of re or statistics took over 2 s on a loaded 2-core machine.
    sandbox = new InProcessSandbox(new SandboxLimits(Duration.ofSeconds(5), Duration.ofSeconds(5), 2_000));
  }

  @AfterAll
  static void stop() {
    sandbox.close();
  }

  static SandboxSession open() {
    return sandbox.open(PAPERS, HostBridge.NONE);
  }

  @Test
  void variablesPersistAcrossCells() {
    try (SandboxSession s = open()) {
      s.execute("x = 41");
      CellResult r = s.execute("x += 1\nprint(x)");
      assertEquals(CellStatus.COMPLETED, r.status());
      assertEquals("42\n", r.stdout());
      assertEquals(List.of("x"), r.variables());
    }
  }

  @Test
  void assignmentsBeforeAnExceptionPersist() {
    try (SandboxSession s = open()) {
      CellResult r = s.execute("a = 1\nb = [a, 2]\nraise ValueError('boom')\nc = 3");
      assertEquals(CellStatus.RAISED, r.status());
      assertTrue(r.stderr().contains("ValueError: boom"), r.stderr());
      assertTrue(r.stderr().contains("Traceback"), r.stderr());
      assertFalse(r.stderr().contains("arbor_prelude"), "the REPL's own frame is hidden: " + r.stderr());
      assertEquals("[1, 2] False\n", s.execute("print(b, 'c' in dir())").stdout());
    }
  }

  @Test
  void stdoutAndStderrAreCapturedPerExecution() {
    try (SandboxSession s = open()) {
      CellResult first = s.execute("print('one')\nraise KeyError('k')");
      CellResult second = s.execute("print('two')");
      assertEquals("one\n", first.stdout());
      assertEquals("two\n", second.stdout());
      assertEquals("", second.stderr());
    }
  }

  @Test
  void concurrentSessionsNeverSeeEachOthersOutput() throws Exception {
    List<Callable<String>> jobs = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      int id = i;
      jobs.add(() -> {
        try (SandboxSession s = open()) {
          StringBuilder all = new StringBuilder();
          for (int cell = 0; cell < 5; cell++) {
            all.append(s.execute("for i in range(200): print('node%d')" .formatted(id)).stdout());
          }
          return all.toString();
        }
      });
    }
    try (var pool = Executors.newFixedThreadPool(6)) {
      List<Future<String>> outs = pool.invokeAll(jobs);
      for (int i = 0; i < outs.size(); i++) {
        String out = outs.get(i).get();
        assertEquals(1000, out.lines().count());
        int id = i;
        assertTrue(out.lines().allMatch(l -> l.equals("node" + id)), "cross-talk in node " + i);
      }
    }
  }

  @Test
  void contextIsBoundAndRestoredFromContextZero() {
    try (SandboxSession s = open()) {
      assertEquals("['p1', 'p2'] True\n", s.execute("print(sorted(context), context is context_0)").stdout());
      s.execute("context = 'gone'\ncontext_0 = None");
      assertEquals("dict 2\n", s.execute("print(type(context).__name__, len(context))").stdout());
      s.execute("del context['p1']\ncontext['p3'] = 'x'");
      assertEquals("['p1', 'p2']\n", s.execute("print(sorted(context))").stdout());
    }
  }

  @Test
  void aStringContextStaysAString() {
    try (SandboxSession s = sandbox.open("\"one paper\\nAbstract\\nText.\"", HostBridge.NONE)) {
      assertEquals("str\n", s.execute("print(type(context).__name__)").stdout());
    }
  }

  @Test
  void reservedNamesAreRestoredAfterEveryExecution() {
    try (SandboxSession s = open()) {
      s.execute("FINAL = 1\nsearch = None\ndef llm_query(p): return 'fake'");
      CellResult r = s.execute("print(callable(FINAL), callable(search))\nFINAL(['x'])");
      assertEquals("True True\n", r.stdout());
      assertEquals("[\"x\"]", r.finalJson());
    }
  }

  @Test
  void aBoundQuestionIsAReservedStrThatNoCellCanChange() {
    String question = "Which \"results\" hold?\nName them.";
    try (SandboxSession s = sandbox.open(PAPERS, question, HostBridge.NONE)) {
      CellResult r = s.execute("print(question)");
      assertEquals(CellStatus.COMPLETED, r.status(), r.stderr());
      assertEquals(question + "\n", r.stdout());
      assertEquals(List.of(), r.variables(), "a reserved name is no user variable");
      CellResult shadowed = s.execute("question = 1\nprint(question)");
      assertEquals("1\n", shadowed.stdout(), shadowed.stderr());
      assertEquals(List.of(), shadowed.variables());
      assertEquals("str " + question + "\n", s.execute("print(type(question).__name__, question)").stdout());
      s.execute("del question\nn = 2");
      assertEquals(question + "\n", s.execute("print(question)").stdout());
      assertEquals("n: int\n", s.execute("print(SHOW_VARS())").stdout());
    }
  }

  @Test
  void withoutABoundQuestionThereIsNoSuchName() {
    try (SandboxSession s = open()) {
      CellResult r = s.execute("print(question)");
      assertEquals(CellStatus.RAISED, r.status());
      assertTrue(r.stderr().contains("NameError: name 'question' is not defined"), r.stderr());
      s.execute("question = 'mine'");
      assertEquals("question: str\n", s.execute("print(SHOW_VARS())").stdout(), "an ordinary variable then");
    }
  }

  @Test
  void theBuiltinsCannotBeOverwritten() {
    try (SandboxSession s = open()) {
      CellResult r = s.execute("__builtins__['print'] = None\n__builtins__['len'] = lambda x: 0");
      assertEquals(CellStatus.RAISED, r.status(), r.stderr());
      assertTrue(r.stderr().contains("'__builtins__' is not allowed"), r.stderr());
      assertEquals("3\n", s.execute("print(len('abc'))").stdout());
    }
  }

  @Test
  void finalSubmitsJsonAndFinalVarReadsAVariable() {
    try (SandboxSession s = open()) {
      assertEquals("[\"a\", \"b\"]", s.execute("FINAL(['a', 'b'])").finalJson());
      CellResult none = s.execute("y = 1");
      assertNull(none.finalJson(), "a submission belongs to its cell only");
      assertEquals("[\"e1\"]", s.execute("evidence = ['e1']\nFINAL_VAR('evidence')").finalJson());
      assertEquals("[1, 2]", s.execute("FINAL_VAR([1, 2])").finalJson());
      CellResult missing = s.execute("FINAL_VAR('nope')");
      assertNull(missing.finalJson());
      assertTrue(missing.stderr().contains("no variable named 'nope'"), missing.stderr());
    }
  }

  @Test
  void showVarsListsUserVariablesWithTypes() {
    try (SandboxSession s = open()) {
      // math, not re: a first import of re can take seconds on a loaded machine (CI saw the
      // cell time out, and then no variable was listed).
      CellResult cell = s.execute("import math\nhits = ['a']\nn = 3\n_private = 1");
      assertEquals(CellStatus.COMPLETED, cell.status(), cell.stderr());
      assertEquals("hits: list\nn: int\n", s.execute("print(SHOW_VARS())").stdout());
    }
  }

  @Test
  void allowListedModulesImportAndOthersDoNot() {
    try (SandboxSession s = open()) {
      // One cell per module: a first import of statistics (random, fractions, decimal) alone takes
      // a good part of this suite's limit on a loaded machine.
      for (String module : PythonSession.ALLOWED_MODULES) {
        CellResult imported = s.execute("import " + module);
        assertEquals(CellStatus.COMPLETED, imported.status(), module + ": " + imported.stderr());
      }
      CellResult ok = s.execute("print(json.dumps(re.findall('a', 'aa')))");
      assertEquals("[\"a\", \"a\"]\n", ok.stdout(), ok.stderr());
      CellResult blocked = s.execute("import os");
      assertEquals(CellStatus.RAISED, blocked.status());
      assertTrue(blocked.stderr().contains("import of 'os' is not allowed"), blocked.stderr());
    }
  }

  @Test
  void paperToolsAreCallableFromPython() {
    try (SandboxSession s = open()) {
      CellResult r = s.execute("ids = list_papers(context)\nhits = search(context, 'parameters', 40)\n"
          + "span = extract_section(hits[0], 'we cut', 'rameters.')\n"
          + "print(ids, len(hits), repr(span))\nprint(get_paper_abstract(context, 'p2'))");
      assertEquals(CellStatus.COMPLETED, r.status(), r.stderr());
      assertTrue(r.stdout().contains("['p1', 'p2'] 2 'We cut pa-\\nrameters.'"), r.stdout());
      assertTrue(r.stdout().contains("Paper ID: p2\nTitle: Dense Retrieval\nAbstract: Dual encoders."), r.stdout());
      assertTrue(r.stdout().contains("=== p1: Sparse Attention"), r.stdout());
    }
  }

  @Test
  void aToolGivenTheWrongTypeRaisesAClearError() {
    try (SandboxSession s = open()) {
      CellResult r = s.execute("search(42, 'x')");
      assertEquals(CellStatus.RAISED, r.status());
      assertTrue(r.stderr().contains("expected the context"), r.stderr());
    }
  }

  @Test
  void hostCallbacksCrossWithJsonValues() {
    HostBridge echo = (name, args) -> name.equals("rlm_query") ? "[\"child\", " + args + "]" : "\"plain\"";
    try (SandboxSession s = sandbox.open(PAPERS, echo)) {
      CellResult r = s.execute("print(rlm_query('q', 'ctx'))\nprint(llm_query('hi'))");
      assertEquals("['child', ['q', 'ctx']]\nplain\n", r.stdout(), r.stderr());
    }
  }

  @Test
  void aFailingHostCallIsAPythonException() {
    try (SandboxSession s = open()) {
      CellResult r = s.execute("try:\n  llm_query('x')\nexcept RuntimeError as e:\n  print('caught', e)");
      assertEquals("caught llm_query is not available in this sandbox\n", r.stdout());
    }
  }

  @Test
  void timeWaitingForTheHostDoesNotCountAgainstTheCell() {
    HostBridge slow = (name, args) -> {
      try {
        Thread.sleep(3_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return "\"done\"";
    };
    try (SandboxSession s = sandbox.open(PAPERS, slow)) {
      CellResult r = s.execute("print(rlm_query('slow child'))");
      assertEquals(CellStatus.COMPLETED, r.status(), r.stderr());
      assertEquals("done\n", r.stdout());
      assertTrue(r.activeMillis() < 2_000, "active " + r.activeMillis());
    }
  }

  @Test
  void aLoopPastTheWallTimeIsInterruptedAndTheReplStaysUsable() {
    try (SandboxSession s = open()) {
      CellResult r = s.execute("before = 1\nwhile True:\n  pass");
      assertEquals(CellStatus.TIMED_OUT, r.status());
      assertTrue(r.stderr().contains("wall-time limit of 5.0 s"), r.stderr());
      assertEquals("1\n", s.execute("print(before)").stdout());
    }
  }

  @Test
  void outputBeyondTheCapIsDroppedAndCounted() {
    try (SandboxSession s = open()) {
      CellResult r = s.execute("print('x' * 20000)");
      assertEquals(8_000, r.stdout().length());
      assertEquals(20_001 - 8_000, r.droppedChars());
    }
  }

  @Test
  void tracebacksQuoteTheCellAndShowChainedExceptions() {
    try (SandboxSession s = open()) {
      CellResult r = s.execute("def f(x):\n    return 1 / x\ntry:\n    f(0)\nexcept ZeroDivisionError as e:\n"
          + "    raise KeyError('k') from e");
      assertEquals(CellStatus.RAISED, r.status());
      String err = r.stderr();
      assertTrue(err.startsWith("Traceback (most recent call last):\n"), err);
      assertTrue(err.contains("  File \"<cell>\", line 2, in f\n    return 1 / x\n"), err);
      assertTrue(err.contains("ZeroDivisionError: division by zero\n\nThe above exception was the direct cause of the"
          + " following exception:\n\n"), err);
      assertTrue(err.endsWith("    raise KeyError('k') from e\nKeyError: 'k'\n"), err);
      assertFalse(err.contains("arbor_prelude"), err);

      String during = s.execute("try:\n    [][1]\nexcept IndexError:\n    undefined_name").stderr();
      assertTrue(during.contains("IndexError: list index out of range\n\nDuring handling of the above exception,"
          + " another exception occurred:\n\n"), during);
      assertTrue(during.endsWith("NameError: name 'undefined_name' is not defined\n"), during);

      String syntax = s.execute("x = = 1").stderr();
      assertTrue(syntax.contains("  File \"<cell>\", line 1\n    x = = 1\n"), syntax);
      assertTrue(syntax.contains("^\nSyntaxError: "), syntax);
    }
  }

  @Test
  void syntaxErrorsAreReportedOnStderr() {
    try (SandboxSession s = open()) {
      CellResult r = s.execute("def f(:\n  pass");
      assertEquals(CellStatus.RAISED, r.status());
      assertTrue(r.stderr().contains("SyntaxError"), r.stderr());
    }
  }
}
