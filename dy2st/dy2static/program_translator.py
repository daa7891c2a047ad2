"""``paddle.jit.dy2static.program_translator``: ``StaticFunction``, the object ``to_static`` returns."""
from ..frontend.static_function import StaticFunction

__all__ = ["StaticFunction"]
