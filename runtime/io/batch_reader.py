"""``paddle.batch``: Paddle 2.x's reader decorator that groups what a sample reader yields into lists."""
from collections.abc import Callable, Iterator

__all__ = ["batch"]


def batch(reader: Callable[[], Iterator], batch_size: int, drop_last: bool = False) -> Callable[[], Iterator[list]]:
    """A reader yielding lists of ``batch_size`` consecutive samples of ``reader()``; the last, shorter
    list too unless ``drop_last``. ``reader`` is called anew each time the returned reader is."""
    size = int(batch_size)
    if size <= 0:
        raise ValueError(f"batch_size should be a positive integer, got {batch_size}")

    def batched():
        group = []
        for sample in reader():
            group.append(sample)
            if len(group) == size:
                yield group
                group = []
        if group and not drop_last:
            yield group

    return batched
