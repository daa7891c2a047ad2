"""A traced Program run from eager code: forward now, backward later, writes replayed into Layers.

``partial_program`` runs a cached Program as one differentiable tape node (inference on a backend,
training on the numpy executor); ``fused_backward`` takes ``loss.backward()`` straight to the
compiled backward; ``layer_writes`` replays what ``forward`` wrote into its Layer.
"""
