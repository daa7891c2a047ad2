"""``paddle.base.optimizer`` / ``paddle.fluid.optimizer``: Paddle 1.8 and 2.0's dygraph optimizers,
which training code of that time builds as ``fluid.optimizer.Momentum(learning_rate=lr,
momentum=0.9, parameter_list=model.parameters(), regularization=L2Decay(1e-4))``. They are the
2.x optimizers under their old class names, taking the old argument names ``parameter_list``
(``parameters``) and ``regularization`` (``weight_decay``)."""
from .. import optimizer as _optimizer

__all__ = ["SGD", "Momentum", "Adam", "Adagrad", "RMSProp", "SGDOptimizer", "MomentumOptimizer", "AdamOptimizer",
           "AdagradOptimizer", "RMSPropOptimizer"]


def _legacy(cls):
    def __init__(self, *args, parameter_list=None, regularization=None, **kwargs):
        for old, new, value in (("parameter_list", "parameters", parameter_list),
                                ("regularization", "weight_decay", regularization)):
            if value is not None:
                if new in kwargs:
                    raise TypeError(f"{cls.__name__}: give {old} or {new}, not both")
                kwargs[new] = value
        cls.__init__(self, *args, **kwargs)

    return type(cls.__name__, (cls,), {"__init__": __init__, "__module__": __name__,
                                        "__doc__": f"``{cls.__name__}`` taking ``parameter_list`` and "
                                                   f"``regularization`` (Paddle 1.8's names)."})


SGD = SGDOptimizer = _legacy(_optimizer.SGD)
Momentum = MomentumOptimizer = _legacy(_optimizer.Momentum)
Adam = AdamOptimizer = _legacy(_optimizer.Adam)
Adagrad = AdagradOptimizer = _legacy(_optimizer.Adagrad)
RMSProp = RMSPropOptimizer = _legacy(_optimizer.RMSProp)
