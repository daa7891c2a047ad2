"""More of ``paddle.io``: ``ConcatDataset``, ``ComposeDataset``, ``ChainDataset``, ``SubsetRandomSampler``,
``WeightedRandomSampler`` and ``get_worker_info`` (None: loading runs in the calling process)."""
import bisect

import numpy as np

from ..random import generator
from .dataset import Dataset, IterableDataset
from .sampler import Sampler, batches


class ConcatDataset(Dataset):
    """The datasets one after another: item ``i`` of the whole is item ``i - offset`` of the one it falls in."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: datasets should not be an empty iterable")
        if any(isinstance(d, IterableDataset) for d in self.datasets):
            raise TypeError("ConcatDataset does not support IterableDataset (use ChainDataset)")
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]).tolist())

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise IndexError(f"index {idx} is out of range for a dataset of length {len(self)}")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        if which == len(self.datasets):
            raise IndexError(f"index {idx} is out of range for a dataset of length {len(self)}")
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


class ComposeDataset(Dataset):
    """Datasets of equal length side by side: item ``i`` is the fields of every dataset's item ``i``, in one tuple."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ComposeDataset: datasets should not be empty")
        if any(isinstance(d, IterableDataset) for d in self.datasets):
            raise TypeError("ComposeDataset does not support IterableDataset")
        if len({len(d) for d in self.datasets}) != 1:
            raise ValueError("ComposeDataset: the datasets must all have the same length")

    def __len__(self):
        return len(self.datasets[0])

    def __getitem__(self, idx):
        out = []
        for d in self.datasets:
            item = d[idx]
            out.extend(item if isinstance(item, (list, tuple)) else [item])
        return tuple(out)


class ChainDataset(IterableDataset):
    """Iterable datasets one after another."""

    def __init__(self, datasets):
        self.datasets = list(datasets)

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise TypeError("ChainDataset only chains IterableDataset")
            yield from d


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in a fresh random order on every pass."""

    def __init__(self, indices):
        if len(indices) == 0:
            raise ValueError("SubsetRandomSampler: indices is empty")
        self.indices = list(indices)

    def __iter__(self):
        return iter([self.indices[i] for i in generator().permutation(len(self.indices)).tolist()])

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``."""

    def __init__(self, weights, num_samples, replacement=True):
        w = np.asarray(weights.numpy() if hasattr(weights, "numpy") else weights, np.float64).reshape(-1)
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer, got {num_samples!r}")
        if (w < 0).any() or w.sum() <= 0:
            raise ValueError("weights should be non-negative and not all zero")
        if not replacement and num_samples > int((w > 0).sum()):
            raise ValueError("num_samples should not exceed the number of positive weights without replacement")
        self.weights, self.num_samples, self.replacement = w, num_samples, bool(replacement)

    def __iter__(self):
        p = self.weights / self.weights.sum()
        return iter(generator().choice(len(p), self.num_samples, replace=self.replacement, p=p).tolist())

    def __len__(self):
        return self.num_samples


def get_worker_info():
    """None: the DataLoader reads in the calling process (there are no worker processes)."""
    return None


class DistributedBatchSampler(Sampler):
    """Paddle's ``DistributedBatchSampler`` for one process (``num_replicas`` 1, the only world here):
    batches of ``batch_size`` indices, shuffled with ``np.random.RandomState(epoch)`` as Paddle does, so
    epoch ``k`` visits the same order as Paddle's; ``set_epoch(k)`` picks it."""

    def __init__(self, dataset, batch_size, num_replicas=None, rank=None, shuffle=False, drop_last=False):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer")
        if num_replicas not in (None, 1) or rank not in (None, 0):
            raise NotImplementedError("DistributedBatchSampler: only one process (num_replicas=1, rank=0) runs here")
        self.dataset, self.batch_size, self.shuffle, self.drop_last = dataset, batch_size, bool(shuffle), bool(drop_last)
        self.nranks, self.local_rank, self.epoch = 1, 0, 0
        self.num_samples = self.total_size = len(dataset)

    def __iter__(self):
        indices = np.arange(len(self.dataset)).tolist()
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        yield from batches(indices, self.batch_size, self.drop_last)

    def __len__(self):
        n = self.num_samples
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size

    def set_epoch(self, epoch):
        """The epoch whose shuffle order the next pass uses."""
        self.epoch = epoch
