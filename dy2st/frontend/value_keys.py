"""What of a Python (non-tensor) argument the Program cache key must hold beyond the value itself.

A Python argument is part of the cache key by `==` and `hash`. Two cases made that key
silently too coarse:

- `0.0 == -0.0`: a Program traced with `0.0` served `-0.0` (`x * k` lost the sign of zero);
- a plain object (`cfg` of a user class without `__eq__`) hashes by identity, so changing
  `cfg.scale` between calls reused the Program that baked the old value in.

`value_key` adds the float's repr, or the object's attribute values (numbers, strings, tuples,
lists and dicts of them, nested plain objects a few levels deep; anything else, and containers
of more than 64 items, by identity).

Optimizers and learning-rate schedulers are not plain objects: a converted training step reads
their state (rate, step count, moments) when the Program runs, as it does for a global one. Keyed
by their values, an optimizer passed as an argument changed its key at every `opt.step()` and was
traced again at every call.
"""
import types

import runtime as rt

_SIMPLE = (bool, int, complex, str, bytes, type(None))
_DEPTH = 3
_MAX_ITEMS = 64  # larger containers are keyed by identity and length: a key is built on every call
_NOT_PLAIN = (rt.nn.Layer, rt.optimizer.Optimizer, rt.optimizer.lr.LRScheduler, types.FunctionType,
              types.MethodType, types.BuiltinFunctionType, type, types.ModuleType)


def _plain(obj):
    return (type(obj).__hash__ is object.__hash__ and hasattr(obj, "__dict__")
            and not isinstance(obj, _NOT_PLAIN))


def _leaf(v, depth):
    if isinstance(v, float):
        return ("f", repr(v))
    if isinstance(v, _SIMPLE):
        return (type(v).__name__, v)
    if depth <= 0:
        return ("id", id(v))
    if isinstance(v, (list, tuple, dict)) and len(v) > _MAX_ITEMS:
        return ("big", id(v), len(v))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, tuple(_leaf(x, depth - 1) for x in v))
    if isinstance(v, dict):
        return ("dict", tuple((repr(k), _leaf(x, depth - 1)) for k, x in v.items()))
    if _plain(v):
        return ("obj", id(v), _attrs(v, depth - 1))
    return ("id", id(v))


def _attrs(obj, depth):
    items = vars(obj)
    if len(items) > _MAX_ITEMS:
        return ("big", len(items))
    return tuple((k, _leaf(v, depth)) for k, v in sorted(items.items()))


def value_key(obj):
    """The extra key part for `obj` (None when its `==`/`hash` already say everything)."""
    if isinstance(obj, float):
        return repr(obj)
    if _plain(obj):
        return _attrs(obj, _DEPTH)
    return None
