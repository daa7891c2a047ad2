"""`_jst.IfElse`: a symbolic condition -> a `cond` op with both branches traced; a Python (or
eager) condition -> only the branch taken runs, decided at trace time."""
import runtime as rt
import runtime.static  # noqa: F401  (rt.static.nn.cond)

from dy2st import staging
from dy2st.operators.common import (_describe, _InBranch, _pack, _plain, _user_code,
                                    _with_location, is_symbolic, truth)
from dy2st.pyct.undefined import RETURN_NO_VALUE, UndefinedVar


def _tensorizable(v):
    if isinstance(v, UndefinedVar):
        return False
    if rt.is_tensor(v) or isinstance(v, (bool, int, float)):
        return True
    return isinstance(v, (list, tuple)) and len(v) > 0 and all(_tensorizable(e) for e in v)


def _dummy_like(v):
    """A constant with `v`'s dtype and rank, standing in on a path where a value is unset."""
    if isinstance(v, (list, tuple)):
        return type(v)(_dummy_like(e) for e in v)
    if rt.is_tensor(v):
        return rt.full([d if d >= 0 else 1 for d in v.shape], 0, v.dtype)
    return type(v)(0)


def IfElse(pred, true_fn, false_fn, args=(), names=None):
    """Run one branch (Python/eager pred) or build a `cond` op (symbolic pred).

    names: the output variable names, or None for one unnamed value (a ternary).
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
    outs = _build_cond(pred, true_fn, false_fn, args, labels, pack)
    if outs is None:  # the first branch left a return value unset that the other set: swap
        outs = _build_cond(rt.logical_not(pred), false_fn, true_fn, args, labels, pack)
    if names is None or n == 1:
        return outs[0]
    return None if n == 0 else tuple(outs)


def _build_cond(pred, first_fn, second_fn, args, labels, pack):
    state = {}

    def first():
        outs = pack(_user_code(first_fn, *args))
        state["first"] = outs
        state["keep"] = [i for i, v in enumerate(outs) if _tensorizable(v)]
        return [outs[i] for i in state["keep"]]

    def second():
        outs = pack(_user_code(second_fn, *args))
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
            ret.append(v)
        return ret

    try:
        results = rt.static.nn.cond(pred, first, second)
    except _InBranch as wrapped:
        raise wrapped.error.with_traceback(wrapped.error.__traceback__) from None
    except ValueError as e:
        what = ", ".join("the function's return value (every `return` under a tensor-dependent "
                         "condition must return the same structure)" if lb.startswith("__return_value")
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
            else:
                merged.append(kept[i])
        elif a is b or (type(a) is type(b) and _plain(a) and a == b):
            merged.append(a)
        elif a is RETURN_NO_VALUE and _tensorizable(b):
            return None
        elif isinstance(a, UndefinedVar) or isinstance(b, UndefinedVar):
            staging.record("undefined", None, labels[i])
            merged.append(UndefinedVar(labels[i]))
        else:
            raise ValueError(_with_location(
                f"variable '{labels[i]}' is {_describe(a)} in one branch of a tensor-dependent "
                f"`if` and {_describe(b)} in the other"))
    return merged
