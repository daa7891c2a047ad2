"""`x.stop_gradient = flag` in converted code: `SetStopGradient` and `SetStopGradientItem`.

A cut is a `stop_gradient` op; the object the names hold takes the cut value over in place where it
can, so every name of the tensor sees the flag as eagerly, and an argument's flag also reaches the
caller's tensor after each run (``frontend/static_function._write_flags``).
"""
import runtime as rt
from runtime.inplace import adopt

from dy2st.operators.aliasing import rebind
from dy2st.operators.common import _with_location, is_symbolic


def SetStopGradient(x, flag):
    """`x.stop_gradient = flag`; returns what `x` names afterwards.

    Eagerly the flag only decides whether later ops record a gradient edge to the tensor, which
    keeps its own: `y.stop_gradient = False` after `= True` makes the ops after it reach the
    values `y` came from again.  So the cut value remembers what it was cut from, and setting
    the flag back returns that value.  Every name holding the tensor sees the flag (`y = t;
    t.stop_gradient = True; y * 3` is cut eagerly): the object itself takes the cut value over
    (``aliasing.rebind``, as an in-place write), and back; an argument's flag also goes to the
    caller's tensor per call."""
    if is_symbolic(x):
        program = x.block.program
        if flag and x.dtype in ("float16", "float32", "float64"):
            source = x
            cut = x.detach()  # a `stop_gradient` op
            # a fed argument takes the cut over too (input_writes tells it from a write: its flag goes to the
            # caller's tensor, a written value under the cut to its value)
            if adopt(x, cut, inputs=True) if getattr(x, "is_data", False) else rebind(x, cut) is x:
                x._dy2st_cut_from = cut  # the object `cut` holds the value from before now
                x._dy2st_cut_in_place = True
            else:
                x = cut
                x._dy2st_cut_from = source
        elif not flag:
            if getattr(x, "_dy2st_cut_from", None) is None and _cut_inside(x.block, x.name):
                raise ValueError(_with_location(
                    "`stop_gradient = False` on a value a `stop_gradient = True` inside a tensor-dependent "
                    "`if` or loop cut: eagerly it reconnects the gradient in the iterations or branch that "
                    "cut it, which a Program value cannot; set it back inside that same branch or body"))
            x = _uncut_in_place(x)
        x.stop_gradient = bool(flag)
        source = _uncut(x)
        argument = _argument_name(program, source) or _argument_name(program, x)
        if argument is not None:  # the caller's tensor takes the flag per call
            if not flag and not getattr(source, "is_data", False):
                raise TypeError(_with_location(
                    "`stop_gradient = False` on an argument after an in-place write into it: eagerly a leaf "
                    "then needs a gradient with its new value, which a converted function cannot give; set the "
                    "flag before the write, or write into a copy (y = x.clone())"))
            if program.current_block().idx != 0:
                raise TypeError(_with_location(
                    "`stop_gradient` set on an argument inside a tensor-dependent `if` or loop: eagerly the "
                    "caller's tensor takes the flag only on the calls that run that code, which a flag set per "
                    "call cannot follow; set it before the `if` or loop (or on a copy: `y = x * 1`)"))
            program.__dict__.setdefault("_argument_flags", {})[argument] = bool(flag)
        return x
    if isinstance(x, rt.Tensor) and not rt.in_dynamic_mode() and bool(flag) != x.stop_gradient:
        # The flag of an eager tensor (a parameter) would change once, while the Program is built:
        # the Program's gradients and its update follow the flag the trace ended with, at every call,
        # where eagerly the code before this line still sees the old flag on each call.
        raise TypeError(_with_location(
            f"`stop_gradient = {bool(flag)}` on an eager tensor (a parameter, or a tensor made outside) inside "
            "a converted function: the Program would apply the new flag from its first call on, also to the "
            "backward and optimizer step before this line; freeze or unfreeze it outside the converted "
            "function (between calls)"))
    x.stop_gradient = flag
    return x


def _argument_name(program, value):
    """The argument ``value`` is (its object names its written value after an in-place write into
    it: still the argument), else None."""
    name = program.__dict__.get("_argument_objects", {}).get(id(value))
    return name or (value.name if getattr(value, "is_data", False) else None)


def _uncut_in_place(x):
    """``x`` naming the value its cuts came from again (``_uncut``): the object itself where it took a
    cut over in place (every name holding it reconnects, as eagerly), else that value's object."""
    source = _uncut(x)
    if source is x or not getattr(x, "_dy2st_cut_in_place", False) or rebind(x, source) is not x:
        return source
    # x now holds the value from before the cuts; `source` holds the cut value with x's old marks
    source.__dict__.pop("_dy2st_cut_from", None)
    source.__dict__.pop("_dy2st_cut_in_place", None)
    return x


def _uncut(x):
    """The value a chain of `stop_gradient = True` cut ``x`` from (``x`` itself if none did)."""
    while getattr(x, "_dy2st_cut_from", None) is not None:
        x = x._dy2st_cut_from
    return x


def _cut_inside(block, name, depth=0):
    """Whether the value ``name`` of ``block`` is a `cond`/`while` output that a
    `stop_gradient = True` inside one of its branches or its body cut (directly or nested)."""
    var = _find_var(block, name)
    if var is not None and getattr(var, "_dy2st_cut_from", None) is not None:
        return True
    if depth > 32:
        return False
    for op in reversed(block.ops):
        outs = op.outputs.get("Out", ())
        if op.type not in ("cond", "while") or name not in outs:
            continue
        k = outs.index(name)
        if op.type == "cond":
            inner = [(op.attrs["true_block"], op.attrs["true_outs"]), (op.attrs["false_block"], op.attrs["false_outs"])]
        else:
            inner = [(op.attrs["sub_block"], op.attrs["carry_out"])]
        return any(k < len(names) and _cut_inside(sub, names[k], depth + 1) for sub, names in inner)
    return False


def _find_var(block, name):
    while block is not None:
        if name in block.vars:
            return block.vars[name]
        block = block.program.blocks[block.parent_idx] if block.parent_idx >= 0 else None
    return None


def SetStopGradientItem(container, key, flag):
    """`container[key].stop_gradient = flag`; returns what `container` names afterwards.

    A list or dict gets the cut value in place; a tuple (immutable) is replaced by a copy
    holding it, so the name reads the cut value as eagerly (other names of the tuple do not).
    """
    old = container[key]
    new = SetStopGradient(old, flag)
    if new is old:
        return container
    if isinstance(container, tuple):
        items = list(container)
        items[key] = new
        return type(container)(*items) if hasattr(container, "_fields") else tuple(items)
    container[key] = new
    return container
