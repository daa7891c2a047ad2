"""``dy2st.onnx``: Paddle 2.x's ``paddle.onnx`` namespace.

``dy2st.onnx.export(layer, path_prefix, input_spec=None, opset_version=17)`` writes
``path_prefix + ".onnx"`` (opsets 11 and later); it is the same function as
``dy2st.export_onnx``.  Importing this module does not import the ``onnx`` package:
that happens when a model is exported.
"""
from .deploy.export import DEFAULT_OPSET, MIN_OPSET, export

__all__ = ["export", "DEFAULT_OPSET", "MIN_OPSET"]
