"""Backward liveness over structured code (no goto: break/continue are gone when this is used).

`annotate_liveness(fn_node)` stores on each statement the names live after it
(`Static.LIVE_VARS_OUT`) and on loops the names live at the loop head (`Static.LIVE_VARS_IN`),
which is what a loop must carry. Loops iterate to a fixed point. Over-approximation is safe
(an extra carry costs a little), under-approximation is not, so unknown statements read
everything they mention.
"""
import gast

from dy2st.pyct import anno
from dy2st.pyct.static_analysis.activity import reads, writes

_LOOP_LIMIT = 50


def live_in(stmts, live_out=frozenset(), annotate=False):
    """Names live before `stmts`, given those live after them."""
    live = frozenset(live_out)
    for s in reversed(stmts):
        live = _stmt(s, live, annotate)
    return live


def _stmt(s, out, annotate):
    if annotate:
        anno.setanno(s, anno.Static.LIVE_VARS_OUT, out)
    if isinstance(s, gast.If):
        return frozenset(reads(s.test)) | live_in(s.body, out, annotate) | live_in(s.orelse, out, annotate)
    if isinstance(s, gast.While):
        else_in = live_in(s.orelse, out, annotate)
        head = out | else_in | reads(s.test)
        for _ in range(_LOOP_LIMIT):
            new = frozenset(reads(s.test)) | live_in(s.body, head) | out | else_in
            if new == head:
                break
            head = new
        live_in(s.body, head, annotate)
        if annotate:
            anno.setanno(s, anno.Static.LIVE_VARS_IN, head)
        return head
    if isinstance(s, (gast.For, gast.AsyncFor)):
        target = writes(s.target)
        else_in = live_in(s.orelse, out, annotate)
        # The break pass's extra test (an annotation, not yet code) is read at every iteration.
        extra = anno.getanno(s, anno.Basic.EXTRA_LOOP_TEST)
        extra_reads = frozenset(reads(extra)) if extra is not None else frozenset()
        head = out | else_in | extra_reads
        for _ in range(_LOOP_LIMIT):
            new = (live_in(s.body, head) - target) | out | else_in | extra_reads
            if new == head:
                break
            head = new
        live_in(s.body, head, annotate)
        if annotate:
            anno.setanno(s, anno.Static.LIVE_VARS_IN, head)
        return head | reads(s.iter)
    if isinstance(s, gast.Try):
        final_in = live_in(s.finalbody, out, annotate)
        handlers_in = frozenset()
        for h in s.handlers:
            handlers_in |= live_in(h.body, final_in, annotate)
            if h.type is not None:
                handlers_in |= reads(h.type)
        else_in = live_in(s.orelse, final_in, annotate)
        # Any statement of the body may raise, so whatever handlers need is live throughout.
        body_in = live_in(s.body, else_in | handlers_in | final_in, annotate)
        return body_in | handlers_in | final_in
    if isinstance(s, (gast.With, gast.AsyncWith)):
        bound = set()
        item_reads = set()
        for item in s.items:
            item_reads |= reads(item.context_expr)
            if item.optional_vars is not None:
                bound |= writes(item.optional_vars)
        return (live_in(s.body, out, annotate) - bound) | item_reads
    if isinstance(s, (gast.Return, gast.Raise)):
        return frozenset(reads(s))
    # Simple statements (and nested defs, which read their captured names).
    return (out - writes(s)) | reads(s)


def annotate_liveness(fn_node):
    """Annotate every statement of a FunctionDef (not nested ones) with liveness."""
    live_in(fn_node.body, frozenset(), annotate=True)
