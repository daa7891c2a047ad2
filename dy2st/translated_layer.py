"""``paddle.jit.translated_layer``: the module path of ``TranslatedLayer`` and of the file suffixes
``dy2st.save`` writes next to its path prefix."""
from .deploy.translated_layer import TranslatedLayer

INFER_MODEL_SUFFIX = ".pdmodel"
INFER_PARAMS_SUFFIX = ".pdiparams"
INFER_PARAMS_INFO_SUFFIX = ".pdiparams.info"

__all__ = ["TranslatedLayer", "INFER_MODEL_SUFFIX", "INFER_PARAMS_SUFFIX", "INFER_PARAMS_INFO_SUFFIX"]
