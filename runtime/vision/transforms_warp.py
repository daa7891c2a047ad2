"""``affine`` / ``perspective`` and ``RandomAffine`` / ``RandomPerspective``: Paddle's inverse matrices
(``_get_affine_matrix``, the least-squares perspective coefficients), applied by Pillow's
``Image.transform`` for PIL images and uint8 arrays (Paddle's PIL backend, to the bit) and by the same
inverse mapping in numpy for float arrays and CHW Tensors (Pillow's pixel-corner geometry: nearest takes
the source pixel the mapped point falls in, bilinear blends the four around it, outside is ``fill``).
"""
import math
import numbers

import numpy as np

from ..random import generator
from . import transforms_functional as F
from .transforms_extra import BaseTransform


def _affine_matrix(center, angle, translate, scale, shear):
    # output -> input, as Paddle's _get_affine_matrix (M^-1 = C * RSS^-1 * C^-1 * T^-1)
    rot, sx, sy = math.radians(angle), math.radians(shear[0]), math.radians(shear[1])
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    (cx, cy), (tx, ty) = center, translate
    m = [v / scale for v in (d, -b, 0.0, -c, a, 0.0)]
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty) + cx
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty) + cy
    return m


def _perspective_coeffs(startpoints, endpoints):
    a = np.zeros((8, 8))
    for i, (p1, p2) in enumerate(zip(endpoints, startpoints)):
        a[2 * i] = [p1[0], p1[1], 1, 0, 0, 0, -p2[0] * p1[0], -p2[0] * p1[1]]
        a[2 * i + 1] = [0, 0, 0, p1[0], p1[1], 1, -p2[1] * p1[0], -p2[1] * p1[1]]
    return np.linalg.lstsq(a, np.asarray(startpoints, np.float64).reshape(8), rcond=None)[0].tolist()


def _warp_array(a, mapping, interpolation, fill):
    h, w = a.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    sx, sy = mapping(xx + 0.5, yy + 0.5)  # pixel-corner coordinates, as Pillow
    fills = np.broadcast_to(np.asarray(fill, np.float64).reshape(-1), (a.shape[2],))
    if interpolation == "nearest":
        ix, iy = np.floor(sx).astype(np.int64), np.floor(sy).astype(np.int64)
        ok = ((ix >= 0) & (ix < w) & (iy >= 0) & (iy < h))[:, :, None]
        return F._cast_like(np.where(ok, a[np.clip(iy, 0, h - 1), np.clip(ix, 0, w - 1)], fills), a)
    if interpolation != "bilinear":
        raise ValueError(f"a float array or Tensor takes 'nearest' or 'bilinear', got {interpolation!r}")
    cx, cy = sx - 0.5, sy - 0.5
    x0, y0 = np.floor(cx).astype(np.int64), np.floor(cy).astype(np.int64)
    fx, fy = (cx - x0)[:, :, None], (cy - y0)[:, :, None]
    out = np.zeros(a.shape, np.float64)
    for ddy, wy in ((0, 1 - fy), (1, fy)):
        for ddx, wx in ((0, 1 - fx), (1, fx)):
            px, py = x0 + ddx, y0 + ddy
            ok = ((px >= 0) & (px < w) & (py >= 0) & (py < h))[:, :, None]
            out += wy * wx * np.where(ok, a[np.clip(py, 0, h - 1), np.clip(px, 0, w - 1)], fills)
    return F._cast_like(out, a)


def _transform(img, kind, data, mapping, interpolation, fill):
    if F._is_pil(img) or F._pil_able(img):
        from PIL import Image  # noqa: PLC0415
        resample = F._PIL_INTERP[interpolation]

        pil_input = F._is_pil(img)

        def fn(im):
            # Paddle's PIL backend hands ``fill`` to Image.transform's unrelated ``fill`` argument, so a PIL
            # image's uncovered pixels are black whatever ``fill`` says; an array gets ``fill`` (as cv2 would)
            color = None if pil_input else (fill if not isinstance(fill, int) or im.mode == "L"
                                            else tuple([fill] * len(im.getbands())))
            return im.transform(im.size, getattr(Image.Transform, kind), data, resample, fillcolor=color)
        return F._via_pil(img, fn)
    a, back = F._hwc(img)
    return back(_warp_array(a, mapping, interpolation, fill))


def affine(img, angle, translate, scale, shear, interpolation="nearest", fill=0, center=None):
    """``img`` rotated by ``angle`` degrees, moved by ``translate`` pixels, scaled by ``scale`` and
    sheared by ``shear`` degrees (one number: along x) about ``center`` (the image centre)."""
    if scale <= 0:
        raise ValueError("Argument scale should be positive")
    shear = [float(shear), 0.0] if isinstance(shear, numbers.Number) else [float(v) for v in shear]
    if len(shear) == 1:
        shear.append(0.0)
    h, w = F._size(img)
    m = _affine_matrix(center or (w * 0.5, h * 0.5), float(angle), list(translate), float(scale), shear)
    return _transform(img, "AFFINE", m, lambda x, y: (m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5]),
                      interpolation, fill)


def perspective(img, startpoints, endpoints, interpolation="nearest", fill=0):
    """``img`` warped so that the four ``startpoints`` ([x, y] corners) land on ``endpoints``."""
    c = _perspective_coeffs(startpoints, endpoints)

    def mapping(x, y):
        den = c[6] * x + c[7] * y + 1
        return (c[0] * x + c[1] * y + c[2]) / den, (c[3] * x + c[4] * y + c[5]) / den
    return _transform(img, "PERSPECTIVE", c, mapping, interpolation, fill)


def _pair(value, name, center=0.0):
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be positive.")
        return [center - value, center + value]
    if len(value) not in (2, 4):
        raise ValueError(f"{name} should be a number or a sequence of 2 or 4 numbers")
    return list(value)


class RandomAffine(BaseTransform):
    """``affine`` with a random angle in ``degrees``, shift up to ``translate`` (fractions of the size),
    scale in ``scale`` and shear in ``shear``."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation="nearest", fill=0,
                 center=None, keys=None):
        super().__init__(keys)
        self.degrees = _pair(degrees, "degrees")
        if translate is not None and not all(0.0 <= t <= 1.0 for t in translate):
            raise ValueError("translation values should be between 0 and 1")
        if scale is not None and any(s <= 0 for s in scale):
            raise ValueError("scale values should be positive")
        self.translate, self.scale = translate, scale
        self.shear = None if shear is None else _pair(shear, "shear")
        self.interpolation, self.fill, self.center = interpolation, fill, center

    def _apply_image(self, img):
        g = generator()
        h, w = F._size(img)
        angle = float(g.uniform(*self.degrees))
        tx = ty = 0
        if self.translate is not None:
            mx, my = self.translate[0] * w, self.translate[1] * h
            tx, ty = int(round(g.uniform(-mx, mx))), int(round(g.uniform(-my, my)))
        scale = float(g.uniform(*self.scale)) if self.scale is not None else 1.0
        shear = [0.0, 0.0]
        if self.shear is not None:
            shear[0] = float(g.uniform(self.shear[0], self.shear[1]))
            if len(self.shear) == 4:
                shear[1] = float(g.uniform(self.shear[2], self.shear[3]))
        return affine(img, angle, (tx, ty), scale, shear, self.interpolation, self.fill, self.center)


class RandomPerspective(BaseTransform):
    """With probability ``prob``, ``perspective`` moving each corner inward by up to ``distortion_scale``
    of half the size."""

    def __init__(self, prob=0.5, distortion_scale=0.5, interpolation="nearest", fill=0, keys=None):
        super().__init__(keys)
        if not 0 <= prob <= 1 or not 0 <= distortion_scale <= 1:
            raise ValueError("prob and distortion_scale should be in [0, 1]")
        self.prob, self.distortion_scale, self.interpolation, self.fill = prob, distortion_scale, interpolation, fill

    def _apply_image(self, img):
        g = generator()
        if g.random() >= self.prob:
            return img
        h, w = F._size(img)
        dx, dy = int(self.distortion_scale * (w // 2)), int(self.distortion_scale * (h // 2))

        def near(hi):
            return int(g.uniform(0, hi + 1))

        def far(size, d):
            return int(g.uniform(size - d - 1, size))
        start = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]
        end = [[near(dx), near(dy)], [far(w, dx), near(dy)], [far(w, dx), far(h, dy)], [near(dx), far(h, dy)]]
        return perspective(img, start, end, self.interpolation, self.fill)
