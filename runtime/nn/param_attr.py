"""``ParamAttr``: how a layer should create one parameter (name, initializer, lr, trainable)."""
from .initializer import Initializer


class ParamAttr:
    """How a parameter is created: its ``name``, ``initializer``, learning-rate factor and whether it is trainable.

    Layers take one as ``weight_attr``/``bias_attr``; ``False`` there means no parameter.
    """

    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None, trainable=True,
                 do_model_average=False, need_clip=True):
        if initializer is not None and not isinstance(initializer, Initializer):
            raise TypeError(f"ParamAttr initializer must be an Initializer, got {type(initializer).__name__}")
        self.name = name
        self.initializer = initializer
        self.learning_rate = learning_rate
        from ..regularizer import L1Decay, L2Decay  # noqa: PLC0415  (nn loads before the optimizers)
        if regularizer is not None and not isinstance(regularizer, (L1Decay, L2Decay)):
            raise TypeError(f"ParamAttr regularizer must be rt.regularizer.L1Decay or L2Decay, "
                            f"got {type(regularizer).__name__}")
        self.regularizer = regularizer
        self.trainable = trainable
        self.need_clip = need_clip

    @staticmethod
    def resolve(attr):
        """Normalise what layers accept: None, False (no parameter), str name, Initializer, ParamAttr."""
        if attr is None or attr is True:
            return ParamAttr()
        if attr is False:
            return False
        if isinstance(attr, ParamAttr):
            return attr
        if isinstance(attr, str):
            return ParamAttr(name=attr)
        if isinstance(attr, Initializer):
            return ParamAttr(initializer=attr)
        raise TypeError(f"expected a ParamAttr, Initializer, name, None or False, got {type(attr).__name__}")
