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

# Unique values drawn from a counter: a store is never lost to a race (a later store is another
# new value), and no two versions are the same object.
STATE_VERSION = [0]
_versions = itertools.count(1)


def state_changed():
    """Bump ``STATE_VERSION``: call after changing a Layer's ``__dict__`` directly (bypassing ``setattr``)."""
    STATE_VERSION[0] = next(_versions)


class StateTable(collections.OrderedDict):
    """The parameter/sub-layer/buffer table of a Layer: an OrderedDict whose every write bumps
    ``STATE_VERSION``."""

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        state_changed()

    def __delitem__(self, key):
        super().__delitem__(key)
        state_changed()

    def pop(self, *args):
        """``OrderedDict.pop``, bumping ``STATE_VERSION``."""
        try:
            return super().pop(*args)
        finally:
            state_changed()

    def popitem(self, last=True):
        """``OrderedDict.popitem``, bumping ``STATE_VERSION``."""
        try:
            return super().popitem(last)
        finally:
            state_changed()

    def clear(self):
        """``OrderedDict.clear``, bumping ``STATE_VERSION``."""
        super().clear()
        state_changed()

    def update(self, *args, **kwargs):
        """``OrderedDict.update``, bumping ``STATE_VERSION``."""
        super().update(*args, **kwargs)
        state_changed()

    def setdefault(self, key, default=None):
        """``OrderedDict.setdefault``, bumping ``STATE_VERSION``."""
        try:
            return super().setdefault(key, default)
        finally:
            state_changed()

    def move_to_end(self, key, last=True):
        """``OrderedDict.move_to_end``, bumping ``STATE_VERSION``."""
        super().move_to_end(key, last)
        state_changed()

    def __ior__(self, other):
        super().__ior__(other)
        state_changed()
        return self


def _bumping(name):
    def method(self, *args):
        try:
            return getattr(list, name)(self, *args)
        finally:
            state_changed()
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
