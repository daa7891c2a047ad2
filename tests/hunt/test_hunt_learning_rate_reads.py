"""`opt.get_lr()` and `scheduler()` in converted code are Python floats eagerly, read at every call;
the trace baked in the rate of the one call that built the Program (a printed or used rate stayed
stale after `scheduler.step()` or `opt.set_lr()`). They are a `learning_rate` op now, read when the
Program runs and marked as Python floats (the tensor's dtype wins, `min` and `if` work).
`opt.set_lr(v)` in converted code ran once per Python value `v` too: it is an op as well."""
import numpy as np

import dy2st
import runtime as rt


def _setup():
    net = rt.nn.Linear(2, 2)
    sched = rt.optimizer.lr.StepDecay(learning_rate=0.1, step_size=1, gamma=0.5)
    return sched, rt.optimizer.SGD(learning_rate=sched, parameters=net.parameters()), \
        rt.optimizer.SGD(learning_rate=0.3, parameters=net.parameters())


def test_rates_are_read_at_every_call(capsys):
    sched, opt, fixed = _setup()

    def uses(x):
        lr = opt.get_lr()
        print(f"lr={lr:.4f}", sched())
        if lr < 0.07:
            x = x * 2
        return x * min(lr, 0.06) + fixed.get_lr()

    sf = dy2st.to_static(uses)
    for value in (0.3, 0.7, 0.7):
        fixed.set_lr(value)
        for dtype in ("float16", "float32", "float64"):
            x = rt.to_tensor(np.array([1.0, -3.0], dtype), stop_gradient=False)
            want, got = uses(x), sf(x)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got.numpy(), want.numpy())
        sched.step()
    printed = capsys.readouterr().out.splitlines()
    assert printed[0::2] == printed[1::2]  # eager and converted print the same lines
    assert printed[-1] == "lr=0.0250 0.025"
    assert len(sf.program_cache) == 3  # one per dtype: the rates are not part of any key


def test_set_lr_in_converted_code_sets_the_rate_at_every_call():
    _, _, fixed = _setup()

    def sets(x, v):
        fixed.set_lr(v)
        return x * fixed.get_lr()

    sf = dy2st.to_static(sets)
    x = rt.ones([2])
    for outside in (0.5, 0.9):
        fixed.set_lr(outside)  # changed between calls: the call sets it back, as eagerly
        np.testing.assert_array_equal(sf(x, 0.25).numpy(), [0.25, 0.25])
        assert fixed.get_lr() == 0.25
    assert len(sf.program_cache) == 1
