"""``paddle.vision.transforms.functional`` on PIL Images, numpy HWC/HW arrays and CHW Tensors.

A PIL Image, or a uint8 array of 1 or 3 channels, goes through Pillow exactly as Paddle's PIL backend
does (``img.resize``, ``ImageEnhance``, ``img.rotate``...), so its results are Paddle's to the bit;
an array comes back as an array. Other arrays (float images in [0, 1], other channel counts) and
CHW Tensors use numpy forms of Paddle's tensor backend: bilinear resizing with half-pixel centres
(``F.interpolate(align_corners=False)``), blends for brightness/contrast/saturation, an HSV shift
for hue, nearest/bilinear inverse mapping for rotation. Tensors come back as (non-differentiable)
Tensors. Pillow is imported only when a PIL path is taken.
"""
import math
import numbers

import numpy as np

from ..ops.creation import to_tensor as _to_tensor
from ..tensor import Tensor

_PIL_INTERP = {"nearest": 0, "bilinear": 2, "bicubic": 3, "box": 4, "lanczos": 1, "hamming": 5}


def _is_pil(img):
    return type(img).__module__.startswith("PIL.")


def _pil_able(a):
    return isinstance(a, np.ndarray) and a.dtype == np.uint8 and (a.ndim == 2 or (a.ndim == 3 and a.shape[2] in (1, 3)))


def _via_pil(img, fn):
    """``fn`` on a PIL Image; a uint8 array goes through Pillow and comes back an array of its layout."""
    if _is_pil(img):
        return fn(img)
    from PIL import Image  # noqa: PLC0415  (optional: only uint8 arrays and PIL images come here)
    squeeze = img.ndim == 3 and img.shape[2] == 1
    out = np.asarray(fn(Image.fromarray(img[:, :, 0] if squeeze else img)))
    return out[:, :, None] if squeeze and out.ndim == 2 else out


def _hwc(img):
    """(HWC float-or-int array, restore) for an array or a CHW Tensor."""
    if isinstance(img, Tensor):
        a = img.numpy()
        a = a[:, :, None] if a.ndim == 2 else a.transpose(1, 2, 0)
        return a, lambda out: _to_tensor(np.ascontiguousarray(out.transpose(2, 0, 1)))
    a = np.asarray(img)
    if a.ndim == 2:
        return a[:, :, None], lambda out: out[:, :, 0]
    return a, lambda out: out


def _size(img):
    if _is_pil(img):
        return img.size[1], img.size[0]
    if isinstance(img, Tensor):
        return tuple(img.shape[-2:])
    return img.shape[:2]


def _bound(a):
    return 255.0 if a.dtype == np.uint8 else 1.0


def _cast_like(out, a):
    if a.dtype == np.uint8:
        return np.clip(np.round(out), 0, 255).astype(np.uint8)
    return out.astype(a.dtype)


# -- geometry ----------------------------------------------------------------------------------------------
def _target_size(h, w, size):
    if isinstance(size, numbers.Number):
        if (w <= h and w == size) or (h <= w and h == size):
            return h, w
        return (int(size), int(size * w / h)) if h < w else (int(size * h / w), int(size))
    return int(size[0]), int(size[1])


def _resize_array(a, oh, ow, interpolation):
    h, w = a.shape[:2]
    if interpolation == "nearest":
        rows = np.minimum((np.arange(oh) * (h / oh)).astype(np.int64), h - 1)
        cols = np.minimum((np.arange(ow) * (w / ow)).astype(np.int64), w - 1)
        return a[rows][:, cols]
    if interpolation != "bilinear":
        raise ValueError(f"resize: a float array or Tensor takes 'nearest' or 'bilinear', got {interpolation!r}")

    def axis(n_out, n_in):
        src = np.maximum((np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5, 0.0)
        i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
        return i0, np.minimum(i0 + 1, n_in - 1), (src - i0)
    r0, r1, fr = axis(oh, h)
    c0, c1, fc = axis(ow, w)
    f = a.astype(np.float64)
    top = f[r0] * (1 - fr)[:, None, None] + f[r1] * fr[:, None, None]
    out = top[:, c0] * (1 - fc)[None, :, None] + top[:, c1] * fc[None, :, None]
    return _cast_like(out, a)


def resize(img, size, interpolation="bilinear"):
    """``img`` resized to ``size`` ((h, w), or an int for the shorter side, keeping the aspect ratio)."""
    h, w = _size(img)
    oh, ow = _target_size(h, w, size)
    if _is_pil(img) or _pil_able(img):
        return _via_pil(img, lambda im: im.resize((ow, oh), _PIL_INTERP[interpolation]))
    a, back = _hwc(img)
    return back(_resize_array(a, oh, ow, interpolation))


def crop(img, top, left, height, width):
    """The ``height`` x ``width`` box of ``img`` at (``top``, ``left``)."""
    if _is_pil(img):
        return img.crop((left, top, left + width, top + height))
    if isinstance(img, Tensor):
        return img[..., top:top + height, left:left + width]
    return img[top:top + height, left:left + width]


def center_crop(img, output_size):
    """The central ``output_size`` box (an int for a square)."""
    th, tw = (output_size, output_size) if isinstance(output_size, numbers.Number) else output_size
    h, w = _size(img)
    return crop(img, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw)


def hflip(img):
    """``img`` mirrored left-right."""
    if _is_pil(img):
        return img.transpose(0)
    if isinstance(img, Tensor):
        return img.flip([-1])
    return np.ascontiguousarray(img[:, ::-1])


def vflip(img):
    """``img`` mirrored top-bottom."""
    if _is_pil(img):
        return img.transpose(1)
    if isinstance(img, Tensor):
        return img.flip([-2])
    return np.ascontiguousarray(img[::-1])


def _padding(padding):
    if isinstance(padding, numbers.Number):
        return (padding,) * 4
    if len(padding) == 2:
        return padding[0], padding[1], padding[0], padding[1]
    if len(padding) == 4:
        return tuple(padding)
    raise ValueError(f"pad: padding must be an int or a 2- or 4-element sequence, got {padding!r}")


def pad(img, padding, fill=0, padding_mode="constant"):
    """``img`` padded by ``padding`` (all sides, (left/right, top/bottom), or (left, top, right, bottom)):
    ``constant`` (``fill``), ``edge``, ``reflect`` (no edge repeat) or ``symmetric`` (edge repeated)."""
    modes = {"constant": "constant", "edge": "edge", "reflect": "reflect", "symmetric": "symmetric"}
    if padding_mode not in modes:
        raise ValueError(f"pad: padding_mode must be one of {sorted(modes)}, got {padding_mode!r}")
    left, top, right, bottom = _padding(padding)
    if _is_pil(img):
        from PIL import Image, ImageOps  # noqa: PLC0415
        if padding_mode == "constant":  # Pillow's own fill (an int fill of an RGB image is a packed colour)
            return ImageOps.expand(img, border=(left, top, right, bottom), fill=fill)
        return Image.fromarray(pad(np.asarray(img), padding, fill, padding_mode), img.mode)
    a, back = _hwc(img)
    widths = ((top, bottom), (left, right), (0, 0))
    if padding_mode != "constant":
        return back(np.pad(a, widths, modes[padding_mode]))
    fills = np.broadcast_to(np.asarray(fill, a.dtype).reshape(-1), (a.shape[2],))
    return back(np.stack([np.pad(a[:, :, c], widths[:2], constant_values=fills[c]) for c in range(a.shape[2])], 2))


def _gray(a):
    # the weights of Paddle's tensor backend (Pillow's 'L' conversion uses 0.299 and rounds)
    if a.shape[2] == 1:
        return a[:, :, 0].astype(np.float64)
    return a[:, :, 0] * 0.2989 + a[:, :, 1] * 0.587 + a[:, :, 2] * 0.114


def to_grayscale(img, num_output_channels=1):
    """``img`` in gray (``0.2989 R + 0.587 G + 0.114 B``; Pillow's own for PIL images), with 1 or 3 channels."""
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    if _is_pil(img) or _pil_able(img):
        def fn(im):
            g = im.convert("L")
            if num_output_channels == 1:
                return g
            from PIL import Image  # noqa: PLC0415
            return Image.merge("RGB", (g, g, g))
        out = _via_pil(img, fn)
        return out[:, :, None] if isinstance(out, np.ndarray) and out.ndim == 2 and np.asarray(img).ndim == 3 else out
    a, back = _hwc(img)
    g = _cast_like(_gray(a), a)[:, :, None]
    return back(np.repeat(g, num_output_channels, 2))


def normalize(img, mean, std, data_format="CHW", to_rgb=False):
    """``(img - mean) / std`` per channel (channels first for ``'CHW'``, last for ``'HWC'``)."""
    from .transforms import Normalize  # noqa: PLC0415  (the class holds the one implementation)
    return Normalize(mean, std, data_format, to_rgb)(img)


def to_tensor(pic, data_format="CHW"):
    """An image (PIL or HWC array) as a float Tensor (uint8 scaled to [0, 1])."""
    from .transforms import ToTensor  # noqa: PLC0415
    return ToTensor(data_format)(pic)


# -- rotation ----------------------------------------------------------------------------------------------
def _rotate_array(a, angle, interpolation, expand, center, fill):
    h, w = a.shape[:2]
    cx, cy = ((w - 1) * 0.5, (h - 1) * 0.5) if center is None else (center[0], center[1])
    t = math.radians(angle)
    cos, sin = math.cos(t), math.sin(t)
    oh, ow, ox, oy = h, w, cx, cy
    if expand:
        # Pillow's size: the rotated corners' extent, rounded outward from the image's centre
        ex, ey = abs(cos) * w / 2 + abs(sin) * h / 2, abs(sin) * w / 2 + abs(cos) * h / 2
        ow = int(math.ceil(round(w / 2 + ex, 9)) - math.floor(round(w / 2 - ex, 9)))
        oh = int(math.ceil(round(h / 2 + ey, 9)) - math.floor(round(h / 2 - ey, 9)))
        ox, oy = (ow - 1) * 0.5, (oh - 1) * 0.5
    yy, xx = np.mgrid[0:oh, 0:ow].astype(np.float64)
    dx, dy = xx - ox, yy - oy
    # inverse map: output pixel -> source pixel (a counter-clockwise rotation of the image by ``angle``)
    sx, sy = cos * dx - sin * dy + cx, sin * dx + cos * dy + cy
    fills = np.broadcast_to(np.asarray(fill, np.float64).reshape(-1), (a.shape[2],))
    if interpolation == "nearest":
        ix, iy = np.floor(sx + 0.5).astype(np.int64), np.floor(sy + 0.5).astype(np.int64)
        inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
        out = np.where(inside[:, :, None], a[np.clip(iy, 0, h - 1), np.clip(ix, 0, w - 1)], fills)
        return _cast_like(out, a)
    if interpolation != "bilinear":
        raise ValueError(f"rotate: a float array or Tensor takes 'nearest' or 'bilinear', got {interpolation!r}")
    x0, y0 = np.floor(sx).astype(np.int64), np.floor(sy).astype(np.int64)
    fx, fy = (sx - x0)[:, :, None], (sy - y0)[:, :, None]
    out = np.zeros((oh, ow, a.shape[2]))
    for ddy, wy in ((0, 1 - fy), (1, fy)):
        for ddx, wx in ((0, 1 - fx), (1, fx)):
            px, py = x0 + ddx, y0 + ddy
            ok = ((px >= 0) & (px < w) & (py >= 0) & (py < h))[:, :, None]
            out += wy * wx * np.where(ok, a[np.clip(py, 0, h - 1), np.clip(px, 0, w - 1)], fills)
    return _cast_like(out, a)


def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    """``img`` rotated ``angle`` degrees counter-clockwise about ``center`` (the image centre); ``expand``
    grows the output to hold the whole rotated image; uncovered pixels get ``fill``."""
    if _is_pil(img) or _pil_able(img):
        fillcolor = tuple([fill] * 3) if isinstance(fill, int) else fill
        squeeze = isinstance(img, np.ndarray) and (img.ndim == 2 or img.shape[2] == 1)
        return _via_pil(img, lambda im: im.rotate(angle, _PIL_INTERP[interpolation], expand, center,
                                                  fillcolor=fillcolor[0] if squeeze or im.mode == "L" else fillcolor))
    a, back = _hwc(img)
    return back(_rotate_array(a, angle, interpolation, expand, center, fill))


# -- colour ------------------------------------------------------------------------------------------------
def _enhance(img, kind, factor, other):
    if factor < 0:
        raise ValueError(f"adjust_{kind.lower()}: the factor must be non-negative, got {factor}")
    if _is_pil(img) or _pil_able(img):
        from PIL import ImageEnhance  # noqa: PLC0415
        return _via_pil(img, lambda im: getattr(ImageEnhance, kind)(im).enhance(factor))
    a, back = _hwc(img)
    f = a.astype(np.float64)
    out = np.clip(other(f) * (1 - factor) + f * factor, 0, _bound(a))
    return back(_cast_like(out, a))


def adjust_brightness(img, brightness_factor):
    """``img * brightness_factor`` (0 gives black, 1 the image), clipped to the dtype's range."""
    return _enhance(img, "Brightness", brightness_factor, np.zeros_like)


def adjust_contrast(img, contrast_factor):
    """A blend of ``img`` with its mean gray level (0 gives flat gray, 1 the image)."""
    return _enhance(img, "Contrast", contrast_factor, lambda f: np.full_like(f, _gray(f).mean()))


def adjust_saturation(img, saturation_factor):
    """A blend of ``img`` with its grayscale version (0 gives gray, 1 the image)."""
    return _enhance(img, "Color", saturation_factor, lambda f: np.repeat(_gray(f)[:, :, None], f.shape[2], 2))


def _rgb_to_hsv(rgb):
    mx, mn = rgb.max(-1), rgb.min(-1)
    delta = mx - mn
    safe = np.where(delta > 0, delta, 1.0)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    h = np.where(mx == r, (g - b) / safe % 6, np.where(mx == g, (b - r) / safe + 2, (r - g) / safe + 4)) / 6
    return np.where(delta > 0, h, 0.0), np.where(mx > 0, delta / np.where(mx > 0, mx, 1), 0.0), mx


def _hsv_to_rgb(h, s, v):
    i = np.floor(h * 6) % 6
    f = h * 6 - np.floor(h * 6)
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    choices = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    return np.stack([np.select([i == k for k in range(6)], [c[ch] for c in choices]) for ch in range(3)], -1)


def adjust_hue(img, hue_factor):
    """``img`` with its hue shifted by ``hue_factor`` of a full turn (in [-0.5, 0.5])."""
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor:{hue_factor} is not in [-0.5, 0.5].")
    if _is_pil(img) or _pil_able(img):
        def fn(im):
            from PIL import Image  # noqa: PLC0415
            if im.mode in {"L", "1", "I", "F"}:
                return im
            h, s, v = im.convert("HSV").split()
            nh = ((np.asarray(h, np.int16) + int(hue_factor * 255)) % 256).astype(np.uint8)
            return Image.merge("HSV", (Image.fromarray(nh, "L"), s, v)).convert(im.mode)
        return _via_pil(img, fn)
    a, back = _hwc(img)
    if a.shape[2] != 3:
        return img
    scale = _bound(a)
    h, s, v = _rgb_to_hsv(a.astype(np.float64) / scale)
    return back(_cast_like(_hsv_to_rgb((h + hue_factor) % 1.0, s, v) * scale, a))


def erase(img, i, j, h, w, v, inplace=False):
    """``img`` with the ``h`` x ``w`` box at (``i``, ``j``) set to ``v`` (a CHW Tensor or an HWC array)."""
    if isinstance(img, Tensor):
        out = img if inplace else img.clone()
        out[..., i:i + h, j:j + w] = v
        return out
    if _is_pil(img):
        from PIL import Image  # noqa: PLC0415
        return Image.fromarray(erase(np.asarray(img).copy(), i, j, h, w, v, True), img.mode)
    out = img if inplace else img.copy()
    out[i:i + h, j:j + w] = v.numpy() if isinstance(v, Tensor) else v
    return out


def __getattr__(name):
    # affine/perspective live in transforms_warp (which imports this module): functional.affine reaches them
    if name in ("affine", "perspective"):
        from . import transforms_warp  # noqa: PLC0415
        return getattr(transforms_warp, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
