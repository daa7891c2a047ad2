"""The version of every Layer's state, and the table and hook-list types that keep it current.

``STATE_VERSION[0]`` is a new int object after every change of any Layer's sub-layers,
parameters, buffers, hooks, or attributes set through ``setattr``/``delattr`` (its
``training`` flag, an instance ``forward``): ``Layer.__setattr__``/``__delattr__`` call
``state_changed()``, and a Layer's tables (``StateTable``) and hook lists (``HookList``) call
it on every write.  Code that snapshots layers (the converter's guards) keeps the object it
read and compares by identity: while it is the same, no layer changed through these paths.
Writes straight into a Layer's ``__dict__`` are not seen; call ``state_changed()`` after one.
"""
import collections
import itertools

# The version of all Layers' state: a new int object on every change of any layer's sub-layers,
# parameters, buffers, hooks or attributes set through ``setattr``/``delattr`` (its ``training`` flag,
# an instance ``forward``).  Code that snapshots layers (the converter's guards) compares
# ``STATE_VERSION[0]`` by identity: while it is the object read with the snapshot, no layer changed
# through these paths and the snapshot still holds.  Unique values drawn from a counter (a store
# is never lost to a race: a later store is another new value).
STATE_VERSION = [0]
_versions = itertools.count(1)


def state_changed():
    """Bump ``STATE_VERSION``: call after changing a Layer's ``__dict__`` directly (bypassing ``setattr``)."""
    STATE_VERSION[0] = next(_versions)


_changed = state_changed


class StateTable(collections.OrderedDict):
    """The parameter/sub-layer/buffer table of a Layer: an OrderedDict whose every write bumps
    ``STATE_VERSION``."""

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        _changed()

    def __delitem__(self, key):
        super().__delitem__(key)
        _changed()

    def pop(self, *args):
        """``OrderedDict.pop``, bumping ``STATE_VERSION``."""
        try:
            return super().pop(*args)
        finally:
            _changed()

    def popitem(self, last=True):
        """``OrderedDict.popitem``, bumping ``STATE_VERSION``."""
        try:
            return super().popitem(last)
        finally:
            _changed()

    def clear(self):
        """``OrderedDict.clear``, bumping ``STATE_VERSION``."""
        super().clear()
        _changed()

    def update(self, *args, **kwargs):
        """``OrderedDict.update``, bumping ``STATE_VERSION``."""
        super().update(*args, **kwargs)
        _changed()

    def setdefault(self, key, default=None):
        """``OrderedDict.setdefault``, bumping ``STATE_VERSION``."""
        try:
            return super().setdefault(key, default)
        finally:
            _changed()

    def move_to_end(self, key, last=True):
        """``OrderedDict.move_to_end``, bumping ``STATE_VERSION``."""
        super().move_to_end(key, last)
        _changed()

    def __ior__(self, other):
        super().__ior__(other)
        _changed()
        return self


def _bumping(name):
    def method(self, *args):
        try:
            return getattr(list, name)(self, *args)
        finally:
            _changed()
    method.__name__ = name
    method.__doc__ = f"``list.{name}``, bumping ``STATE_VERSION``."
    return method


class HookList(list):
    """A Layer's forward pre- or post-hook list: a list whose every write bumps ``STATE_VERSION``."""

    append = _bumping("append")
    extend = _bumping("extend")
    insert = _bumping("insert")
    remove = _bumping("remove")
    pop = _bumping("pop")
    clear = _bumping("clear")
    sort = _bumping("sort")
    reverse = _bumping("reverse")
    __setitem__ = _bumping("__setitem__")
    __delitem__ = _bumping("__delitem__")
    __iadd__ = _bumping("__iadd__")
    __imul__ = _bumping("__imul__")
