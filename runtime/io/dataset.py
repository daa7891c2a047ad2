"""Datasets: map-style (``__getitem__``/``__len__``) and iterable, as in ``paddle.io``."""
import numpy as np

from ..random import generator as _generator
from ..tensor import Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "random_split"]


class Dataset:
    """Base of map-style datasets: subclasses define ``__getitem__(idx)`` and ``__len__()``."""

    def __getitem__(self, idx):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__(idx)")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__()")


class IterableDataset(Dataset):
    """Base of stream datasets: subclasses define ``__iter__``; they have no length."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__()")

    def __getitem__(self, idx):
        raise TypeError(f"{type(self).__name__} is an IterableDataset: iterate over it instead of indexing")

    def __len__(self):
        raise TypeError(f"{type(self).__name__} is an IterableDataset and has no length")


class TensorDataset(Dataset):
    """Samples are the i-th rows of each tensor (all tensors share their first dim)."""

    def __init__(self, tensors):
        if not isinstance(tensors, (list, tuple)) or not tensors:
            raise TypeError("TensorDataset expects a non-empty list of Tensors")
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise TypeError(f"TensorDataset: item {i} is {type(t).__name__}, not a Tensor")
            if t.ndim == 0 or t.shape[0] != tensors[0].shape[0]:
                raise ValueError(f"TensorDataset: all tensors need the same first dim; tensor 0 has shape "
                                 f"{tensors[0].shape}, tensor {i} has shape {t.shape}")
        self.tensors = list(tensors)

    def __getitem__(self, idx):
        return tuple(Tensor._wrap(np.array(t._value[idx])) for t in self.tensors)  # the item's own copy

    def __len__(self):
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, idx):
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Disjoint random Subsets of the given lengths (they must add up to ``len(dataset)``)."""
    if sum(lengths) != len(dataset):
        raise ValueError(f"random_split: lengths {list(lengths)} add up to {sum(lengths)}, "
                         f"the dataset has {len(dataset)} samples")
    perm = (generator or _generator()).permutation(len(dataset))
    out, start = [], 0
    for n in lengths:
        out.append(Subset(dataset, perm[start:start + n].tolist()))
        start += n
    return out
