"""Forward analysis: names certainly bound when each statement starts (`Static.DEFINED_VARS_IN`).

This assumes the branch and loop passes run: a converted `if` or loop binds every name it
writes that is live after it (possibly to an `UndefinedVar` placeholder), so after one,
those names count as bound. A name only some paths bind, and not live, is never read again.
"""
import gast

from dy2st.pyct import anno
from dy2st.pyct.static_analysis.activity import declared_names
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
    d = s.__dict__  # anno.setanno/getanno, inline: every statement is annotated
    store = d.get(_ANNO_FIELD)
    if store is None:
        store = d[_ANNO_FIELD] = {}
    store[_DEFINED_IN] = frozenset(defined)
    cls = type(s)  # gast node types have no subclasses: the type decides
    if cls not in _COMPOUND:
        return defined | m.writes(s)
    if cls is gast.If:
        live_out = store.get(_LIVE_OUT, frozenset())
        body_w, else_w = m.block_writes(s.body), m.block_writes(s.orelse)
        _block(s.body, defined, m)
        _block(s.orelse, defined, m)
        return defined | (body_w & else_w) | ((body_w | else_w) & live_out)
    if cls is gast.While or cls is gast.For:
        live_out = store.get(_LIVE_OUT, frozenset())
        _block(s.body, defined | (m.writes(s.target) if cls is gast.For else set()), m)
        _block(s.orelse, defined, m)
        written = m.block_writes(s.body) | (m.writes(s.target) if cls is gast.For else set())
        return defined | (written & live_out)
    if cls is gast.Try or cls is gast.TryStar:
        # After the statement: the names the body and else bind, if every handler that can finish
        # (does not end in raise/return/break/continue) binds them too, and what finally binds.
        # Inside a handler or finally only what was bound before the try is certain.
        after = _block(s.orelse, _block(s.body, defined, m), m)
        for h in s.handlers:
            name = {h.name.id} if isinstance(h.name, gast.Name) else set()
            handled = _block(h.body, defined | name, m) - name  # the `as` name is unbound at its end
            if not (h.body and isinstance(h.body[-1], _LEAVES)):
                after = after & handled
        return after | _block(s.finalbody, defined, m)
    # With
    bound = set()
    for item in s.items:
        if item.optional_vars is not None:
            bound |= m.writes(item.optional_vars)
    return _block(s.body, defined | bound, m)


_ANNO_FIELD = anno._ANNO_FIELD
_DEFINED_IN, _LIVE_OUT = anno.Static.DEFINED_VARS_IN, anno.Static.LIVE_VARS_OUT
# The statements with their own rule above (an AsyncFor... counts as a simple statement).
_COMPOUND = frozenset((gast.If, gast.While, gast.For, gast.Try, gast.TryStar, gast.With))
_LEAVES = (gast.Raise, gast.Return, gast.Break, gast.Continue)  # a handler ending so never falls through


def annotate_defined(fn_node, memo=None):
    """Needs `annotate_liveness` first (a converted statement binds what is live after it).

    ``memo``: the liveness ``Memo`` of the same unchanged tree, whose writes are reused.
    """
    # (a name declared global or nonlocal is bound outside: defined from the start)
    _block(fn_node.body, set(_params(fn_node)) | declared_names(fn_node), memo or Memo())
