"""`_jst.IfElse`: a symbolic condition -> a `cond` op with both branches traced; a Python (or
eager) condition -> only the branch taken runs, decided at trace time."""
import runtime as rt
import runtime.static  # noqa: F401  (rt.static.nn.cond)
from dy2st.operators.common import _block_count, _describe, _drop_blocks, _InBranch, _pack, _plain, _user_code, _with_location, is_symbolic, truth
from dy2st.operators.python_semantics import int_kind, mark_int
from dy2st.operators.side_effects import MoreSlots, build_with_slots, probing_now, tracked
from dy2st.operators.tensor_array import TensorArray
from dy2st.pyct.undefined import RETURN_NO_VALUE, UndefinedVar
from dy2st.tools import staging


def _tensorizable(v):
    if isinstance(v, UndefinedVar):
        return False
    if isinstance(v, TensorArray):  # a list appended to in a tensor loop: one tensor
        return True
    if rt.is_tensor(v) or isinstance(v, (bool, int, float)):
        return True
    return isinstance(v, (list, tuple)) and len(v) > 0 and all(_tensorizable(e) for e in v)


def _as_value(v):
    return v.tensor if isinstance(v, TensorArray) else v


def _dummy_like(v):
    """A constant with `v`'s dtype and rank, standing in on a path where a value is unset."""
    if isinstance(v, (list, tuple)):
        return type(v)(_dummy_like(e) for e in v)
    if rt.is_tensor(v):
        return rt.full([d if d >= 0 else 1 for d in v.shape], 0, v.dtype)
    if isinstance(v, TensorArray):
        return TensorArray(rt.zeros([0] + [max(d, 1) for d in v.tensor.shape[1:]], v.tensor.dtype))
    return type(v)(0)


def IfElse(pred, true_fn, false_fn, args=(), names=None, writes=None, returns=()):
    """Run one branch (Python/eager pred) or build a `cond` op (symbolic pred).

    names: the output variable names, or None for one unnamed value (a ternary).
    writes: {name: object} of the objects the branches write into (`res[k] = v`,
    `obj.a = v`, `lst.append(v)`); what they write becomes `cond` outputs too, and the
    merged values are written back into the same objects.
    returns: those of ``names`` that hold the function's return value (early returns).
    """
    if not is_symbolic(pred):
        taken = bool(truth(pred))
        staging.record("if", None, f"condition is {staging.describe(pred)}: decided at trace time")
        return (true_fn if taken else false_fn)(*args)
    staging.record("if", "cond op", f"condition is {staging.describe(pred)}")
    labels = list(names) if names is not None else ["<value of the conditional expression>"]
    n = len(labels)
    single = names is None or n == 1
    pack = (lambda r: (r,)) if single else (lambda r: _pack(r, n))
    pred = pred if pred.dtype == "bool" else rt.cast(pred, "bool")
    snap = tracked(writes, (true_fn, false_fn), args)
    parent, blocks = rt.static.default_main_program().current_block(), _block_count()
    ops = len(parent.ops)
    outs = _cond_writing(pred, true_fn, false_fn, args, labels, pack, snap, returns)
    if outs is None:  # the first branch left a return value unset that the other set: swap
        # The discarded `cond` must not stay in the Program: its random draws (dropout) and
        # persistable writes (batch-norm statistics) would run as well as the real one's.
        del parent.ops[ops:]
        parent.program._version += 1
        _drop_blocks(blocks)
        outs = _cond_writing(rt.logical_not(pred), false_fn, true_fn, args, labels, pack, snap, returns)
    if names is None or n == 1:
        return outs[0]
    return None if n == 0 else tuple(outs)


def _cond_writing(pred, first_fn, second_fn, args, labels, pack, snap, returns=()):
    """`_build_cond`, with the slots of `snap` the branches write as extra outputs.

    Each branch starts from the contents the objects had before the `if`; afterwards they
    hold the merged values. A slot written only by the second branch is found after the
    first was traced, so the `cond` is then built again with it."""
    if snap is None:
        return _build_cond(pred, first_fn, second_fn, args, labels, pack, returns=returns)
    slots, n = [], len(labels)
    carried, state = [], {}  # what the last try carried, and what each branch gave

    def build():
        carried.clear()
        state.clear()
        return _build_cond(pred, first_fn, second_fn, args, labels, pack, snap, slots, carried, state,
                           returns=returns)

    merged = build_with_slots(snap, slots, build)
    if merged is None:
        return None
    for k, (slot, value) in enumerate(zip(carried, merged[n:])):
        if isinstance(value, UndefinedVar) and probing_now():
            # A scratch trace only learns dtypes: take the side that set the slot.
            a, b = state["first"][n + k], state["second"][n + k]
            merged[n + k] = b if isinstance(a, UndefinedVar) else a
        elif isinstance(value, UndefinedVar):
            raise ValueError(_with_location(
                f"{snap.describe(slot)} is set in only one branch of a tensor-dependent `if` and "
                "has no value before it: give it a value before the `if`, or set it in both branches"))
    snap.write(dict(zip(carried, merged[n:])))
    return merged[:n]


def _build_cond(pred, first_fn, second_fn, args, labels, pack, snap=None, slots=(), carried=None,
                state=None, returns=()):
    state = {} if state is None else state
    labels = list(labels)

    def with_slots(outs, restart):
        if snap is None:
            return outs
        changed = snap.changed()
        if restart:  # the second branch: everything it wrote must already be carried
            extra = [s for s in changed if s not in carried]
            if extra:
                raise MoreSlots(extra)
        else:
            carried.extend(list(slots) + [s for s in changed if s not in slots])
            labels.extend(snap.describe(s) for s in carried)
        return tuple(outs) + tuple(snap.current(s) for s in carried)

    def first():
        outs = with_slots(pack(_user_code(first_fn, *args)), False)
        state["first"] = outs
        # A list whose items are tracked slots merges by identity, its items as slots.
        state["keep"] = [i for i, v in enumerate(outs) if _tensorizable(v)
                         and not (snap is not None and snap.tracks(v))]
        return [_as_value(outs[i]) for i in state["keep"]]

    def second():
        if snap is not None:
            snap.restore()
        outs = with_slots(pack(_user_code(second_fn, *args)), True)
        state["second"] = outs
        ret = []
        for i in state["keep"]:
            v = outs[i]
            if isinstance(v, UndefinedVar):
                v = _dummy_like(state["first"][i])  # result is discarded (or guarded) below
            elif not _tensorizable(v):
                raise ValueError(_with_location(
                    f"variable '{labels[i]}' is {_describe(state['first'][i])} in one branch of a "
                    f"tensor-dependent `if` and {_describe(v)} in the other"))
            ret.append(_as_value(v))
        return ret

    try:
        results = rt.static.nn.cond(pred, first, second)
    except _InBranch as wrapped:
        raise wrapped.error.with_traceback(wrapped.error.__traceback__) from None
    except ValueError as e:
        what = ", ".join("the function's return value (every `return` under a tensor-dependent "
                         "condition must return the same structure)" if lb in returns
                         else lb for lb in labels)
        raise ValueError(_with_location(
            f"the branches of a tensor-dependent `if` disagree about {what}: {e}")) from e
    results = list(results) if results is not None else []
    merged = []
    kept = dict(zip(state["keep"], results))
    for i, (a, b) in enumerate(zip(state["first"], state["second"])):
        if i in kept:
            if b is RETURN_NO_VALUE or (isinstance(b, UndefinedVar) and a is not RETURN_NO_VALUE
                                        and not isinstance(a, UndefinedVar) and b is not a):
                if b is not RETURN_NO_VALUE:
                    staging.record("undefined", None, labels[i])
                merged.append(kept[i] if b is RETURN_NO_VALUE else UndefinedVar(labels[i]))
            elif type(a) in (bool, int, float) and type(a) is type(b) and a == b:
                merged.append(a)  # unchanged Python values stay Python
            elif int_kind(a, b):  # a Python int keeps true division; a path-dependent kind refuses it
                merged.append(mark_int(kept[i], int_kind(a, b)))
            else:
                merged.append(TensorArray(kept[i]) if isinstance(a, TensorArray) else kept[i])
        elif a is b or (type(a) is type(b) and _plain(a) and a == b):
            merged.append(a)
        elif a is RETURN_NO_VALUE and _tensorizable(b):
            return None
        elif (a is RETURN_NO_VALUE or b is RETURN_NO_VALUE) and not _tensorizable(b if a is RETURN_NO_VALUE else a):
            # `return None` (or another Python value) under a tensor `if`: where the return
            # flag is set the value is that one; elsewhere later code sets it or the function
            # ends, returning None as well, so the defined value stands for both.
            merged.append(b if a is RETURN_NO_VALUE else a)
        elif isinstance(a, UndefinedVar) or isinstance(b, UndefinedVar):
            staging.record("undefined", None, labels[i])
            merged.append(UndefinedVar(labels[i]))
        else:
            raise ValueError(_with_location(
                f"variable '{labels[i]}' is {_describe(a)} in one branch of a tensor-dependent "
                f"`if` and {_describe(b)} in the other"))
    return merged
