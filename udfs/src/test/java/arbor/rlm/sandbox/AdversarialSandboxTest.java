package arbor.rlm.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile programs against the isolated sandbox. For each: the cell ends with a clear error (or,
 * where the program only probes, without leaking anything), nothing outside the sandbox changed,
 * this JVM runs on, and the REPL - or, when its worker was sacrificed, a fresh one - still works.
 * One pool serves the whole suite; workers killed on the way are replaced by the pool.
 */
class AdversarialSandboxTest {
  static final Path DIR = Path.of(System.getProperty("arbor.repo", "."), "udfs", "target", "adversarial")
      .toAbsolutePath();
  static final Path CANARY = DIR.resolve("canary.txt");
  static final Path PWNED = DIR.resolve("pwned");
  static final String CONTEXT = "{\"p1\": \"Title one\\nAbstract\\nText one.\", \"p2\": \"Title two\\nText two.\"}";

  // The walk to the unguarded import through the guard's closure: refused by name, so every
  // program built on it ends at its first line; the context's configuration would refuse what
  // lies behind it anyway.
  static final String REAL_IMPORT = "imp = [c.cell_contents for c in __import__.__closure__ "
      + "if callable(c.cell_contents) and getattr(c.cell_contents, '__name__', '') == '__import__'][0]\n";

  // What the context's restrictions say when Python code reaches a forbidden operation.
  static final String DENIED = "PermissionError|not allowed|SandboxError";
  static final String WALK_REFUSED = "'__closure__' is not allowed in this sandbox";

  enum Category { FILES, IMPORTS, HOST, PROCESS_NETWORK, THREADS_SIGNALS, EXIT, LOOPS, LONG_BUILTINS,
    MEMORY, RECURSION, OUTPUT, OVERWRITE }

  static final Set<CellStatus> ERROR = EnumSet.of(CellStatus.RAISED);
  static final Set<CellStatus> STOPPED = EnumSet.of(CellStatus.TIMED_OUT, CellStatus.KILLED);
  static final Set<CellStatus> ANY_FAILURE = EnumSet.of(CellStatus.RAISED, CellStatus.TIMED_OUT, CellStatus.KILLED);
  static final Set<CellStatus> CLEAN = EnumSet.of(CellStatus.COMPLETED);

  /** One hostile program, the statuses it may end with, and what its stderr must say. */
  record Hostile(Category category, String name, String code, Set<CellStatus> statuses, String stderr,
      Predicate<CellResult> extra) {
    Hostile(Category category, String name, String code, Set<CellStatus> statuses, String stderr) {
      this(category, name, code, statuses, stderr, r -> true);
    }

    @Override
    public String toString() {
      return category + ": " + name;
    }
  }

  static String q(Path p) {
    return "'" + p.toString() + "'";
  }

  static List<Hostile> programs() {
    String pw = q(PWNED);
    String canary = q(CANARY);
    return List.of(
        // --- file access
        new Hostile(Category.FILES, "open is gone", "open('/etc/passwd').read()", ERROR, "NameError: name 'open'"),
        new Hostile(Category.FILES, "io.open", "import io\nio.open('/etc/passwd')", ERROR, "import of 'io' is not allowed"),
        new Hostile(Category.FILES, "os.listdir", "import os\nos.listdir('/')", ERROR, "import of 'os' is not allowed"),
        new Hostile(Category.FILES, "pathlib", "import pathlib\npathlib.Path('/etc/passwd').read_text()", ERROR, "import of 'pathlib' is not allowed"),
        new Hostile(Category.FILES, "write through the real import", REAL_IMPORT + "imp('os').open(" + pw + ", 0o101)", ERROR, WALK_REFUSED),
        new Hostile(Category.FILES, "delete the canary", REAL_IMPORT + "imp('os').remove(" + canary + ")", ERROR, WALK_REFUSED),
        new Hostile(Category.FILES, "FileIO from a subclass walk",
            "fio = [c for c in object.__subclasses__() if c.__name__ in ('FileIO', '_IOBase')]\n"
            + "import_io = [c for c in fio if c.__name__ == 'FileIO']\n(import_io or fio)[0](" + pw + ", 'w')",
            ERROR, "TypeError|" + DENIED),
        new Hostile(Category.FILES, "graalpython read_file", "__graalpython__.read_file('/etc/passwd')", ERROR, "PermissionError"),
        // --- imports outside the allow-list and ways around the guard
        new Hostile(Category.IMPORTS, "__import__", "__import__('os')", ERROR, "import of 'os' is not allowed"),
        new Hostile(Category.IMPORTS, "importlib", "import importlib\nimportlib.import_module('os')", ERROR, "import of 'importlib' is not allowed"),
        new Hostile(Category.IMPORTS, "sys.modules", "import sys\nsys.modules['os']", ERROR, "import of 'sys' is not allowed"),
        new Hostile(Category.IMPORTS, "__builtins__.__import__", "__builtins__['__import__']('subprocess')", ERROR, "'__builtins__' is not allowed"),
        new Hostile(Category.IMPORTS, "__builtins__ dict", "vars(__builtins__)['__import__']('ctypes') if not isinstance(__builtins__, dict) else __builtins__['__import__']('ctypes')", ERROR, "'__builtins__' is not allowed"),
        new Hostile(Category.IMPORTS, "relative import", "from . import os", ERROR, "not allowed"),
        new Hostile(Category.IMPORTS, "exec in a library's globals", "import json\nexec('import os as o\\no.mkdir(" + pw.replace("'", "\\'") + ")', json.__dict__)", ERROR, DENIED),
        new Hostile(Category.IMPORTS, "BuiltinImporter from __subclasses__",
            "bi = [c for c in object.__subclasses__() if c.__name__ == 'BuiltinImporter'][0]\n"
            + "import_spec = bi.find_spec('posix')\nposix = bi.create_module(import_spec)\nposix.system('touch ' + " + pw + ")",
            ERROR, DENIED),
        new Hostile(Category.IMPORTS, "__mro__ walk to os._wrap_close",
            "w = [c for c in ''.__class__.__mro__[-1].__subclasses__() if c.__name__ == '_wrap_close'][0]\n"
            + "w.__init__.__globals__['system']('touch ' + " + pw + ")", ERROR, DENIED + "|IndexError"),
        new Hostile(Category.IMPORTS, "function globals of a built-in", "g = FINAL.__globals__['__builtins__']\n(g['__import__'] if isinstance(g, dict) else g.__import__)('socket')", ERROR, "not allowed"),
        new Hostile(Category.IMPORTS, "ctypes through the real import", REAL_IMPORT + "imp('ctypes').CDLL(None)", ERROR, WALK_REFUSED),
        // --- walks around the allow-list: the guard's closure, library file names, frames, tracebacks
        new Hostile(Category.IMPORTS, "the guard's closure through getattr", "getattr(__import__, '__clo' + 'sure__')", ERROR, WALK_REFUSED),
        new Hostile(Category.IMPORTS, "compile under a library file name",
            "import json\nexec(compile('import os\\nos.mkdir(" + pw.replace("'", "\\'") + ")', '/usr/lib/python3.11/json/__init__.py', 'exec'))",
            ERROR, "compile\\(\\) is not available"),
        new Hostile(Category.IMPORTS, "exec with a library file name in its globals",
            "exec('import os', {'__name__': 'json', '__file__': '/usr/lib/python3.11/json/__init__.py'})", ERROR, "import of 'os' is not allowed"),
        new Hostile(Category.IMPORTS, "frames through a traceback",
            "try:\n  1/0\nexcept Exception as e:\n  tb = e.__traceback__\nf = tb.tb_frame.f_back\nf.f_globals['sys'].modules['os']", ERROR, "'__traceback__' is not allowed"),
        new Hostile(Category.IMPORTS, "frames through a traceback, by getattr",
            "try:\n  1/0\nexcept Exception as e:\n  tb = getattr(e, '__trace' + 'back__')", ERROR, "'__traceback__' is not allowed"),
        new Hostile(Category.IMPORTS, "frames through a generator", "def g():\n  yield 1\nf = g().gi_frame.f_back.f_globals", ERROR, "'gi_frame' is not allowed"),
        new Hostile(Category.IMPORTS, "hidden names in exec", "exec('FINAL.__glo' + 'bals__')", ERROR, "'__globals__' is not allowed"),
        new Hostile(Category.IMPORTS, "a nested function reaching a closure", "def f():\n  def g():\n    return FINAL.__closure__\n  return g\nf()()", ERROR, WALK_REFUSED),
        new Hostile(Category.IMPORTS, "an allowed module's imports", "import json\njson.codecs.sys.modules['os']", ERROR, "has no attribute 'codecs'"),
        new Hostile(Category.IMPORTS, "an allowed module's private names", "import collections\ncollections._sys.modules['os']", ERROR, "has no attribute '_sys'"),
        new Hostile(Category.IMPORTS, "string.Formatter's attribute lookup",
            "import string\nstring.Formatter().get_field('0.__globals__', (FINAL,), {})", ERROR, "has no attribute 'Formatter'"),
        new Hostile(Category.IMPORTS, "the interpreter's own module", "__graalpython__.sys.modules['os']", ERROR, "'__graalpython__' is not allowed"),
        new Hostile(Category.IMPORTS, "the builtins through globals()", "globals()['__builtins__']['__graalpython__']", ERROR, "KeyError"),
        new Hostile(Category.IMPORTS, "subclasses through vars(type)", "vars(type)['__subclasses__'](object)", ERROR, "KeyError"),
        new Hostile(Category.IMPORTS, "a built-in's module", "import math\nmath.sqrt.__self__.__loader__.load_module('posix')", ERROR, "'__self__' is not allowed"),
        // --- host (Java) access
        new Hostile(Category.HOST, "import java", "import java\njava.type('java.lang.Runtime')", ERROR, "import of 'java' is not allowed"),
        new Hostile(Category.HOST, "java.type through the real import", REAL_IMPORT + "imp('java').type('java.lang.Runtime').getRuntime()", ERROR, WALK_REFUSED),
        new Hostile(Category.HOST, "polyglot eval", REAL_IMPORT + "imp('polyglot').eval(language='js', string='1')", ERROR, WALK_REFUSED),
        new Hostile(Category.HOST, "host proxy reflection",
            "hc = [c.cell_contents for c in llm_query.__closure__[0].cell_contents.__closure__ if not isinstance(c.cell_contents, str)]\n"
            + "proxy = [x for x in hc if type(x).__name__ != 'function'][0]\nproxy.getClass().forName('java.lang.System')", ERROR, "'__closure__' is not allowed"),
        new Hostile(Category.HOST, "environment", REAL_IMPORT + "print(dict(imp('os').environ))", ERROR, WALK_REFUSED,
            r -> !r.stdout().contains("PATH") && !r.stdout().contains("HOME") && !r.stdout().contains("JAVA")),
        // --- processes and network
        new Hostile(Category.PROCESS_NETWORK, "subprocess", "import subprocess\nsubprocess.run(['touch', " + pw + "])", ERROR, "import of 'subprocess' is not allowed"),
        new Hostile(Category.PROCESS_NETWORK, "os.system through the real import", REAL_IMPORT + "imp('os').system('touch ' + " + pw + ")", ERROR, WALK_REFUSED),
        new Hostile(Category.PROCESS_NETWORK, "subprocess through the real import", REAL_IMPORT + "imp('subprocess').run(['touch', " + pw + "])", ERROR, WALK_REFUSED),
        new Hostile(Category.PROCESS_NETWORK, "socket", "import socket\nsocket.create_connection(('127.0.0.1', 22))", ERROR, "import of 'socket' is not allowed"),
        new Hostile(Category.PROCESS_NETWORK, "socket through the real import", REAL_IMPORT + "imp('socket').socket()", ERROR, WALK_REFUSED),
        new Hostile(Category.PROCESS_NETWORK, "urllib", "import urllib.request\nurllib.request.urlopen('http://127.0.0.1')", ERROR, "import of 'urllib.request' is not allowed"),
        // --- threads and signals
        new Hostile(Category.THREADS_SIGNALS, "threading", "import threading", ERROR, "import of 'threading' is not allowed"),
        new Hostile(Category.THREADS_SIGNALS, "thread through the real import", REAL_IMPORT + "imp('threading').Thread(target=print).start()", ERROR, WALK_REFUSED),
        new Hostile(Category.THREADS_SIGNALS, "_thread through the real import", REAL_IMPORT + "imp('_thread').start_new_thread(print, ())", ERROR, WALK_REFUSED),
        new Hostile(Category.THREADS_SIGNALS, "signal.alarm", "import signal\nsignal.alarm(1)", ERROR, "import of 'signal' is not allowed"),
        new Hostile(Category.THREADS_SIGNALS, "multiprocessing", "import multiprocessing", ERROR, "import of 'multiprocessing' is not allowed"),
        // --- exit
        new Hostile(Category.EXIT, "exit()", "exit()", ERROR, "NameError: name 'exit'"),
        new Hostile(Category.EXIT, "quit()", "quit()", ERROR, "NameError: name 'quit'"),
        new Hostile(Category.EXIT, "raise SystemExit", "raise SystemExit(1)", ERROR, "SystemExit"),
        new Hostile(Category.EXIT, "sys.exit through the real import", REAL_IMPORT + "imp('sys').exit(0)", ERROR, WALK_REFUSED),
        new Hostile(Category.EXIT, "KeyboardInterrupt", "raise KeyboardInterrupt", ERROR, "KeyboardInterrupt"),
        // --- infinite loops
        new Hostile(Category.LOOPS, "while True", "while True:\n  pass", STOPPED, "wall-time limit"),
        new Hostile(Category.LOOPS, "loop that swallows the interrupt",
            "while True:\n  try:\n    while True:\n      pass\n  except BaseException:\n    pass", STOPPED, "wall-time limit"),
        new Hostile(Category.LOOPS, "itertools.count", "import itertools\nfor _ in itertools.count():\n  pass", STOPPED, "wall-time limit"),
        // --- long-running built-ins: uninterruptible, so the worker is killed and replaced
        new Hostile(Category.LONG_BUILTINS, "sum(range(10**12))", "sum(range(10**12))", STOPPED, "wall-time limit"),
        new Hostile(Category.LONG_BUILTINS, "sorted(range(10**8))", "sorted(range(10**8))", ANY_FAILURE, "MemoryError|wall-time limit"),
        // --- memory bombs
        new Hostile(Category.MEMORY, "'a'*10**10", "'a' * 10**10", ERROR, "MemoryError|OverflowError"),
        new Hostile(Category.MEMORY, "[0]*10**10", "[0] * 10**10", ERROR, "MemoryError|OverflowError"),
        new Hostile(Category.MEMORY, "exponential list", "x = [1]\nwhile True:\n  x = x + x", ANY_FAILURE, "MemoryError|wall-time limit|SandboxError"),
        new Hostile(Category.MEMORY, "1 GB string", "s = ' ' * (2**30)", ANY_FAILURE, "MemoryError|SandboxError"),
        new Hostile(Category.MEMORY, "dict of strings", "d = {}\nfor i in range(10**9):\n  d[i] = str(i) * 20", ANY_FAILURE, "MemoryError|wall-time limit|SandboxError"),
        // --- deep recursion
        new Hostile(Category.RECURSION, "unbounded recursion", "def f(n):\n  return f(n + 1)\nf(0)", ERROR, "RecursionError"),
        new Hostile(Category.RECURSION, "raised recursion limit", REAL_IMPORT + "imp('sys').setrecursionlimit(10**7)\ndef f(n):\n  return f(n + 1)\nf(0)", ERROR, WALK_REFUSED),
        new Hostile(Category.RECURSION, "deeply nested list repr", "x = []\nfor i in range(10**6):\n  x = [x]\nprint(x)", ANY_FAILURE,
            // Stopped at the wall-time limit before the repr recursed, on a loaded machine.
            "RecursionError|wall-time limit"),
        new Hostile(Category.RECURSION, "deeply nested source", "eval('(' * 100000 + ')' * 100000)", ERROR, "RecursionError|SyntaxError|MemoryError"),
        // --- output floods
        new Hostile(Category.OUTPUT, "print forever", "while True:\n  print('x' * 1000)", ANY_FAILURE, "output limit exceeded",
            r -> r.stdout().length() <= 4 * TestPools.LIMITS.maxOutputChars()),
        new Hostile(Category.OUTPUT, "one huge print", "print('y' * 10**7)", ANY_FAILURE, "output limit exceeded",
            r -> r.stdout().length() <= 4 * TestPools.LIMITS.maxOutputChars()),
        // 2 x 10^4 prints (88,890 characters, far past the cap). Each print is a write into the
        // host's capped stream, about 15 us once the worker is warm (2 cores); a cold worker is
        // several times slower, and 10^5 of them did not fit this suite's 3 s cell limit. The
        // import guard has no part in it: print calls none of the guarded builtins.
        new Hostile(Category.OUTPUT, "many small prints", "for i in range(2 * 10**4):\n  print(i, end='')", CLEAN, "",
            r -> r.stdout().length() <= 4 * TestPools.LIMITS.maxOutputChars() && r.droppedChars() > 0),
        // --- overwriting the built-ins and the context
        new Hostile(Category.OVERWRITE, "clear the builtins", "__builtins__.clear()", ERROR, "'__builtins__' is not allowed"),
        new Hostile(Category.OVERWRITE, "hijack __import__ and print", "__builtins__['__import__'] = lambda *a, **k: None\n__builtins__['print'] = None", ERROR, "'__builtins__' is not allowed"),
        new Hostile(Category.OVERWRITE, "overwrite the REPL built-ins", "FINAL = None\nsearch = 1\nllm_query = print\ndel SHOW_VARS", CLEAN, ""),
        new Hostile(Category.OVERWRITE, "overwrite the context", "context = None\ndel context_0", CLEAN, ""),
        new Hostile(Category.OVERWRITE, "mutate the context", "context['p1'] = 'changed'\ndel context['p2']", CLEAN, ""),
        new Hostile(Category.OVERWRITE, "clear the namespace", "globals().clear()", CLEAN, ""),
        new Hostile(Category.OVERWRITE, "break json", "import json\njson.dumps = None\njson.loads = None", CLEAN, ""));
  }

  static Stream<Hostile> hostile() {
    return programs().stream();
  }

  @BeforeAll
  static void canary() throws IOException {
    Files.createDirectories(DIR);
    Files.writeString(CANARY, "canary");
    Files.deleteIfExists(PWNED);
  }

  @Test
  void theSuiteCoversEveryCategoryWithAtLeastFortyPrograms() {
    assertTrue(programs().size() >= 40, "programs: " + programs().size());
    Set<Category> seen = EnumSet.noneOf(Category.class);
    programs().forEach(h -> seen.add(h.category()));
    assertEquals(EnumSet.allOf(Category.class), seen);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hostile")
  void aHostileProgramEndsAsAnErrorObservationAndHarmsNothing(Hostile h) throws IOException {
    WorkerPool pool = TestPools.shared();
    try (SandboxSession s = pool.open(CONTEXT, HostBridge.NONE)) {
      CellResult r = s.execute(h.code());
      // The suite's log (surefire's -output.txt) lists what each program got, for review.
      System.out.println(h + " -> " + r.status() + " | " + r.stderr().strip().lines()
          .reduce((a, b) -> b).orElse("") + " | active " + r.activeMillis() + " ms");
      String seen = r.status() + "\nstdout: " + abbreviate(r.stdout()) + "\nstderr: " + abbreviate(r.stderr());
      assertTrue(h.statuses().contains(r.status()), "status, expected " + h.statuses() + ": " + seen);
      if (!h.stderr().isEmpty()) {
        assertTrue(Pattern.compile(h.stderr()).matcher(r.stderr()).find(), "stderr /" + h.stderr() + "/: " + seen);
      }
      assertTrue(h.extra().test(r), "extra check: " + seen);
      assertFalse(Files.exists(PWNED), "the sandbox wrote " + PWNED);
      assertEquals("canary", Files.readString(CANARY), "the canary changed");
      if (!r.status().replGone()) {
        assertReplWorks(s);
      }
    }
    try (SandboxSession fresh = pool.open(CONTEXT, HostBridge.NONE)) {
      assertReplWorks(fresh);
    }
  }

  /** The REPL contract still holds: built-ins, context, imports, output, final answers. */
  static void assertReplWorks(SandboxSession s) {
    CellResult r = s.execute("import re\nprint(sorted(context), len(search(context, 'text')) > 0,"
        + " callable(FINAL), re.sub('a', 'b', 'a'))\nFINAL(['ok'])");
    assertEquals(CellStatus.COMPLETED, r.status(), r.stderr());
    assertTrue(r.stdout().endsWith("['p1', 'p2'] True True b\n"), r.stdout());
    assertEquals("[\"ok\"]", r.finalJson());
  }

  private static String abbreviate(String s) {
    return s.length() <= 600 ? s : s.substring(0, 300) + " ... " + s.substring(s.length() - 300);
  }
}
