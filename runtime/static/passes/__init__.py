"""Analyses and rewrites on Programs: the one place for them.

A Program comes out of tracing (or ``append_backward``) and goes to the executor,
a file or ONNX.  Between, passes in this package look at it or rewrite it:

- analyses: ``defuse`` (what a block defines and reads from outside),
  ``liveness`` (which ops outputs need, what flows into a segment),
  ``effects`` (persistable / side effect / must keep), ``fold`` (constants), ``reached``
  (what a run's gradient reaches, given the branches and loop bodies it entered);
- rewrites, each ``Program -> Program``: ``dce.eliminate_dead_code``,
  ``prune.prune`` (a new Program for given feeds and fetches);
- executor features the compiler applies while it builds a plan, each switchable
  in ``features`` and tested on/off for identical results: ``kernels`` (direct
  numpy, fast layer_norm/gelu/softmax, overwriting a dead input), ``expressions``
  (getitem, reshape, scalar ops, scalar loop predicates), ``inplace`` (buffer reuse,
  also with run-time dims), parameters read where used, compiled while loops
  (``codegen`` loop mode), and ``owned_grads`` (a training step's update scales the
  gradients only it holds in place; ``train_update``'s fast kernel asks it).

``PIPELINE`` lists, in order, the rewrites a traced Program gets before it is
cached and shown to users; ``run_pipeline`` applies them.  Execution-time
features (constant folding, freeing dead values) are applied by the compiler
when it builds a plan, so the user's Program keeps only the ops the user wrote.
"""
from .dce import eliminate_dead_code, remove_unused_vars
from .defuse import defined_names, external_reads, op_reads
from .effects import has_side_effect, is_persistable, is_random, must_keep, writes_persistable
from .features import FEATURES, enabled, feature_key, features
from .fold import fold_constants
from .liveness import analyze, last_uses, live_ops, segment_inputs
from .prune import prune
from .reached import reached

# The traced Program's passes, in order.  Each entry: (name, pass(program, fetch_names) -> program, why here).
PIPELINE = [
    ("dead code", eliminate_dead_code,
     "first: tracing leaves values nothing fetched reads (flags, shapes taken for Python decisions, "
     "dropped loop copies); later passes and the printed Program should not see them"),
]


def run_pipeline(program, fetch_names, passes=PIPELINE):
    """Apply ``passes`` (default ``PIPELINE``) to ``program`` in order; returns the result."""
    for _, fn, _ in passes:
        program = fn(program, fetch_names)
    return program


__all__ = [
    "FEATURES",
    "PIPELINE",
    "analyze",
    "defined_names",
    "eliminate_dead_code",
    "enabled",
    "external_reads",
    "feature_key",
    "features",
    "fold_constants",
    "has_side_effect",
    "is_persistable",
    "is_random",
    "last_uses",
    "live_ops",
    "must_keep",
    "op_reads",
    "prune",
    "remove_unused_vars",
    "run_pipeline",
    "segment_inputs",
    "writes_persistable",
]
