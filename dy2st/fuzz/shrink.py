"""Cutting a failing program down to a minimal one that fails the same way.

Greedy, line based (the generated code is one statement or header per line): repeatedly try
deleting one statement together with the block it heads, or replacing a block header by its
body (``if c:`` / ``while c:`` / ``for v in it:`` unwrapped); keep a cut when the program still
fails at the same stage with the same kind of error, and stop when no cut is kept.  A body left
empty gets ``pass``.

A cut can make a program that never ends (``k += 1`` removed from a bounded ``while``) or that
grows without bound, so ``bounded(still_fails)`` runs each try in a forked process with a time
and memory limit: a try that hits either counts as "does not fail the same way".
"""
import multiprocessing
import sys


def _indent(line):
    return len(line) - len(line.lstrip(" "))


def _block_end(lines, i):
    """Index after the statement at ``i`` and every more-indented line following it."""
    base, j = _indent(lines[i]), i + 1
    while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > base):
        j += 1
    return j


def _fill_empty_bodies(lines):
    out = []
    for k, line in enumerate(lines):
        out.append(line)
        if line.rstrip().endswith(":"):
            nxt = next((ln for ln in lines[k + 1:] if ln.strip()), None)
            if nxt is None or _indent(nxt) <= _indent(line):
                out.append(" " * (_indent(line) + 4) + "pass")
    return out


def _removable(lines, i):
    s = lines[i].strip()
    return bool(s) and _indent(lines[i]) >= 4 and not s.startswith(("def ", "class ", "super().__init__"))


def _candidates(lines):
    for i in range(len(lines)):
        if not _removable(lines, i):
            continue
        end = _block_end(lines, i)
        yield lines[:i] + lines[end:]  # the statement and its block
        if end > i + 1 and lines[i].rstrip().endswith(":") and not lines[i].strip().startswith(("else", "elif")):
            body = [ln[4:] if ln.startswith(" " * (_indent(lines[i]) + 4)) else ln for ln in lines[i + 1:end]]
            yield lines[:i] + body + lines[end:]  # the block without its header


def shrink(src, still_fails, max_tries=400):
    """The smallest program found by cutting ``src`` for which ``still_fails(src)`` holds."""
    lines = src.splitlines()
    tries = 0
    progress = True
    while progress and tries < max_tries:
        progress = False
        for cand in _candidates(lines):
            cand = _fill_empty_bodies(cand)
            if cand == lines:
                continue
            tries += 1
            text = "\n".join(cand) + "\n"
            try:
                compile(text, "<shrink>", "exec")
            except SyntaxError:
                continue
            if still_fails(text):
                lines, progress = cand, True
                break
            if tries >= max_tries:
                break
    return "\n".join(lines) + "\n"


def _child(conn, predicate, text, memory):
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    except (ImportError, ValueError, OSError):  # no limit where the platform has none
        pass
    try:
        conn.send(bool(predicate(text)))
    except BaseException:  # noqa: BLE001  (MemoryError included: the try does not count)
        conn.send(False)
    finally:
        conn.close()


def bounded(predicate, timeout=30.0, memory=2 << 30):
    """``predicate`` run in a forked process per call, killed after ``timeout`` seconds or when it
    allocates more than ``memory`` bytes (either counts as False); in-process where fork is missing."""
    if sys.platform == "win32" or "fork" not in multiprocessing.get_all_start_methods():
        return predicate
    ctx = multiprocessing.get_context("fork")

    def run(text):
        recv, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_child, args=(send, predicate, text, memory), daemon=True)
        proc.start()
        send.close()
        try:
            ok = recv.recv() if recv.poll(timeout) else False
        except EOFError:  # the child died (out of memory)
            ok = False
        finally:
            recv.close()
            if proc.is_alive():
                proc.kill()
            proc.join()
        return ok
    return run
