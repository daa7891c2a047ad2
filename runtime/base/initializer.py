"""``paddle.base.initializer`` / ``paddle.fluid.initializer``: the initializers Paddle 1.8 / 2.0 model
code names through the legacy namespace (``fluid.initializer.Constant(1.0)``,
``fluid.initializer.NumpyArrayInitializer(table)`` for a fixed position-encoding table). They are
``paddle.nn.initializer``'s, taking its argument names (``Normal(mean, std)``)."""
from ..nn.initializer import MSRA, Bilinear, Constant, Initializer, Normal, TruncatedNormal, Uniform, Xavier
from ..nn.initializer import Assign as NumpyArrayInitializer

__all__ = ["Bilinear", "Constant", "Initializer", "MSRA", "Normal", "NumpyArrayInitializer", "TruncatedNormal",
           "Uniform", "Xavier", "ConstantInitializer", "NormalInitializer", "UniformInitializer",
           "TruncatedNormalInitializer", "XavierInitializer", "MSRAInitializer", "BilinearInitializer"]

ConstantInitializer = Constant
NormalInitializer = Normal
UniformInitializer = Uniform
TruncatedNormalInitializer = TruncatedNormal
XavierInitializer = Xavier
MSRAInitializer = MSRA
BilinearInitializer = Bilinear
