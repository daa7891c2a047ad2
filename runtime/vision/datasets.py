"""MNIST and Fashion-MNIST read from their IDX files (gzipped or not), as Paddle's datasets give them.

Each item is ``(image, label)``: the image a 28x28 PIL Image (backend ``'pil'``) or a float32
28x28 array of 0..255 (``'cv2'``) before ``transform``, the label an int64 array of shape [1].
"""
import gzip
import os

import numpy as np

from ..device import get_default_dtype
from ..io import Dataset
from .image import get_image_backend, pil_image

DATA_HOME = os.path.expanduser(os.path.join("~", ".cache", "paddle", "dataset"))
_IMAGE_MAGIC, _LABEL_MAGIC = 2051, 2049


def _read_idx(path, magic, what):
    try:
        with open(path, "rb") as f:
            data = f.read()
        if data[:2] == b"\x1f\x8b":  # gzip's magic (Paddle's cached files), whatever the name says
            data = gzip.decompress(data)
    except OSError as e:
        raise ValueError(f"{what}: cannot read {path}: {e}") from None
    ndim = 3 if magic == _IMAGE_MAGIC else 1
    header = 4 + 4 * ndim
    if len(data) < header or int.from_bytes(data[:4], "big") != magic:
        raise ValueError(f"{what}: {path} is not an IDX file of {'images' if ndim == 3 else 'labels'} "
                         f"(expected magic number {magic})")
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    count = int(np.prod(dims))
    if len(data) - header != count:
        raise ValueError(f"{what}: {path} holds {len(data) - header} bytes of data, its header says {count}")
    return np.frombuffer(data, np.uint8, offset=header).reshape(dims)


class MNIST(Dataset):
    """``paddle.vision.datasets.MNIST``: the 60000 training or 10000 test digits.

    ``image_path``/``label_path``: the IDX files; None reads ``<DATA_HOME>/mnist/`` (Paddle's cache:
    ``train-images-idx3-ubyte.gz`` and so on).  ``download=True`` never downloads here: missing files
    raise FileNotFoundError saying where to put them.
    """

    NAME = "mnist"
    FILES = {"train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
             "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}

    def __init__(self, image_path=None, label_path=None, mode="train", transform=None, download=True,
                 backend=None):
        mode = str(mode).lower()
        if mode not in self.FILES:
            raise ValueError(f"{type(self).__name__}: mode must be 'train' or 'test', got {mode!r}")
        backend = backend or get_image_backend()
        if backend not in ("pil", "cv2"):
            raise ValueError(f"{type(self).__name__}: backend must be 'pil' or 'cv2', got {backend!r}")
        self.mode, self.backend, self.transform = mode, backend, transform
        self.image_path = image_path or self._cached(self.FILES[mode][0], download)
        self.label_path = label_path or self._cached(self.FILES[mode][1], download)
        images = _read_idx(self.image_path, _IMAGE_MAGIC, type(self).__name__)
        labels = _read_idx(self.label_path, _LABEL_MAGIC, type(self).__name__)
        if len(images) != len(labels):
            raise ValueError(f"{type(self).__name__}: {len(images)} images but {len(labels)} labels "
                             f"({self.image_path}, {self.label_path})")
        self.images = images.reshape(len(images), -1).astype("float32")
        self.labels = labels.astype("int64").reshape(-1, 1)
        self.dtype = get_default_dtype()

    def _cached(self, name, download):
        path = os.path.join(DATA_HOME, self.NAME, name)
        if os.path.exists(path):
            return path
        why = ("datasets are not downloaded by this runtime" if download
               else "download=False and no path was given")
        raise FileNotFoundError(f"{type(self).__name__}: {path} not found ({why}): put the IDX files "
                                f"{', '.join(sum(self.FILES.values(), ()))} in {os.path.dirname(path)} "
                                "(Paddle's cache folder), or pass image_path= and label_path=")

    def __getitem__(self, idx):
        image, label = self.images[idx].reshape(28, 28), self.labels[idx]
        if self.backend == "pil":
            image = pil_image().fromarray(image.astype("uint8"), mode="L")
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label.copy()
        return image.astype(self.dtype), label.copy()

    def __len__(self):
        return len(self.labels)


class FashionMNIST(MNIST):
    """``paddle.vision.datasets.FashionMNIST``: the same files and layout under ``<DATA_HOME>/fashion-mnist/``."""

    NAME = "fashion-mnist"
