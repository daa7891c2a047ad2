"""Single-step recurrent cells (Paddle's SimpleRNNCell, LSTMCell and GRUCell, same gate order and init).

Weights: ``weight_ih [G * hidden, input]``, ``weight_hh [G * hidden, hidden]``,
two biases, all Uniform(-1/sqrt(hidden), 1/sqrt(hidden)).  Zero initial states
are built from the input's projection scaled by 0, so they take the batch size
of the input even when it is unknown (-1) in a static Program.
"""
import math

from ..dispatch import apply
from ..ops.math import add, matmul, multiply, scale, subtract
from . import functional as F
from .initializer import Uniform
from .layer import Layer
from .param_attr import ParamAttr


class RNNCellBase(Layer):
    """Paddle's base of recurrent cells: a user's cell (``forward(inputs, states) -> (out, new_states)``)
    declares ``state_shape`` (one shape without the batch dim, or a tuple of them) and ``nn.RNN`` /
    ``get_initial_states`` make zero states for it."""

    @property
    def state_shape(self):
        """The state's shape without the batch dim (a tuple of shapes for several states): a cell defines it."""
        raise NotImplementedError(f"{type(self).__name__} must define the state_shape property (the shape of "
                                  "its state without the batch dim, or a tuple of such shapes)")

    @property
    def state_dtype(self):
        """The states' dtype (float32 unless the cell says otherwise)."""
        return "float32"

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0, batch_dim_idx=0):
        """States filled with ``init_value`` for ``batch_ref``'s batch (its dim ``batch_dim_idx``, also
        one known only when a Program runs), in the structure of ``shape`` (``state_shape``)."""
        from ..ops.creation import full  # noqa: PLC0415
        from ..ops.shape import shape as shape_of  # noqa: PLC0415
        b = batch_ref.shape[batch_dim_idx]
        b = b if b >= 0 else shape_of(batch_ref)[batch_dim_idx]
        shape = self.state_shape if shape is None else shape
        dtype = self.state_dtype if dtype is None else dtype
        if isinstance(shape[0], (list, tuple)):
            return tuple(full([b] + list(s), init_value, dtype) for s in shape)
        return full([b] + list(shape), init_value, dtype)


class _RNNCellBase(RNNCellBase):
    _gates = 1

    def __init__(self, input_size: int, hidden_size: int, weight_ih_attr: ParamAttr | bool | None = None,
                 weight_hh_attr: ParamAttr | bool | None = None, bias_ih_attr: ParamAttr | bool | None = None,
                 bias_hh_attr: ParamAttr | bool | None = None, name: str | None = None) -> None:
        super().__init__()
        self.input_size, self.hidden_size = int(input_size), int(hidden_size)
        init = Uniform(-1.0 / math.sqrt(hidden_size), 1.0 / math.sqrt(hidden_size))
        g = self._gates * self.hidden_size
        self.weight_ih = self.create_parameter([g, self.input_size], weight_ih_attr, default_initializer=init)
        self.weight_hh = self.create_parameter([g, self.hidden_size], weight_hh_attr, default_initializer=init)
        self.bias_ih = self.create_parameter([g], bias_ih_attr, is_bias=True, default_initializer=init)
        self.bias_hh = self.create_parameter([g], bias_hh_attr, is_bias=True, default_initializer=init)

    def _proj(self, x, w, b):
        out = matmul(x, w, transpose_y=True)
        return out if b is None else add(out, b)

    def _split(self, t):
        return apply("split", t, num=self._gates, axis=-1)

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}"


def _refuse_proj_size(proj_size):
    """Paddle's projected LSTM (a weight_ho after each step) is not implemented: refused, not ignored."""
    if proj_size:
        raise NotImplementedError(f"LSTM proj_size={proj_size!r} is not supported by runtime (only 0)")


class LSTMCell(_RNNCellBase):
    """``forward(inputs, states=None)`` -> ``(h, (h, c))``; gates i, f, g, o."""

    _gates = 4

    def __init__(self, input_size: int, hidden_size: int, weight_ih_attr: ParamAttr | bool | None = None,
                 weight_hh_attr: ParamAttr | bool | None = None, bias_ih_attr: ParamAttr | bool | None = None,
                 bias_hh_attr: ParamAttr | bool | None = None, proj_size: int = 0, name: str | None = None) -> None:
        _refuse_proj_size(proj_size)
        super().__init__(input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)

    def forward(self, inputs, states=None):
        xg = self._proj(inputs, self.weight_ih, self.bias_ih)
        if states is None:
            zero = scale(self._split(xg)[0], 0.0)
            states = (zero, zero)
        h, c = states
        i, f, cand, o = self._split(add(xg, self._proj(h, self.weight_hh, self.bias_hh)))
        c = add(multiply(F.sigmoid(f), c), multiply(F.sigmoid(i), F.tanh(cand)))
        h = multiply(F.sigmoid(o), F.tanh(c))
        return h, (h, c)

    @property
    def state_shape(self):
        """The shapes of one sample's ``(h, c)`` states."""
        return ((self.hidden_size,), (self.hidden_size,))


class GRUCell(_RNNCellBase):
    """``forward(inputs, states=None)`` -> ``(h, h)``; gates r, z, c as in Paddle."""

    _gates = 3

    def forward(self, inputs, states=None):
        xg = self._proj(inputs, self.weight_ih, self.bias_ih)
        x_r, x_z, x_c = self._split(xg)
        h = scale(x_r, 0.0) if states is None else states
        h_r, h_z, h_c = self._split(self._proj(h, self.weight_hh, self.bias_hh))
        r = F.sigmoid(add(x_r, h_r))
        z = F.sigmoid(add(x_z, h_z))
        cand = F.tanh(add(x_c, multiply(r, h_c)))
        h = add(multiply(subtract(h, cand), z), cand)
        return h, h

    @property
    def state_shape(self):
        """The shape of one sample's hidden state."""
        return (self.hidden_size,)


class SimpleRNNCell(_RNNCellBase):
    """``forward(inputs, states=None)`` -> ``(h, h)`` with ``h = act(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""

    _gates = 1

    def __init__(self, input_size: int, hidden_size: int, activation: str = "tanh",
                 weight_ih_attr: ParamAttr | bool | None = None, weight_hh_attr: ParamAttr | bool | None = None,
                 bias_ih_attr: ParamAttr | bool | None = None, bias_hh_attr: ParamAttr | bool | None = None,
                 name: str | None = None) -> None:
        if activation not in ("tanh", "relu"):
            raise ValueError(f"SimpleRNNCell activation must be 'tanh' or 'relu', got {activation!r}")
        super().__init__(input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
        self.activation = activation

    def forward(self, inputs, states=None):
        xg = self._proj(inputs, self.weight_ih, self.bias_ih)
        h = scale(xg, 0.0) if states is None else states
        pre = add(xg, self._proj(h, self.weight_hh, self.bias_hh))
        h = F.tanh(pre) if self.activation == "tanh" else F.relu(pre)
        return h, h

    @property
    def state_shape(self):
        """The shape of one sample's hidden state."""
        return (self.hidden_size,)
