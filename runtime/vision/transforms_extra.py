"""Paddle's transform classes over ``transforms_functional``: ``BaseTransform`` (``keys``: which items of
an input tuple are images), ``Resize``, ``CenterCrop``, ``RandomCrop``, ``RandomHorizontalFlip``,
``RandomVerticalFlip``, ``Pad``, ``Grayscale``, ``RandomResizedCrop``, ``ColorJitter`` and its
``Brightness``/``Contrast``/``Saturation``/``HueTransform``, ``RandomRotation``, ``RandomErasing``.

The random ones draw from runtime's generator, so ``rt.seed(n)`` repeats a pipeline's choices.
"""
import math
import numbers

import numpy as np

from ..random import generator
from ..tensor import Tensor
from . import transforms_functional as F


def _uniform(lo, hi):
    return float(generator().uniform(lo, hi))


class BaseTransform:
    """A transform of an image, or of the items of a tuple named by ``keys`` (``"image"`` items go
    through ``_apply_image``; others through ``_apply_<key>`` if the class has one, else unchanged)."""

    def __init__(self, keys=None):
        self.keys = ("image",) if keys is None else tuple(keys) if isinstance(keys, (list, tuple)) else (keys,)
        self.params = None

    def _get_params(self, inputs):
        return None

    def __call__(self, inputs):
        many = isinstance(inputs, tuple)
        items = list(inputs) if many else [inputs]
        self.params = self._get_params(items)
        out = [getattr(self, f"_apply_{key}", lambda v: v)(item) if i < len(self.keys) else item
               for i, (key, item) in enumerate(zip(list(self.keys) + [None] * len(items), items))]
        return tuple(out) if many else out[0]

    def _apply_image(self, img):
        raise NotImplementedError


class Resize(BaseTransform):
    """Resize to ``size`` ((h, w), or an int for the shorter side)."""

    def __init__(self, size, interpolation="bilinear", keys=None):
        super().__init__(keys)
        self.size, self.interpolation = size, interpolation

    def _apply_image(self, img):
        return F.resize(img, self.size, self.interpolation)


class CenterCrop(BaseTransform):
    """The central ``size`` box."""

    def __init__(self, size, keys=None):
        super().__init__(keys)
        self.size = (int(size), int(size)) if isinstance(size, numbers.Number) else size

    def _apply_image(self, img):
        return F.center_crop(img, self.size)


class Pad(BaseTransform):
    """Pad by ``padding`` (see ``functional.pad``)."""

    def __init__(self, padding, fill=0, padding_mode="constant", keys=None):
        super().__init__(keys)
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def _apply_image(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)


class RandomCrop(BaseTransform):
    """A ``size`` box at a random place (after ``padding``; ``pad_if_needed`` pads a smaller image up)."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant", keys=None):
        super().__init__(keys)
        self.size = (int(size), int(size)) if isinstance(size, numbers.Number) else size
        self.padding, self.pad_if_needed, self.fill, self.padding_mode = padding, pad_if_needed, fill, padding_mode

    def _apply_image(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        h, w = F._size(img)
        th, tw = self.size
        if self.pad_if_needed and w < tw:
            img = F.pad(img, (tw - w, 0), self.fill, self.padding_mode)
        if self.pad_if_needed and h < th:
            img = F.pad(img, (0, th - h), self.fill, self.padding_mode)
        h, w = F._size(img)
        if h < th or w < tw:
            raise ValueError(f"RandomCrop: the crop {th}x{tw} is larger than the image {h}x{w}")
        i = int(generator().integers(0, h - th + 1))
        j = int(generator().integers(0, w - tw + 1))
        return F.crop(img, i, j, th, tw)


class RandomHorizontalFlip(BaseTransform):
    """Mirror left-right with probability ``prob``."""

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        self.prob = prob

    def _apply_image(self, img):
        return F.hflip(img) if generator().random() < self.prob else img


class RandomVerticalFlip(BaseTransform):
    """Mirror top-bottom with probability ``prob``."""

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        self.prob = prob

    def _apply_image(self, img):
        return F.vflip(img) if generator().random() < self.prob else img


class Grayscale(BaseTransform):
    """To gray, with 1 or 3 channels."""

    def __init__(self, num_output_channels=1, keys=None):
        super().__init__(keys)
        self.num_output_channels = num_output_channels

    def _apply_image(self, img):
        return F.to_grayscale(img, self.num_output_channels)


class RandomResizedCrop(BaseTransform):
    """A random box of ``scale`` of the area and ``ratio`` aspect (10 tries, then a central crop), resized
    to ``size``."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4, 4.0 / 3), interpolation="bilinear", keys=None):
        super().__init__(keys)
        self.size = (int(size), int(size)) if isinstance(size, numbers.Number) else size
        self.scale, self.ratio, self.interpolation = scale, ratio, interpolation

    def _box(self, h, w):
        area = h * w
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(10):
            target = area * _uniform(*self.scale)
            aspect = math.exp(_uniform(*log_ratio))
            cw, ch = int(round(math.sqrt(target * aspect))), int(round(math.sqrt(target / aspect)))
            if 0 < cw <= w and 0 < ch <= h:
                return int(generator().integers(0, h - ch + 1)), int(generator().integers(0, w - cw + 1)), ch, cw
        in_ratio = w / h
        if in_ratio < min(self.ratio):
            cw, ch = w, int(round(w / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            ch, cw = h, int(round(h * max(self.ratio)))
        else:
            cw, ch = w, h
        return (h - ch) // 2, (w - cw) // 2, ch, cw

    def _apply_image(self, img):
        i, j, h, w = self._box(*F._size(img))
        return F.resize(F.crop(img, i, j, h, w), self.size, self.interpolation)


def _factor_range(value, name):
    """``[max(0, 1 - value), 1 + value]``: the factors a jitter of ``value`` draws from."""
    if value < 0:
        raise ValueError(f"{name} value should be non-negative")
    return max(1.0 - value, 0.0), 1.0 + value


class BrightnessTransform(BaseTransform):
    """Brightness scaled by a random factor in ``[1 - value, 1 + value]``."""

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _factor_range(value, "brightness")

    def _apply_image(self, img):
        return img if self.value == (1.0, 1.0) else F.adjust_brightness(img, _uniform(*self.value))


class ContrastTransform(BaseTransform):
    """Contrast scaled by a random factor in ``[1 - value, 1 + value]``."""

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _factor_range(value, "contrast")

    def _apply_image(self, img):
        return img if self.value == (1.0, 1.0) else F.adjust_contrast(img, _uniform(*self.value))


class SaturationTransform(BaseTransform):
    """Saturation scaled by a random factor in ``[1 - value, 1 + value]``."""

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _factor_range(value, "saturation")

    def _apply_image(self, img):
        return img if self.value == (1.0, 1.0) else F.adjust_saturation(img, _uniform(*self.value))


class HueTransform(BaseTransform):
    """Hue shifted by a random amount in ``[-value, value]`` (``value`` at most 0.5)."""

    def __init__(self, value, keys=None):
        super().__init__(keys)
        if not 0 <= value <= 0.5:
            raise ValueError("hue value should be in [0.0, 0.5]")
        self.value = (-value, value)

    def _apply_image(self, img):
        return img if self.value == (0, 0) else F.adjust_hue(img, _uniform(*self.value))


class ColorJitter(BaseTransform):
    """Brightness, contrast, saturation and hue jitter, applied in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0, keys=None):
        super().__init__(keys)
        self.brightness, self.contrast, self.saturation, self.hue = brightness, contrast, saturation, hue

    def _apply_image(self, img):
        steps = [BrightnessTransform(self.brightness), ContrastTransform(self.contrast),
                 SaturationTransform(self.saturation), HueTransform(self.hue)]
        for k in generator().permutation(4).tolist():
            img = steps[k](img)
        return img


class RandomRotation(BaseTransform):
    """A rotation by a random angle in ``degrees`` (``(-d, d)`` for a number)."""

    def __init__(self, degrees, interpolation="nearest", expand=False, center=None, fill=0, keys=None):
        super().__init__(keys)
        if isinstance(degrees, numbers.Number):
            if degrees < 0:
                raise ValueError("If degrees is a single number, it must be positive.")
            degrees = (-degrees, degrees)
        elif len(degrees) != 2:
            raise ValueError("If degrees is a sequence, it must be of len 2.")
        self.degrees, self.interpolation, self.expand, self.center, self.fill = \
            tuple(degrees), interpolation, expand, center, fill

    def _apply_image(self, img):
        angle = _uniform(*self.degrees)
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, self.fill)


class RandomErasing(BaseTransform):
    """With probability ``prob``, a random box (``scale`` of the area, ``ratio`` aspect) set to ``value``
    (a number, a per-channel sequence, or ``"random"`` for normal noise). Tensors are CHW, arrays HWC."""

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False, keys=None):
        super().__init__(keys)
        if not 0 <= prob <= 1:
            raise ValueError("The probability should be in range [0,1].")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            raise ValueError("scale and ratio should be of kind (min, max)")
        self.prob, self.scale, self.ratio, self.value, self.inplace = prob, scale, ratio, value, inplace

    def _apply_image(self, img):
        if generator().random() >= self.prob:
            return img
        chw = isinstance(img, Tensor)
        shape = list(img.shape) if chw else list(np.asarray(img).shape)
        h, w = (shape[-2], shape[-1]) if chw else (shape[0], shape[1])
        channels = (shape[0] if len(shape) == 3 else 1) if chw else (shape[2] if len(shape) == 3 else 1)
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(10):
            target = h * w * _uniform(*self.scale)
            aspect = math.exp(_uniform(*log_ratio))
            eh, ew = int(round(math.sqrt(target * aspect))), int(round(math.sqrt(target / aspect)))
            if eh < h and ew < w:
                i, j = int(generator().integers(0, h - eh + 1)), int(generator().integers(0, w - ew + 1))
                if isinstance(self.value, str):
                    v = generator().standard_normal((channels, eh, ew) if chw else (eh, ew, channels))
                else:
                    v = np.asarray(self.value, np.float32).reshape((-1, 1, 1) if chw else (1, 1, -1))
                dtype = str(img.dtype) if chw else np.asarray(img).dtype
                return F.erase(img, i, j, eh, ew, np.asarray(v).astype(dtype), self.inplace)
        return img
