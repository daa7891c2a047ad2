"""``loss.backward()`` for a loss computed from a converted function's output, without the tape walk.

The tape node of a converted function's run and the loss-rooted fast path are runtime's
seam for the backward of a known graph (``runtime.compiled_backward``); importing this
module registers the fast path.
"""
from runtime.compiled_backward import CompiledBackward, loss_root_backward

_Backward = CompiledBackward  # the converted function's tape-node backward (partial_program)

__all__ = ["CompiledBackward", "loss_root_backward"]
