# The REPL of one RLM node, evaluated once per GraalPy context by arbor.rlm.sandbox.PythonSession.
# It defines one function, called with the host bridges; everything it builds lives in closures so
# that the user namespace holds only the documented names. The hard boundary is the context's
# configuration (no IO, host, process, thread, native or environment access). On top of it, the
# import allow-list holds against model code: the guard decides by the calling frame's globals
# (never by file names), model code gets views of modules (no private names, no imported
# modules), no code objects, and the names that lead from functions, frames, tracebacks, classes
# and modules to the interpreter's internals are refused in its compiled code and in getattr.


def __arbor_install(host_call, tool_call, context_json, allowed_csv, question=None):
    # question: the node's prompt, bound as the reserved name `question` when given (rlm.bind_question);
    # None leaves the name unbound, as in the published method.
    # Nothing here imports json, re or traceback: interpreted, their imports cost most of a REPL's
    # opening (re alone 0.2-0.4 s), and a full batch opens hundreds of REPLs. JSON goes through
    # the runtime's own codec (_json, what json uses underneath); traceback is imported by the
    # first cell that raises; re and json by the model code that asks for them.
    import _json
    import builtins
    import sys

    allowed = frozenset(allowed_csv.split(","))
    real_import = builtins.__import__
    real_getattr, real_setattr, real_delattr, real_vars = getattr, setattr, delattr, vars
    real_compile, real_exec, real_eval = compile, exec, eval
    getframe = sys._getframe
    ModuleType = type(sys)

    # What model code may not touch, by name: the ways from a function, frame, traceback, class or
    # module to the interpreter's internals (sys, the real import, other modules' globals).
    # Checked in the compiled code of every cell and of every exec/eval it makes, and by the
    # builtins that take attribute names as strings.
    denied = frozenset((
        "__globals__", "__closure__", "__code__", "__defaults__", "__kwdefaults__", "__func__",
        "__self__", "__wrapped__", "__traceback__", "__subclasses__", "__dict__", "__get__",
        "__getattribute__", "__setattr__", "__delattr__", "__reduce__", "__reduce_ex__",
        "__loader__", "__spec__", "__builtins__", "__graalpython__", "__objclass__",
        "tb_frame", "tb_next", "f_back", "f_globals", "f_locals", "f_builtins", "f_code",
        "gi_frame", "gi_code", "cr_frame", "cr_code", "ag_frame", "ag_code"))

    def refuse(name):
        raise PermissionError(
            "'%s' is not allowed in this sandbox: the internals of functions, frames, tracebacks, "
            "classes and modules are out of reach" % name)

    def check_code(code, isinstance=isinstance, CodeType=type((lambda: 0).__code__)):
        for name in code.co_names:
            if name in denied:
                refuse(name)
        for const in code.co_consts:
            if isinstance(const, CodeType):
                check_code(const)

    def checked_compile(source, mode):
        code = real_compile(source, "<cell>", mode)
        check_code(code)
        return code

    views = {}

    def view(module):
        # What model code gets for an allowed module: its public names, none of its imports (a
        # module's private names and imported modules lead to sys and os), its allowed
        # submodules as views too. string.Formatter looks attributes up by name with the real
        # getattr, so it stays out.
        name = module.__name__
        v = views.get(name)
        if v is None:
            v = ModuleType(name, module.__doc__)
            views[name] = v
            for k, value in list(module.__dict__.items()):
                if k.startswith("_") and k != "__all__":
                    continue
                if type(value) is ModuleType:
                    if value.__name__.partition(".")[0] in allowed:
                        real_setattr(v, k, view(value))
                    continue
                if name == "string" and k == "Formatter":
                    continue
                real_setattr(v, k, value)
        return v

    # Which code calls: the REPL namespace and anything not a loaded module's own globals is model
    # code; a module's globals are the library's. Decided by the calling frame's globals, never by
    # file names (model code can compile under any name), and model code cannot reach a real
    # module's globals: it gets views of modules, and the names that lead to globals are refused.
    library = [-1, frozenset()]

    def from_model(frame_globals, len=len, id=id, type=type, list=list, frozenset=frozenset):
        if frame_globals is ns:
            return True
        modules = sys.modules
        # Almost always the module is registered under its own name: one lookup decides.
        try:
            named = modules.get(frame_globals.get("__name__"))
            if named is not None and type(named) is ModuleType and named.__dict__ is frame_globals:
                return False
        except BaseException:
            pass
        if library[0] != len(modules):
            library[1] = frozenset(id(m.__dict__) for m in list(modules.values()) if type(m) is ModuleType)
            library[0] = len(modules)
        return id(frame_globals) not in library[1]

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        if not from_model(getframe(1).f_globals):
            return real_import(name, globals, locals, fromlist, level)
        if level != 0 or not isinstance(name, str) or name.partition(".")[0] not in allowed:
            raise ImportError(
                "import of '%s' is not allowed in this sandbox; allowed modules: %s"
                % (name, ", ".join(sorted(allowed))))
        found = real_import(name, None, None, fromlist, 0)
        if "." in name:
            # A submodule imported after its package's view was made: the view gets it too.
            parts = name.split(".")
            parent = view(sys.modules[parts[0]])
            for i in range(1, len(parts)):
                child = sys.modules.get(".".join(parts[:i + 1]))
                if child is None:
                    break
                real_setattr(parent, parts[i], view(child))
                parent = view(child)
        return view(found)

    def guarded_getattr(obj, name, *default):
        if name in denied and from_model(getframe(1).f_globals):
            refuse(name)
        return real_getattr(obj, name, *default)

    def guarded_setattr(obj, name, value):
        if name in denied and from_model(getframe(1).f_globals):
            refuse(name)
        return real_setattr(obj, name, value)

    def guarded_delattr(obj, name):
        if name in denied and from_model(getframe(1).f_globals):
            refuse(name)
        return real_delattr(obj, name)

    def namespace(frame, found):
        # The REPL's globals hold __builtins__, and through it the interpreter's internals: model
        # code sees them without the refused names (a snapshot, where they are module globals).
        if found is frame.f_globals and from_model(frame.f_globals) and any(k in denied for k in found):
            return {k: v for k, v in found.items() if k not in denied}
        return found

    def guarded_globals():
        caller = getframe(1)
        return namespace(caller, caller.f_globals)

    def guarded_locals():
        caller = getframe(1)
        return namespace(caller, caller.f_locals)

    def guarded_vars(*obj):
        caller = getframe(1)
        if not obj:
            return namespace(caller, caller.f_locals)
        found = real_vars(*obj)
        if (not from_model(caller.f_globals) or isinstance(found, dict) and type(obj[0]) is not ModuleType
                and not isinstance(obj[0], type)):
            return found
        return {k: v for k, v in found.items() if k not in denied}

    def source_runner(real, mode):
        # exec and eval: model code's source is compiled with the name check; with no globals
        # given, they run in the caller's namespace (not in this prelude's).
        def run_source(source, globals=None, locals=None, *rest, **kw):
            caller = getframe(1)
            if globals is None:
                globals, locals = caller.f_globals, caller.f_locals
            if from_model(caller.f_globals):
                if not isinstance(source, (str, bytes)):
                    raise TypeError("%s() takes source text in this sandbox" % mode)
                source = checked_compile(source, mode)
            return real(source, globals, locals, *rest, **kw)
        return run_source

    guarded_exec = source_runner(real_exec, "exec")
    guarded_eval = source_runner(real_eval, "eval")

    def guarded_compile(*args, **kw):
        # No code objects for model code: one could be edited (code.replace) past the name check.
        if from_model(getframe(1).f_globals):
            raise PermissionError("compile() is not available in this sandbox; exec() and eval() take source text")
        return real_compile(*args, **kw)

    for name in ("open", "exit", "quit", "help", "input", "breakpoint", "copyright", "credits",
                 "license"):
        builtins.__dict__.pop(name, None)
    builtins.__dict__.update({
        "__import__": guarded_import, "getattr": guarded_getattr, "setattr": guarded_setattr,
        "delattr": guarded_delattr, "vars": guarded_vars, "exec": guarded_exec,
        "eval": guarded_eval, "compile": guarded_compile, "globals": guarded_globals,
        "locals": guarded_locals})
    saved_builtins = dict(builtins.__dict__)

    state = {"final": None}
    ns = {"__name__": "__repl__", "__builtins__": builtins}

    class Scanning:
        # The settings json.loads gives its scanner: plain dicts, floats and ints, and the
        # constants NaN and Infinity.
        strict = True
        object_hook = object_pairs_hook = None
        parse_float, parse_int = float, int
        parse_constant = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}.__getitem__
        memo = {}

    scan_once = _json.make_scanner(Scanning())

    def loads(text):
        start = len(text) - len(text.lstrip())
        try:
            value, end = scan_once(text, start)
        except StopIteration:
            raise ValueError("not JSON: %r" % text[:80]) from None
        if text[end:].strip():
            raise ValueError("not JSON: extra data after position %d" % end)
        return value

    def not_serializable(o):
        raise TypeError("Object of type %s is not JSON serializable" % type(o).__name__)

    def dumps(value):
        # As json.dumps with its defaults: ASCII, NaN allowed, circular references refused.
        encode = _json.make_encoder({}, not_serializable, _json.encode_basestring_ascii, None,
                                    ": ", ", ", False, False, True)
        return "".join(encode(value, 0))

    def call_host(name, *args):
        reply = loads(host_call(name, dumps(list(args))))
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return reply["value"]

    def call_tool(name, *args):
        printed, value, error = tool_call(name, *args)
        if printed:
            print(printed, end="")
        if error is not None:
            raise ValueError(error)
        # Lists come back as host arrays: hand the model a real list of str.
        return value if value is None or isinstance(value, str) else list(value)

    def submit(value):
        try:
            state["final"] = dumps(value)
        except (TypeError, ValueError):
            state["final"] = dumps(str(value))

    def FINAL(value):
        submit(value)
        return value

    def FINAL_VAR(name_or_value):
        if not isinstance(name_or_value, str):
            submit(name_or_value)
            return name_or_value
        name = name_or_value.strip().strip("'\"")
        if name not in ns:
            print("FINAL_VAR: no variable named %r; nothing was submitted. Assign the answer to a "
                  "variable first, or call FINAL(value)." % name, file=sys.stderr)
            return None
        submit(ns[name])
        return ns[name]

    def user_names():
        return [k for k, v in ns.items()
                if not k.startswith("_") and k not in reserved and k not in ("context", "context_0")
                and type(v).__name__ != "module"]

    def SHOW_VARS():
        names = user_names()
        if not names:
            return "No user variables yet."
        return "\n".join("%s: %s" % (k, type(ns[k]).__name__) for k in names)

    def llm_query(prompt):
        return call_host("llm_query", prompt)

    def llm_query_batched(prompts):
        return call_host("llm_query_batched", list(prompts))

    def rlm_query(prompt, context=None):
        return call_host("rlm_query", prompt, context)

    def rlm_query_batched(prompts, context_list=None):
        return call_host("rlm_query_batched", list(prompts),
                         None if context_list is None else list(context_list))

    def known(x):
        # The tools hold the node's context already: an unchanged context, or one of its papers,
        # is passed by reference instead of copying hundreds of kilobytes into Java per call.
        if x is context and (x is pristine or x == pristine):
            return "\x00context"
        if isinstance(x, str) and isinstance(pristine, dict):
            for pid, text in pristine.items():
                if text is x:
                    return "\x00paper:" + pid
        return x

    def list_papers(ctx):
        return call_tool("list_papers", known(ctx))

    def search(text_or_ctx, keyword, window=300, bidirectional=True):
        return call_tool("search", known(text_or_ctx), keyword, window, bidirectional)

    def extract_section(snippet, start_phrase, end_phrase):
        return call_tool("extract_section", snippet, start_phrase, end_phrase)

    def get_paper_abstract(ctx, paper_id):
        return call_tool("get_paper_abstract", known(ctx), paper_id)

    context = loads(context_json)
    pristine = dict(context) if isinstance(context, dict) else context
    reserved = {
        "FINAL": FINAL, "FINAL_VAR": FINAL_VAR, "SHOW_VARS": SHOW_VARS,
        "llm_query": llm_query, "llm_query_batched": llm_query_batched,
        "rlm_query": rlm_query, "rlm_query_batched": rlm_query_batched,
        "list_papers": list_papers, "search": search, "extract_section": extract_section,
        "get_paper_abstract": get_paper_abstract,
    }
    if question is not None:
        reserved["question"] = str(question)
    real_stdout, real_stderr = sys.stdout, sys.stderr

    # restore and run bind every name they use at definition time: model code may clear the
    # builtins, and must still get a working REPL back.
    def restore(isinstance=isinstance, dict=dict, list=list, BaseException=BaseException):
        sys.stdout, sys.stderr = real_stdout, real_stderr
        current = builtins.__dict__
        # One dict comparison in the runtime instead of hundreds of interpreted lookups, when (as
        # almost always) the cell left the builtins alone. An object whose __eq__ always says yes
        # could keep a replaced builtin in its own REPL; that gains nothing the guard's closure
        # does not already give, and the context's restrictions hold either way.
        try:
            intact = current == saved_builtins
        except BaseException:
            intact = False
        if not intact:
            for k in list(current):
                if k not in saved_builtins:
                    del current[k]
            for k, v in saved_builtins.items():
                if current.get(k) is not v:
                    current[k] = v
        ns.update(reserved)
        ns["__builtins__"] = builtins
        if isinstance(context, dict) and context != pristine:
            context.clear()
            context.update(pristine)
        ns["context_0"] = context
        ns["context"] = context

    # The traceback module cannot be imported once open() is gone from the builtins, and costs a
    # fifth of a second to import before: tracebacks are formatted here, as Python prints them,
    # with the cell's own lines quoted and this file's frames left out.
    def exception_lines(e, tb, cell_lines, seen):
        seen.add(id(e))
        lines = []
        cause, context = e.__cause__, e.__context__
        if cause is not None and id(cause) not in seen:
            lines += exception_lines(cause, cause.__traceback__, cell_lines, seen)
            lines.append("\nThe above exception was the direct cause of the following exception:\n\n")
        elif context is not None and not e.__suppress_context__ and id(context) not in seen:
            lines += exception_lines(context, context.__traceback__, cell_lines, seen)
            lines.append("\nDuring handling of the above exception, another exception occurred:\n\n")
        frames = []
        while tb is not None:
            code = tb.tb_frame.f_code
            if code.co_filename != "arbor_prelude.py":
                frames.append('  File "%s", line %d, in %s\n' % (code.co_filename, tb.tb_lineno, code.co_name))
                if code.co_filename == "<cell>" and 0 < tb.tb_lineno <= len(cell_lines):
                    frames.append("    %s\n" % cell_lines[tb.tb_lineno - 1].strip())
            tb = tb.tb_next
        if frames:
            lines.append("Traceback (most recent call last):\n")
            lines += frames
        kind = type(e)
        name = kind.__qualname__ if kind.__module__ in ("builtins", "__main__", "__repl__") \
            else "%s.%s" % (kind.__module__, kind.__qualname__)
        if isinstance(e, SyntaxError):
            lines.append('  File "%s", line %s\n' % (e.filename, e.lineno))
            if e.text:
                text = e.text.rstrip("\n")
                indent = len(text) - len(text.lstrip())
                lines.append("    %s\n" % text.strip())
                if e.offset:
                    lines.append("    %s^\n" % (" " * max(0, e.offset - 1 - indent)))
            message = e.msg
        else:
            try:
                message = str(e)
            except BaseException:
                message = "<exception str() failed>"
        lines.append("%s: %s\n" % (name, message) if message else name + "\n")
        for note in getattr(e, "__notes__", None) or ():
            lines.append("%s\n" % note)
        return lines

    def print_exception(e, tb, cell):
        try:
            text = "".join(exception_lines(e, tb, cell.split("\n"), set()))
        except BaseException:
            text = "%s\n" % type(e).__name__
        print(text, end="", file=sys.stderr)

    def run(code, BaseException=BaseException, exec=real_exec, print_exception=print_exception):
        # Returns [raised, final answer JSON or None, user variable names].
        state["final"] = None
        raised = False
        try:
            exec(checked_compile(code, "exec"), ns)
        except BaseException as e:  # SystemExit and KeyboardInterrupt are model errors too
            raised = True
            restore()
            tb = e.__traceback__
            # Hide this function's own frame: the traceback starts in the cell.
            print_exception(e, tb.tb_next if tb is not None else None, code)
        finally:
            restore()
        return [raised, state["final"], user_names()]

    from itertools import islice

    # What one REPL keeps, roughly, in bytes of the worker's heap: containers are sized from a
    # sample of their items, so that a list of a million strings costs a few dozen steps, not a
    # million. (GraalPy's sys.getsizeof is no help here: it does not describe Java's heap.)
    def footprint(isinstance=isinstance, len=len, list=list, dict=dict, str=str, bytes=bytes,
                  sum=sum, islice=islice, BaseException=BaseException):
        def approx(v, depth):
            try:
                if isinstance(v, str):
                    return 48 + len(v)
                if isinstance(v, (bytes, bytearray)):
                    return 32 + len(v)
                if isinstance(v, (dict, list, tuple, set, frozenset)):
                    n = len(v)
                    size = 64 + 16 * n
                    if depth < 3 and n:
                        if isinstance(v, dict):
                            each = [approx(a, depth + 1) + approx(b, depth + 1) for a, b in islice(v.items(), 16)]
                        else:
                            each = [approx(a, depth + 1) for a in islice(v, 16)]
                        if each:
                            size += n * sum(each) // len(each)
                    return size
                return 32
            except BaseException:
                return 32
        total = 0
        for k in user_names():
            total += approx(ns.get(k), 0)
        return total

    def reset(list=list):
        # A REPL that kept too much: back to a fresh one, its context and built-ins intact.
        for k in list(ns):
            if k not in reserved and k not in ("__builtins__", "__name__"):
                del ns[k]
        state["final"] = None
        restore()

    restore()
    return [run, restore, footprint, reset]
