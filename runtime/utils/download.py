"""``paddle.utils.download`` without a network: model code imports ``get_weights_path_from_url`` at
the top of its files (PaddleClas, PaddleDetection) to fetch pretrained weights. Nothing is downloaded
here (a file appearing from the network is not something a converter should do behind its user's
back); a weights file already in Paddle's cache folder, or a local path, is found and returned."""
import os

__all__ = ["get_weights_path_from_url", "get_path_from_url", "is_url", "WEIGHTS_HOME"]

WEIGHTS_HOME = os.path.expanduser("~/.cache/paddle/hapi/weights")


def is_url(path):
    """Whether ``path`` is an http(s) URL."""
    return str(path).startswith(("http://", "https://"))


def get_path_from_url(url, root_dir, md5sum=None, check_exist=True, decompress=True, method="get"):
    """The local copy of ``url`` in ``root_dir`` (its file name), which must already be there."""
    path = url if not is_url(url) else os.path.join(root_dir, url.split("/")[-1].split("?")[0])
    if os.path.exists(path):
        return path
    raise FileNotFoundError(f"{path} is not there and nothing is downloaded here: fetch {url} yourself into "
                            f"{root_dir} (or pass pretrained=False / a local weights path)")


def get_weights_path_from_url(url, md5sum=None):
    """The local path of the weights ``url`` names, from Paddle's cache folder ``~/.cache/paddle/hapi/weights``."""
    return get_path_from_url(url, WEIGHTS_HOME, md5sum)
