"""`y[k] = v` on a traced tensor changes the object every alias of `y` holds, as in eager.

Eager item assignment is in place: a list that holds `y`, a second name bound to it, or the
caller of a helper that wrote into its argument all see the new value. A `set_value` op makes a
new Variable, so rebinding only the written name would leave every alias on the old value, a
silently different result. When the written Variable was made by an op of the block being
built, the two Python objects trade their state: the object every alias holds now names the
`set_value` output, and the other object keeps naming the old value for the ops that already
read it (ops refer to Variables by name, so they are unaffected).

A write inside a branch or loop body into a Variable of an enclosing block (or into a loop
body's placeholder) cannot trade state there: only the name is rebound, and the write is
recorded (``recording_writes``). When the `cond` or `while` op is built and the written name's
value at the end of every branch (or of the body) is that write, or the untouched Variable, the
Variable the aliases hold takes over the op's output in its own block (``carry_writes``), so
`z = y; if c: y[0] = v` leaves `z` holding what `y` holds, as eagerly.

Parameters keep the rebinding alone. A fed input takes the write as a Variable made by an op
does (``adopt(..., inputs=True)``): the object the function's names hold then names the written
value, and the feed's name passes to the other object. After each run the caller's tensor takes
that value (``execution/input_writes.py``), as eager's write changes it.
"""
import contextlib
import threading

from runtime.framework import Variable
from runtime.ops.common import assign_to
from runtime.tensor import is_tensor
from runtime.inplace import adopt
from runtime.tensor import GRAD_ENABLED

from dy2st.operators.common import _with_location
from dy2st.operators.list_items import _ITEM_WRITE, held_by_list
from dy2st.operators.tensor_array import TensorArray

_LOCAL = threading.local()


@contextlib.contextmanager
def recording_writes():
    """While a branch or loop body is traced: ``{id(var): (var, value)}`` of the writes into
    Variables it could not make in place (the latest per Variable)."""
    outer = getattr(_LOCAL, "writes", None)
    _LOCAL.writes = mine = {}
    try:
        yield mine
    finally:
        _LOCAL.writes = outer


def written_in_trace(var):
    """What the branch or loop body being traced wrote into ``var`` (its placeholder) in place, or None."""
    record = getattr(_LOCAL, "writes", None)
    write = record.get(id(var)) if record is not None else None
    return None if write is None else write[1]


def rebind(target, out):
    """`target` taking over `out` (``adopt``), or `out`, the write recorded for the enclosing op."""
    if is_tensor(target) and not isinstance(target, Variable):
        # an eager tensor from outside (a buffer) a loop wrote by item: it takes the loop's result
        # as the runtime's item write does (assigned to its Variable, written back after each run)
        assign_to(out, target, "an item write inside a tensor-dependent loop")
        return target
    fed = getattr(target, "is_data", False) and target.name
    if adopt(target, out, inputs=True):
        if fed:  # a write a branch or loop carried out into an argument: checked per call as one
            _note_input_write(out.block, fed, "an in-place write inside a tensor-dependent `if` or loop")
        return target
    record = getattr(_LOCAL, "writes", None)
    if record is not None and isinstance(target, Variable) and not target.persistable:
        record[id(target)] = (target, out)
    return out


def carry_writes(merged, outer, written):
    """``merged`` (a cond or while op's outputs) with each output ``i`` of ``written`` (see
    ``written_outputs``) given to the Variable ``outer[i]`` instead (``rebind``)."""
    merged = list(merged)
    for i in written:
        if i < len(merged):
            merged[i] = rebind(outer[i], merged[i])
    return merged


def written_outputs(paths, outer):
    """The indices ``i`` at which the op's output ``i`` is what an in-place write made of the
    Variable ``outer[i]`` (the value ``i`` held before the op, which aliases may hold too).

    ``paths``: ``(finals, record, starts)`` per branch or loop body: the values it ended with, the
    writes ``recording_writes`` recorded while it was traced, and the values it began with (a
    branch: the outer Variables themselves; a loop body: its placeholders). Output ``i`` counts
    as a write when on every path value ``i`` ended as the write recorded into the value it began
    with, or as that value untouched, and on one path at least as a write."""
    found = []
    for i, target in enumerate(outer):
        if not is_tensor(target):
            continue
        written = False
        for finals, record, starts in paths:
            start = starts[i]
            write = record.get(id(start)) if start is not None else None
            if write is not None and finals[i] is write[1]:
                written = True
            elif finals[i] is not start:
                break  # rebound to another value on this path: not one write
        else:
            if written:
                found.append(i)
    return found


def uncarried_writes(paths, written):
    """The Variables a path wrote into that no output of ``written`` carries as that write (in
    order): a helper function writing into its argument (`bump(y)`), or a write whose name was
    rebound after it (`y[0] = v; y = y * 2`). A branch carries them as extra outputs; a loop
    refuses them."""
    carried = {id(starts[i]) for _, _, starts in paths for i in written}
    seen = {}
    for _, record, _ in paths:
        for var, _value in record.values():
            if id(var) not in carried:
                seen.setdefault(id(var), var)
    return list(seen.values())


def refuse_stale_reads(block, record):
    """A Variable written in place inside a branch or loop body (``record``) that the body reads
    again after the write: the body still names it by its old value there (only the name the
    write went through was rebound: `bump(y); y = y * 2`, or `z = y; y[0] = v; z + 1`), where
    eagerly every name holding it sees the write."""
    if not record:
        return
    ops = block.ops
    made = {}
    for k, op in enumerate(ops):
        for n in op.output_arg_names:
            made[n] = k
    for var, value in record.values():
        k = made.get(getattr(value, "name", None))
        if k is None:
            continue
        # a `shape` op may read the old value: an in-place write keeps the shape (the check of a
        # write over run-time dims, inplace.check_result, is such a read)
        if any(var.name in op.input_arg_names and op.type != "shape" for op in ops[k + 1:]):
            raise TypeError(_with_location(
                "a tensor written in place inside a tensor-dependent `if` or loop is read again after the "
                "write through another name (an alias, or the argument a helper function wrote into); "
                "eagerly that name sees the write, the Program would read the value from before it: "
                "assign the written value back to that name (`y = bump(y)`), or read the name the write "
                "went through"))


def refuse_uncarried(paths, written):
    """A loop body's write into a tensor it does not carry (see ``uncarried_writes``): eagerly the
    tensor changes, the `while` op would leave it as it was."""
    # a carried value, rebound after the write (`y[0] = v; y = y * 2`), is left to the rebinding,
    # its start tensor to the loop's shadow carries (loop_carries._WrittenThenRebound); a list a tensor
    # loop carries is a tensor array, its items written into its tensor
    named = {id(s) for _, _, starts in paths for s in starts}
    named |= {id(s.tensor) for _, _, starts in paths for s in starts if isinstance(s, TensorArray)}
    for var in uncarried_writes(paths, written):
        if id(var) not in named:
            raise TypeError(_with_location(
                "an item or in-place write inside a tensor-dependent loop changes a tensor that the loop "
                "body does not assign by name (a function it calls writes into its argument, or an in-place "
                "method called on a list or dict item: `acc[0].add_(v)`); eagerly the tensor changes, the "
                "Program could not carry that out: return the new value from the function and assign it "
                "(`y = bump(y)`), or write through a name the loop assigns (`y = acc[0]` before the loop, "
                "`y.add_(v)` in it)"))


def write_in_place(target, out, what="an item write"):
    """Return the object the write should leave bound: `target` itself, now naming `out`'s value
    (``runtime.inplace.adopt``), or `out` where only the rebinding carries the write."""
    block = getattr(out, "block", None)
    if block is not None:
        if getattr(target, "is_data", False):
            _note_input_write(block, target.name, what)
        elif getattr(target, "_dy2st_cut_from", None) is not None and _cut_argument(target) is not None:
            # an argument `stop_gradient = True` cut in place (flags.SetStopGradient): still the argument
            _note_input_write(block, _cut_argument(target), what)
    return rebind(target, out)


def refuse_list_item_write(later):
    """TypeError at the user's line: an in-place write into a tensor a list built in a tensor loop
    holds (``tensor_array.held_by_list``), which eager code would see through the list; a write
    traced after the append is refused by ``runtime.inplace.adopt`` itself."""
    raise TypeError(_with_location(_ITEM_WRITE.replace("an in-place write", f"an in-place write{later}", 1)))


def refuse_later_writes_into_list_items(traced, before, written, shadows):
    """A tensor the loop body writes into in place that stays the same tensor into the next
    iteration (``written``) and that a list built in the loop holds (appended in the body, or
    stacked as the loop began), or a start tensor the first iteration writes into (``shadows``)
    held so: eagerly the next iteration's write changes the list's item, the stacked list kept a
    copy (a write traced after the append is refused where it is made, ``aliasing.write_in_place``)."""
    if not traced:
        return
    _outs, record, starts = traced[0]
    for i in written:
        write = record.get(id(starts[i]))
        if held_by_list(before[i], starts[i], write[1] if write else None):
            refuse_list_item_write(" in a later iteration")
    if any(held_by_list(before[i]) for i in shadows):
        refuse_list_item_write(" in the loop")


def _cut_argument(value):
    """The name of the argument a chain of `stop_gradient = True` cut ``value`` from, else None."""
    while getattr(value, "_dy2st_cut_from", None) is not None:
        value = value._dy2st_cut_from
    program = value.block.program
    name = program.__dict__.get("_argument_objects", {}).get(id(value))
    return name or (value.name if getattr(value, "is_data", False) else None)


def _note_input_write(block, name, what):
    """Record a write into the fed input ``name`` on its Program (``_input_writes``), once per input
    and grad mode. Eager refuses a write into a leaf that needs its gradient (under no_grad it keeps
    needing it with the new value); whether the fed tensor is one is known per call (the Program
    serves any stop_gradient): checked then (``leaf_write_error``) instead of giving the input a
    gradient through the write. A recorded write the trace could not carry out to the caller's
    tensor is refused at its line (``execution.input_writes``); a recorded input also keeps the
    Program off the generated fast call (it writes back into the caller's tensor after each run)."""
    program = block.program
    writes = program.__dict__.setdefault("_input_writes", [])
    grad_on = GRAD_ENABLED.get()
    # `x.stop_gradient = False` on the argument before the write: eager's check sees that flag
    flag = program.__dict__.get("_argument_flags", {}).get(name)
    if not any(n == name and g == grad_on for n, g, *_ in writes):
        writes.append((name, grad_on, what, _with_location(""), flag))


def leaf_write_error(writes, feeds, tensors):
    """The error eager raises for this call's in-place writes into fed inputs (``writes``: the
    Program's ``_input_writes``) when the caller's tensor is a leaf that needs a gradient, else None."""
    if not GRAD_ENABLED.get():
        return None  # eager changes the leaf's value and records nothing, as the Program's copy does
    fed = {f.name: t for f, t in zip(feeds, tensors)}
    for name, grad_on, what, where, flag in writes:
        t = fed.get(name)
        if t is None or (t.stop_gradient if flag is None else flag) or not t.is_leaf:
            continue
        if grad_on:
            return RuntimeError(f"a leaf Tensor that needs a gradient (stop_gradient=False) cannot be changed in "
                                f"place by {what}; write into a copy (y = x.clone()) or use the out-of-place "
                                f"method{where}")
        return TypeError(f"{what} under no_grad into an input leaf that needs a gradient: eagerly the leaf keeps "
                         "needing its gradient with its new value, which a converted function cannot give; "
                         f"write into a copy (y = x.clone()){where}")
    return None
