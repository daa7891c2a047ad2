"""``Scope``: where persistable values not bound to eager tensors live (name -> ndarray).

A startup program writes its outputs here; the main program reads them.  A plain
dict subclass, so the generated plan code reads it with one subscript.
"""


class Scope(dict):
    """name -> ndarray for persistable variables (parameters made by ``fc``, optimizer state)."""

    def find_var(self, name):
        """The value of ``name`` or None (Paddle spells this ``scope.find_var(n).get_tensor()``)."""
        return self.get(name)

    def var(self, name):
        """The value stored under ``name``; KeyError listing the held names if absent."""
        try:
            return self[name]
        except KeyError:
            raise KeyError(f"scope has no variable '{name}' (run the startup program first?); "
                           f"it holds {sorted(self)}") from None

    def __repr__(self):
        return f"<Scope {sorted(self)}>"


class _Global:
    scope = Scope()


def global_scope():
    """The scope an Executor uses when none is given (parameter values by name)."""
    return _Global.scope


def _switch_scope(scope):
    old = _Global.scope
    _Global.scope = scope
    return old


class scope_guard:
    """Run the ``with`` body with ``scope`` as the global scope."""

    def __init__(self, scope):
        self.scope = scope

    def __enter__(self):
        self._old = _switch_scope(self.scope)
        return self.scope

    def __exit__(self, *exc):
        _switch_scope(self._old)
        return False
