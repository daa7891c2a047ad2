"""Samplers: which indices a DataLoader reads, in which order and in which batches."""
from ..random import generator

__all__ = ["Sampler", "SequenceSampler", "RandomSampler", "BatchSampler"]


def batches(indices, batch_size, drop_last):
    """``indices`` in lists of ``batch_size`` (the last one shorter unless ``drop_last``)."""
    batch = []
    for idx in indices:
        batch.append(idx)
        if len(batch) == batch_size:
            yield batch
            batch = []
    if batch and not drop_last:
        yield batch


class Sampler:
    """Base class: iterates over dataset indices."""

    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError

    def __len__(self):
        return len(self.data_source)


class SequenceSampler(Sampler):
    """0, 1, ..., len - 1."""

    def __iter__(self):
        return iter(range(len(self.data_source)))


class RandomSampler(Sampler):
    """A fresh permutation on every pass, drawn from the generator ``rt.seed`` resets."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        super().__init__(data_source)
        if replacement:
            raise NotImplementedError("RandomSampler(replacement=True) is not supported")
        self.generator = generator

    def __iter__(self):
        gen = self.generator or generator()
        return iter(gen.permutation(len(self.data_source)).tolist())


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler`` (or a sequence/random sampler over ``dataset``)."""

    def __init__(self, dataset=None, sampler=None, shuffle=False, batch_size=1, drop_last=False):
        if (dataset is None) == (sampler is None):
            raise ValueError("BatchSampler needs exactly one of dataset and sampler")
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
        if sampler is None:
            sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        elif shuffle:
            raise ValueError("BatchSampler: shuffle applies only when a dataset is given, not a sampler")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, bool(drop_last)

    def __iter__(self):
        return batches(self.sampler, self.batch_size, self.drop_last)

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
