"""``Parameter``: a trainable, persistable tensor owned by a Layer (``runtime.tensor`` re-exports it)."""
from .tensor import Tensor
from .trace_state import refuse_flag_change


class Parameter(Tensor):
    """A trainable, persistable tensor owned by a Layer (or an optimizer)."""

    # regularizer: its own weight decay (ParamAttr), replacing the optimizer's; need_clip: False
    # leaves its gradient out of gradient clipping
    __slots__ = ("optimize_attr", "regularizer", "need_clip")

    _counter = {}

    def __init__(self, value, name=None, trainable=True):
        if name is None:
            # a name of its own, as Paddle gives every parameter: optimizers key their state by it, and
            # two unnamed parameters shared one set of moments
            from . import unique_name  # noqa: PLC0415  (it reaches into runtime.nn, which imports this)
            name = unique_name.generate("_eager_param_base")
        super().__init__(value, stop_gradient=not trainable, name=name)
        self.persistable = True
        self.trainable = trainable
        self.optimize_attr = {"learning_rate": 1.0}
        self.regularizer = None
        self.need_clip = True

    # Paddle's Parameter.trainable is `not stop_gradient` (setting either sets both): a plain
    # attribute let `p.trainable = False` leave the parameter training, and converted code reading it
    # kept a stale answer (stop_gradient is what a Program's guards check)
    @property
    def trainable(self):
        """Whether the parameter takes gradients: ``not stop_gradient`` (Paddle's)."""
        return not self.stop_gradient

    @trainable.setter
    def trainable(self, value):
        refuse_flag_change(self, not value, f"trainable = {bool(value)}")
        self.stop_gradient = not value

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def initialize(self):
        """Paddle's lazy initialization (``rt.LazyGuard``): parameters here already hold their values."""

    __str__ = __repr__
