"""``Tensor.register_hook`` (the Paddle tensor-hook test): a hook on a computed tensor, an input or a
tensor made in a branch or a loop body changes the gradient that flows on, eagerly and in converted
code (where the hook becomes ops of the Program's backward), with Paddle's values; ``remove()``
unregisters it, and ``rt.grad`` runs computed tensors' hooks but not the inputs' (as Paddle's)."""
import warnings

import numpy as np
import pytest

import dy2st
import runtime as rt


def _double(g):
    return 2 * g


def _three_hooks(x):
    y = x + 4
    f = y + x
    z = f ** 2
    y.register_hook(_double)
    f.register_hook(_double)
    x.register_hook(_double)
    return z


def _branch_hooks(x):
    if x > 1:
        y = x + 4
        z = y ** 2
        y.register_hook(lambda g: 2 * g)
    else:
        y = x - 4
        z = y ** 3
        y.register_hook(lambda g: 3 * g)
    return z


def _reassigned(x):
    y = x + 4
    x = y * 5
    z = x ** 2
    x.register_hook(_double)
    return z


def _loop_hooks(x, n):
    i = 0
    y = x
    while i < n:
        y = y * 2
        y.register_hook(lambda g: g * 3)
        i += 1
    return y.sum()


def _grads(fn, v, *extra):
    x = rt.to_tensor(v, stop_gradient=False)
    out = fn(x, *extra)
    out.sum().backward()
    return out.numpy(), x.grad.numpy()


@pytest.mark.parametrize("fn", [_three_hooks, _branch_hooks, _reassigned])
def test_hooks_eager_and_converted(fn):
    sf = dy2st.to_static(fn)
    for v in ([2.0], [0.5], [-3.0]):
        e, s = _grads(fn, v), _grads(sf, v)
        np.testing.assert_array_equal(e[0], s[0])
        np.testing.assert_array_equal(e[1], s[1])
    assert _grads(_three_hooks, [2.0])[1].tolist() == [192.0]  # Paddle's value


def test_hooks_in_a_loop_body():
    sf = dy2st.to_static(_loop_hooks)
    for n in (1, 2, 3):
        e, s = _grads(_loop_hooks, [1.0, 2.0], rt.to_tensor(n)), _grads(sf, [1.0, 2.0], rt.to_tensor(n))
        np.testing.assert_array_equal(e[1], s[1])
        assert e[1].tolist() == [6.0 ** n] * 2


def test_input_hook_remove_and_refusal():
    sf = dy2st.to_static(lambda x: (x * x).sum())
    x = rt.to_tensor([1.0, 2.0], stop_gradient=False)
    handle = x.register_hook(lambda g: g + 1)
    sf(x).backward()
    assert x.grad.numpy().tolist() == [3.0, 5.0]
    assert handle.remove() and not handle.remove()
    x.clear_grad()
    sf(x).backward()
    assert x.grad.numpy().tolist() == [2.0, 4.0]
    with pytest.raises(RuntimeError, match="stop_gradient"):
        rt.ones([2]).register_hook(_double)


def test_grad_runs_computed_tensors_hooks_only():
    x = rt.to_tensor([2.0, 3.0], stop_gradient=False)
    x.register_hook(lambda g: g * 100)
    y = x * 3
    y.register_hook(lambda g: g * 10)
    g, = rt.grad((y * y).sum(), x)
    assert g.numpy().tolist() == [360.0, 540.0]  # Paddle's: the leaf's hook is not run by grad


class _Net(rt.nn.Layer):
    def __init__(self, in_forward):
        super().__init__()
        self.fc = rt.nn.Linear(3, 2)
        self.in_forward = in_forward
        if not in_forward:
            self.fc.weight.register_hook(_double)

    def forward(self, x):
        if self.in_forward:
            self.fc.weight.register_hook(_double)
        return self.fc(x)


@pytest.mark.parametrize("in_forward", [False, True])
def test_parameter_hooks(in_forward):
    """A hook registered in forward: eagerly one more at every call (the gradient doubles once more
    per call); the converted call registers it again at every run of the cached Program too."""
    x = rt.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    grads = []
    for convert in (False, True):
        rt.seed(1)
        net = dy2st.to_static(_Net(in_forward)) if convert else _Net(in_forward)
        got = []
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for _ in range(3):
                net.clear_gradients()
                net(x).sum().backward()
                got.append(net.fc.weight.grad.numpy().copy())
        grads.append(got)
    for eager, converted in zip(*grads):
        np.testing.assert_array_equal(eager, converted)
    assert np.abs(grads[0][2]).sum() == (4 if in_forward else 1) * np.abs(grads[0][0]).sum()


class _HookedNet(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(3, 2)

    def forward(self, x):
        y = self.fc(x)
        y.register_hook(_double)
        return y * 2


def test_saving_a_program_with_hooks_warns_they_are_not_saved(tmp_path):
    net = dy2st.to_static(_HookedNet())
    with pytest.warns(UserWarning, match="register_hook.*not saved"):
        dy2st.save(net, str(tmp_path / "m"), input_spec=[dy2st.InputSpec([None, 3])])
    x = rt.ones([2, 3])
    np.testing.assert_array_equal(dy2st.load(str(tmp_path / "m"))(x).numpy(), net(x).numpy())
