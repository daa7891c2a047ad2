"""One checker for the compatibility suite: a function converted with ``dy2st.to_static`` against
the same function run eagerly, on several inputs, in values (and dtypes) and, where asked, in
gradients of the inputs."""

import numpy as np
import pytest

import dy2st
import runtime as rt


def same(eager, static, rtol=1e-5, atol=1e-6, where="result"):
    """Assert two results (nested tuples/lists/dicts of Tensors and Python values) are equal."""
    if isinstance(eager, (tuple, list)):
        assert isinstance(static, (tuple, list)), f"{where}: eager {type(eager)}, static {type(static)}"
        assert len(eager) == len(static), f"{where}: eager has {len(eager)} items, static {len(static)}"
        for i, (a, b) in enumerate(zip(eager, static)):
            same(a, b, rtol, atol, f"{where}[{i}]")
        return
    if isinstance(eager, dict):
        assert isinstance(static, dict) and sorted(eager) == sorted(static), (where, eager, static)
        for k in eager:
            same(eager[k], static[k], rtol, atol, f"{where}[{k!r}]")
        return
    if rt.is_tensor(eager):
        assert rt.is_tensor(static), f"{where}: eager gave a Tensor, static {static!r}"
        assert str(static.dtype) == str(eager.dtype), f"{where}: dtype {static.dtype} != {eager.dtype}"
        a, b = np.asarray(eager.numpy()), np.asarray(static.numpy())
        assert a.shape == b.shape, f"{where}: shape {b.shape} != eager {a.shape}"
        np.testing.assert_allclose(b.astype("float64"), a.astype("float64"), rtol=rtol, atol=atol,
                                   err_msg=where)
        return
    if eager is None:
        assert static is None, f"{where}: eager None, static {static!r}"
        return
    if rt.is_tensor(static):
        # Paddle's to_static turns Python numbers computed under tensor control flow into Tensors.
        np.testing.assert_allclose(np.asarray(static.numpy(), "float64").reshape(-1),
                                   np.asarray(eager, "float64").reshape(-1), rtol=rtol, err_msg=where)
        return
    assert static == eager, f"{where}: static {static!r} != eager {eager!r}"


def _fresh(args, grad):
    out = []
    for a in args:
        if isinstance(a, np.ndarray):
            a = rt.to_tensor(a, stop_gradient=not (grad and a.dtype.kind == "f"))
        out.append(a)
    return out


def _outputs(res):
    if isinstance(res, (tuple, list)):
        return [t for r in res for t in _outputs(r)]
    if isinstance(res, dict):
        return [t for k in sorted(res) for t in _outputs(res[k])]
    return [res] if rt.is_tensor(res) and res.dtype in ("float32", "float64") else []


def _loss(res):
    outs = [o for o in _outputs(res) if not o.stop_gradient]
    assert outs, "no differentiable output to take gradients of"
    total = outs[0].sum()
    for o in outs[1:]:
        total = total + o.sum()
    return total


def check(fn, *arg_sets, grad=False, ops=(), programs=None, rtol=1e-5, atol=1e-6):
    """Run ``fn`` eagerly and converted on every argument tuple of ``arg_sets``; compare results.

    numpy arrays in an argument tuple become fresh Tensors for each run (with ``grad``, the float
    ones need gradients, and the gradients of the summed float outputs are compared too). ``ops``
    are op types the last Program must contain; ``programs`` the expected ``len(program_cache)``.
    Returns the StaticFunction.
    """
    sf = dy2st.to_static(fn)
    assert arg_sets, "check() needs at least one argument tuple"
    for args in arg_sets:
        args = tuple(args) if isinstance(args, (tuple, list)) else (args,)
        ea, sa = _fresh(args, grad), _fresh(args, grad)
        eager, static = fn(*ea), sf(*sa)
        same(eager, static, rtol, atol)
        if grad:
            _loss(eager).backward()
            _loss(static).backward()
            for i, (a, b) in enumerate(zip(ea, sa)):
                if rt.is_tensor(a) and not a.stop_gradient:
                    ga, gb = a.gradient(), b.gradient()
                    assert (ga is None) == (gb is None), f"grad of arg {i}: eager {ga}, static {gb}"
                    if ga is not None:
                        np.testing.assert_allclose(gb, ga, rtol=rtol, atol=atol,
                                                   err_msg=f"grad of arg {i}")
    if ops:
        prog = sf.program_cache.last().main_program
        types = {op.type for blk in prog.blocks for op in blk.ops}
        missing = [t for t in ops if t not in types]
        assert not missing, f"ops {missing} not in the Program ({sorted(types)})"
    if programs is not None:
        assert len(sf.program_cache) == programs
    return sf


def arr(*shape, seed=0, lo=-1.0, hi=1.0, dtype="float32"):
    """A reproducible random array."""
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


# `size` of a static Variable comes with another change.
HAS_VARIABLE_SIZE = isinstance(getattr(rt.static.Variable, "size", None), property)
needs_variable_size = pytest.mark.xfail(not HAS_VARIABLE_SIZE, strict=True, raises=AttributeError,
                                        reason="Variable.size: needs the size property of static Variables")


def pair(cls, *args):
    """Two copies of ``cls(*args)`` with the same weights (seed 7): one to run eagerly, one to convert."""
    rt.seed(7)
    eager, static = cls(*args), cls(*args)
    static.set_state_dict(eager.state_dict())
    return eager, static


def train_same(cls, batches, loss_fn, opt=lambda p: rt.optimizer.Adam(0.01, parameters=p)):
    """Train an eager and a converted copy of ``cls()`` on ``batches`` (``loss_fn(model, *tensors)``):
    the losses and the state dicts (parameters and buffers) must be bitwise equal. Returns (eager, converted)."""
    eager, static = pair(cls)
    runs = []
    for model, net in ((eager, eager), (static, dy2st.to_static(static))):
        rt.seed(1234)  # the same dropout masks
        o = opt(model.parameters())
        losses = []
        for b in batches:
            loss = loss_fn(net, *[rt.to_tensor(x) for x in b])
            loss.backward()
            o.step()
            o.clear_grad()
            losses.append(float(loss))
        runs.append(losses)
    assert runs[1] == runs[0]
    want, got = eager.state_dict(), static.state_dict()
    assert list(got) == list(want)
    for k in want:
        np.testing.assert_array_equal(got[k].numpy(), want[k].numpy(), err_msg=k)
    return eager, static
