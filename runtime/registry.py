"""The one op registry: every op is declared once, here, and read by everything else.

An ``OpDef`` carries the numpy kernel, the shape/dtype inference (``-1`` for an
unknown dim) and the gradient rule.  Eager mode calls the kernel, the static
builder calls ``infer``, the executor binds kernels into a plan, ``backward``
and ``append_backward`` call ``grad``, the printer reads the slot names.

Declaring an op::

    def_op("relu", inputs=["X"], outputs=["Out"],
           kernel=lambda x: np.maximum(x, 0),
           infer=same_as_input,
           grad=lambda ctx: [relu_grad(ctx.outputs[0], ctx.out_grads[0])])

Slot names ending in ``*`` are variadic: the kernel gets (or returns) a list
there.  ``grad(ctx)`` builds input gradients with other registered ops (so it
works on eager Tensors and on static Variables alike) and returns one entry per
input slot (``None`` where no gradient flows).
"""
from dataclasses import dataclass, field
from typing import Callable, Optional


@dataclass
class Meta:
    """Static shape and dtype of a value (``-1`` marks an unknown dim)."""

    shape: tuple
    dtype: str

    def __post_init__(self):
        self.shape = tuple(int(d) for d in self.shape)


@dataclass
class OpDef:
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
    # A kernel with side effects or randomness must never be constant-folded.
    pure: bool = True
    doc: str = ""

    def slot(self, name):
        return name.rstrip("*")

    @property
    def input_slots(self):
        return [self.slot(n) for n in self.inputs]

    @property
    def output_slots(self):
        return [self.slot(n) for n in self.outputs]

    def is_variadic_input(self, i):
        return self.inputs[i].endswith("*")

    def is_variadic_output(self, i):
        return self.outputs[i].endswith("*")

    def full_attrs(self, attrs):
        unknown = set(attrs) - set(self.attrs)
        if unknown:
            raise TypeError(f"op '{self.type}' got unknown attributes {sorted(unknown)}; "
                            f"it takes {sorted(self.attrs)}")
        merged = dict(self.attrs)
        merged.update(attrs)
        return merged


class GradContext:
    """What a gradient rule sees: forward inputs, outputs, output grads, attrs."""

    __slots__ = ("inputs", "outputs", "out_grads", "attrs", "op")

    def __init__(self, inputs, outputs, out_grads, attrs, op=None):
        self.inputs = inputs
        self.outputs = outputs
        self.out_grads = out_grads
        self.attrs = attrs
        self.op = op


_REGISTRY = {}


def def_op(type, inputs, outputs, **kwargs):
    if type in _REGISTRY:
        raise ValueError(f"op '{type}' is registered twice")
    op = OpDef(type=type, inputs=list(inputs), outputs=list(outputs), **kwargs)
    _REGISTRY[type] = op
    return op


def get_op(type):
    try:
        return _REGISTRY[type]
    except KeyError:
        raise KeyError(f"no op named '{type}' is registered") from None


def has_op(type):
    return type in _REGISTRY


def all_ops():
    return dict(_REGISTRY)
