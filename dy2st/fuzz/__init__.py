"""A fuzzer for the converter: random programs run converted and eagerly, every way they can run.

``python -m dy2st.fuzz --count 10000 --seed 0 --jobs 2`` generates programs (``generator``),
compares forward values, gradients (eager and finite differences), the saved-and-loaded model
and the ONNX export in onnxruntime (``check``), and cuts each failing program down to a minimal
one (``shrink``).  The ``idioms`` and ``calls`` features (``idioms``) add constructs that other
authors' programs hold and the base grammar never writes; ``loops`` (``nested_loops``, ``row_loops``,
``loop_lists``, ``loop_no_grad``) and ``values`` (``dict_branches``, ``int_tensors``, ``runtime_dims``,
``inplace_branches``, ``inner_grad``), ``ops`` (``tensor_ops``, ``indexing``) and ``scopes``
(``closures``, ``rebinds``, ``cond_values``), ``layers`` (``sublayers``), ``numbers`` (``numbers``),
``flows`` (``loop_else``, ``deep_returns``, ``aug_targets``, ``checks``) and ``signatures``
(``varargs``, ``comprehensions``, ``shape_logic``) add forms of those kinds, each behind its
``--features`` name.  ``tests/dy2st/test_random_programs.py`` runs a few of the same programs.
"""
from .check import Failure, Options, check
from .generator import DEFAULT_FEATURES, FEATURES, generate
from .shrink import shrink

__all__ = ["generate", "check", "shrink", "Options", "Failure", "FEATURES", "DEFAULT_FEATURES"]
