"""Paddle's padding layers by mode and rank (nn.ConstantPad1D/2D/3D, ReflectionPad*, ReplicationPad*,
CircularPad*, ZeroPad1D/3D): each calls ``F.pad``, so eager, converted and exported code share its ops.
They hold no parameters (an empty state_dict, as Paddle's)."""
from collections.abc import Sequence

from ..hints import TensorLike
from . import functional as F
from .layer import Layer

_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


class _PadND(Layer):
    """``F.pad(x, padding, mode, value, data_format)`` for an input of rank ``_nd + 2``."""

    _nd = 0
    _mode = "constant"

    def __init__(self, padding: int | Sequence[int], value: float = 0.0, data_format: str | None = None,
                 name: str | None = None) -> None:
        super().__init__()
        nd, kind = self._nd, type(self).__name__
        n = 2 * nd
        if isinstance(padding, int):
            padding = [padding] * n
        elif hasattr(padding, "numpy"):  # a Tensor of amounts, as Paddle takes
            padding = [int(v) for v in padding.numpy().reshape(-1)]
        else:
            padding = [int(v) for v in padding]
        if len(padding) != n:
            raise ValueError(f"{kind}: padding must be an int or {n} ints, got {padding}")
        data_format = data_format or _FORMATS[nd][0]
        if data_format not in _FORMATS[nd]:
            raise ValueError(f"{kind}: data_format must be one of {list(_FORMATS[nd])}, got {data_format!r}")
        self._pad, self._value, self._data_format = padding, float(value), data_format

    def forward(self, x: TensorLike) -> TensorLike:
        if x.ndim != self._nd + 2:
            raise ValueError(f"{type(self).__name__} expects a {self._nd + 2}-D input ({self._data_format}), "
                             f"got shape {list(x.shape)}")
        return F.pad(x, self._pad, mode=self._mode, value=self._value, data_format=self._data_format)

    def extra_repr(self):
        return f"padding={self._pad}, mode={self._mode}, value={self._value}, data_format={self._data_format}"


def _constant(nd, fmt):
    class ConstantPad(_PadND):
        _nd = nd

        def __init__(self, padding: int | Sequence[int], value: float, data_format: str = fmt,
                     name: str | None = None) -> None:
            super().__init__(padding, value, data_format)
    return ConstantPad


def _moded(nd, fmt, mode):
    class Moded(_PadND):
        _nd, _mode = nd, mode

        def __init__(self, padding: int | Sequence[int], data_format: str = fmt, name: str | None = None) -> None:
            super().__init__(padding, 0.0, data_format)
    return Moded


def _named(cls, name, doc):
    cls.__name__ = cls.__qualname__ = name
    cls.__doc__ = doc
    return cls


_DOC = {"constant": "``value``", "reflect": "the mirror image of the input (edge not repeated)",
        "replicate": "copies of the edge", "circular": "the input wrapped around"}
_SIDES = {1: "[left, right]", 2: "[left, right, top, bottom]", 3: "[left, right, top, bottom, front, back]"}


def _doc(nd, mode):
    return (f"Pads the {nd} spatial dim(s) of an {_FORMATS[nd][0]} (or {_FORMATS[nd][1]}) input with "
            f"{_DOC[mode]}; ``padding`` is an int or {_SIDES[nd]}.")


ConstantPad1D = _named(_constant(1, "NCL"), "ConstantPad1D", _doc(1, "constant"))
ConstantPad2D = _named(_constant(2, "NCHW"), "ConstantPad2D", _doc(2, "constant"))
ConstantPad3D = _named(_constant(3, "NCDHW"), "ConstantPad3D", _doc(3, "constant"))
ZeroPad1D = _named(_moded(1, "NCL", "constant"), "ZeroPad1D", _doc(1, "constant").replace("``value``", "zeros"))
ZeroPad3D = _named(_moded(3, "NCDHW", "constant"), "ZeroPad3D", _doc(3, "constant").replace("``value``", "zeros"))
ReflectionPad1D = _named(_moded(1, "NCL", "reflect"), "ReflectionPad1D", _doc(1, "reflect"))
ReflectionPad2D = _named(_moded(2, "NCHW", "reflect"), "ReflectionPad2D", _doc(2, "reflect"))
ReflectionPad3D = _named(_moded(3, "NCDHW", "reflect"), "ReflectionPad3D", _doc(3, "reflect"))
ReplicationPad1D = _named(_moded(1, "NCL", "replicate"), "ReplicationPad1D", _doc(1, "replicate"))
ReplicationPad2D = _named(_moded(2, "NCHW", "replicate"), "ReplicationPad2D", _doc(2, "replicate"))
ReplicationPad3D = _named(_moded(3, "NCDHW", "replicate"), "ReplicationPad3D", _doc(3, "replicate"))
CircularPad1D = _named(_moded(1, "NCL", "circular"), "CircularPad1D", _doc(1, "circular"))
CircularPad2D = _named(_moded(2, "NCHW", "circular"), "CircularPad2D", _doc(2, "circular"))
CircularPad3D = _named(_moded(3, "NCDHW", "circular"), "CircularPad3D", _doc(3, "circular"))

__all__ = ["ConstantPad1D", "ConstantPad2D", "ConstantPad3D", "ZeroPad1D", "ZeroPad3D", "ReflectionPad1D",
           "ReflectionPad2D", "ReflectionPad3D", "ReplicationPad1D", "ReplicationPad2D", "ReplicationPad3D",
           "CircularPad1D", "CircularPad2D", "CircularPad3D"]
