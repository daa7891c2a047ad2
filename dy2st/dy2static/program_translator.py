"""``paddle.jit.dy2static.program_translator``: ``StaticFunction``, the object ``to_static`` returns, and
``ConcreteProgram``, one traced Program of it (Paddle's tests import both from here)."""
from ..frontend.static_function import ConcreteProgram, StaticFunction

__all__ = ["ConcreteProgram", "StaticFunction"]
