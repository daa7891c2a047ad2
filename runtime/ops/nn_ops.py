"""Neural-network ops, one file per family; importing this module registers them all."""
from . import nn_activation, nn_conv, nn_loss, nn_misc, nn_norm  # noqa: F401
