"""``dy2st.export_onnx``: a Layer, a to_static function or a saved model as an ONNX file.

The Program exported is the one ``dy2st.save`` writes (traced in ``eval()`` mode
from the InputSpecs, pruned to the outputs): a Layer or function is saved to a
temporary directory with ``save`` and read back, so the two paths cannot drift
apart.  A saved model prefix (or a loaded ``TranslatedLayer``) is exported as is.

ONNX support is an optional extra (``pip install onnx onnxruntime``, or ``pip install '.[onnx]'`` from the project folder):
``runtime.static.onnx_export`` imports onnx, so it is imported here only when an
export is asked for, and ``import dy2st`` never needs onnx.
"""
import importlib
import os
import tempfile

from runtime.static.io import read_inference_model

from .io import model_prefix, save
from .translated_layer import TranslatedLayer

__all__ = ["export_onnx"]


def _exporter():
    try:  # a deferred import on purpose: it is what keeps onnx optional, not a cycle
        return importlib.import_module("runtime.static.onnx_export")
    except ImportError as e:
        raise ImportError(f"dy2st.export_onnx needs onnx: pip install onnx onnxruntime, or from the project folder: pip install '.[onnx]' ({e})") from None


def export_onnx(layer, path, input_spec=None, opset=17):
    """Write ``layer`` as an ONNX model to ``path`` (atomically); returns the ``onnx.ModelProto``.

    ``layer``: a Layer or function (traced from ``input_spec`` like ``dy2st.save``),
    a ``TranslatedLayer``, or the path prefix of a saved model.  Dims given as
    ``None`` in the InputSpecs stay symbolic in the ONNX inputs.
    """
    exporter = _exporter()
    if isinstance(layer, (str, os.PathLike)):
        m = read_inference_model(model_prefix(layer))
        return exporter.export_onnx(m.program, m.feed_names, m.fetch_names, path=path, params=m.params,
                                    opset=opset)
    if isinstance(layer, TranslatedLayer):
        return exporter.export_onnx(layer.program, layer.feed_names, layer.fetch_names, path=path, opset=opset)
    with tempfile.TemporaryDirectory(prefix="dy2st-onnx-") as tmp:
        prefix = os.path.join(tmp, "model")
        save(layer, prefix, input_spec=input_spec)
        m = read_inference_model(prefix)
    return exporter.export_onnx(m.program, m.feed_names, m.fetch_names, path=path, params=m.params, opset=opset)
