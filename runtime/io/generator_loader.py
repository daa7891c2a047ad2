"""``DataLoader.from_generator``: Paddle's generator-fed loader (the 2.x API older training scripts
use), run in the calling process. The generator is set with one of

- ``set_sample_generator(reader, batch_size, drop_last=True)``: ``reader()`` yields one sample (a
  tuple/list of fields, or a single field) at a time, batched here;
- ``set_sample_list_generator(reader)``: ``reader()`` yields lists of samples, each one batch;
- ``set_batch_generator(reader)``: ``reader()`` yields batches (a tuple/list of arrays or Tensors).

Iterating (``for data in loader():`` or ``for data in loader:``) gives each batch as a list of
Tensors, one per field; a field is batched as ``np.array`` of its values (Paddle's conversion)."""
import numpy as np

from ..tensor import Tensor
from .batch_reader import batch as sample_batches

__all__ = ["GeneratorLoader"]


def _field_array(values):
    return np.stack([v._value for v in values]) if isinstance(values[0], Tensor) else np.array(values)


def _batch_of(samples):
    first = samples[0]
    if not isinstance(first, (tuple, list)):
        return [Tensor._wrap(_field_array(samples))]
    return [Tensor._wrap(_field_array([s[i] for s in samples])) for i in range(len(first))]


class GeneratorLoader:
    """The loader ``DataLoader.from_generator(...)`` returns (``feed_list``, ``capacity``... are accepted
    for Paddle compatibility: there is no feeding thread or buffer here)."""

    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True, return_list=False,
                 use_multiprocess=False, drop_last=True):
        if not iterable:
            raise NotImplementedError("DataLoader.from_generator(iterable=False) feeds a static Program through "
                                      "its feed_list; iterate the loader (iterable=True) instead")
        self._batches = None

    def set_sample_generator(self, reader, batch_size, drop_last=True, places=None):
        """``reader()`` yields single samples; this loader batches ``batch_size`` of them."""
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"set_sample_generator: batch_size must be a positive int, got {batch_size!r}")

        grouped = sample_batches(reader, batch_size, drop_last)  # paddle.batch's grouping, then the fields batched

        def batches():
            for chunk in grouped():
                yield _batch_of(chunk)
        self._batches = batches
        return self

    def set_sample_list_generator(self, reader, places=None):
        """``reader()`` yields lists of samples, one batch each."""
        self._batches = lambda: (_batch_of(list(samples)) for samples in reader())
        return self

    def set_batch_generator(self, reader, places=None):
        """``reader()`` yields whole batches: a tuple/list of arrays or Tensors (or one of them)."""
        def batches():
            for batch in reader():
                fields = batch if isinstance(batch, (tuple, list)) else [batch]
                yield [f if isinstance(f, Tensor) else Tensor._wrap(np.asarray(f)) for f in fields]
        self._batches = batches
        return self

    def __call__(self):
        return iter(self)

    def _reset(self):
        """Paddle's reset of a loader left in the middle of its batches (its reading thread stopped,
        as training scripts call before a ``break``): here every iteration starts afresh anyway."""

    def __iter__(self):
        if self._batches is None:
            raise RuntimeError("DataLoader.from_generator: set a generator first (set_sample_generator, "
                               "set_sample_list_generator or set_batch_generator)")
        return iter(self._batches())
