"""``rt.distributed`` for the one process this runtime runs in: the environment queries training
scripts make before deciding to go parallel (PaddleSeg's ``ParallelEnv().nranks``, PaddleClas's
``dist.get_world_size() > 1``) answer as Paddle's do in a single, unlaunched process, so those scripts
take their single-process path. There are no collectives: nothing to reduce across."""

__all__ = ["ParallelEnv", "barrier", "get_rank", "get_world_size", "init_parallel_env", "is_initialized"]


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
