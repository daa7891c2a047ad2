"""Arguments of a converted function: a returned argument is the caller's own object.

(Writes into list/dict arguments are carried out on the caller's containers after each run:
``execution/container_writes.py``.)
"""


def returned_inputs(concrete, tensors, outs):
    """`outs` with each output that is a fed input replaced by the caller's own Tensor: eager
    `return x` hands back the same object (an item write into it changes the caller's `x`)."""
    fed = {v.name: t for v, t in zip(concrete.inputs, tensors)}
    if not fed:
        return outs
    return [fed.get(v.name, o) for v, o in zip(concrete.outputs, outs)] + list(outs[len(concrete.outputs):])
