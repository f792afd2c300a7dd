# The REPL of one RLM node, evaluated once per GraalPy context by arbor.rlm.sandbox.PythonSession.
# It defines one function, called with the host bridges; everything it builds lives in closures so
# that the user namespace holds only the documented names. The hard boundary is the context's
# configuration (no IO, host, process, thread, native or environment access): the import guard
# and the restoration of reserved names below are conveniences on top of it, not the defence.


def __arbor_install(host_call, tool_call, context_json, allowed_csv):
    import builtins
    import json
    import sys
    import traceback

    allowed = frozenset(allowed_csv.split(","))

    real_import = builtins.__import__
    library = json.__file__.rsplit("/json/", 1)[0] + "/"
    getframe = sys._getframe

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        # The standard library importing its own dependencies passes; anything else is user code.
        # (Code compiled under a library file name passes too; what it reaches is still refused
        # by the context's configuration.)
        caller = getframe(1).f_code.co_filename
        from_library = caller.startswith(library) or caller.startswith("<frozen ")
        if not from_library and (level != 0 or name.partition(".")[0] not in allowed):
            raise ImportError(
                "import of '%s' is not allowed in this sandbox; allowed modules: %s"
                % (name, ", ".join(sorted(allowed))))
        return real_import(name, globals, locals, fromlist, level)

    builtins.__import__ = guarded_import
    for name in ("open", "exit", "quit", "help", "input", "breakpoint", "copyright", "credits",
                 "license"):
        builtins.__dict__.pop(name, None)
    saved_builtins = dict(builtins.__dict__)

    state = {"final": None}
    ns = {"__name__": "__repl__", "__builtins__": builtins}

    dumps, loads = json.dumps, json.loads

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

    context = json.loads(context_json)
    pristine = dict(context) if isinstance(context, dict) else context
    reserved = {
        "FINAL": FINAL, "FINAL_VAR": FINAL_VAR, "SHOW_VARS": SHOW_VARS,
        "llm_query": llm_query, "llm_query_batched": llm_query_batched,
        "rlm_query": rlm_query, "rlm_query_batched": rlm_query_batched,
        "list_papers": list_papers, "search": search, "extract_section": extract_section,
        "get_paper_abstract": get_paper_abstract,
    }
    real_stdout, real_stderr = sys.stdout, sys.stderr

    # restore and run bind every name they use at definition time: model code may clear the
    # builtins or the json module's functions, and must still get a working REPL back.
    def restore(isinstance=isinstance, dict=dict, list=list, sys=sys, builtins=builtins,
                BaseException=BaseException):
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

    def run(code, BaseException=BaseException, compile=compile, exec=exec, type=type,
            print_exception=traceback.print_exception):
        # Returns [raised, final answer JSON or None, user variable names].
        state["final"] = None
        raised = False
        try:
            exec(compile(code, "<cell>", "exec"), ns)
        except BaseException as e:  # SystemExit and KeyboardInterrupt are model errors too
            raised = True
            restore()
            tb = e.__traceback__
            # Hide this function's own frame: the traceback starts in the cell.
            print_exception(type(e), e, tb.tb_next if tb is not None else None)
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
