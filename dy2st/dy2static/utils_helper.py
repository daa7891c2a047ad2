"""``paddle.jit.dy2static.utils_helper``: ``set_dynamic_shape``."""

__all__ = ["set_dynamic_shape"]


def set_dynamic_shape(variable, shape_list):
    """Paddle's hint that a Program value's dims may change (a tensor a loop grows). dy2st's loops
    already carry a value whose dims change with -1 for those dims, so this does nothing, eagerly
    and while a Program is built; it returns None as Paddle's."""
    return None
