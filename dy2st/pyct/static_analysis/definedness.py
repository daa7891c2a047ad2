"""Forward analysis: names certainly bound when each statement starts (`Static.DEFINED_VARS_IN`).

This assumes the branch and loop passes run: a converted `if` or loop binds every name it
writes that is live after it (possibly to an `UndefinedVar` placeholder), so after one,
those names count as bound. A name only some paths bind, and not live, is never read again.
"""
import gast

from dy2st.pyct import anno
from dy2st.pyct.static_analysis.activity import writes, block_writes


def _params(fn):
    a = fn.args
    names = {p.id for p in a.posonlyargs + a.args + a.kwonlyargs}
    for extra in (a.vararg, a.kwarg):
        if extra is not None:
            names.add(extra.id)
    return names


def _block(stmts, defined):
    for s in stmts:
        defined = _stmt(s, defined)
    return defined


def _stmt(s, defined):
    anno.setanno(s, anno.Static.DEFINED_VARS_IN, frozenset(defined))
    live_out = anno.getanno(s, anno.Static.LIVE_VARS_OUT, frozenset())
    if isinstance(s, gast.If):
        body_w, else_w = block_writes(s.body), block_writes(s.orelse)
        _block(s.body, defined)
        _block(s.orelse, defined)
        return defined | (body_w & else_w) | ((body_w | else_w) & live_out)
    if isinstance(s, (gast.While, gast.For)):
        _block(s.body, defined | (writes(s.target) if isinstance(s, gast.For) else set()))
        _block(s.orelse, defined)
        written = block_writes(s.body) | (writes(s.target) if isinstance(s, gast.For) else set())
        return defined | (written & live_out)
    if isinstance(s, gast.Try):
        _block(s.body, defined)
        for h in s.handlers:
            _block(h.body, defined)
        _block(s.orelse, defined)
        return _block(s.finalbody, defined)
    if isinstance(s, gast.With):
        bound = set()
        for item in s.items:
            if item.optional_vars is not None:
                bound |= writes(item.optional_vars)
        return _block(s.body, defined | bound)
    return defined | writes(s)


def annotate_defined(fn_node):
    """Needs `annotate_liveness` first (a converted statement binds what is live after it)."""
    _block(fn_node.body, set(_params(fn_node)))
