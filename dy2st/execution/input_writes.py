"""In-place writes into a converted function's tensor arguments, carried out on the caller's tensors.

Eagerly `x.add_(1)`, `x[0] = v` or `F.relu_(x)` on an argument changes the caller's tensor: every name
bound to it (`y = x` before the write, the caller's own variable) sees the new value, and `return x` or
`return y` hands back that very object. While the Program is built the feed Variable takes each write
over (``aliasing.rebind``, ``adopt(..., inputs=True)``): the object the function's names hold then names
the written value, and the feed's name passes to another object. So after the trace:

- the feed Variables are found again by their names (the Program's inputs);
- an argument whose object no longer names its feed was written: its final value is an output of the
  Program (the output it already is when the function returns it, else an extra one, placed before
  the layer's, ``layer_writes``);
- after every run the caller's tensor takes that output's value and gradient history, as eager's write
  (``tape.write_back``) does, and the call returns that tensor where the function returned the value.

`x.stop_gradient = True` cuts the argument's object in place too (``operators.flags.SetStopGradient``),
so its other names are cut as eagerly: the value under such cuts is what the caller's tensor takes (none
when only the flag changed), and the flag itself reaches it after the run (``_write_flags``).

A write into an argument that the trace recorded (``_input_writes``, ``aliasing.write_in_place``) but
that never reached its feed (a branch or loop could not carry it out) is an error at the write's line:
the caller's tensor would silently keep its old value.
"""
from runtime.tape import stand_in, take_over


class InputWrites:
    """Which arguments one trace wrote into, and where their final values are among the outputs."""

    def __init__(self, program, feeds):
        self._feeds = list(feeds)  # the objects the traced function was given (its names hold them)
        self.names = [f.name for f in self._feeds]
        # `x.stop_gradient = v` on such an object sets the argument's flag, written or not (python_semantics)
        program._argument_objects = {id(f): n for f, n in zip(self._feeds, self.names)}
        self.written = ()  # (argument index, output position) per written argument
        self.returned = ()  # (argument index, output position) of a returned argument its flag alone cut
        self.count = 0     # extra outputs, just before the layer's

    def __bool__(self):
        return bool(self.written or self.returned)

    def feeds(self, program):
        """The feed Variables (a written argument's object names its final value instead)."""
        found = program.global_block().vars
        return [found[n] for n in self.names]

    def finish(self, program, out_vars):
        """Note the written arguments (appending the final values nothing returns to ``out_vars``)
        and refuse a recorded write that did not reach its argument (see the module docstring)."""
        written, returned = [], []
        for i, (obj, name) in enumerate(zip(self._feeds, self.names)):
            if obj.name == name:
                continue
            k = next((j for j, v in enumerate(out_vars) if v is obj), None)
            if k is not None:  # `return x`: the caller's tensor
                returned.append((i, k))
            # under `x.stop_gradient = True` cuts (the flag goes to the caller's tensor after the run): the value
            value = _under_cuts(program, obj.name)
            if value == name:  # the flag alone changed
                continue
            value = program.global_block().vars[value]
            k = next((j for j, v in enumerate(out_vars) if v is value), None)
            if k is None:
                out_vars.append(value)
                k = len(out_vars) - 1
                self.count += 1
            written.append((i, k))
        self.written, self.returned = tuple(written), tuple(returned)
        self._feeds = None  # the trace's objects are not needed by the runs
        program.__dict__.pop("_argument_objects", None)
        done = {self.names[i] for i, _ in written}
        for name, _grad_on, what, where, _flag in program.__dict__.get("_input_writes", ()):
            if name not in done:
                raise TypeError(
                    f"{what} into the argument '{name}' inside a tensor-dependent `if` or loop could not be carried "
                    "out to the caller's tensor (the branches leave it as different tensors, or the loop rebinds "
                    "it): eagerly the caller's tensor changes; write into a copy first "
                    f"({name} = {name}.clone()), or return the new value{where}")

    def apply(self, tensors, outs):
        """After a run: each written argument's tensor takes its final value (``outs`` holds the
        layer's outputs no more); returns the function's outputs, the caller's tensor at its places."""
        outs = list(outs)
        for i, k in self.written:
            take_over(tensors[i], outs[k])
            outs[k] = tensors[i]
        for i, k in self.returned:  # `return x` hands back the caller's tensor (its flag is set after the run)
            outs[k] = tensors[i]
        return outs[:len(outs) - self.count] if self.count else outs


def _under_cuts(program, name):
    """The value the global value ``name`` is through `stop_gradient` ops (``name`` if it is none's)."""
    made = {n: op for op in program.global_block().ops for n in op.output_arg_names}
    op = made.get(name)
    while op is not None and op.type == "stop_gradient":
        name = op.input_arg_names[0]
        op = made.get(name)
    return name


def stand_ins(concrete, tensors):
    """``tensors`` as the run of ``concrete`` is fed them: an argument the call changes afterwards (it
    was written in place, or is a non-leaf that `x.stop_gradient = True` cuts) replaced by a Tensor
    holding its state before the run (value, gradient history, flag), as ``tape.write_back`` records
    the write's op against such a stand-in: the run's tape node keeps what it read, and its backward
    still reaches the argument's sources through the ops before the change, as eagerly."""
    written = concrete.written_inputs
    positions = [i for i, _ in written.written] if written else []
    for i in positions:
        if any(t is tensors[i] for j, t in enumerate(tensors) if j != i):
            raise TypeError(_same_tensor_twice(concrete, written.names[i]))
    positions += [i for i, flag in concrete.flag_writes if flag and not tensors[i].is_leaf]
    if not positions:
        return tensors
    tensors = list(tensors)
    for i in positions:
        tensors[i] = stand_in(tensors[i])
    return tensors


def _same_tensor_twice(concrete, name):
    """The error for one tensor given as two arguments, one of which the function writes into."""
    where = next((w for n, _, _, w, _ in concrete.input_writes if n == name), "")
    return (f"the tensor given as the argument '{name}' is also given as another argument, and the function "
            "writes into it in place: eagerly the other argument sees the write (it is the same tensor), the "
            "Program reads them as two inputs; pass a copy (t.clone()) as one of them" + where)
