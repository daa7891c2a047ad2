"""``rt.io``: datasets and batching (Paddle's ``paddle.io``).

    ds = rt.io.TensorDataset([x, y])
    for xb, yb in rt.io.DataLoader(ds, batch_size=32, shuffle=True, drop_last=True):
        ...
"""
from .dataloader import DataLoader, default_collate_fn
from .dataset import Dataset, IterableDataset, Subset, TensorDataset, random_split
from .sampler import BatchSampler, RandomSampler, Sampler, SequenceSampler
from .dataset_extra import (ChainDataset, ComposeDataset, ConcatDataset, DistributedBatchSampler, SubsetRandomSampler,
                            WeightedRandomSampler, get_worker_info)

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "random_split", "DataLoader",
           "default_collate_fn", "Sampler", "SequenceSampler", "RandomSampler", "BatchSampler", "ConcatDataset",
           "ComposeDataset", "ChainDataset", "SubsetRandomSampler", "WeightedRandomSampler", "get_worker_info",
           "DistributedBatchSampler"]
