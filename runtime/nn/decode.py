"""Paddle's ``nn.BeamSearchDecoder`` and ``nn.dynamic_decode`` (eager), ported step for step from
Paddle's imperative path so the beams, scores and lengths are Paddle's.

``dynamic_decode`` loops in Python until every beam has finished (or ``max_step_num``). Called while
a function is converted it builds the same loop as a ``while`` op (Paddle's declarative path): the
step outputs grow along a leading time axis, so one Program serves any number of decoding steps.
"""
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

import runtime as rt

from ..utils import flatten, map_structure
from ..trace_state import _mode
from . import functional as F


class Decoder:
    """The interface ``dynamic_decode`` drives: ``initialize``, ``step``, ``finalize``."""

    def initialize(self, inits):
        """(initial inputs, initial states, initial finished flags)."""
        raise NotImplementedError

    def step(self, time, inputs, states, **kwargs):
        """(outputs, next states, next inputs, finished flags) of one decoding step."""
        raise NotImplementedError

    def finalize(self, outputs, final_states, sequence_lengths):
        """The final outputs and states from the stacked step outputs (as is, by default)."""
        raise NotImplementedError

    @property
    def tracks_own_finished(self):
        """Whether ``step`` carries finished sequences on itself (else dynamic_decode masks them)."""
        return False


def _batch_size(x):
    """The leading dim of ``x``: an int, or a 1-element Tensor when a Program leaves it unknown."""
    return int(x.shape[0]) if int(x.shape[0]) >= 0 else rt.shape(x)[0]


def _dims(x, start):
    """``x``'s dims from ``start`` on, a dim known only when the Program runs (an encoder output's
    length tiled for the beams) read at run time: a reshape takes one -1 only."""
    dims = list(x.shape[start:])
    if any(d < 0 for d in dims):
        run = rt.shape(x)
        dims = [run[start + i] if d < 0 else d for i, d in enumerate(dims)]
    return dims


class BeamSearchDecoder(Decoder):
    """Beam search over an RNN ``cell``: ``embedding_fn`` turns token ids into the cell's inputs and
    ``output_fn`` its outputs into logits; each step keeps the ``beam_size`` best continuations of each
    batch entry, and a beam that emitted ``end_token`` only extends by ``end_token`` at no cost."""

    kinf = 1e9  # the score of the beams that cannot be taken

    class OutputWrapper(NamedTuple):
        """A step's output: the kept beams' scores, token ids and the beams they extend."""

        scores: Any
        predicted_ids: Any
        parent_ids: Any

    class StateWrapper(NamedTuple):
        """The decoding state: the cell's states, beam log-probabilities, finished flags and lengths."""

        cell_states: Any
        log_probs: Any
        finished: Any
        lengths: Any

    def __init__(self, cell: Any, start_token: int, end_token: int, beam_size: int,
                 embedding_fn: Callable | None = None, output_fn: Callable | None = None) -> None:
        self.cell, self.embedding_fn, self.output_fn = cell, embedding_fn, output_fn
        self.start_token, self.end_token, self.beam_size = start_token, end_token, beam_size

    @staticmethod
    def tile_beam_merge_with_batch(x: Any, beam_size: int) -> Any:
        """[batch, ...] -> [batch * beam_size, ...], each entry repeated beam_size times in a row."""
        x = rt.unsqueeze(x, [1])
        times = [1] * len(x.shape)
        times[1] = beam_size
        return rt.reshape(rt.tile(x, times), [-1] + _dims(x, 2))

    def _split_batch_beams(self, x):
        return rt.reshape(x, [-1, self.beam_size] + _dims(x, 1))

    def _merge_batch_beams(self, x):
        return rt.reshape(x, [-1] + _dims(x, 2))

    def _expand_to_beam_size(self, x):
        x = rt.unsqueeze(x, [1])
        times = [1] * len(x.shape)
        times[1] = self.beam_size
        return rt.tile(x, times)

    def _mask_probs(self, probs, finished, noend_mask):
        finished = rt.cast(finished, probs.dtype)
        return (rt.multiply(rt.tile(rt.unsqueeze(finished, [2]), [1, 1, int(probs.shape[-1])]), noend_mask)
                - rt.multiply(probs, rt.unsqueeze(finished - 1, [2])))

    def _gather(self, x, indices, batch_size):
        batch_pos = rt.tile(rt.unsqueeze(rt.arange(0, batch_size, 1, dtype=indices.dtype), [1]), [1, self.beam_size])
        return rt.gather_nd(x, rt.stack([batch_pos, indices], axis=2))

    def initialize(self, initial_cell_states: Any) -> tuple:
        """(start-token inputs [batch, beam], the initial StateWrapper, all-False finished flags)."""
        state = flatten(initial_cell_states)[0]
        batch = _batch_size(state)
        init_cell_states = map_structure(self._expand_to_beam_size, initial_cell_states)
        init_inputs = rt.full([batch, self.beam_size], self.start_token, dtype="int64")
        log_probs = rt.tile(rt.to_tensor(np.array([[0.0] + [-self.kinf] * (self.beam_size - 1)], "float32")),
                            [batch, 1])
        if rt.get_default_dtype() == "float64":
            log_probs = rt.cast(log_probs, "float64")
        init_finished = rt.full([batch, self.beam_size], False, dtype="bool")
        init_lengths = rt.zeros_like(init_inputs)
        init_inputs = self.embedding_fn(init_inputs) if self.embedding_fn else init_inputs
        return init_inputs, self.StateWrapper(init_cell_states, log_probs, init_finished, init_lengths), init_finished

    def _beam_search_step(self, time, logits, next_cell_states, beam_state):
        # the vocabulary size, batch size and end-token mask stay local, not on self as Paddle keeps
        # them: a converted function's guards would retrace for every other batch size, and a tensor
        # made in a converted decoding loop's body cannot be handed back to the layer holding the decoder
        vocab_size = int(logits.shape[-1])
        noend = np.full(vocab_size, -self.kinf, "float32")
        noend[self.end_token] = 0
        noend = rt.to_tensor(noend.astype(str(logits.dtype)))
        batch_size = _batch_size(logits)
        step_log_probs = self._mask_probs(rt.log(F.softmax(logits)), beam_state.finished, noend)
        log_probs = rt.add(step_log_probs, rt.unsqueeze(beam_state.log_probs, [2]))
        scores = rt.reshape(log_probs, [-1, self.beam_size * vocab_size])
        topk_scores, topk_indices = rt.topk(scores, k=self.beam_size)
        vocab = rt.full([1], vocab_size, dtype="int64")
        beam_indices = rt.floor_divide(topk_indices, vocab)
        token_indices = rt.remainder(topk_indices, vocab)
        next_log_probs = self._gather(scores, topk_indices, batch_size)
        next_cell_states = map_structure(lambda x: self._gather(x, beam_indices, batch_size), next_cell_states)
        next_finished = self._gather(beam_state.finished, beam_indices, batch_size)
        next_lengths = self._gather(beam_state.lengths, beam_indices, batch_size)
        next_lengths = next_lengths + rt.cast(rt.logical_not(next_finished), beam_state.lengths.dtype)
        next_finished = rt.logical_or(next_finished, rt.equal(token_indices, rt.full([1], self.end_token, "int64")))
        return (self.OutputWrapper(topk_scores, token_indices, beam_indices),
                self.StateWrapper(next_cell_states, next_log_probs, next_finished, next_lengths))

    def step(self, time: Any, inputs: Any, states: Any, **kwargs: Any) -> tuple:
        """One beam-search step: (OutputWrapper, StateWrapper, next inputs, finished flags)."""
        inputs = map_structure(self._merge_batch_beams, inputs)
        cell_states = map_structure(self._merge_batch_beams, states.cell_states)
        cell_outputs, next_cell_states = self.cell(inputs, cell_states, **kwargs)
        cell_outputs = map_structure(self._split_batch_beams, cell_outputs)
        next_cell_states = map_structure(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        output, state = self._beam_search_step(time, cell_outputs, next_cell_states, states)
        sample_ids = output.predicted_ids
        sample_ids.stop_gradient = True
        next_inputs = self.embedding_fn(sample_ids) if self.embedding_fn else sample_ids
        return output, state, next_inputs, state.finished

    def finalize(self, outputs: Any, final_states: Any, sequence_lengths: Any) -> tuple:
        """The predicted ids [time, batch, beam] traced back through the parents (``F.gather_tree``)."""
        ids = F.gather_tree(outputs.predicted_ids, outputs.parent_ids)
        return rt.cast(ids, outputs.predicted_ids.dtype), final_states

    @property
    def tracks_own_finished(self):
        """True: a finished beam only extends by end_token (``_mask_probs``)."""
        return True


def _maybe_copy(state, new_state, step_mask):
    """``state`` where ``step_mask`` (a finished entry) is set, else ``new_state``."""
    dtype = str(state.dtype)
    if dtype == "bool":
        state, new_state = rt.cast(state, "float32"), rt.cast(new_state, "float32")
    mask = rt.unsqueeze(rt.cast(step_mask, str(state.dtype)), [1])
    out = rt.multiply(state, mask) - rt.multiply(new_state, mask - 1)
    return rt.cast(out, dtype) if dtype == "bool" else out


def _decode_step(decoder, time, inputs, states, finished, lengths, impute_finished, kwargs):
    """One iteration of dynamic_decode's loop: (step outputs, inputs, states, finished, lengths) after it."""
    step_outputs, next_states, next_inputs, next_finished = decoder.step(time, inputs, states, **kwargs)
    if not decoder.tracks_own_finished:
        next_finished = rt.logical_or(next_finished, finished)
        next_lengths = rt.add(lengths, rt.cast(rt.logical_not(finished), lengths.dtype))
        if impute_finished:  # finished entries keep their states
            next_states = map_structure(lambda x, y: _maybe_copy(x, y, finished), states, next_states)
    else:
        next_lengths = getattr(next_states, "lengths", lengths)
    return step_outputs, next_inputs, next_states, next_finished, next_lengths


def _static_decode(decoder, inputs, states, finished, lengths, max_step_num, impute_finished, kwargs):
    """The decoding loop as a ``while`` op. Its first step is taken before the loop (so the stacked
    outputs start with their shapes known), as eagerly when some sequence starts unfinished -- a
    decoder's ``initialize`` (BeamSearchDecoder's) starts none finished."""
    from ..static.control_flow import while_loop
    time = rt.full([1], 0, dtype="int64")
    out, inputs, states, finished, lengths = _decode_step(decoder, time, inputs, states, finished, lengths,
                                                          impute_finished, kwargs)
    stacked = map_structure(lambda x: rt.unsqueeze(x, [0]), out)

    def cond(time, inputs, states, finished, lengths, stacked):
        go = rt.logical_not(rt.all(finished))
        # eagerly the loop breaks once step > max_step_num, i.e. it takes max_step_num + 1 steps at most
        return go if max_step_num is None else rt.logical_and(go, rt.reshape(time < max_step_num, []))

    def body(time, inputs, states, finished, lengths, stacked):
        time = time + 1
        out, inputs, states, finished, lengths = _decode_step(decoder, time, inputs, states, finished, lengths,
                                                              impute_finished, kwargs)
        stacked = map_structure(lambda a, x: rt.concat([a, rt.unsqueeze(x, [0])], axis=0), stacked, out)
        return time, inputs, states, finished, lengths, stacked

    _, _, states, _, lengths, stacked = while_loop(cond, body, [time, inputs, states, finished, lengths, stacked])
    return stacked, states, lengths


def dynamic_decode(decoder: Decoder, inits: Any = None, max_step_num: int | None = None,
                   output_time_major: bool = False, impute_finished: bool = False, is_test: bool = False,
                   return_length: bool = False, **kwargs: Any) -> tuple:
    """Run ``decoder`` from ``inits`` until every sequence finished or after ``max_step_num`` steps:
    (outputs, final states[, sequence lengths]); outputs are batch-major unless ``output_time_major``.
    While converting, the loop is a ``while`` op (see the module docstring)."""
    inputs, states, finished = decoder.initialize(inits)
    sequence_lengths = rt.cast(rt.zeros_like(finished), "int64")
    if _mode.static or any(isinstance(v, rt.framework.Variable) for v in flatten(inits)):
        final_outputs, states, sequence_lengths = _static_decode(decoder, inputs, states, finished, sequence_lengths,
                                                                 max_step_num, impute_finished, kwargs)
    else:
        outputs, step = [], 0
        time = rt.full([1], 0, dtype="int64")
        while not bool(rt.all(finished).numpy()):
            step_outputs, inputs, states, finished, sequence_lengths = _decode_step(
                decoder, time, inputs, states, finished, sequence_lengths, impute_finished, kwargs)
            outputs.append(step_outputs)
            time = time + 1
            step += 1
            if max_step_num is not None and step > max_step_num:
                break
        final_outputs = map_structure(lambda *xs: rt.stack(list(xs), axis=0), *outputs)
    final_states = states
    try:
        final_outputs, final_states = decoder.finalize(final_outputs, final_states, sequence_lengths)
    except NotImplementedError:
        pass
    if not output_time_major:
        final_outputs = map_structure(lambda x: rt.transpose(x, [1, 0] + list(range(2, x.ndim))), final_outputs)
    return (final_outputs, final_states, sequence_lengths) if return_length else (final_outputs, final_states)
