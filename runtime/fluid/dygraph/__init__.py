"""``paddle.fluid.dygraph``: the same helpers as ``paddle.base.dygraph``."""
from ...base.dygraph import *  # noqa: F401,F403
from ...base.dygraph import __all__  # noqa: F401
from . import base  # noqa: F401
