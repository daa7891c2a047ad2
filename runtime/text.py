"""paddle.text: ``viterbi_decode`` and ``ViterbiDecoder``, the CRF decoding of PaddleNLP's taggers (LAC,
ERNIE-CRF). One op, so a converted tagger decodes inside its Program and ``dy2st.save`` exports it.

The kernel follows Paddle's step for step, its quirks included, because users compare decoded tags
with Paddle's: with ``include_bos_eos_tag`` the *rows* ``N-1`` (BOS) and ``N-2`` (EOS) of the transitions
are added to the first and to each sequence's last scores; the path is ``max(lengths)`` long and
zero after each sequence's end.  The datasets of paddle.text (Imdb, Conll05st...) download their data
and are not provided.
"""
import numpy as np

from .dispatch import apply
from .hints import TensorLike
from .nn.layer import Layer
from .registry import Meta, def_op

__all__ = ["ViterbiDecoder", "viterbi_decode"]


def _viterbi_kernel(potentials, transitions, lengths, include_bos_eos_tag=True):
    batch, seq_len, n = potentials.shape
    lengths = lengths.astype(np.int64)
    max_len = int(lengths.max()) if batch else 0
    if max_len > seq_len:
        raise ValueError(f"viterbi_decode: a length {max_len} exceeds the potentials' sequence length {seq_len}")
    if include_bos_eos_tag and n < 2:
        raise ValueError(f"viterbi_decode: include_bos_eos_tag needs at least 2 tags, got {n}")
    dtype = potentials.dtype
    stop, start = transitions[n - 2], transitions[n - 1]
    left = lengths[:, None]
    alpha = potentials[:, 0]
    if include_bos_eos_tag:
        alpha = alpha + start + stop * (left == 1).astype(dtype)
    left = left - 1
    history = []
    for i in range(1, max_len):
        total = alpha[:, :, None] + transitions[None]
        history.append(total.argmax(1))
        nxt = total.max(1) + potentials[:, i]
        live = (left > 0).astype(dtype)
        alpha = alpha * (1 - live) + nxt * live
        if include_bos_eos_tag:
            alpha = alpha + stop * (left == 1).astype(dtype)
        left = left - 1
    scores = alpha.max(1) if max_len else np.zeros(batch, dtype)
    path = np.zeros((max_len, batch), np.int64)
    if not max_len:
        return scores, path.T.copy()
    last = alpha.argmax(1)
    left = left[:, 0]
    path[max_len - 1] = last * (left >= 0)
    rows = np.arange(batch)
    for k, hist in enumerate(reversed(history)):
        left = left + 1
        update = hist[rows, last] * (left > 0)
        ended = left == 0
        update = update * (1 - ended) + last * ended
        path[max_len - 2 - k] = update
        last = update + last * (left < 0)
    return scores.astype(dtype), path.T.copy()


def _viterbi_infer(potentials, transitions, lengths, include_bos_eos_tag=True):
    return Meta([potentials.shape[0]], potentials.dtype), Meta([potentials.shape[0], -1], "int64")


def_op("viterbi_decode", ["Input", "Transition", "Length"], ["Scores", "Path"],
       attrs={"include_bos_eos_tag": True}, kernel=_viterbi_kernel, infer=_viterbi_infer,
       no_onnx="a data-dependent path length and a backtrace loop; not lowered",
       doc="The highest-scoring tag path of a linear-chain CRF, and its score (Paddle's viterbi_decode).")


def viterbi_decode(potentials: TensorLike, transition_params: TensorLike, lengths: TensorLike,
                   include_bos_eos_tag: bool = True, name: str | None = None) -> tuple[TensorLike, TensorLike]:
    """``(scores, path)``: the best tag path of each sequence under emission ``potentials`` [B, T, N] and
    ``transition_params`` [N, N] (from-tag, to-tag), over its first ``lengths`` [B] steps; no gradient."""
    return tuple(apply("viterbi_decode", potentials, transition_params, lengths,
                       include_bos_eos_tag=bool(include_bos_eos_tag)))


class ViterbiDecoder(Layer):
    """``ViterbiDecoder(transitions)(potentials, lengths)`` -> ``(scores, path)``: ``viterbi_decode``
    with the transitions kept on the layer (a Parameter of the model stays trainable by the CRF loss)."""

    def __init__(self, transitions: TensorLike, include_bos_eos_tag: bool = True, name: str | None = None):
        super().__init__()
        self.transitions = transitions
        self.include_bos_eos_tag = include_bos_eos_tag

    def forward(self, potentials: TensorLike, lengths: TensorLike) -> tuple[TensorLike, TensorLike]:
        return viterbi_decode(potentials, self.transitions, lengths, self.include_bos_eos_tag)
