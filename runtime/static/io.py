"""``paddle.static.io``: the module path Paddle code imports the inference-model functions from
(they are defined in ``formats.io`` and are also ``rt.static.*``)."""
from .formats.io import deserialize_program, load_inference_model, save_inference_model, serialize_program

__all__ = ["save_inference_model", "load_inference_model", "serialize_program", "deserialize_program"]
