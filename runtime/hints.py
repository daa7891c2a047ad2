"""Type aliases of the public API's annotations.

Eager code passes and gets ``Tensor``s; code that builds a static Program passes and gets ``Variable``s.
Both are ``TensorLike``, so the op functions take and return that.
"""
from collections.abc import Sequence
from typing import Union

import numpy as np

from .dtypes import DType
from .tensor import TensorLike

#: A Tensor/Variable, or a Python number or numpy array an op converts (a scalar takes the tensor's dtype).
Operand = Union[TensorLike, int, float, bool, np.ndarray]
#: A dtype name (``'float32'``), a DType, a numpy dtype or a numpy scalar type.
DTypeLike = Union[str, DType, np.dtype, type]
#: A list of ints and 1-element int Tensors (one -1 is inferred), or a 1-D int Tensor.
ShapeLike = Union[Sequence[Union[int, TensorLike]], TensorLike]
#: One dim or a list of dims; negative dims count from the end.
Axis = Union[int, Sequence[int]]
#: An int for every spatial dim, or one per dim.
IntOrPair = Union[int, Sequence[int]]
#: A 3-D size: an int for each of the three spatial dims, or one per dim.
IntOrTriple = Union[int, Sequence[int]]
#: A 1-D size: an int or a 1-element list.
IntOrOne = Union[int, Sequence[int]]

__all__ = ["Axis", "DTypeLike", "IntOrOne", "IntOrPair", "IntOrTriple", "Operand", "ShapeLike", "TensorLike"]
