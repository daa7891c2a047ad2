"""The image backend Paddle's vision datasets return images in: ``'pil'`` (PIL.Image) or ``'cv2'``
(numpy arrays, HWC)."""
_BACKENDS = ("pil", "cv2", "tensor")
_backend = ["pil"]


def set_image_backend(backend):
    """Return images as PIL Images (``'pil'``, Paddle's default), numpy arrays (``'cv2'``) or
    Tensors (``'tensor'``) from the vision datasets and ``image_load``."""
    if backend not in _BACKENDS:
        raise ValueError(f"set_image_backend: expected one of {list(_BACKENDS)}, got {backend!r}")
    _backend[0] = backend


def get_image_backend():
    """The backend ``set_image_backend`` chose (``'pil'`` unless changed)."""
    return _backend[0]


def pil_image():
    """PIL's ``Image`` module, or a clear error naming the way out when Pillow is not installed."""
    try:
        from PIL import Image  # noqa: PLC0415  (optional: only the 'pil' backend needs it)
    except ImportError:
        raise ImportError("the 'pil' image backend needs Pillow (pip install pillow); or call "
                          "rt.vision.set_image_backend('cv2') to get numpy arrays") from None
    return Image


def image_load(path, backend=None):
    """Read an image file: a PIL Image (``'pil'``) or an HWC uint8 array (``'cv2'``); needs Pillow."""
    backend = backend or get_image_backend()
    if backend not in ("pil", "cv2"):
        raise ValueError(f"image_load: backend must be 'pil' or 'cv2', got {backend!r}")
    img = pil_image().open(path)
    if backend == "pil":
        return img
    import numpy as np  # noqa: PLC0415
    return np.asarray(img.convert("RGB"))[:, :, ::-1].copy()  # cv2 reads BGR
