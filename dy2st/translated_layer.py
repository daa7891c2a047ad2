"""``paddle.jit.translated_layer``: the file suffixes of a saved model and ``TranslatedLayer``, under the
module path Paddle's code imports them from (``dy2st.save`` writes ``path + INFER_MODEL_SUFFIX``...)."""
from .deploy.translated_layer import TranslatedLayer

INFER_MODEL_SUFFIX = ".pdmodel"
INFER_PARAMS_SUFFIX = ".pdiparams"
INFER_PARAMS_INFO_SUFFIX = ".pdiparams.info"

__all__ = ["INFER_MODEL_SUFFIX", "INFER_PARAMS_INFO_SUFFIX", "INFER_PARAMS_SUFFIX", "TranslatedLayer"]
