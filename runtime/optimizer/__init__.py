"""``rt.optimizer`` (Paddle's ``paddle.optimizer``): eager, numpy, in-place update rules."""
from . import lr
from .algorithms import SGD, Adagrad, Adam, Adamax, AdamW, Momentum, RMSProp
from .algorithms_extra import ASGD, NAdam, RAdam, Adadelta, Rprop, Lamb
from .lbfgs import LBFGS
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from ..regularizer import L1Decay, L2Decay
from .optimizer import Optimizer

__all__ = ["lr", "Optimizer", "SGD", "Momentum", "Adam", "AdamW", "Adamax", "RMSProp", "Adagrad", "NAdam", "RAdam", "Adadelta", "Rprop", "Lamb", "ASGD", "LBFGS", "L2Decay", "L1Decay",
           "ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue"]
