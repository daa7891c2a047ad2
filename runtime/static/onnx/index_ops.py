"""ONNX lowerings of sorting, scatter-adds, nonzero, bit ops and ``reduce_as``.

Registered in ``ops.LOWERINGS`` under the names the op declarations give
(``onnx="argsort"``...); see ``ops`` for the ``fn(ex, op)`` contract.
"""
import numpy as np
from onnx import TensorProto, helper

from .lowering import ints, lowering, onnx_dtype, reduce

_BITWISE = {"bitwise_and": "And", "bitwise_or": "Or", "bitwise_xor": "Xor", "bitwise_not": "Not"}


@lowering("bitwise")
def _bitwise(ex, op):
    """Bool tensors: the logical node (as the kernel, numpy's bitwise op on bools); ints: Bitwise* (opset 18),
    before 18 ``~x`` as ``-x - 1`` and and/or/xor bit by bit."""
    name = _BITWISE[op.type]
    ins = [ex.i("X")] + ([] if op.type == "bitwise_not" else [ex.i("Y")])
    dtype = ex.var("X").dtype
    if dtype == "bool":
        ex.node(name, ins, ex.o("Out"))
        return
    if ex.opset < 18 and op.type == "bitwise_not":  # two's complement: ~x == -x - 1; unsigned: max - x
        x, work = ins[0], dtype
        if np.dtype(dtype).itemsize < 4:  # 8/16-bit Sub arrives at opset 14: work in int32, no overflow there
            x, work = ex.cast(x, dtype, "int32"), "int32"
        if dtype.startswith("u"):
            out = ex.node("Sub", [ex.const(np.iinfo(dtype).max, work), x])
        else:
            out = ex.node("Sub", [ex.node("Neg", [x]), ex.const(1, work)])
        ex.node("Identity", [ex.cast(out, work, dtype)], ex.o("Out"))
        return
    if ex.opset < 18:
        _bitwise_by_bits(ex, op.type, ins, dtype, ex.o("Out"))
        return
    ex.node("Bitwise" + name, ins, ex.o("Out"))


def _bitwise_by_bits(ex, type_, ins, dtype, out):
    """and/or/xor of integers before opset 18 (no Bitwise* ops): a Loop over the bits of the values
    seen as uint64 (a cast keeps the two's complement pattern, and the cast back keeps the low bits)::

        acc = 0; p = 1
        repeat bits(dtype) times: a, b = a % 2, b % 2 combined (a*b, a+b-a*b, (a+b)%2) * p into acc;
                                  a, b = a // 2, b // 2; p = p * 2
    """
    u64 = onnx_dtype("uint64")
    a, b = (ex.node("Cast", [n], to=u64) for n in ins)
    two, zero = ex.const(np.uint64(2)), ex.const(np.uint64(0))
    acc0 = ex.node("Mul", [ex.node("Add", [a, b]), zero])  # zeros of the broadcast shape
    names = {k: ex.fresh(f"bits_{k}") for k in ("i", "c", "a", "b", "acc", "p", "c_out", "a_out", "b_out",
                                                 "acc_out", "p_out", "ba", "bb", "ab", "sum", "bit", "w")}
    n = names
    body = [helper.make_node("Mod", [n["a"], two], [n["ba"]], fmod=0),
            helper.make_node("Mod", [n["b"], two], [n["bb"]], fmod=0),
            helper.make_node("Mul", [n["ba"], n["bb"]], [n["ab"]]),
            helper.make_node("Add", [n["ba"], n["bb"]], [n["sum"]])]
    if type_ == "bitwise_and":
        body.append(helper.make_node("Identity", [n["ab"]], [n["bit"]]))
    elif type_ == "bitwise_or":
        body.append(helper.make_node("Sub", [n["sum"], n["ab"]], [n["bit"]]))
    else:
        body.append(helper.make_node("Mod", [n["sum"], two], [n["bit"]], fmod=0))
    body += [helper.make_node("Mul", [n["bit"], n["p"]], [n["w"]]),
             helper.make_node("Add", [n["acc"], n["w"]], [n["acc_out"]]),
             helper.make_node("Div", [n["a"], two], [n["a_out"]]),
             helper.make_node("Div", [n["b"], two], [n["b_out"]]),
             helper.make_node("Mul", [n["p"], two], [n["p_out"]]),
             helper.make_node("Identity", [n["c"]], [n["c_out"]])]

    def info(key, elem=u64, shape=None):
        return helper.make_tensor_value_info(n[key], elem, shape)
    graph = helper.make_graph(body, n["i"] + "_body",
                              [info("i", TensorProto.INT64, []), info("c", TensorProto.BOOL, []), info("a"), info("b"),
                               info("acc"), info("p")],
                              [info("c_out", TensorProto.BOOL), info("a_out"), info("b_out"), info("acc_out"),
                               info("p_out")])
    trips = ex.const(np.int64(np.dtype(dtype).itemsize * 8))
    outs = [ex.fresh("bits") for _ in range(4)]
    ex.node("Loop", [trips, "", a, b, acc0, ex.const(np.uint64(1))], outs, body=graph)
    ex.node("Cast", [outs[2]], out, to=onnx_dtype(dtype))


@lowering("argsort")
def _argsort(ex, op):
    """TopK over the whole axis: ONNX breaks ties by the lower index, as the kernel's stable sort does."""
    x, xv = ex.i("X"), ex.var("X")
    if xv.ndim == 0:
        ex.node("Identity", [x], ex.o("Out"))
        ex.node("Identity", [ex.const(np.zeros((), np.int64))], ex.o("Indices"))
        return
    axis = int(op.attrs.get("axis", -1)) % xv.ndim
    dim = xv.shape[axis]
    k = ints(ex, [dim]) if dim >= 0 else ex.node("Slice", [ex.node("Shape", [x]), ints(ex, [axis]),
                                                           ints(ex, [axis + 1])])
    ex.node("TopK", [x, k], [ex.o("Out"), ex.o("Indices")], axis=axis,
            largest=int(bool(op.attrs.get("descending", False))), sorted=1)


@lowering("scatter_add")
def _scatter_add(ex, op):
    """ScatterElements with reduction="add" (repeated indices accumulate, like np.add.at)."""
    x, xv = ex.i("X"), ex.var("X")
    axis = int(op.attrs.get("axis", 0)) % max(xv.ndim, 1)
    index, updates = ex.i("Index"), ex.i("Updates")
    if op.type == "index_add":  # one index per slice along axis: spread it over the updates' shape
        shape = [1] * xv.ndim
        shape[axis] = -1
        index = ex.node("Expand", [ex.node("Reshape", [index, ints(ex, shape)]), ex.node("Shape", [updates])])
    if ex.opset >= 16:
        ex.node("ScatterElements", [x, index, updates], ex.o("Out"), axis=axis, reduction="add")
        return
    # Before opset 16 (no reduction="add"): one-hot the indices along a new last axis, weight them by the
    # updates, sum over the scattered axis and move the new axis there; pad up to x's shape and add.
    rank, dt = xv.ndim, xv.dtype
    depth = ex.node("Gather", [ex.node("Shape", [x]), ex.const(np.int64(axis))])
    hot = ex.node("OneHot", [index, depth, ex.const(np.asarray([0, 1], dtype=dt))], axis=-1)
    spread = ex.node("Mul", [hot, ex.node("Unsqueeze", [updates, ints(ex, [-1])])])
    summed = ex.node("Squeeze", [reduce(ex, "ReduceSum", spread, [axis], True), ints(ex, [axis])])
    perm = list(range(axis)) + [rank - 1] + list(range(axis, rank - 1))
    if perm != list(range(rank)):
        summed = ex.node("Transpose", [summed], perm=perm)
    short = ex.node("Sub", [ex.node("Shape", [x]), ex.node("Shape", [summed])])
    pads = ex.node("Concat", [ints(ex, [0] * rank), short], axis=0)
    ex.node("Add", [x, ex.node("Pad", [summed, pads])], ex.o("Out"))


@lowering("nonzero")
def _nonzero(ex, op):
    ex.node("Transpose", [ex.node("NonZero", [ex.i("X")])], ex.o("Out"), perm=[1, 0])


@lowering("reduce_as")
def _reduce_as(ex, op):
    """Sum over the leading dims and the Target dims of size 1, then take Target's shape."""
    xs, ts = ex.var("X").shape, ex.var("Target").shape
    nlead = len(xs) - len(ts)
    unknown = [i for i, d in enumerate(ts) if d < 0 and xs[i + nlead] != 1]
    if unknown:
        raise NotImplementedError(f"ONNX export: reduce_as to a shape with unknown dims {list(ts)} "
                                  f"(from {list(xs)}): whether to sum them is decided at run time")
    axes = list(range(nlead)) + [i + nlead for i, d in enumerate(ts) if d == 1]
    out = ex.i("X")
    if axes:
        out = reduce(ex, "ReduceSum", out, axes, True)
    ex.node("Reshape", [out, ex.node("Shape", [ex.i("Target")])], ex.o("Out"))


def _array_index(ex):
    """The op's item index ``I`` as a 0-d int64 ONNX value."""
    return ex.node("Reshape", [ex.cast(ex.i("I"), ex.var("I").dtype, "int64"), ints(ex, [])])


@lowering("array_read")
def _array_read(ex, op):
    """Gather takes Python-style negative indices and fails on one out of range, as the kernel does."""
    ex.node("Gather", [ex.i("Array"), _array_index(ex)], ex.o("Out"), axis=0)


@lowering("array_write")
def _array_write(ex, op):
    """One Gather from the array with ``X`` appended as row ``n``: row ``i`` reads ``n``. An index
    past either end asks for row ``n + 1``, which does not exist, so onnxruntime fails as the
    kernel does instead of writing somewhere else."""
    arr, i = ex.i("Array"), _array_index(ex)
    n = ex.node("Gather", [ex.node("Shape", [arr]), ex.const(np.int64(0))])
    zero, one = ex.const(np.int64(0)), ex.const(np.int64(1))
    n1 = ex.node("Add", [n, one])
    i = ex.node("Where", [ex.node("Less", [i, zero]), ex.node("Add", [i, n]), i])
    i = ex.node("Where", [ex.node("Or", [ex.node("Less", [i, zero]), ex.node("Greater", [i, n])]),
                          ex.node("Add", [n1, one]), i])  # out of range: a row past the end
    end = ex.node("Add", [i, one])
    rows = ex.node("Range", [zero, ex.node("Where", [ex.node("Greater", [end, n]), end, n]), one])  # int Max: opset 12
    rows = ex.node("Where", [ex.node("Equal", [rows, i]), n, rows])
    both = ex.node("Concat", [arr, ex.node("Unsqueeze", [ex.i("X"), ints(ex, [0])])], axis=0)
    ex.node("Gather", [both, rows], ex.o("Out"), axis=0)
