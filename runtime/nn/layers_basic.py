"""Basic layers: Linear, Embedding, Dropout, Flatten and the activation layers."""
from ..dtypes import DEFAULT_FLOAT
from . import functional as F
from .initializer import XavierUniform
from .layer import Layer
from collections.abc import Sequence
from .param_attr import ParamAttr


class Linear(Layer):
    """``y = x @ weight + bias``; weight is ``[in_features, out_features]`` (Paddle layout)."""

    def __init__(self, in_features: int, out_features: int, weight_attr: ParamAttr | bool | None = None,
                 bias_attr: ParamAttr | bool | None = None, name: str | None = None) -> None:
        super().__init__(dtype=DEFAULT_FLOAT[0])  # the dtype extra_repr shows, as Paddle's
        self.in_features, self.out_features = int(in_features), int(out_features)
        self.weight = self.create_parameter([self.in_features, self.out_features], attr=weight_attr,
                                            default_initializer=XavierUniform())
        self.bias = self.create_parameter([self.out_features], attr=bias_attr, is_bias=True)

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, dtype={self._dtype}"


class Embedding(Layer):
    """A lookup table of ``num_embeddings`` vectors of size ``embedding_dim``; ``padding_idx`` rows stay zero."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None, sparse: bool = False,
                 weight_attr: ParamAttr | bool | None = None, name: str | None = None, *,
                 max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False) -> None:
        # Paddle 3 inserts max_norm/norm_type before sparse; Paddle 2.x's positional order is kept
        F._refuse_embedding_renorm(max_norm, scale_grad_by_freq)
        super().__init__()
        self._num_embeddings, self._embedding_dim = int(num_embeddings), int(embedding_dim)
        if padding_idx is not None:
            padding_idx = int(padding_idx)
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"Embedding: padding_idx {padding_idx} out of range [-{num_embeddings}, "
                                 f"{num_embeddings})")
            padding_idx %= num_embeddings
        self._padding_idx = padding_idx
        self.weight = self.create_parameter([self._num_embeddings, self._embedding_dim], attr=weight_attr,
                                            default_initializer=XavierUniform())
        if padding_idx is not None:
            self.weight._value[padding_idx] = 0

    def forward(self, x):
        return F.embedding(x, self.weight, padding_idx=self._padding_idx)

    def extra_repr(self):
        return f"{self._num_embeddings}, {self._embedding_dim}"


class Dropout(Layer):
    """Drops with probability ``p`` in training mode (read at call time); identity in eval mode."""

    def __init__(self, p: float = 0.5, axis: int | Sequence[int] | None = None, mode: str = "upscale_in_train",
                 name: str | None = None, *, inplace: bool = False) -> None:
        F._refuse_inplace_dropout(inplace)  # Paddle 3 has it second; Paddle 2.x's order is kept
        super().__init__()
        if not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise ValueError(f"Dropout: p must be a number in [0, 1], got {p!r}")
        self.p, self.axis, self.mode = p, axis, mode

    def forward(self, x):
        return F.dropout(x, p=self.p, axis=self.axis, training=self.training, mode=self.mode)

    def extra_repr(self):
        return f"p={self.p}, axis={self.axis}, mode={self.mode}"


class Flatten(Layer):
    """Merge dims ``start_axis``..``stop_axis`` (all but the batch dim by default)."""

    def __init__(self, start_axis: int = 1, stop_axis: int = -1) -> None:
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, x):
        return F.flatten(x, self.start_axis, self.stop_axis)


class Identity(Layer):
    """Return the input unchanged; constructor arguments are ignored."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, x):
        return x


class ReLU(Layer):
    """``max(x, 0)``."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__()

    def forward(self, x):
        return F.relu(x)


class Sigmoid(Layer):
    """``1 / (1 + exp(-x))``."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__()

    def forward(self, x):
        return F.sigmoid(x)


class Tanh(Layer):
    """Hyperbolic tangent."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__()

    def forward(self, x):
        return F.tanh(x)


class GELU(Layer):
    """GELU activation, exact or with the tanh approximation when ``approximate``."""

    def __init__(self, approximate: bool = False, name: str | None = None) -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x):
        return F.gelu(x, approximate=self.approximate)


class Softmax(Layer):
    """Softmax over ``axis``."""

    def __init__(self, axis: int = -1, name: str | None = None) -> None:
        super().__init__()
        self.axis = axis

    def forward(self, x):
        return F.softmax(x, axis=self.axis)


class LogSoftmax(Layer):
    """Log-softmax over ``axis``."""

    def __init__(self, axis: int = -1, name: str | None = None) -> None:
        super().__init__()
        self.axis = axis

    def forward(self, x):
        return F.log_softmax(x, axis=self.axis)
