"""``rt.utils``: Paddle's nested-structure helpers (``paddle.utils``), built on ``runtime.pytree``.

Lists, tuples and dicts are structure; everything else (None included) is a
leaf; dict values are visited in sorted key order, as Paddle does.
"""
from . import pytree
from . import unique_name  # noqa: F401  (paddle.utils.unique_name)

__all__ = ["flatten", "pack_sequence_as", "map_structure", "unique_name"]


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
