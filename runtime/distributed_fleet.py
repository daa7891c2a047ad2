"""``paddle.distributed.fleet`` for one process: trainers call ``fleet.init`` and wrap their model and
optimizer with ``fleet.distributed_model`` / ``fleet.distributed_optimizer`` before training; with one
worker those return what they are given, and the topology queries answer as Paddle's do unlaunched."""
import types

__all__ = ["DistributedStrategy", "init", "distributed_model", "distributed_optimizer", "worker_index",
           "worker_num", "is_first_worker", "barrier_worker", "get_hybrid_communicate_group", "recompute", "utils"]


class DistributedStrategy:
    """The parallel settings a script fills in (``strategy.hybrid_configs = {...}``, ``strategy.amp = True``);
    recorded, with nothing to distribute."""

    def __init__(self):
        self.hybrid_configs = {"dp_degree": 1, "mp_degree": 1, "pp_degree": 1, "sharding_degree": 1}


class _HybridGroup:
    """One worker's place in a hybrid-parallel topology: every degree 1, every rank 0."""

    def get_data_parallel_world_size(self):
        return 1

    def get_model_parallel_world_size(self):
        return 1

    def get_pipe_parallel_world_size(self):
        return 1

    def get_sharding_parallel_world_size(self):
        return 1

    def get_data_parallel_rank(self):
        return 0

    def get_model_parallel_rank(self):
        return 0

    def get_stage_id(self):
        return 0

    def get_global_rank(self):
        return 0


def init(role_maker=None, is_collective=False, strategy=None, log_level="INFO"):
    """Nothing to set up for one worker."""
    return None


def distributed_model(model):
    """``model`` itself: one worker has nothing to synchronise."""
    return model


def distributed_optimizer(optimizer, strategy=None):
    """``optimizer`` itself: one worker has nothing to synchronise."""
    return optimizer


def worker_index():
    """This worker's index: 0."""
    return 0


def worker_num():
    """The number of workers: 1."""
    return 1


def is_first_worker():
    """True: the only worker is the first."""
    return True


def barrier_worker():
    """Nothing to wait for with one worker."""
    return None


def get_hybrid_communicate_group():
    """The hybrid-parallel topology of one worker (every degree 1)."""
    return _HybridGroup()


def recompute(function, *args, **kwargs):
    """``function(*args, **kwargs)``: Paddle's recompute keeps fewer activations and runs the forward
    again in backward, which changes memory, not values or gradients (``preserve_rng_state`` and
    ``use_reentrant`` choose how; nothing here depends on them)."""
    kwargs.pop("preserve_rng_state", None)
    kwargs.pop("use_reentrant", None)
    return function(*args, **kwargs)


# ``paddle.distributed.fleet.utils.recompute``: fleet is a module here, so ``utils`` is a namespace
utils = types.ModuleType(__name__ + ".utils", "Paddle's ``fleet.utils``: ``recompute``.")
utils.recompute = recompute
