"""Forward analysis: names certainly bound when each statement starts (`Static.DEFINED_VARS_IN`).

This assumes the branch and loop passes run: a converted `if` or loop binds every name it
writes that is live after it (possibly to an `UndefinedVar` placeholder), so after one,
those names count as bound. A name only some paths bind, and not live, is never read again.
"""
import gast

from dy2st.pyct import anno
from dy2st.pyct.static_analysis.liveness import Memo


def _params(fn):
    a = fn.args
    names = {p.id for p in a.posonlyargs + a.args + a.kwonlyargs}
    for extra in (a.vararg, a.kwarg):
        if extra is not None:
            names.add(extra.id)
    return names


def _block(stmts, defined, m):
    for s in stmts:
        defined = _stmt(s, defined, m)
    return defined


def _stmt(s, defined, m):
    anno.setanno(s, anno.Static.DEFINED_VARS_IN, frozenset(defined))
    live_out = anno.getanno(s, anno.Static.LIVE_VARS_OUT, frozenset())
    if isinstance(s, gast.If):
        body_w, else_w = m.block_writes(s.body), m.block_writes(s.orelse)
        _block(s.body, defined, m)
        _block(s.orelse, defined, m)
        return defined | (body_w & else_w) | ((body_w | else_w) & live_out)
    if isinstance(s, (gast.While, gast.For)):
        _block(s.body, defined | (m.writes(s.target) if isinstance(s, gast.For) else set()), m)
        _block(s.orelse, defined, m)
        written = m.block_writes(s.body) | (m.writes(s.target) if isinstance(s, gast.For) else set())
        return defined | (written & live_out)
    if isinstance(s, gast.Try):
        _block(s.body, defined, m)
        for h in s.handlers:
            _block(h.body, defined, m)
        _block(s.orelse, defined, m)
        return _block(s.finalbody, defined, m)
    if isinstance(s, gast.With):
        bound = set()
        for item in s.items:
            if item.optional_vars is not None:
                bound |= m.writes(item.optional_vars)
        return _block(s.body, defined | bound, m)
    return defined | m.writes(s)


def annotate_defined(fn_node, memo=None):
    """Needs `annotate_liveness` first (a converted statement binds what is live after it).

    ``memo``: the liveness ``Memo`` of the same unchanged tree, whose writes are reused.
    """
    _block(fn_node.body, set(_params(fn_node)), memo or Memo())
