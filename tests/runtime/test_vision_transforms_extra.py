"""rt.vision.transforms' Paddle classes and functional forms: a uint8 array goes through Pillow as
Paddle's PIL backend does (the same pixels as the PIL Image path), a CHW float Tensor through numpy
forms of Paddle's tensor backend (expected values printed by Paddle 3.3's tensor backend for the same
input), and the random transforms repeat after rt.seed."""
import numpy as np
import pytest

import runtime as rt
from runtime.vision import transforms as T
from runtime.vision.transforms_warp import _perspective_coeffs

F = T.functional
Image = pytest.importorskip("PIL.Image")

X = np.arange(24, dtype=np.float32).reshape(3, 2, 4) / 23.0  # a CHW image in [0, 1]
# paddle.vision.transforms.functional on paddle.to_tensor(X), Paddle 3.3
RESIZE = [[0.007246, 0.065217, 0.123188], [0.094203, 0.152174, 0.210145], [0.181159, 0.239130, 0.297101]]
HUE = [[0.486956, 0.530434, 0.573913, 0.617391], [0.000000, 0.043478, 0.086957, 0.130435],
       [0.695652, 0.739130, 0.782609, 0.826087]]
CONTRAST = [[0.278603, 0.304690, 0.330776, 0.356863], [0.487298, 0.513385, 0.539472, 0.565559],
            [0.695994, 0.722081, 0.748168, 0.774255]]
SATURATION = [[0.170087, 0.213563, 0.257038, 0.300514], [0.309217, 0.352693, 0.396169, 0.439644],
              [0.448348, 0.491824, 0.535299, 0.578775]]
GRAY = [[0.283478, 0.326952, 0.370426, 0.413900], [0.457374, 0.500848, 0.544322, 0.587796]]


def test_tensor_backend_matches_paddle():
    t = rt.to_tensor(X)
    close = dict(atol=2e-6, rtol=0)
    np.testing.assert_allclose(F.resize(t, (3, 3)).numpy()[0], RESIZE, **close)
    np.testing.assert_allclose(F.adjust_hue(t, 0.2).numpy()[:, 0], HUE, **close)
    np.testing.assert_allclose(F.adjust_contrast(t, 0.6).numpy()[:, 1], CONTRAST, **close)
    np.testing.assert_allclose(F.adjust_saturation(t, 0.4).numpy()[:, 0], SATURATION, **close)
    np.testing.assert_allclose(F.to_grayscale(t).numpy()[0], GRAY, **close)
    np.testing.assert_allclose(F.adjust_brightness(t, 1.3).numpy(), np.minimum(X * 1.3, 1.0), rtol=1e-6)
    assert F.hflip(t).numpy().tolist() == X[:, :, ::-1].tolist() and F.crop(t, 0, 1, 2, 2).shape == [3, 2, 2]
    assert F.pad(t, (1, 2), fill=7).shape == [3, 6, 6]


def test_uint8_arrays_take_the_pil_path():
    img = np.random.default_rng(0).integers(0, 256, (7, 9, 3)).astype(np.uint8)
    pil = Image.fromarray(img)
    calls = [lambda a: F.resize(a, (5, 4)), lambda a: F.resize(a, 4, "nearest"), lambda a: F.center_crop(a, 4),
             F.hflip, F.vflip, lambda a: F.pad(a, [1, 2, 3, 1], padding_mode="reflect"),
             lambda a: F.to_grayscale(a, 3), lambda a: F.rotate(a, 30, "bilinear", expand=True, fill=9),
             lambda a: F.adjust_brightness(a, 1.3), lambda a: F.adjust_contrast(a, 0.6),
             lambda a: F.adjust_saturation(a, 0.4), lambda a: F.adjust_hue(a, 0.2)]
    for call in calls:
        out = call(img)
        assert isinstance(out, np.ndarray) and out.dtype == np.uint8
        np.testing.assert_array_equal(out, np.asarray(call(pil)))
    # a float array with the same values rotates as Pillow does (nearest: every pixel, expand included)
    np.testing.assert_array_equal(F.rotate(img.astype(np.float64), 30, expand=True),
                                  np.asarray(pil.rotate(30, 0, True)).astype(np.float64))
    assert F.to_grayscale(img).shape == (7, 9, 1)


def test_transform_classes():
    img = np.random.default_rng(1).integers(0, 256, (8, 10, 3)).astype(np.uint8)
    pipeline = T.Compose([T.RandomResizedCrop(6), T.RandomHorizontalFlip(), T.ColorJitter(0.4, 0.4, 0.4, 0.1),
                          T.RandomRotation(15), T.Pad(1), T.RandomCrop(6), T.ToTensor(),
                          T.RandomErasing(prob=1.0, value="random")])
    rt.seed(3)
    a = pipeline(img)
    rt.seed(3)
    b = pipeline(img)
    assert a.shape == [3, 6, 6] and a.numpy().tolist() == b.numpy().tolist()
    assert T.Resize((4, 5))(img).shape == (4, 5, 3) and T.CenterCrop(4)(img).shape == (4, 4, 3)
    assert T.Grayscale(3)(img).shape == (8, 10, 3) and T.RandomVerticalFlip(1.0)(img).tolist() == img[::-1].tolist()
    both = T.Resize(4, keys=("image", "label"))((img, 7))
    assert both[0].shape == (4, 5, 3) and both[1] == 7
    with pytest.raises(ValueError, match="hue_factor:0.7 is not in"):
        F.adjust_hue(img, 0.7)
    with pytest.raises(ValueError, match="pad: padding_mode must be one of"):
        F.pad(img, 1, padding_mode="wrap")


def test_affine_and_perspective():
    img = np.random.default_rng(2).integers(0, 256, (9, 11, 3)).astype(np.uint8)
    pil = Image.fromarray(img)
    start, end = [[0, 0], [10, 0], [10, 8], [0, 8]], [[1, 1], [9, 0], [10, 7], [2, 8]]
    for interp in ("nearest", "bilinear"):
        np.testing.assert_array_equal(F.affine(img, 20, (1, 2), 0.9, [10, 5], interp),
                                      np.asarray(F.affine(pil, 20, (1, 2), 0.9, [10, 5], interp)))
        np.testing.assert_array_equal(F.perspective(img, start, end, interp),
                                      np.asarray(F.perspective(pil, start, end, interp)))
    # the numpy mapping of a float image is Pillow's geometry (nearest: every pixel)
    np.testing.assert_array_equal(F.perspective(img.astype(np.float64), start, end), np.asarray(
        pil.transform(pil.size, Image.Transform.PERSPECTIVE, _perspective_coeffs(start, end))))
    rt.seed(4)
    a = T.Compose([T.RandomAffine(15, (0.1, 0.1), (0.9, 1.1), 5), T.RandomPerspective(1.0)])(img)
    rt.seed(4)
    b = T.Compose([T.RandomAffine(15, (0.1, 0.1), (0.9, 1.1), 5), T.RandomPerspective(1.0)])(img)
    assert a.shape == img.shape and np.array_equal(a, b)
    assert F.affine(rt.to_tensor(X), 10, (0, 0), 1.0, 0.0).shape == [3, 2, 4]
