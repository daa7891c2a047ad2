"""Shared checks of tests/runtime/test_layers_*.py: deterministic inputs (the ones the Paddle reference
values were computed on), a weighted-sum loss, eager vs converted (bitwise, gradients included),
central finite differences in float64, and an ONNX run against eager."""
import numpy as np

import dy2st
import runtime as rt


def inp(*shape, f=np.cos, k=0.7):
    """``f(arange * k)`` as float32 of ``shape``: the inputs the hard-coded Paddle values were computed on."""
    return f(np.arange(int(np.prod(shape)), dtype="float64") * k).astype("float32").reshape(shape)


def wgt(shape, dtype="float32"):
    """The loss weights: ``loss = sum(out * wgt(out.shape))``."""
    return np.sin(np.arange(int(np.prod(shape)), dtype="float64") * 1.3 + 0.5).astype(dtype).reshape(shape)


def run(fn, arrays):
    """(outputs as numpy, gradients of the loss on the float inputs) of ``fn`` on fresh Tensors."""
    ts = [rt.to_tensor(a, stop_gradient=a.dtype.kind != "f") for a in arrays]
    out = fn(*ts)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    (outs[0] * rt.to_tensor(wgt(outs[0].shape, str(outs[0].dtype)))).sum().backward()
    return [o.numpy() for o in outs], [t.grad.numpy() for t in ts if not t.stop_gradient]


def check_paddle(fn, arrays, want, want_grads, atol=2e-5, mask=None):
    """Outputs and gradients against Paddle's (flat lists, as hard-coded in the tests)."""
    outs, grads = run(fn, arrays)
    np.testing.assert_allclose(outs[0].ravel(), want, rtol=1e-5, atol=atol)
    if mask is not None:
        assert outs[1].dtype == np.int32
        np.testing.assert_array_equal(outs[1].ravel(), mask)
    assert len(grads) == len(want_grads)
    for g, w in zip(grads, want_grads):
        np.testing.assert_allclose(g.ravel(), w, rtol=1e-5, atol=atol)
    return outs


def check_converted(fn, arrays):
    """``dy2st.to_static(fn)`` gives bitwise the eager outputs and gradients (the same kernels run)."""
    eager = run(fn, arrays)
    static = run(dy2st.to_static(fn), arrays)
    for e, s in zip(eager[0] + eager[1], static[0] + static[1]):
        assert e.dtype == s.dtype and e.shape == s.shape
        np.testing.assert_array_equal(e, s)


def check_converted_layer(layer, args, loss=lambda out: out.sum()):
    """``layer`` (converted by ``dy2st.to_static``, which converts a Layer in place: calling it afterwards
    runs the Program) against the same layer run eagerly (``dy2st.enable_to_static(False)``): the output
    and the parameter gradients of ``loss(out)`` bitwise equal. Returns (converted output, eager output)."""
    def outputs_and_grads():
        out = layer(*args)
        loss(out).backward()
        grads = [p.grad.numpy().copy() for p in layer.parameters()]
        layer.clear_gradients()
        return out, grads

    out, grads = outputs_and_grads()
    dy2st.enable_to_static(False)
    try:
        eager, eager_grads = outputs_and_grads()
    finally:
        dy2st.enable_to_static(True)
    np.testing.assert_array_equal(out.numpy(), eager.numpy())
    assert len(grads) == len(eager_grads)
    for g, e in zip(grads, eager_grads):
        np.testing.assert_array_equal(g, e)
    return out, eager


def check_fd(fn, arrays, eps=1e-6, tol=1e-6):
    """Gradients of ``sum(fn(...)[0] * wgt)`` on float64 inputs against central differences."""
    arrays = [a.astype("float64") if a.dtype.kind == "f" else a for a in arrays]
    _, grads = run(fn, arrays)

    def loss(vals):
        out = fn(*[rt.to_tensor(v) for v in vals])
        out = out[0] if isinstance(out, (tuple, list)) else out
        return float((out.numpy() * wgt(out.shape, "float64")).sum())

    gi = 0
    for i, a in enumerate(arrays):
        if a.dtype.kind != "f":
            continue
        fd = np.zeros_like(a)
        for j in np.ndindex(*a.shape):
            vals = [v.copy() for v in arrays]
            vals[i][j] += eps
            up = loss(vals)
            vals[i][j] -= 2 * eps
            fd[j] = (up - loss(vals)) / (2 * eps)
        np.testing.assert_allclose(grads[gi], fd, rtol=tol, atol=tol)
        gi += 1


def check_onnx(fn, shapes, arrays):
    """The Program of ``fn`` on ``static.data`` inputs (a None batch dim), exported to ONNX and run by
    onnxruntime, against eager."""
    import pytest
    ort = pytest.importorskip("onnxruntime")
    from runtime.static.onnx.export import build_model
    main = rt.static.Program()
    with rt.static.program_guard(main):
        xs = [rt.static.data(f"x{i}", s, str(a.dtype)) for i, (s, a) in enumerate(zip(shapes, arrays))]
        y = fn(*xs)
        y = y[0] if isinstance(y, (tuple, list)) else y
    sess = ort.InferenceSession(build_model(main, [x.name for x in xs], [y.name]).SerializeToString(),
                                providers=["CPUExecutionProvider"])
    got = sess.run(None, {x.name: a for x, a in zip(xs, arrays)})[0]
    want = fn(*[rt.to_tensor(a) for a in arrays])
    want = want[0] if isinstance(want, (tuple, list)) else want
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5)
