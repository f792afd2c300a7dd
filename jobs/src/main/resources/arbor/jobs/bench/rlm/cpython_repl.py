# The baseline of `bin/arbor bench repl`: a plain CPython 3 REPL with pure-Python versions of the
# paper tools (same rules as arbor.rlm.tools.PaperTools), driven over stdin/stdout with one JSON
# object per line, so that Arbor's sandboxed turn and CPython's are timed the same way.
import io
import json
import re
import sys
import contextlib


def _pattern(phrase):
    out = []
    words = phrase.strip()
    i = 0
    while i < len(words):
        ch = words[i]
        if ch.isspace():
            while i < len(words) and words[i].isspace():
                i += 1
            out.append(r"\s+")
            continue
        out.append(re.escape(ch))
        if ch.isalpha() and i + 1 < len(words) and words[i + 1].isalpha():
            out.append(r"(?:-[ \t]*\r?\n[ \t]*)?")
        i += 1
    return re.compile("".join(out), re.IGNORECASE)


def _boundary(ch):
    return ch in ".!?\n"


def _widen_left(text, start, limit):
    for i in range(start, max(0, start - limit) - 1, -1):
        if i == 0 or _boundary(text[i - 1]):
            return i
    return start


def _widen_right(text, end, limit):
    for i in range(end, min(len(text), end + limit) + 1):
        if i == len(text) or (i > 0 and _boundary(text[i - 1])):
            return i
    return end


def search(text_or_ctx, keyword, window=300, bidirectional=True):
    papers = text_or_ctx if isinstance(text_or_ctx, dict) else {"paper": text_or_ctx}
    pat = _pattern(keyword)
    out = []
    lines = []
    for pid, text in papers.items():
        spans = []
        for m in pat.finditer(text):
            s = m.start() - window // 2 if bidirectional else m.start()
            e = m.end() + window // 2 if bidirectional else m.start() + window
            s, e = max(0, s), min(len(text), max(e, m.end()))
            s, e = _widen_left(text, s, window), _widen_right(text, e, window)
            while s < e and text[s].isspace():
                s += 1
            while e > s and text[e - 1].isspace():
                e -= 1
            if spans and s <= spans[-1][1]:
                spans[-1] = (spans[-1][0], max(spans[-1][1], e))
            else:
                spans.append((s, e))
        if spans:
            title = text.strip().split("\n", 1)[0].lstrip("# ").strip()
            lines.append("=== %s: %s (%d snippets) ===" % (pid, title, len(spans)))
            for s, e in spans:
                lines.append("[%d] %s\n" % (len(out), text[s:e]))
                out.append(text[s:e])
    print("\n".join(lines) if out else "No hits for '%s'." % keyword.strip())
    return out


def extract_section(snippet, start_phrase, end_phrase):
    m = _pattern(start_phrase).search(snippet)
    if not m:
        print("start phrase not found")
        return ""
    pat = _pattern(end_phrase)
    pos = m.start()
    while True:
        e = pat.search(snippet, pos)
        if not e:
            return snippet[m.start():]
        if e.end() >= m.end():
            return snippet[m.start():e.end()]
        pos = e.start() + 1


def main():
    ns = {"search": search, "extract_section": extract_section}
    for line in sys.stdin:
        msg = json.loads(line)
        if "context" in msg:
            ns["context"] = msg["context"]
            reply = {"ok": True}
        else:
            buf = io.StringIO()
            try:
                with contextlib.redirect_stdout(buf):
                    exec(compile(msg["code"], "<cell>", "exec"), ns)
                reply = {"stdout": buf.getvalue()}
            except BaseException as e:  # the bench's cells do not fail; report if they do
                reply = {"stdout": buf.getvalue(), "error": repr(e)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
