"""The text pieces of a compiled plan (``codegen``): identifiers for var and kernel names,
literals an attr may be written as, and the cache of compiled plan code.

Names and attrs recur in every plan a Program builds, so each is worked out once and remembered;
the code of a plan's text is compiled once and shared by every plan of that text.
"""
import builtins
import keyword
import re
import types

_LITERAL_TYPES = (bool, int, str, type(None))


# generated source text after the function's name -> the code object of the function: a plan's text
# repeats often (a branch returning its input, the same small body traced again for a new signature
# or named for another block, a saved model loaded back), and compiling it is most of what a small
# block costs.  Only the names differ between two plans of one text (the function's and the file's:
# neither is read by the code itself); ``_function`` gives each plan a copy with its own.  Bounded:
# cleared when full.
_CODE_CACHE = {}
_CODE_CACHE_SIZE = 4096


def _function(source, fname, filename, g):
    """The function ``fname`` that ``source`` (one ``def fname(...)``) defines, with globals ``g`` and its
    code named ``filename``: what exec'ing ``source`` in ``g`` makes, without running module code."""
    key = source[4 + len(fname):]  # "(params):\n..." (the text starts "def " + fname)
    code = _CODE_CACHE.get(key)
    if code is None:
        if len(_CODE_CACHE) >= _CODE_CACHE_SIZE:
            _CODE_CACHE.clear()
        module = compile("def _plan" + key, "<runtime-plan>", "exec")
        code = _CODE_CACHE[key] = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    g.setdefault("__builtins__", builtins.__dict__)  # as exec would add
    fn = g[fname] = types.FunctionType(code.replace(co_filename=filename, co_name=fname, co_qualname=fname),
                                       g, fname)
    return fn


def _is_literal(value):
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf")) and type(value) is float
    if type(value) in _LITERAL_TYPES:
        return True
    if type(value) in (list, tuple):
        return all(_is_literal(v) for v in value)
    return False


_IDENTS = {}


def _identifier(name):
    """``name`` with every non-word character replaced by ``_`` (remembered: names recur in every plan)."""
    ident = _IDENTS.get(name)
    if ident is None:
        if len(_IDENTS) >= 65536:
            _IDENTS.clear()
        ident = _IDENTS[name] = re.sub(r"\W", "_", name)
    return ident


class _Names(dict):
    """Var name -> a readable, unique Python identifier (``names[var]``: a name already given is a
    plain dict lookup; ``__missing__`` makes the others)."""

    def __init__(self):
        super().__init__()
        self.used = set()

    def __missing__(self, name):
        base = "v_" + _identifier(name)
        ident, n = base, 1
        while ident in self.used:
            ident, n = f"{base}_{n}", n + 1
        self.used.add(ident)
        self[name] = ident
        return ident


_KEYWORD_OK = {}


def _keyword_ok(k):
    """Whether attr ``k`` can be passed as ``k=...`` (remembered: attr names are few and recur)."""
    ok = _KEYWORD_OK.get(k)
    if ok is None:
        ok = _KEYWORD_OK[k] = k.isidentifier() and not keyword.iskeyword(k)
    return ok
