"""Gradients a training step's update may consume: dead temporaries the plan alone holds (``consume_grads``).

The update of a training step (``train_update``) reads each parameter's gradient once
and nothing reads it after.  When the plan made that gradient itself as a fresh array
(a matmul, a bias gradient's sum, a loss or activation gradient) and no other op reads
it, the update rule may scale it in place instead of allocating ``lr * g``::

    before:  p -= lr * g          # a temporary the size of p, per parameter
    after:   g *= lr; p -= g      # the same products, the same subtraction: bitwise equal

A gradient qualifies only when writing into it cannot be seen by anything else:

- an op of this block makes it, of a type whose kernel returns a fresh array (``_FRESH``;
  ``reduce_as`` only when it sums, i.e. X has more dims than its target: it never
  hands back its input), and that op is not constant folded (some input varies per run,
  else the plan would hand the same constant to every run);
- ``train_update`` is its only reader (sub-block reads count), reading it once: a
  gradient shared by two parameters (``y = a + b``) or read elsewhere never qualifies;
- it is not persistable (not a parameter or scope value).

A training-step Program runs whole (its outputs take no gradient, so it is never split
into forward and backward segments), and the user cannot fetch a gradient of
``loss.backward()`` inside it: the block's outputs are not among these names.
"""
from .defuse import op_reads
from .effects import is_persistable
from .features import enabled
from .fold import SHAPE_OPS, foldable

# ops whose first output is a fresh array no other value shares (see the module docstring for reduce_as)
_FRESH = frozenset(("matmul", "relu_grad", "cross_entropy_grad", "reduce_as"))


def _fresh(block, op, name):
    if op.type not in _FRESH or op.output_arg_names[:1] != [name]:
        return False
    if op.type != "reduce_as":
        return True
    x, t = block._find_var(op.input("X")[0]), block._find_var(op.input("Target")[0])
    return x is not None and t is not None and len(x.shape) > len(t.shape)


def _constant(block, ops):
    """Names the compiler could fold (``passes.fold``, by its own rule ``foldable``): made by a shape
    op, or by a foldable op reading only such names.  A superset of what it folds (it also checks
    single definitions, persistables and static shapes): a gradient in it is never consumed."""
    from ...registry import get_op  # noqa: PLC0415  (the registry imports the static package)
    const = set()
    for op in ops:
        if op.type in SHAPE_OPS or (all(n in const for n in op.input_arg_names) and foldable(get_op(op.type))):
            const.update(op.output_arg_names)
    return const


def owned_gradients(block, op):
    """Indices into ``op``'s (a ``train_update``) Grad list of gradients it may overwrite; empty
    with the ``consume_grads`` feature off."""
    if not enabled("consume_grads"):
        return frozenset()
    ops = block.ops
    try:
        at = next(i for i, o in enumerate(ops) if o is op)
    except StopIteration:
        return frozenset()
    readers, maker = {}, {}
    for i, o in enumerate(ops):
        for n in op_reads(o):
            readers[n] = readers.get(n, 0) + 1
        for n in o.output_arg_names:
            maker[n] = (i, o) if n not in maker else (-1, None)  # written twice: no single maker
    grads = op.input("Grad")
    const = _constant(block, ops[:at])
    owned = set()
    for k, n in enumerate(grads):
        i, made_by = maker.get(n, (-1, None))
        if (0 <= i < at and readers.get(n) == 1 and grads.count(n) == 1 and n not in const
                and not is_persistable(block, n) and _fresh(block, made_by, n)):
            owned.add(k)
    return frozenset(owned)
