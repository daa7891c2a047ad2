"""``paddle.vision.transforms``: the per-image transforms ported data pipelines use most.

Images are PIL Images or HWC numpy arrays (the ``'cv2'`` backend); ``ToTensor`` turns either into a
CHW float32 Tensor (uint8 scaled to [0, 1], other dtypes kept as they are, as Paddle does).
"""
import numpy as np

from ..ops.creation import to_tensor as _to_tensor
from ..tensor import Tensor


def _array(img):
    """An HWC (or HW) numpy array of a PIL Image or an array."""
    return img if isinstance(img, np.ndarray) else np.asarray(img)


class Compose:
    """Apply ``transforms`` in order."""

    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, data):
        for t in self.transforms:
            data = t(data)
        return data


class ToTensor:
    """HWC image (PIL or array) -> CHW (``data_format='CHW'``) or HWC float Tensor; uint8 / 255."""

    def __init__(self, data_format="CHW", keys=None):
        if data_format not in ("CHW", "HWC"):
            raise ValueError(f"ToTensor: data_format must be 'CHW' or 'HWC', got {data_format!r}")
        self.data_format = data_format

    def __call__(self, img):
        a = _array(img)
        if a.ndim == 2:
            a = a[:, :, None]
        if a.ndim != 3:
            raise ValueError(f"ToTensor: expected an HW or HWC image, got shape {list(a.shape)}")
        if self.data_format == "CHW":
            a = a.transpose(2, 0, 1)
        a = a.astype("float32") / np.float32(255) if a.dtype == np.uint8 else np.ascontiguousarray(a)
        return _to_tensor(a)


class Normalize:
    """``(img - mean) / std`` per channel; channels first (``'CHW'``) or last (``'HWC'``)."""

    def __init__(self, mean=0.0, std=1.0, data_format="CHW", to_rgb=False, keys=None):
        if data_format not in ("CHW", "HWC"):
            raise ValueError(f"Normalize: data_format must be 'CHW' or 'HWC', got {data_format!r}")
        self.mean = np.atleast_1d(np.asarray(mean, "float32"))
        self.std = np.atleast_1d(np.asarray(std, "float32"))
        self.data_format, self.to_rgb = data_format, to_rgb

    def __call__(self, img):
        chw = self.data_format == "CHW"
        shape = (-1, 1, 1) if chw else (1, 1, -1)
        mean, std = self.mean.reshape(shape), self.std.reshape(shape)
        if isinstance(img, Tensor):
            if self.to_rgb:
                img = img.flip([0 if chw else -1])
            return (img - _to_tensor(mean)) / _to_tensor(std)
        a = _array(img).astype("float32")
        if self.to_rgb:
            a = a[::-1] if chw else a[..., ::-1]
        return (a - mean) / std


class Transpose:
    """HWC array -> ``order`` (CHW by default); an HW array gets a channel axis first."""

    def __init__(self, order=(2, 0, 1), keys=None):
        self.order = tuple(order)

    def __call__(self, img):
        if isinstance(img, Tensor):
            return img.transpose(list(self.order))
        a = _array(img)
        if a.ndim == 2:
            a = a[:, :, None]
        return a.transpose(self.order)


# Paddle's other transforms and the functional forms (``transforms.functional.resize``...)
from . import transforms_functional as functional  # noqa: E402,F401
from .transforms_extra import (BaseTransform, BrightnessTransform, CenterCrop, ColorJitter,  # noqa: E402,F401
                               ContrastTransform, Grayscale, HueTransform, Pad, RandomCrop, RandomErasing,
                               RandomHorizontalFlip, RandomResizedCrop, RandomRotation, RandomVerticalFlip, Resize,
                               SaturationTransform)
from .transforms_functional import (adjust_brightness, adjust_contrast, adjust_hue,  # noqa: E402,F401
                                    adjust_saturation, center_crop, crop, erase, hflip, normalize, pad, resize,
                                    rotate, to_grayscale, vflip)
from .transforms_functional import to_tensor  # noqa: E402,F401
from .transforms_warp import RandomAffine, RandomPerspective, affine, perspective  # noqa: E402,F401
