"""How a Tensor prints, and ``set_printoptions`` (Paddle's ``paddle.set_printoptions``).

The body is numpy's ``array2string`` of the value; the options change it as Paddle's do::

    >>> rt.set_printoptions(precision=2)
    >>> print(rt.to_tensor([1 / 3, 2 / 3]))
    Tensor(shape=[2], dtype=float64, stop_gradient=True,
           [0.33, 0.67])

An option left at None keeps its current setting; the defaults are numpy's (precision 8, threshold
1000 elements before the middle is elided, 3 edge items, 75 columns) and no forced scientific
notation.  They are process-wide, as Paddle's are, and apply to a ``print`` inside converted code too.
"""
import numpy as np

_DEFAULTS = {"precision": 8, "threshold": 1000, "edgeitems": 3, "linewidth": 75, "sci_mode": False}
_OPTIONS = dict(_DEFAULTS)


def set_printoptions(precision: int | None = None, threshold: int | None = None, edgeitems: int | None = None,
                     sci_mode: bool | None = None, linewidth: int | None = None) -> None:
    """Set how Tensors print: ``precision`` digits after the point, ``threshold`` elements above which
    the middle is elided (``...``), ``edgeitems`` kept at each edge then, ``sci_mode`` True for
    scientific notation always, ``linewidth`` columns per line."""
    given = {"precision": precision, "threshold": threshold, "edgeitems": edgeitems, "linewidth": linewidth}
    for name, value in given.items():
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise TypeError(f"set_printoptions: {name} must be a non-negative int, got {value!r}")
        _OPTIONS[name] = value
    if sci_mode is not None:
        if not isinstance(sci_mode, bool):
            raise TypeError(f"set_printoptions: sci_mode must be a bool, got {sci_mode!r}")
        _OPTIONS["sci_mode"] = sci_mode


def _body(value):
    o = _OPTIONS
    formatter = None
    if o["sci_mode"] and value.dtype.kind in "fc":
        p = o["precision"]
        formatter = {"float_kind": lambda v: f"{v:.{p}e}"}
    return np.array2string(value, separator=", ", prefix="       ", precision=o["precision"],
                           threshold=o["threshold"], edgeitems=o["edgeitems"], max_line_width=o["linewidth"],
                           formatter=formatter)


def format_tensor(value, stop_gradient=True):
    """How a Tensor prints: eagerly, and at run time from a ``print`` inside converted code."""
    value = np.asarray(value)
    return (f"Tensor(shape={list(value.shape)}, dtype={value.dtype}, stop_gradient={bool(stop_gradient)},\n"
            f"       {_body(value)})")
