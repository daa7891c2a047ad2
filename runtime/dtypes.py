"""Dtype names and promotion rules shared by eager and static mode.

A dtype is a ``DType``: a ``str`` subclass, so ``x.dtype == 'float32'`` holds,
and it also compares equal to the matching numpy dtype (``x.dtype == np.float32``).
"""
import numpy as np

_CANONICAL = {
    "float16": "float16", "float32": "float32", "float64": "float64",
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "bool": "bool",
    # numpy's (and so Paddle's) readings of the C names: "float" is float64, as np.dtype("float") is
    "float": "float64", "int": "int64", "double": "float64", "half": "float16", "long": "int64",
    "short": "int16",
}

FLOATS = ("float16", "float32", "float64")
INTS = ("uint8", "int8", "int16", "int32", "int64")


class DType(str):
    """A dtype name that compares equal to its string and its numpy dtype."""

    __slots__ = ()

    def __eq__(self, other):
        if type(other) is DType:  # both canonical already: the common case (``a.dtype == b.dtype``)
            return str.__eq__(self, other)
        try:
            return str.__eq__(self, convert_dtype(other))
        except (TypeError, ValueError):
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = str.__hash__

    def __repr__(self):
        return "rt." + str(self)

    @property
    def np(self):
        """The numpy dtype of this DType."""
        return np.dtype(str(self))


class UnsupportedDType(DType):
    """A Paddle dtype name runtime cannot hold (numpy has no such type, or it is complex): it exists so
    that ported code can name and compare it (``x.dtype == paddle.bfloat16`` is False), and any use
    that makes a value of it raises a TypeError naming the dtypes runtime supports."""

    __slots__ = ()

    def __eq__(self, other):
        return isinstance(other, str) and str.__eq__(self, other.replace("paddle.", "").replace("rt.", ""))

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = str.__hash__

    @property
    def np(self):
        raise unsupported(str(self))


def unsupported(name):
    """The TypeError for a dtype runtime cannot hold."""
    why = "complex dtypes are out of scope" if name.startswith("complex") else "numpy has no such type"
    return TypeError(f"dtype {name!r} is not supported by runtime ({why}); supported dtypes: "
                     f"{', '.join(sorted(_DTYPES))}")


# Paddle 2.x's names runtime knows but cannot hold
bfloat16, complex64, complex128 = (UnsupportedDType(n) for n in ("bfloat16", "complex64", "complex128"))
_UNSUPPORTED = {"bfloat16": bfloat16, "complex64": complex64, "complex128": complex128}

_DTYPES = {name: DType(name) for name in set(_CANONICAL.values())}
float16, float32, float64 = _DTYPES["float16"], _DTYPES["float32"], _DTYPES["float64"]
int8, int16, int32, int64 = _DTYPES["int8"], _DTYPES["int16"], _DTYPES["int32"], _DTYPES["int64"]
uint8, bool_ = _DTYPES["uint8"], _DTYPES["bool"]

# The default float dtype (Paddle's set_default_dtype): what Python floats, float creations without a
# dtype and new parameters get. A one-item list, so that readers index it (no call on hot paths) and
# only runtime.device.set_default_dtype replaces the item.
DEFAULT_FLOAT = [float32]


def default_float():
    """The default float DType (float32 unless ``rt.set_default_dtype`` changed it)."""
    return DEFAULT_FLOAT[0]


# Conversions already made: numpy dtypes and types, and the plain-str spellings (``"bool"`` from an
# infer rule, ``"float"``). numpy's dtype.name is slow and this sits on the eager hot path (x.dtype)
# and on every Variable the static builder makes. A str key is a plain ``str`` only: a subclass
# may compare differently, so it takes the full path.
_NP_CACHE = {}
_STR_CACHE = {}
_STR_CACHE_MAX = 256


def convert_dtype(dtype):
    """Normalise a dtype given as str, numpy dtype, numpy type or DType to a DType."""
    if type(dtype) is DType:
        return dtype
    if type(dtype) is str:
        hit = _STR_CACHE.get(dtype)
        if hit is not None:
            return hit
        result = _convert_dtype(dtype)
        if len(_STR_CACHE) < _STR_CACHE_MAX:  # strings can be anything: keep the table small
            _STR_CACHE[dtype] = result
        return result
    if isinstance(dtype, DType):
        if isinstance(dtype, UnsupportedDType):
            raise unsupported(str(dtype))
        return dtype
    try:
        hit = _NP_CACHE.get(dtype)
    except TypeError:
        hit = None
    if hit is not None:
        return hit
    result = _convert_dtype(dtype)
    if isinstance(dtype, np.dtype) or isinstance(dtype, type):
        _NP_CACHE[dtype] = result
    return result


def _convert_dtype(dtype):
    if isinstance(dtype, str):
        plain = dtype.replace("paddle.", "").replace("rt.", "")
        name = _CANONICAL.get(plain)
        if name is None and plain in _UNSUPPORTED:
            raise unsupported(plain)
        if name is None:
            raise TypeError(f"unknown dtype {dtype!r}; expected one of {sorted(_DTYPES)}")
        return _DTYPES[name]
    if dtype is bool:
        return bool_
    if dtype is float:  # np.dtype(float): Paddle's zeros(dtype=float) / astype(float) are float64
        return float64
    if dtype is int:
        return int64
    try:
        name = np.dtype(dtype).name
    except TypeError:
        raise TypeError(f"unknown dtype {dtype!r}; expected one of {sorted(_DTYPES)}") from None
    if name in _UNSUPPORTED:
        raise unsupported(name)
    if name not in _DTYPES:
        raise TypeError(f"dtype {name!r} is not supported; expected one of {sorted(_DTYPES)}")
    return _DTYPES[name]


def is_float(dtype):
    """Whether ``dtype`` (a DType, numpy dtype or name) is a floating-point dtype."""
    return str(dtype) in FLOATS


def is_int(dtype):
    """Whether ``dtype`` (a DType, numpy dtype or name) is an integer dtype."""
    return str(dtype) in INTS


def promote(a, b):
    """Result dtype of a binary op between two tensors (PyTorch-style category promotion)."""
    a, b = convert_dtype(a), convert_dtype(b)
    if a == b:
        return a
    # A float meeting an int/bool keeps the float's width (float32 + int64 -> float32),
    # unlike numpy, which widens to float64.
    if is_float(a) and not is_float(b):
        return a
    if is_float(b) and not is_float(a):
        return b
    return convert_dtype(np.promote_types(a.np, b.np))


def scalar_dtype(value, tensor_dtype):
    """Dtype a Python scalar takes when it meets a tensor of ``tensor_dtype``.

    The scalar takes the tensor's dtype, except a float meeting an int/bool
    tensor, which gives float32 (as in PyTorch and Paddle 2.x).
    """
    tensor_dtype = convert_dtype(tensor_dtype)
    if isinstance(value, bool):
        return tensor_dtype
    if isinstance(value, float) and not is_float(tensor_dtype):
        return float32
    if isinstance(value, int) and tensor_dtype == bool_:
        return int64
    return tensor_dtype


def default_dtype_of(value, arr=None):
    """Dtype ``to_tensor`` gives Python data: floats the default float dtype, ints int64, bools bool
    (``arr``: ``np.asarray(value)`` when the caller has it already)."""
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        return convert_dtype(value.dtype)
    if arr is None:
        arr = np.asarray(value)
    if arr.dtype == np.bool_:
        return bool_
    if np.issubdtype(arr.dtype, np.integer):
        return int64
    if np.issubdtype(arr.dtype, np.floating):
        return DEFAULT_FLOAT[0]
    # Paddle's wording first, so code that matches Paddle's message keeps working
    raise TypeError(f"Do not support transform type `{type(value)}` to tensor: cannot make a tensor from "
                    f"{type(value).__name__} data (numpy dtype {arr.dtype})")

