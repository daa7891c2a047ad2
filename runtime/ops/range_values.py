"""Float ``arange``/``linspace`` values computed as Paddle's CPU kernels compute them (numpy's own
differ in the last bits): shared by the eager kernels and the run-time linspace in ``creation``."""
import numpy as np


def bounds_in(start, end, step, dtype):
    """arange's bounds as Paddle reads them: each cast to an int dtype first (truncated toward zero,
    so arange(0, 5.5, dtype="int64") has 5 elements, not numpy's 6); a zero step is refused."""
    if np.dtype(dtype).kind in "iub":
        start, end, step = int(start), int(end), int(step)
    if step == 0:
        raise ValueError(f"arange: step must not be 0 (got {step} in dtype {np.dtype(dtype).name})")
    return start, end, step


def arange_len(start, end, step, dtype):
    """How many values arange makes, as Paddle's kernel counts them: ``ceil((end - start) / step)``
    in the dtype's own arithmetic, the bounds cast to it first (float32 arange(0.0, 0.1f, 0.1) has
    one value: 0.1f / 0.1f is 1, where numpy's double division of those bounds gives two)."""
    dt = np.dtype(dtype)
    start, end, step = bounds_in(start, end, step, dt)
    if dt.kind != "f":
        return len(range(start, end, step))
    t = dt.type
    with np.errstate(all="ignore"):
        q = (t(end) - t(start)) / t(step)
    if not np.isfinite(q):
        raise ValueError(f"arange: cannot count the values from {start} to {end} by {step}")
    return max(0, int(np.ceil(q)))


def arange_values(start, end, step, dtype):
    """``arange_len`` values; float values as Paddle's kernel makes them: start, then step added once
    per element in the dtype (arange(0, 1, 0.1)[7] is float32 0.70000005, not 0.7)."""
    dt = np.dtype(dtype)
    n = arange_len(start, end, step, dt)
    start, end, step = bounds_in(start, end, step, dt)
    if dt.kind != "f":
        return np.arange(start, end, step).astype(dt)
    if n == 0:
        return np.zeros(0, dt)
    return np.add.accumulate(np.concatenate([np.asarray([start], dt), np.full(n - 1, step, dt)]))


def linspace_values(start, stop, num, dtype):
    """Paddle's linspace: in a float dtype, the first half counts up from start and the rest down
    from stop by multiples of one step, all in that dtype; other dtypes round numpy's values."""
    dt = np.dtype(dtype)
    if dt.kind != "f" or num < 2:
        return np.linspace(start, stop, num).astype(dt)
    w = np.dtype(np.float64 if dt == np.float64 else np.float32)  # float16 works in float32, rounds once
    s, e = w.type(start), w.type(stop)
    step = (e - s) / w.type(num - 1)
    lo, hi, first = linspace_tables(num, w)
    return np.where(first, s + step * lo, e - step * hi).astype(dt)


def linspace_tables(num, w):
    """Multiples of the step counted from start, from stop, and which of the two each element takes."""
    i = np.arange(num)
    return i.astype(w), (num - 1 - i).astype(w), i < num // 2
