"""``rt.summary`` and ``rt.flops``: Paddle's per-layer tables of a network run once on a sample input.

Both hook the layers, run the network on random inputs (or the given ``input``) without gradients
and in eval mode, and count as Paddle does: ``summary`` lists every layer that ran except
containers (Sequential, LayerList) and the network itself, with its own parameters; ``flops``
counts the leaf layers Paddle knows (convolutions, Linear, BatchNorm, pooling...), others as zero.
"""
import numbers
from collections import OrderedDict

import numpy as np

from ..nn import Layer, LayerList, Sequential
from ..ops.common import cast
from ..ops.creation import rand, randn
from ..static import InputSpec
from ..tensor import TensorLike, no_grad

__all__ = ["summary", "flops"]


def _paddle_parameters(layer, sublayers=False):
    """A layer's own parameters (with its sub-layers' when ``sublayers``), the running statistics of a
    batch norm among them, as Paddle counts them."""
    layers = layer.sublayers(include_self=True) if sublayers else [layer]
    return [v for m in layers for v in m._parameters.values() if v is not None]


def _numel(t):
    return int(np.prod(t.shape))


def _all_numbers(items):
    return all(isinstance(i, numbers.Number) for i in items)


def _shape_of_input(input):
    if isinstance(input, TensorLike):
        return tuple(input.shape)
    if isinstance(input, (list, tuple)):
        return [tuple(x.shape) for x in input]
    if isinstance(input, dict):
        return [tuple(x.shape) for x in input.values()]
    raise ValueError("Input is not tensor, list, tuple and dict, unable to determine input_size, "
                     "please input input_size.")


def _normalize_size(input_size):
    if isinstance(input_size, InputSpec):
        return tuple(input_size.shape)
    if isinstance(input_size, int):
        return (input_size,)
    if isinstance(input_size, list):
        out = []
        for item in input_size:
            item = (item,) if isinstance(item, int) else item
            if not isinstance(item, (tuple, InputSpec)):
                raise TypeError(f"When input_size is list, expect item in input_size is a tuple or InputSpec, "
                                f"but got {type(item)}")
            out.append(tuple(item.shape) if isinstance(item, InputSpec) else item)
        return out
    return input_size


def _check_shape(shape):
    """The batch dim (the only one allowed to be None or -1) becomes 1."""
    if isinstance(shape, (list, tuple)) and not any(isinstance(i, (list, tuple)) for i in shape):
        unknown, out = 0, []
        for item in shape:
            if item is None or item == -1:
                unknown += 1
                if unknown > 1:
                    raise ValueError("Option input_size only the dim of batch_size can be None or -1.")
                item = 1
            elif isinstance(item, numbers.Number) and item <= 0:
                raise ValueError(f"Expected element in input size greater than zero, but got {item}")
            out.append(item)
        return tuple(out)
    return [_check_shape(s) for s in shape]


def summary(net, input_size=None, dtypes=None, input=None):
    """Print Paddle's table of ``net`` (layer, input shape, output shape, parameter count) for inputs of
    ``input_size`` (a shape with the batch dim None/-1 allowed, or a list of shapes/InputSpecs) or the
    given ``input``; returns ``{'total_params': N, 'trainable_params': M}``."""
    if input_size is None and input is None:
        raise ValueError("input_size and input cannot be None at the same time")
    if input_size is None:
        input_size = _shape_of_input(input)
    size = _check_shape(_normalize_size(input_size))
    was_training = net.training
    net.eval()
    try:
        text, info = _summary_string(net, size, dtypes, input)
    finally:
        if was_training:
            net.train()
    print(text)
    return info


def _nested_dtypes(size, dtype):
    if isinstance(size, (list, tuple)) and _all_numbers(size):
        return [dtype or "float32"]
    return [_nested_dtypes(s, dtype) for s in size]


def _build_input(size, dtypes):
    if isinstance(size, (list, tuple)) and _all_numbers(size):
        return cast(rand(list(size)), dtypes[0] if isinstance(dtypes, (list, tuple)) else dtypes)
    return [_build_input(s, d) for s, d in zip(size, dtypes)]


def _shapes(x):
    if isinstance(x, (list, tuple)):
        return [_shapes(v) for v in x]
    return list(x.shape) if hasattr(x, "shape") else []


@no_grad()
def _summary_string(model, input_size, dtypes, input):
    if not isinstance(dtypes, (list, tuple)):
        dtypes = _nested_dtypes(input_size, dtypes)
    depth = len(model.sublayers())
    rows, hooks = OrderedDict(), []

    def hook(layer, inputs, output):
        try:
            idx = int(layer._full_name.split("_")[-1])
        except ValueError:
            idx = len(rows)
        row = rows[f"{type(layer).__name__}-{idx + 1}"] = {"input_shape": _shapes(inputs),
                                                           "output_shape": _shapes(output)}
        params = _paddle_parameters(layer)
        row["nb_params"] = sum(_numel(v) for v in params)
        row["trainable_params"] = sum(_numel(v) for v in params if getattr(v, "trainable", False) and not v.stop_gradient)

    def register(layer):
        if not isinstance(layer, (Sequential, LayerList)) and (layer is not model or depth < 1):
            hooks.append(layer.register_forward_post_hook(hook))

    if isinstance(input_size, tuple):
        input_size = [input_size]
    model.apply(register)
    try:
        if input is not None:
            model(input)
        else:
            model(*_build_input(input_size, dtypes))
    finally:
        for h in hooks:
            h.remove()
    return _table(rows, input_size)


def _table(rows, input_size):
    w = {"layer": 15, "in": 20, "out": 20, "params": 15}
    for name, r in rows.items():
        w["layer"] = max(w["layer"], len(name))
        w["in"] = max(w["in"], len(str(r["input_shape"])))
        w["out"] = max(w["out"], len(str(r["output_shape"])))
        w["params"] = max(w["params"], len(str(r["nb_params"])))
    width = max(75, sum(w.values()) + 5)

    def line(*cols):
        return " ".join(f"{c:^{n}}" for c, n in zip(cols, w.values())) + "\n"

    text = "-" * width + "\n" + line("Layer (type)", "Input Shape", "Output Shape", "Param #") + "=" * width + "\n"
    total = trainable = total_output = 0
    for name, r in rows.items():
        text += line(name, str(r["input_shape"]), str(r["output_shape"]), f"{r['nb_params']:,}")
        total += r["nb_params"]
        trainable += r["trainable_params"]
        out = r["output_shape"]
        outs = out if out and isinstance(out[0], list) else [out]
        total_output += sum(int(np.prod(o)) for o in outs if o and not isinstance(o[0], list))

    def mb(size):
        if isinstance(size, (list, tuple)) and _all_numbers(size):
            return abs(np.prod(size) * 4.0 / 1024 ** 2)
        return sum(mb(s) for s in size)

    in_mb, out_mb, params_mb = mb(input_size), abs(2.0 * total_output * 4.0 / 1024 ** 2), abs(total * 4.0 / 1024 ** 2)
    text += "=" * width + "\n"
    text += f"Total params: {total:,}\nTrainable params: {trainable:,}\nNon-trainable params: {total - trainable:,}\n"
    text += "-" * width + "\n"
    text += (f"Input size (MB): {in_mb:0.2f}\nForward/backward pass size (MB): {out_mb:0.2f}\n"
             f"Params size (MB): {params_mb:0.2f}\nEstimated Total Size (MB): {in_mb + out_mb + params_mb:0.2f}\n")
    text += "-" * width + "\n"
    return text, {"total_params": total, "trainable_params": trainable}


# -- flops ----------------------------------------------------------------------------------------------

def _conv_ops(m, x, y):
    kernel = int(np.prod(m.weight.shape[2:]))
    return abs(int(_numel(y) * (x[0].shape[1] / m._groups * kernel + (1 if m.bias is not None else 0))))


def _adaptive_avg_ops(m, x, y):
    kernel = np.array(x[0].shape[2:]) // np.array(y.shape[2:])
    return abs(int((int(np.prod(kernel)) + 1) * _numel(y)))


_COUNTERS = {
    **dict.fromkeys(("Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose"),
                    _conv_ops),
    **dict.fromkeys(("BatchNorm2D", "BatchNorm"), lambda m, x, y: 2 * _numel(x[0])),
    **dict.fromkeys(("ReLU", "ReLU6", "Dropout"), lambda m, x, y: 0),
    "LeakyReLU": lambda m, x, y: _numel(x[0]),
    "Linear": lambda m, x, y: abs(int(m.weight.shape[0] * _numel(y))),
    **dict.fromkeys(("AvgPool1D", "AvgPool2D", "AvgPool3D"), lambda m, x, y: _numel(y)),
    **dict.fromkeys(("AdaptiveAvgPool1D", "AdaptiveAvgPool2D", "AdaptiveAvgPool3D"), _adaptive_avg_ops),
}


def _counter(layer_type, custom_ops):
    from .. import nn  # noqa: PLC0415  (the layer classes, by Paddle's names)
    if layer_type in custom_ops:
        return custom_ops[layer_type], "custom"
    for name, fn in _COUNTERS.items():
        if getattr(nn, name, None) is layer_type:  # the exact class, as Paddle's table is keyed
            return fn, "known"
    return None, None


def flops(net, input_size, custom_ops=None, print_detail=False):
    """The floating-point operations of one forward pass of ``net`` on a random input of ``input_size``
    (Paddle's ``paddle.flops``), counted per leaf layer; ``custom_ops`` maps a Layer class to
    ``fn(layer, inputs, output) -> ops`` (Paddle's hooks add to ``layer.total_ops``; here they return
    the count).  Prints the totals (and the per-layer table with ``print_detail``)."""
    if not isinstance(net, Layer):
        raise TypeError(f"flops: net must be an rt.nn.Layer, got {type(net).__name__}")
    custom_ops, seen, found, hooks = custom_ops or {}, set(), {}, []

    def add_hooks(m):
        if list(m.children()):
            return
        fn, kind = _counter(type(m), custom_ops)
        if type(m) not in seen:
            print(f"Customize Function has been applied to {type(m)}" if kind == "custom" else
                  f"{type(m)}'s flops has been counted" if kind else
                  f"Cannot find suitable count function for {type(m)}. Treat it as zero FLOPs.")
            seen.add(type(m))

        def hook(layer, inputs, output):
            out = output[0] if isinstance(output, (list, tuple)) else output
            ops = int(fn(layer, inputs, output) or 0) if fn is not None else 0
            found[id(layer)] = (list(inputs[0].shape), list(out.shape), sum(_numel(p) for p in _paddle_parameters(layer, True)),
                                ops)
        hooks.append(m.register_forward_post_hook(hook))

    training = net.training
    net.eval()
    net.apply(add_hooks)
    try:
        with no_grad():
            net(randn(list(input_size)))
    finally:
        for h in hooks:
            h.remove()
        if training:
            net.train()
    rows = [[m.full_name(), *found[id(m)]] for _, m in net.named_sublayers() if id(m) in found]
    if id(net) in found:  # a network without sublayers is its own leaf
        rows.insert(0, [net.full_name(), *found[id(net)]])
    total_ops, total_params = sum(r[4] for r in rows), sum(r[3] for r in rows)
    if print_detail:
        _print_table(["Layer Name", "Input Shape", "Output Shape", "Params", "Flops"], rows)
    print(f"Total Flops: {total_ops}     Total Params: {total_params}")
    return total_ops


def _print_table(heads, rows):
    widths = [max(len(str(r[i])) for r in [heads, *rows]) for i in range(len(heads))]
    shelf = "".join("+" + "-" * (n + 2) for n in widths) + "+"
    print(shelf)
    print("".join("|" + str(h).center(n + 2) for h, n in zip(heads, widths)) + "|")
    print(shelf)
    for r in rows:
        print("".join("|" + str(c).center(n + 2) for c, n in zip(r, widths)) + "|")
    print(shelf)
