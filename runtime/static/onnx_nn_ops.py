"""ONNX mappings of the neural-network ops (conv2d, pooling, batch/layer norm, dropout, embedding...).

Entries of the one exporter table, ``onnx_ops.OPS`` (see there for the ``fn(ex, op)``
contract); ``onnx_export`` imports this module so they are registered.  Only
inference semantics are mapped: batch_norm and dropout in training mode raise
``NotImplementedError`` (export the model traced in ``eval()`` mode).
"""
import numpy as np

from .onnx_ops import ints, onnx_dtype, op_mapping


def _onnx_pads(p):  # runtime [top, bottom, left, right] -> ONNX [top, left, bottom, right]
    return [int(p[0]), int(p[2]), int(p[1]), int(p[3])]


@op_mapping("conv2d")
def _conv2d(ex, op):
    a = op.attrs
    xs, ws = ex.var("Input").shape, ex.var("Filter").shape
    pads = list(a.get("paddings", [0, 0, 0, 0]))
    algo = a.get("padding_algorithm", "EXPLICIT")
    extra = {}
    if algo == "VALID":
        pads = [0, 0, 0, 0]
    elif algo == "SAME":
        if min(xs[2:]) < 0:
            extra["auto_pad"] = "SAME_UPPER"  # Paddle puts the odd pixel at the end, as SAME_UPPER does
        else:
            pads = []
            for size, k, s, d in zip(xs[2:], ws[2:], a["strides"], a["dilations"]):
                total = max((-(-size // s) - 1) * s + d * (k - 1) + 1 - size, 0)
                pads += [total // 2, total - total // 2]
    if not extra:
        extra["pads"] = _onnx_pads(pads)
    ex.node("Conv", [ex.i("Input"), ex.i("Filter")], ex.o("Output"), strides=list(a.get("strides", [1, 1])),
            dilations=list(a.get("dilations", [1, 1])), group=int(a.get("groups", 1)),
            kernel_shape=[int(k) for k in ws[2:]], **extra)


@op_mapping("max_pool2d", "avg_pool2d")
def _pool(ex, op):
    a = op.attrs
    extra = {} if op.type == "max_pool2d" else {"count_include_pad": 0 if a.get("exclusive", True) else 1}
    ex.node("MaxPool" if op.type == "max_pool2d" else "AveragePool", [ex.i("X")], ex.o("Out"),
            kernel_shape=list(a["ksize"]), strides=list(a["strides"]), pads=_onnx_pads(a["paddings"]),
            ceil_mode=int(bool(a.get("ceil_mode"))), **extra)


@op_mapping("batch_norm")
def _batch_norm(ex, op):
    a = op.attrs
    if not (a.get("is_test") or a.get("use_global_stats")):
        raise NotImplementedError("ONNX export: batch_norm in training mode (batch statistics); export the "
                                  "model traced in eval() mode")
    x, rank = ex.i("X"), ex.var("X").ndim
    nhwc = a.get("data_layout", "NCHW") in ("NHWC", "NLC", "NDHWC") and rank > 2
    if nhwc:
        x = ex.node("Transpose", [x], perm=[0, rank - 1] + list(range(1, rank - 1)))
    y = ex.node("BatchNormalization", [x, ex.i("Scale"), ex.i("Bias"), ex.i("Mean"), ex.i("Variance")],
                epsilon=float(a.get("epsilon", 1e-5)))
    if nhwc:
        y = ex.node("Transpose", [y], perm=[0] + list(range(2, rank)) + [1])
    ex.node("Identity", [y], ex.o("Y"))
    for slot, src in (("MeanOut", "Mean"), ("VarianceOut", "Variance"), ("SavedMean", "Mean")):
        if ex.has_out(slot):  # eval mode: the running statistics pass through unchanged
            ex.node("Identity", [ex.i(src)], ex.o(slot))


@op_mapping("layer_norm")
def _layer_norm(ex, op):
    x, xv = ex.i("X"), ex.var("X")
    axis = int(op.attrs.get("begin_norm_axis", 1))
    norm = xv.shape[axis:]
    args = [x]
    for slot, fill in (("Scale", 1.0), ("Bias", 0.0)):
        name = ex.i(slot)
        if name is None:
            if min(norm) < 0:
                raise NotImplementedError("ONNX export: layer_norm without weight over unknown dims")
            name = ex.const(np.full(norm, fill, dtype=xv.dtype))
        elif ex.var(slot).shape != norm:
            name = ex.node("Reshape", [name, ex.node("Shape", [x], start=axis)])
        args.append(name)
    outs = [ex.o("Y"), ex.o("Mean"), ex.o("InvStd")]
    ex.node("LayerNormalization", args, outs, axis=axis, epsilon=float(op.attrs.get("epsilon", 1e-5)))


@op_mapping("dropout")
def _dropout(ex, op):
    a = op.attrs
    if not a.get("is_test"):
        raise NotImplementedError("ONNX export: dropout in training mode; export the model traced in eval() mode")
    x = ex.i("X")
    if a.get("mode", "upscale_in_train") != "upscale_in_train":
        x = ex.node("Mul", [x, ex.const(1.0 - a.get("dropout_prob", 0.5), ex.var("X").dtype)])
    ex.node("Identity", [x], ex.o("Out"))


@op_mapping("embedding")
def _embedding(ex, op):
    ids, pad = ex.i("Ids"), int(op.attrs.get("padding_idx", -1))
    out = ex.node("Gather", [ex.i("W"), ids], axis=0)
    if pad >= 0:  # rows looked up at padding_idx read as zeros
        keep = ex.node("Not", [ex.node("Equal", [ids, ex.const(pad, ex.var("Ids").dtype)])])
        keep = ex.node("Unsqueeze", [ex.node("Cast", [keep], to=onnx_dtype(ex.var("W").dtype)), ints(ex, [-1])])
        out = ex.node("Mul", [out, keep])
    ex.node("Identity", [out], ex.o("Out"))


@op_mapping("one_hot")
def _one_hot(ex, op):
    depth = ex.const(np.int64(op.attrs.get("num_classes", 1)))
    ex.node("OneHot", [ex.i("X"), depth, ex.const(np.asarray([0, 1], np.float32))], ex.o("Out"), axis=-1)


@op_mapping("top_k")
def _top_k(ex, op):
    a = op.attrs
    ex.node("TopK", [ex.i("X"), ints(ex, [a.get("k", 1)])], [ex.o("Out"), ex.o("Indices")],
            axis=int(a.get("axis", -1)), largest=int(bool(a.get("largest", True))),
            sorted=int(bool(a.get("sorted", True))))
