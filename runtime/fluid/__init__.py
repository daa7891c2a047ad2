"""``paddle.fluid``: Paddle 2.x's name for what Paddle 2.5+ calls ``paddle.base``."""
from ..base import *  # noqa: F401,F403
from ..base import __all__  # noqa: F401
from . import dygraph  # noqa: F401
