"""The one op registry: every op is declared once, here, and read by everything else.

An ``OpDef`` carries everything about an op: the numpy kernel, the shape/dtype
inference (``-1`` for an unknown dim), the gradient rule, its ONNX lowering (or
why it has none), the public names it is reached by, the Tensor methods it
backs, whether it draws random numbers or has side effects, and any fast form
the compiled executor may call instead of the generic kernel.  Eager mode calls
the kernel, the static builder calls ``infer``, the executor binds kernels into
a plan, ``append_backward`` calls ``grad``, the ONNX exporter builds its table
from ``onnx``/``no_onnx``, and ``rt.*``, the Tensor's methods and the
converter's set of plain methods are built from the names.

Declaring an op (one block)::

    def_op("tanh", ["X"], ["Out"], kernel=np.tanh, infer=same_as,
           grad=lambda ctx: [apply("tanh_grad", ctx.outputs[0], ctx.out_grads[0])],
           onnx="Tanh",               # one ONNX node; a lower-case name is a lowering function
           api=["tanh"],              # rt.tanh: the function ``tanh`` of this module
           functional=["tanh"],       # rt.nn.functional.tanh (defined in runtime/nn/functional.py)
           methods=["tanh"],          # Tensor.tanh: this module's ``tanh``
           activation=True)           # accepted by static.nn.fc(activation="tanh")

``float16_in_float32=True`` (ops and composites of several float steps) computes float16 inputs in
float32 and rounds the results once, as Paddle's float16 kernels do (runtime/fp16_compute.py).

Slot names ending in ``*`` are variadic: the kernel gets (or returns) a list
there.  ``grad(ctx)`` builds input gradients with other registered ops (so it
works on eager Tensors and on static Variables alike) and returns one entry per
input slot (``None`` where no gradient flows).

A *composite* op is a Python function of registered ops (``softplus``): it is
never an op type in a Program, so its gradient, static form and ONNX export
come from the ops it is made of.  ``@composite(...)`` declares it with its
names, and the op walker tests it like any other op.
"""
import sys
from dataclasses import dataclass, field
from typing import Callable, Optional

from .fp16_compute import composite_in_float32, grad_in_float32, kernel_in_float32

# The reason every gradient-only op gives for having no ONNX lowering.
GRAD_ONLY = "gradient op: only training Programs hold it, and ONNX export takes inference Programs"
RANDOM = "random: draws from runtime's generator, which no ONNX random op reproduces value for value"


@dataclass(init=False)
class Meta:
    """Static shape and dtype of a value (``-1`` marks an unknown dim)."""

    __slots__ = ("shape", "dtype")
    shape: tuple
    dtype: str

    # Written out rather than generated: every op built into a Program makes several Metas, and
    # the generated __init__ plus a __post_init__ call cost two Python frames each.
    def __init__(self, shape, dtype):
        self.shape = tuple(map(int, shape))
        self.dtype = dtype


def _method_map(methods):
    """``["sum", "astype=cast"]`` or ``{"astype": "cast"}`` -> {method name: function name}."""
    if isinstance(methods, dict):
        return dict(methods)
    out = {}
    for m in methods:
        name, _, fn = m.partition("=")
        out[name] = fn or name
    return out


@dataclass
class OpDef:
    """Everything about one op type (see the module docstring)."""

    type: str
    inputs: list
    outputs: list
    kernel: Optional[Callable] = None
    infer: Optional[Callable] = None
    grad: Optional[Callable] = None
    attrs: dict = field(default_factory=dict)
    # Builds a run-time callable from an Operator (for ops whose kernel needs
    # the executor, e.g. control flow running sub-blocks).
    build_kernel: Optional[Callable] = None
    # Draws from runtime's generator: never folded, replayed by cond/while gradients.
    random: bool = False
    # Prints, raises or writes outside its outputs: never dropped, never folded.
    side_effect: bool = False
    # The gradient rule reads only the shapes and dtypes of the inputs, never their values: a later
    # in-place write into an input (same shape and dtype) leaves the gradient as eager's, so a Program
    # may write a parameter or buffer after such an op read it (runtime/ops/common.py assign_to).
    grad_reads_no_values: bool = False
    # A run-time check (`assert`): raises on bad values and writes nothing. A saved inference model
    # keeps it (passes.prune), so a loaded model refuses what the converted function refuses.
    check: bool = False
    # "Tanh": one ONNX node reading the input slots in order and writing the output slots;
    # "gelu": the function registered with @lowering("gelu") (runtime/static/onnx/ops.py and its siblings).
    onnx: Optional[str] = None
    no_onnx: str = ""                      # why there is no lowering (exactly one of onnx/no_onnx)
    api: tuple = ()                        # names in ``runtime`` (functions of ``module``)
    functional: tuple = ()                 # names in ``runtime.nn.functional``
    methods: dict = field(default_factory=dict)  # Tensor method name -> function name in ``module``
    activation: bool = False               # usable as ``static.nn.fc(activation=<functional name>)``
    # fast(block, op) -> a numpy callable taking the input values (no attrs), or None: what the
    # compiled executor calls when static dtypes/ranks make the generic kernel's checks moot.
    fast: Optional[Callable] = None
    # alias(block, op) -> the input var name the op returns unchanged (static shapes/dtypes show
    # it is a no-op: a cast to the same dtype...), or None: the compiled executor skips the call.
    alias: Optional[Callable] = None
    module: str = ""                       # where ``api``/``methods`` functions are (default: the declaring module)
    doc: str = ""
    # float16 inputs are computed in float32 and the result rounded once, as Paddle's float16
    # kernels do (runtime/fp16_compute.py): the kernel and the gradient rule (on float32 casts).
    # Declared by ops whose kernel or gradient takes several float steps.  "kernel": the kernel
    # only, for a rule made of such ops already that reads its inputs' identity (conv's _wants_grad).
    float16_in_float32: bool | str = False

    def __post_init__(self):
        self.methods = _method_map(self.methods)
        self.api, self.functional = tuple(self.api), tuple(self.functional)
        if self.float16_in_float32:
            if self.kernel is not None:
                # (wrapper, kernel): eager dispatch, having read the input dtypes, calls the kernel itself
                # when none is float16 (runtime/dispatch.py), as long as ``kernel`` is still the wrapper
                self.float16_kernels = (kernel_in_float32(self.kernel), self.kernel)
                self.kernel = self.float16_kernels[0]
            if self.grad is not None and self.float16_in_float32 != "kernel":
                self.grad = grad_in_float32(self.grad)
        if self.onnx and self.no_onnx:
            raise ValueError(f"op '{self.type}' declares both an ONNX lowering and a reason for none")

    @property
    def pure(self):
        """Same inputs, same outputs, nothing else touched: safe to fold and to drop when unused."""
        return not (self.random or self.side_effect)

    def slot(self, name):
        """A slot name without its variadic ``*`` mark."""
        return name.rstrip("*")

    @property
    def input_slots(self):
        """The input slot names, without ``*`` marks."""
        return list(self._slot_names()[0])

    @property
    def output_slots(self):
        """The output slot names, without ``*`` marks."""
        return list(self._slot_names()[1])

    def _slot_names(self):
        """(input slots, output slots) as tuples, stripped once per declaration: the static builder
        reads them for every op it appends. Rebuilt if ``inputs``/``outputs`` were changed since."""
        cached = self.__dict__.get("_slots")
        if cached is None or cached[0] != self.inputs or cached[1] != self.outputs:
            ins, outs = list(self.inputs), list(self.outputs)
            cached = (ins, outs, (tuple(n.rstrip("*") for n in ins), tuple(n.rstrip("*") for n in outs)))
            self.__dict__["_slots"] = cached
        return cached[2]

    def is_variadic_input(self, i):
        """Whether input ``i`` takes a list of variables."""
        return self.inputs[i].endswith("*")

    def is_variadic_output(self, i):
        """Whether output ``i`` is a list of variables."""
        return self.outputs[i].endswith("*")

    def full_attrs(self, attrs):
        """The declared default attrs updated with ``attrs``; TypeError naming any attr the op does not take."""
        declared = self.attrs
        if not attrs:
            return dict(declared)
        unknown = [k for k in attrs if k not in declared]
        if unknown:
            raise TypeError(f"op '{self.type}' got unknown attributes {sorted(set(unknown))}; "
                            f"it takes {sorted(self.attrs)}")
        merged = dict(declared)
        merged.update(attrs)
        return merged


class GradContext:
    """What a gradient rule sees: forward inputs, outputs, output grads, attrs.  ``from_float16``: the
    values are float32 casts of float16 ones (``float16_in_float32``), so the forward outputs it reads
    were rounded to float16 (a rule may recompute a statistic it needs to float32's precision)."""

    __slots__ = ("inputs", "outputs", "out_grads", "attrs", "op", "from_float16", "running", "totals")

    def __init__(self, inputs, outputs, out_grads, attrs, op=None, from_float16=False):
        self.inputs = inputs
        self.outputs = outputs
        self.out_grads = out_grads
        self.attrs = attrs
        self.op = op
        self.from_float16 = from_float16
        # static control flow only (see backward._Pass._op_grad): an input's gradient summed so far
        # from later ops, by name, which the rule may continue inside its sub-blocks; the names
        # whose returned gradient already holds that sum go in ``totals``
        self.running = {}
        self.totals = set()


@dataclass
class CompositeDef:
    """A public function made of registered ops, declared with its names like an op."""

    name: str
    fn: Callable
    api: tuple = ()
    functional: tuple = ()
    methods: dict = field(default_factory=dict)
    activation: bool = False
    module: str = ""
    doc: str = ""
    float16_in_float32: bool = False       # as OpDef's: float16 arguments computed in float32 (casts)

    def __post_init__(self):
        self.methods = _method_map(self.methods)
        self.api, self.functional = tuple(self.api), tuple(self.functional)


_REGISTRY = {}
_COMPOSITES = {}


def _caller_module(depth=2):
    return sys._getframe(depth).f_globals.get("__name__", "")


def def_op(type, inputs, outputs, pure=True, **kwargs):
    """Register an op; ``module`` defaults to the declaring module (where its public functions live).

    ``pure=False`` (the older spelling) means ``side_effect=True``.
    """
    if type in _REGISTRY:
        raise ValueError(f"op '{type}' is registered twice")
    if not pure and not kwargs.get("random"):
        kwargs["side_effect"] = True
    kwargs.setdefault("module", _caller_module())
    op = OpDef(type=type, inputs=list(inputs), outputs=list(outputs), **kwargs)
    _REGISTRY[type] = op
    return op


def composite(name, **kwargs):
    """Decorator declaring a composite op: ``@composite("softplus", functional=["softplus"])``.

    With ``float16_in_float32=True`` it returns ``fn`` wrapped to compute float16 arguments in
    float32 (so the module's name, its methods and its public names are all the wrapped function)."""
    def register(fn):
        if name in _COMPOSITES or name in _REGISTRY:
            raise ValueError(f"op '{name}' is registered twice")
        kwargs.setdefault("module", fn.__module__)
        kwargs.setdefault("doc", (fn.__doc__ or "").strip().split("\n")[0])
        if kwargs.get("float16_in_float32"):
            fn = composite_in_float32(fn)
        _COMPOSITES[name] = CompositeDef(name=name, fn=fn, **kwargs)
        return fn
    return register


def get_op(type):
    """The OpDef of ``type``; KeyError if no such op is registered."""
    try:
        return _REGISTRY[type]
    except KeyError:
        raise KeyError(f"no op named '{type}' is registered") from None


def has_op(type):
    """Whether an op ``type`` is registered."""
    return type in _REGISTRY


def all_ops():
    """A copy of the registry: op type -> OpDef."""
    return dict(_REGISTRY)


def all_composites():
    """A copy of the composite declarations: name -> CompositeDef."""
    return dict(_COMPOSITES)


# -- what the declarations build -------------------------------------------------------------
def _declarations():
    yield from _REGISTRY.values()
    yield from _COMPOSITES.values()


def _resolve(decl, module, fn_name, what):
    mod = sys.modules.get(module)
    fn = getattr(mod, fn_name, None) if mod is not None else None
    if fn is None:
        name = getattr(decl, "type", None) or decl.name
        raise LookupError(f"op '{name}' declares {what} '{fn_name}', but module {module} defines no such function")
    return fn


def _collect(kind):
    out, owner = {}, {}
    for d in _declarations():
        if kind == "api":
            pairs = [(n, n) for n in d.api]
        elif kind == "methods":
            pairs = list(d.methods.items())
        else:
            pairs = [(n, n) for n in d.functional]
        for public, fn_name in pairs:
            if isinstance(d, CompositeDef) and kind != "methods":
                fn = d.fn  # every public name of a composite is the declared function itself
            else:
                module = "runtime.nn.functional" if kind == "functional" else d.module
                fn = _resolve(d, module, fn_name, kind)
            if public in out and out[public] is not fn:
                raise ValueError(f"{kind} name '{public}' is declared by '{owner[public]}' and by "
                                 f"'{getattr(d, 'type', None) or d.name}' with different functions")
            out[public] = fn
            owner[public] = getattr(d, "type", None) or d.name
    return out


def public_functions():
    """{name: function} of ``runtime``'s op functions (``rt.sum``, ``rt.zeros``...)."""
    return _collect("api")


def tensor_methods():
    """{method name: function} of the Tensor/Variable methods backed by ops (``x.sum()``...)."""
    return _collect("methods")


def functional_functions():
    """{name: function} of ``runtime.nn.functional`` names declared by ops and composites."""
    return _collect("functional")


def composite_functions(kind):
    """{name: function} that composites declare for ``kind`` ("api" or "functional")."""
    out = {}
    for c in _COMPOSITES.values():
        for n in (c.api if kind == "api" else c.functional):
            out[n] = c.fn
    return out


def activation_names():
    """The ``runtime.nn.functional`` names that ``static.nn.fc(activation=...)`` accepts."""
    return sorted(n for d in _declarations() if d.activation for n in d.functional)
