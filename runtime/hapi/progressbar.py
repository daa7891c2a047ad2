"""The progress line ``ProgBarLogger`` prints (Paddle's ``hapi.progressbar``)."""
import sys
import time

import numpy as np

__all__ = ["ProgressBar"]


def _format_values(values):
    out = ""
    for k, val in values:
        out += f" - {k}:"
        for v in (val if isinstance(val, list) else [val]):
            if isinstance(v, np.ndarray) and v.size == 1 and v.dtype in (np.float32, np.float64):
                v = v.item()
            if isinstance(v, (float, np.floating)):
                out += f" {v:.4f}" if abs(v) > 1e-3 else f" {v:.4e}"
            else:
                out += f" {v}"
    return out


class ProgressBar:
    """Paddle's progress line: ``step 3/6 - loss: 0.9512 - acc: 0.6250 - 2ms/step`` (verbose 2), or a bar redrawn
    in place (verbose 1)."""

    def __init__(self, num=None, width=30, verbose=1, name="step"):
        if isinstance(num, int) and num <= 0:
            raise TypeError("num should be None or integer (> 0)")
        self._num, self._width, self._verbose, self.name = num, width, verbose, name
        self._start, self._total_width = time.time(), 0

    def _count(self, current):
        if self._num is None:
            return f"{self.name} {current:3}"
        return f"{self.name} {current:{int(np.log10(self._num)) + 1}d}/{self._num}"

    def update(self, current, values=()):
        """Show step ``current`` with ``values`` (``(name, value)`` pairs)."""
        per = (time.time() - self._start) / current if current else 0
        fps = (f" - {per:.0f}s/{self.name}" if per >= 1 or per == 0 else
               f" - {per * 1e3:.0f}ms/{self.name}" if per >= 1e-3 else f" - {per * 1e6:.0f}us/{self.name}")
        if self._verbose in (2, 3):
            sys.stdout.write(self._count(current) + _format_values(values) + fps + "\n")
        elif self._verbose == 1:
            line = self._count(current)
            if self._num is not None:
                done = int(self._width * current / self._num)
                bar = ("=" * (done - 1) + (">" if current < self._num else "=")) if done > 0 else ""
                line += " [" + bar + "." * (self._width - done) + "]"
            line += _format_values(values)
            if self._num is not None and current < self._num:
                line += f" - ETA: {int(per * (self._num - current))}s"
            line += fps
            pad = " " * max(0, self._total_width - len(line))
            self._total_width = len(line)
            end = "\n" if self._num is None or current >= self._num else ""
            sys.stdout.write("\r" + line + pad + end)
        sys.stdout.flush()
