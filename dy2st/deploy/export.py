"""``dy2st.onnx.export`` (= ``dy2st.export_onnx``): a Layer, a to_static function or a saved model as ONNX.

The Program exported is the one ``dy2st.save`` writes (traced in ``eval()`` mode
from the InputSpecs, pruned to the outputs): a Layer or function is saved to a
temporary directory with ``save`` and read back, so the two paths cannot drift
apart.  A saved model prefix (or a loaded ``TranslatedLayer``) is exported as is.

ONNX support is an optional extra (``pip install onnx onnxruntime``, or ``pip install '.[onnx]'``
from the project folder): ``runtime.static.onnx.export`` imports onnx, so it is imported here only when an
export is asked for, and ``import dy2st`` never needs onnx.
"""
import importlib
import os
import tempfile

from runtime.static.formats.io import read_inference_model

from ..tools.entry import user_errors
from .io import model_prefix, save
from .translated_layer import TranslatedLayer

__all__ = ["export", "export_onnx", "DEFAULT_OPSET", "MIN_OPSET"]

# The warning about run-time checks ONNX leaves out names the caller of dy2st.onnx.export (counted
# from the exporter's frame: export, its user_errors entry, the caller).
_USER = 4
DEFAULT_OPSET = 17  # the same as runtime.static.onnx.export.DEFAULT_OPSET (a test keeps them equal)
MIN_OPSET = 11


def _exporter():
    try:  # a deferred import on purpose: it is what keeps onnx optional, not a cycle
        return importlib.import_module("runtime.static.onnx.export")
    except ImportError as e:
        raise ImportError("dy2st.onnx.export needs onnx: pip install onnx onnxruntime, or from the project folder: "
                          f"pip install '.[onnx]' ({e})") from None


def onnx_path(path):
    """Where the model goes: ``path`` itself when it ends in ``.onnx``, else Paddle's ``path + ".onnx"``."""
    path = os.fspath(path)
    return path if path.endswith(".onnx") else path + ".onnx"


def _opset(opset_version, opset):
    if opset is not None:
        if opset_version is not None and opset_version != opset:
            raise TypeError(f"give the opset once: opset_version={opset_version} and opset={opset} differ")
        opset_version = opset
    if opset_version is None:
        return DEFAULT_OPSET
    if isinstance(opset_version, bool) or not isinstance(opset_version, int):
        raise TypeError(f"opset_version must be an int, got {type(opset_version).__name__} {opset_version!r}")
    if opset_version < MIN_OPSET:
        raise ValueError(f"ONNX export supports opset {MIN_OPSET} and later, got opset_version={opset_version}")
    return opset_version


@user_errors("dy2st.onnx.export")
def export(layer, path, input_spec=None, opset_version=None, output_spec=None, *, opset=None, **configs):
    """Write ``layer`` as an ONNX model (atomically); returns the ``onnx.ModelProto``.

    Paddle 2.x's ``paddle.onnx.export``: ``path`` is a path prefix and the file is
    ``path + ".onnx"`` (a path already ending in ``.onnx`` is used as is, which is how
    ``dy2st.export_onnx(layer, "model.onnx")`` has always worked).  ``layer``: a Layer or
    function (traced from ``input_spec`` like ``dy2st.save``), a ``TranslatedLayer``,
    or the path prefix of a saved model.  Dims given as ``None`` in the InputSpecs stay
    symbolic in the ONNX inputs.  ``opset_version``: 11 and later (default 17; ``opset=``
    is the older spelling); what an older opset lacks is decomposed (LayerNormalization
    before 17...).  ``output_spec``: the outputs to keep, as for ``dy2st.save``.
    Unknown keyword arguments are a TypeError.
    """
    if configs:
        raise TypeError(f"dy2st.onnx.export() got unexpected keyword argument(s) "
                        f"{', '.join(map(repr, sorted(configs)))}")
    opset = _opset(opset_version, opset)
    out = onnx_path(path)
    exporter = _exporter()
    if isinstance(layer, (str, os.PathLike)):
        if output_spec is not None:
            raise ValueError("output_spec selects outputs while tracing; a saved model is exported with the "
                             "outputs it was saved with (give output_spec to dy2st.save)")
        m = read_inference_model(model_prefix(layer))
        return exporter.export_onnx(m.program, m.feed_names, m.fetch_names, path=out, params=m.params, opset=opset,
                                    stacklevel=_USER)
    if isinstance(layer, TranslatedLayer):
        if output_spec is not None:
            raise ValueError("output_spec selects outputs while tracing; a loaded model is exported with the "
                             "outputs it was saved with")
        return exporter.export_onnx(layer.program, layer.feed_names, layer.fetch_names, path=out, opset=opset,
                                    stacklevel=_USER)
    with tempfile.TemporaryDirectory(prefix="dy2st-onnx-") as tmp:
        prefix = os.path.join(tmp, "model")
        save.__wrapped__(layer, prefix, input_spec=input_spec, output_spec=output_spec)  # errors mapped here, once
        m = read_inference_model(prefix)
    return exporter.export_onnx(m.program, m.feed_names, m.fetch_names, path=out, params=m.params, opset=opset,
                                    stacklevel=_USER)


export_onnx = export
