"""``DataLoader``: batches of a dataset as Tensors, in the structure of one sample.

A sample that is a tuple/list gives a list of batched Tensors per field, a dict
gives a dict, an ndarray/Tensor/number gives one batched Tensor, strings stay
a list (Paddle's ``default_collate_fn``).  Loading runs in the calling
process; ``num_workers`` is accepted for compatibility.
"""
import numbers
from collections.abc import Mapping, Sequence

import numpy as np

from ..tensor import Tensor
from .dataset import IterableDataset
from .sampler import BatchSampler

__all__ = ["DataLoader", "default_collate_fn"]


def default_collate_fn(batch):
    """Stack a list of samples field by field into numpy arrays (strings stay lists)."""
    sample = batch[0]
    if isinstance(sample, Tensor):
        return np.stack([s._value for s in batch])
    if isinstance(sample, np.ndarray):
        return np.stack(batch)
    if isinstance(sample, (numbers.Number, np.generic)):
        return np.array(batch)
    if isinstance(sample, (str, bytes)):
        return list(batch)
    if isinstance(sample, Mapping):
        return {k: default_collate_fn([s[k] for s in batch]) for k in sample}
    if isinstance(sample, Sequence):
        n = len(sample)
        for s in batch:
            if len(s) != n:
                raise ValueError(f"default_collate_fn: samples have different numbers of fields ({n} and {len(s)})")
        return [default_collate_fn(list(fields)) for fields in zip(*batch)]
    raise TypeError(f"default_collate_fn: cannot batch samples of type {type(sample).__name__}; "
                    "give a collate_fn")


def _to_tensors(data):
    if isinstance(data, np.ndarray):
        return Tensor._wrap(data)
    if isinstance(data, Tensor):
        return data
    if isinstance(data, Mapping):
        return {k: _to_tensors(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)) and data and not isinstance(data[0], (str, bytes)):
        return [_to_tensors(v) for v in data]
    return data


class DataLoader:
    """Iterate over ``dataset`` in batches of Tensors; ``len()`` is the number of batches."""

    def __init__(self, dataset, feed_list=None, places=None, return_list=True, batch_sampler=None, batch_size=1,
                 shuffle=False, drop_last=False, collate_fn=None, num_workers=0, use_buffer_reader=True,
                 prefetch_factor=2, use_shared_memory=True, timeout=0, worker_init_fn=None,
                 persistent_workers=False):
        self.dataset = dataset
        self.collate_fn = collate_fn or default_collate_fn
        self.num_workers = num_workers
        self._iterable = isinstance(dataset, IterableDataset)
        if batch_size is not None and (not isinstance(batch_size, int) or isinstance(batch_size, bool)
                                       or batch_size <= 0):
            raise ValueError(f"DataLoader: batch_size must be a positive int or None, got {batch_size!r}")
        if self._iterable:
            if shuffle or batch_sampler is not None:
                raise ValueError("DataLoader: an IterableDataset cannot be shuffled or given a batch_sampler")
            self.batch_sampler = None
        elif batch_sampler is not None:
            if batch_size != 1 or shuffle or drop_last:
                raise ValueError("DataLoader: batch_sampler excludes batch_size, shuffle and drop_last")
            self.batch_sampler = batch_sampler
        elif batch_size is None:
            self.batch_sampler = None  # samples one by one, not batched
        else:
            self.batch_sampler = BatchSampler(dataset, shuffle=shuffle, batch_size=batch_size, drop_last=drop_last)
        self.batch_size, self.drop_last = batch_size, drop_last

    @staticmethod
    def from_generator(feed_list=None, capacity=None, use_double_buffer=True, iterable=True, return_list=False,
                       use_multiprocess=False, drop_last=True):
        """Paddle's generator-fed loader: see ``generator_loader.GeneratorLoader``."""
        from .generator_loader import GeneratorLoader  # noqa: PLC0415  (it imports nothing from here)
        return GeneratorLoader(feed_list, capacity, use_double_buffer, iterable, return_list, use_multiprocess,
                               drop_last)

    def __len__(self):
        if self._iterable:
            raise TypeError("len() of a DataLoader over an IterableDataset is unknown")
        if self.batch_sampler is None:
            return len(self.dataset)
        return len(self.batch_sampler)

    def __call__(self):
        """``for batch in loader():``, Paddle's older spelling of iterating the loader."""
        return iter(self)

    def __iter__(self):
        if self._iterable:
            yield from self._iter_stream()
        elif self.batch_sampler is None:
            for i in range(len(self.dataset)):
                yield _to_tensors(self.dataset[i])
        else:
            for indices in self.batch_sampler:
                yield _to_tensors(self.collate_fn([self.dataset[i] for i in indices]))

    def _iter_stream(self):
        batch = []
        for sample in self.dataset:
            if self.batch_size is None:
                yield _to_tensors(sample)
                continue
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield _to_tensors(self.collate_fn(batch))
                batch = []
        if batch and not self.drop_last and self.batch_size is not None:
            yield _to_tensors(self.collate_fn(batch))
