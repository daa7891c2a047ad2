"""The cache-hit path of a ``StaticFunction``: one generated function per cached Program.

A call whose arguments are all plain Tensors, given positionally, is served by a function
written for the ConcreteProgram and the argument shapes/dtypes that selected it.  Every test
the general path makes is still made, as straight-line code: the argument count, types, shapes
and dtypes (the cache key), ``enable_to_static``/``not_to_static``/static mode/verbosity, the
function's and the Layer's training modes, the Program's guards (the generated check of
``guard_check.py``), then the run on the Program's backend, the Layer writes, the outputs that
are the caller's own input Tensors, the output tags of ``output_spec`` and the output
structure.  Any test that fails returns ``MISS`` and the caller takes the general path, which
retraces when a guard no longer holds::

    def call(args):
        try:
            a0, = args
        except ValueError: return MISS
        if type(a0) is not T: return MISS
        v0 = a0._value
        if v0.shape != S0 or (v0.dtype is not D0 and v0.dtype != D0) or a0.stop_gradient is not G0: return MISS
        if not (C.enabled and C.verbosity < 2 and ...): return MISS
        try:
            <the guards' checks (guard_check.py), each failed one a `return MISS`>
        except Exception: return MISS
        PC._last = CP
        try:
            r = RUN(v0)
            o0 = NEW(T); o0._value = r[0]; o0.stop_gradient = True; ...   # Tensor.from_numpy, written out
            outs = [o0]
        except Exception as exc:
            RERAISE(exc)
        outs[0]._origin = TAG0   # name_outputs, written out
        return outs[0]
"""
import weakref

from runtime.static.train_step import is_train_backward, is_train_step
from runtime.tensor import GRAD_ENABLED, Tensor
from runtime.trace_state import STATIC_MODE

from ..conversion.convert_call import NOT_TO_STATIC_ATTR
from ..deploy.output_spec import name_outputs_source
from . import config
from .function_spec import OutputStructure, unflatten

MISS = object()  # "not served here": the caller takes the general path

_FLOATS = ("float16", "float32", "float64")


class _Writer:
    """Collects the generated lines and the objects they read (as closure-free globals)."""

    def __init__(self):
        self.names = {}
        self.lines = []

    def ref(self, value, hint="K"):
        """A global name the generated code reads ``value`` through."""
        for name, held in self.names.items():
            if held is value:
                return name
        name = f"{hint}{len(self.names)}"
        self.names[name] = value
        return name

    def add(self, line, depth=1):
        """Append one line at ``depth`` indentation levels."""
        self.lines.append("    " * depth + line)


def _tree_expr(w, spec, index, counter):
    """Source for a ``pytree.TreeSpec`` of outputs (leaf ``i`` is ``outs[index[i]]``), or None."""
    if spec.kind == "leaf":
        counter[0] += 1
        return f"outs[{index[counter[0] - 1]}]"
    if spec.kind == "const":
        return w.ref(spec.meta)
    if spec.kind in ("list", "tuple"):
        items = [_tree_expr(w, c, index, counter) for c in spec.children]
        if any(i is None for i in items):
            return None
        return "[" + ", ".join(items) + "]" if spec.kind == "list" else "(" + "".join(f"{i}, " for i in items) + ")"
    return None  # dicts, named tuples: the general rebuild


def _skeleton_expr(w, skeleton):
    """Python source rebuilding the output structure from ``outs`` (or a call of ``unflatten``)."""
    if isinstance(skeleton, OutputStructure) and not skeleton.rows:
        expr = _tree_expr(w, skeleton.spec, skeleton.index, [0])
        if expr is not None:
            return expr
    kind = skeleton[0] if isinstance(skeleton, tuple) else None
    if kind == "T":
        return f"outs[{skeleton[1]}]"
    if kind in ("list", "tuple"):
        items = [_skeleton_expr(w, s) for s in skeleton[1]]
        if kind == "list":
            return "[" + ", ".join(items) + "]"
        return "(" + "".join(f"{i}, " for i in items) + ")"
    if kind == "dict":
        return "{" + ", ".join(f"{w.ref(k)}: {_skeleton_expr(w, s)}" for k, s in skeleton[1]) + "}"
    if kind == "V":
        return w.ref(skeleton[2])
    return f"UNFLATTEN({w.ref(skeleton)}, outs)"  # namedtuple, TensorArray rows: the general rebuild


def build(sf, concrete, n_args, reraise):
    """A factory ``make(shapes, dtypes, stop_gradients) -> call(args)`` for ``concrete`` called with ``n_args``
    positional Tensors; ``call`` returns the call's result or ``MISS``; ``reraise(exc)`` raises a
    run-time error as the general path does.

    The generated code holds no reference to ``sf`` (nor the instance but weakly): ``sf`` keeps
    it, so a reference back would make a cycle.  ``sf`` drops its last generated call when its
    own mode flag changes (``train()``/``eval()``) or it falls back to eager.
    """
    w = _Writer()
    pp = concrete.partial_program
    runner = pp.runner  # built now (onnxruntime: the session), not on the first hit
    # The runner's per-call function, read on each call (a rebuilt session or a compiled plan replaces it).
    run = f"{w.ref(runner)}.run"
    instance = sf._instance
    target = getattr(sf.dygraph_function, "__func__", sf.dygraph_function)
    a = [f"a{i}" for i in range(n_args)]
    v = [f"v{i}" for i in range(n_args)]
    lines = w.add
    lines("def call(args):", 0)
    if n_args:
        lines("try:")  # unpacking checks the count (free in 3.11 until it raises)
        lines(f"{', '.join(a)}, = args", 2)
        lines("except ValueError: return MISS")
        lines("if " + " or ".join(f"type({x}) is not T" for x in a) + ": return MISS")
        lines("; ".join(f"{y} = {x}._value" for x, y in zip(a, v)))  # `numpy()` without the call
        # stop_gradient is part of the cache key: converted code may read it (``if x.stop_gradient:``)
        lines("if " + " or ".join(f"{y}.shape != S[{i}] or ({y}.dtype is not D[{i}] and {y}.dtype != D[{i}])"
                                  f" or {x}.stop_gradient is not G[{i}]"
                                  for i, (x, y) in enumerate(zip(a, v))) + ": return MISS")
    else:
        lines("if args: return MISS")
    tests = ["C.enabled", "C.verbosity < 2", "not STATIC()", f"not getattr({w.ref(target)}, NTS, False)"]
    if instance is not None:  # the raw flag by identity: a changed flag misses, and `_mode()` decides
        try:
            held = f"{w.ref(weakref.ref(instance))}()"
        except TypeError:  # an instance without weak references: held strongly
            held = w.ref(instance)
        tests.append(f"getattr({held}, 'training', None) is {w.ref(getattr(instance, 'training', None))}")
    lines("if not (" + " and ".join(tests) + "): return MISS")
    guards = concrete.guards
    if guards is not None and guards.check_body:  # the guards' generated checks, written in (no call)
        lines("try:")
        for line in guards.check_body:
            lines(line.replace("return False", "return MISS"), 2)
        lines("except Exception: return MISS")  # the general path says what changed
        w.names.update(guards.check_names)
    lines(f"{w.ref(sf.program_cache)}._last = {w.ref(concrete)}")
    lines("try:")
    float_out = any(o.dtype in _FLOATS for o in concrete.outputs)
    bound_grad = any(not t.stop_gradient for t in concrete.main_program.bound_tensors.values())
    grad_test = None
    if sf._training and float_out:  # eval(): always inference (the general path runs it under no_grad)
        grad_test = "GRAD()" if bound_grad or not a else (
            "GRAD() and (" + " or ".join(f"not {x}.stop_gradient" for x in a) + ")")
    n_out = len(concrete.outputs)
    # `Tensor.from_numpy` written out (its two calls cost more than its ten stores), then the list
    wrapped = [Tensor.wrap_source(f"o{k}", f"r[{k}]") for k in range(n_out)]
    wrapped.append("outs = [" + ", ".join(f"o{k}" for k in range(n_out)) + "]")
    if is_train_step(pp.program):
        # PartialProgram's call written out: a training step runs as inference (its backward is inside
        # it); a call its checks refuse (`check_train_call`: under no_grad, an input needing a gradient)
        # misses, and the general path raises their error.
        refuse = []
        if is_train_backward(pp.program):
            refuse = ["not GRAD()"] + [f"(not {x}.stop_gradient and {y}.dtype.kind == 'f')" for x, y in zip(a, v)]
        if refuse:
            lines(f"if {' or '.join(refuse)}: return MISS", 2)
        lines(f"r = {run}({', '.join(v)})", 2)
        for line in wrapped:
            lines(line, 2)
    elif grad_test is not None:
        lines(f"if {grad_test}:", 2)
        lines(f"outs = {w.ref(pp)}([{', '.join(a)}])", 3)
        lines("else:", 2)
        lines(f"r = {run}({', '.join(v)})", 3)
        for line in wrapped:
            lines(line, 3)
    else:
        lines(f"r = {run}({', '.join(v)})", 2)
        for line in wrapped:
            lines(line, 2)
    if concrete.layer_writes.count:
        lines(f"outs = {w.ref(concrete.layer_writes)}.apply(outs)", 2)
    lines("except Exception as exc:")
    lines("RERAISE(exc)", 2)
    feeds = {var.name: i for i, var in enumerate(concrete.inputs)}
    n_user = n_out - concrete.layer_writes.count  # `apply` dropped the layer writes (`self.key = key`)
    for k, var in enumerate(concrete.outputs[:n_user]):  # eager `return x` hands back the caller's own Tensor
        if var.name in feeds and feeds[var.name] < n_args:
            lines(f"outs[{k}] = a{feeds[var.name]}")
    # name_outputs written out, for the user's outputs (`apply` drops the layer writes)
    tagging, tag_names = name_outputs_source(concrete, range(n_user))
    for line in tagging:
        lines(line)
    w.names.update(tag_names)
    lines(f"return {_skeleton_expr(w, concrete.out_skeleton)}")
    source = "def make(S, D, G):\n" + "\n".join("    " + line for line in w.lines) + "\n    return call\n"
    # STATIC/GRAD: the ContextVars' C ``get`` (``not in_dynamic_mode()``, ``is_grad_enabled()``
    # without two Python calls each)
    namespace = dict(w.names, MISS=MISS, T=Tensor, NEW=Tensor.__new__, C=config._config, STATIC=STATIC_MODE.get,
                     NTS=NOT_TO_STATIC_ATTR, GRAD=GRAD_ENABLED.get,
                     UNFLATTEN=unflatten, RERAISE=reraise)
    config.log(2, f"generated call of {sf.__name__}:\n{source}")
    exec(compile(source, f"<dy2st call of {sf.__name__}>", "exec"), namespace)  # noqa: S102  (our own code)
    return namespace.pop("make")  # popped: a function held by its own globals is a reference cycle
