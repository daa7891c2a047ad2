"""``rt.utils``: Paddle's nested-structure helpers (``paddle.utils``), built on ``runtime.pytree``.

Lists, tuples and dicts are structure; everything else (None included) is a
leaf; dict values are visited in sorted key order, as Paddle does.
"""
import functools
import importlib
import warnings

from .. import pytree
from .. import unique_name  # noqa: F401  (paddle.utils.unique_name)

__all__ = ["flatten", "pack_sequence_as", "map_structure", "unique_name", "run_check", "try_import",
           "require_version", "deprecated"]


def flatten(nest):
    """The leaves of ``nest`` as a list (a non-container ``nest`` gives ``[nest]``)."""
    return pytree.flatten(nest)[0]


def pack_sequence_as(structure, flat_sequence):
    """``flat_sequence`` (a list or tuple) packed into the shape of ``structure``."""
    if not isinstance(flat_sequence, (list, tuple)):
        raise TypeError(f"pack_sequence_as: flat_sequence must be a list or tuple, got "
                        f"{type(flat_sequence).__name__}")
    spec = pytree.flatten(structure)[1]
    if len(flat_sequence) != spec.num_leaves:
        raise ValueError(f"pack_sequence_as: the structure has {spec.num_leaves} leaves but flat_sequence has "
                         f"{len(flat_sequence)} elements")
    return pytree.unflatten(spec, flat_sequence)


def map_structure(func, *structure):
    """``func`` applied to each leaf (leaf-wise across several same-shaped structures)."""
    return pytree.map_structure(func, *structure)


# -- the installation helpers tutorials and model zoos call first (paddle.utils.*) ----------------------
def run_check():
    """Runs a small training step eagerly and converted, and says so, as ``paddle.utils.run_check``."""
    import numpy as np
    import runtime as rt
    print("Running verify runtime program ... ")
    layer = rt.nn.Linear(2, 1)
    x = rt.to_tensor(np.ones((2, 2), "float32"))
    loss = layer(x).mean()
    loss.backward()
    rt.optimizer.SGD(0.001, parameters=layer.parameters()).step()
    print("runtime works well on 1 CPU.")


def try_import(module_name, err_msg=None):
    """``importlib.import_module(module_name)``, or an ImportError saying what to install."""
    try:
        return importlib.import_module(module_name)
    except ImportError:
        raise ImportError(err_msg or f"Failed importing {module_name}: install it (usually with "
                                     f"`pip install {module_name.split('.')[0]}`)") from None


def _version_tuple(text):
    return tuple(int(p) if p.isdigit() else 0 for p in str(text).split(".")[:3])


def require_version(min_version, max_version=None):
    """Checks that the installed version lies in ``[min_version, max_version]``. This project's own
    version numbers are not Paddle's, so the check compares against Paddle 3.3, whose behaviour it
    follows (Paddle 2.x scripts ask for 2.x minimums, which this passes)."""
    if not isinstance(min_version, str) or (max_version is not None and not isinstance(max_version, str)):
        raise TypeError("require_version: min_version and max_version must be strings like '2.0.0'")
    have = (3, 3, 0)
    if _version_tuple(min_version) > have or (max_version is not None and _version_tuple(max_version) < have):
        raise Exception(f"VersionError: the Paddle behaviour followed here is 3.3.0, outside the required "
                        f"[{min_version}, {max_version or 'any'}]")


def deprecated(update_to="", since="", reason="", level=0):
    """Decorator warning (DeprecationWarning) when the function is called; ``level=2`` raises instead."""
    def wrap(func):
        msg = f"API \"{func.__module__}.{func.__name__}\" is deprecated since {since or 'a past version'}"
        msg += f", and will be removed in future versions. Please use \"{update_to}\" instead." if update_to else "."
        msg += f" Reason: {reason}" if reason else ""

        @functools.wraps(func)
        def call(*args, **kwargs):
            if level == 2:
                raise RuntimeError(msg)
            if level == 1 or level == 0:
                warnings.warn(msg, category=DeprecationWarning, stacklevel=2)
            return func(*args, **kwargs)
        return call
    return wrap


def __getattr__(name):
    """``paddle.utils.gast``: Paddle vendors the ``gast`` AST library there (its dygraph-to-static code
    and tests parse functions with it); here it is the installed ``gast``, imported on first use."""
    if name == "gast":
        return importlib.import_module("gast")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
