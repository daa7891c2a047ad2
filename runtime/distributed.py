"""``rt.distributed`` for the one process this runtime runs in: the environment queries training
scripts make before deciding to go parallel (PaddleSeg's ``ParallelEnv().nranks``, PaddleClas's
``dist.get_world_size() > 1``) answer as Paddle's do in a single, unlaunched process, so those scripts
take their single-process path. There are no collectives: nothing to reduce across. ``fleet`` and
``DataParallel`` wrap a model and optimizer as one worker's (they return or forward to them)."""
import contextlib
import sys

from . import distributed_fleet as fleet  # noqa: F401  (from paddle.distributed import fleet)
from .nn.layer import Layer

# `from paddle.distributed.fleet.utils import recompute` ports as an import of these module paths;
# rt.distributed is a module, not a package, so the import system finds them here
sys.modules.setdefault(__name__ + ".fleet", fleet)
sys.modules.setdefault(__name__ + ".fleet.utils", fleet.utils)

__all__ = ["DataParallel", "ParallelEnv", "barrier", "fleet", "get_rank", "get_world_size", "init_parallel_env",
           "is_initialized"]


class ParallelEnv:
    """The launch environment: one trainer, rank 0 (what Paddle reports without ``paddle.distributed.launch``)."""

    nranks = world_size = 1
    local_rank = rank = 0
    current_endpoint = ""
    trainer_endpoints = [""]


def get_rank(group=None):
    """This process's rank: 0."""
    return 0


def get_world_size(group=None):
    """The number of processes: 1."""
    return 1


def is_initialized():
    """Whether a parallel environment was set up: never, in one process."""
    return False


def init_parallel_env():
    """Nothing to set up for one process (scripts call it unconditionally before wrapping the model)."""
    return None


def barrier(group=None):
    """Nothing to wait for with one process."""
    return None


class DataParallel(Layer):
    """``rt.DataParallel(layer)``: Paddle's data-parallel wrapper, in its single-process form (what
    Paddle itself falls back to when not launched on several devices): calls run ``layer``, whose
    parameters are ``_layers.*``, while ``state_dict`` / ``set_state_dict`` use ``layer``'s own keys
    so checkpoints load into the bare Layer.  ``dy2st.save`` saves the wrapped Layer."""

    def __init__(self, layers, strategy=None, comm_buffer_size=25, last_comm_buffer_size=1,
                 find_unused_parameters=False, group=None):
        super().__init__()
        if not isinstance(layers, Layer):
            raise TypeError(f"DataParallel wraps a Layer, got {type(layers).__name__}")
        self._layers = layers
        self.find_unused_parameters = find_unused_parameters

    def forward(self, *inputs, **kwargs):
        return self._layers(*inputs, **kwargs)

    def state_dict(self, *args, **kwargs):
        """The wrapped model's state dict."""
        return self._layers.state_dict(*args, **kwargs)

    def set_state_dict(self, state_dict, *args, **kwargs):
        """Loads into the wrapped model."""
        return self._layers.set_state_dict(state_dict, *args, **kwargs)

    set_dict = load_dict = set_state_dict

    @contextlib.contextmanager
    def no_sync(self):
        """Gradient accumulation without synchronisation: there is nothing to synchronise."""
        yield
