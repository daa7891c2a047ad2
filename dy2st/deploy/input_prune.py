"""``input_spec`` given to ``dy2st.save`` for a function declared with its own ``input_spec``.

Paddle's rules (``paddle.jit.save``): the declared specs trace the Program, and the ones given to
``save`` say which inputs the saved model keeps:

- as many as declared: each must fit its declared one (same dtype and rank, and a fixed declared dim
  is given the same size or left unknown), else ValueError; the model is traced from the given ones;
- fewer (a model that predicts without its label), or ``input_names_after_prune``: the declared
  Program is traced and only the inputs named (the given specs' names, or those names) are fed;
  an output that still needs a dropped input is a ValueError (raised by the pruning).

Without a declared ``input_spec``, the given specs trace the Program and ``input_names_after_prune``
(their names) says which of its inputs the saved model feeds (Paddle's SE-ResNeXt saves its
``(image, label)`` forward this way, keeping the image).
"""
import runtime as rt
from runtime.static import InputSpec

__all__ = ["check_fits", "kept_inputs", "prunes_inputs"]


def _leaves(specs):
    return [s for s in rt.utils.flatten(list(specs)) if isinstance(s, InputSpec)]


def prunes_inputs(declared, given, names_after_prune):
    """Whether the saved model feeds only some of the declared inputs."""
    if names_after_prune is not None:  # with or without specs given to save (the traced ones are pruned)
        return True
    if given is None or declared is None:  # without names, only fewer given specs than declared drop some
        return False
    return len(_leaves(given)) < len(_leaves(declared))


def check_fits(declared, given):
    """ValueError when a given spec does not fit its declared one (dtype, rank, fixed dims)."""
    if declared is None:
        return
    want, got = _leaves(declared), _leaves(given)
    if len(want) != len(got):
        return  # other structures: the trace decides
    for k, (d, g) in enumerate(zip(want, got)):
        dims_fit = len(d.shape) == len(g.shape) and all(a < 0 or b < 0 or a == b for a, b in zip(d.shape, g.shape))
        if d.dtype != g.dtype or not dims_fit:
            raise ValueError(f"dy2st.save: input_spec #{k} {g} does not fit the declared {d} (the dtype and "
                             "rank must be the same, and a fixed dim the same size or unknown)")


def kept_inputs(inputs, given, names_after_prune):
    """The feeds of the saved model: those of ``inputs`` (the traced Program's) named by
    ``names_after_prune``, else by the given specs' names."""
    if names_after_prune is not None:
        names = list(names_after_prune)
    else:
        names = [s.name for s in _leaves(given)]
    by_name = {v.name: v for v in inputs}
    missing = [n for n in names if n not in by_name]
    if missing:
        raise ValueError(f"dy2st.save: the inputs to keep {missing} are not inputs of the traced function "
                         f"(its inputs are {list(by_name)}); name the InputSpecs as the declared ones")
    return [by_name[n] for n in names]
