"""Neural-network ops, one file per family; importing this module registers them all."""
from . import nn_activation, nn_conv, nn_loss, nn_misc, nn_norm  # noqa: F401
from . import nn_activation_extra, nn_conv_transpose, nn_loss_extra, nn_vision  # noqa: F401
from . import nn_attention, nn_bilinear, nn_loss_more, nn_pool_index, nn_shape_extra  # noqa: F401
from . import interpolate  # noqa: F401  (F.interpolate, made of the ops above)
