"""``paddle.fluid.dygraph.base``: the same helpers as ``paddle.base.dygraph.base``."""
from ...base.dygraph.base import *  # noqa: F401,F403
from ...base.dygraph.base import __all__  # noqa: F401
