"""Paddle's container test patterns, continued from test_return_containers.py (test_dict.py,
test_partial_program.py): dicts written in a Layer's forward, in tensor branches and through
pop/get/update, a dict argument written into, namedtuples in and out, and object attributes
written in both branches of a tensor ``if``."""
import numpy as np
import dy2st

import runtime as rt
from runtime import nn


from .helpers import arr, check

F3 = [arr(3, seed=s) for s in (0, 1)] + [arr(3, lo=1, hi=2)]


# --- dicts ----------------------------------------------------------------------------------

class Cache(nn.Layer):
    """A decoder step with a per-layer k/v cache in a dict, as Paddle's test_dict does; the new
    cache is a new dict (under to_static the Program cannot change the caller's dict)."""

    def __init__(self):
        super().__init__()
        self.q = nn.Linear(4, 4)
        self.k = nn.Linear(4, 4)

    def forward(self, x, cache=None):
        q, k = self.q(x), self.k(x)
        if cache is not None:
            k = rt.concat([cache["k"], k], axis=1)
            cache = {"k": k}
        w = rt.matmul(q, k.transpose([0, 2, 1]))
        return w, cache


def test_dict_cache_updated_in_forward():
    import dy2st
    rt.seed(0)
    net = Cache()
    sf = dy2st.to_static(Cache())
    sf.set_state_dict(net.state_dict())
    x = arr(2, 1, 4)
    ce = {"k": rt.to_tensor(arr(2, 2, 4, seed=5))}
    cs = {"k": rt.to_tensor(arr(2, 2, 4, seed=5))}
    for step in range(3):
        we, ce = net(rt.to_tensor(x), ce)
        ws, cs = sf(rt.to_tensor(x), cs)
        np.testing.assert_allclose(ws.numpy(), we.numpy(), rtol=1e-5)
        np.testing.assert_allclose(cs["k"].numpy(), ce["k"].numpy(), rtol=1e-5)
    w0, _ = sf(rt.to_tensor(x))
    np.testing.assert_allclose(w0.numpy(), net(rt.to_tensor(x))[0].numpy(), rtol=1e-5)


def writes_into_its_dict_argument(x, cache):
    cache["k"] = x * 2
    return x


def test_writing_into_a_dict_argument_reaches_the_caller():
    cache = {"k": None}
    dy2st.to_static(writes_into_its_dict_argument)(rt.to_tensor(F3[0]), cache)
    np.testing.assert_array_equal(cache["k"].numpy(), F3[0] * 2)


def dict_pop(x):
    d = {"a": x, "b": x + 1, "c": x * 2}
    a = d.pop("a")
    z = d.pop("zz", None)
    e = d.pop("e", x - 1)
    return a, z, e, d


def dict_in_tensor_if(x):
    res = {"a": 1, "t": x}
    if x.sum() > 4:
        res["a"] = 2
        res["t"] = x * 2
    else:
        res["a"] = 3
        res["t"] = x - 1
    return res


def dict_get_update(x):
    d = {"x": x}
    d.update({"y": x + 1})
    s = d.get("y") + d.get("missing", x)
    for k in sorted(d):
        s = s + d[k]
    return s


def test_dict_pop_get_update():
    check(dict_pop, (F3[0],), grad=True)
    check(dict_get_update, (F3[0],), grad=True)


def test_dict_written_in_both_branches_of_a_tensor_if():
    check(dict_in_tensor_if, (arr(3, lo=2, hi=3),), (F3[0],), programs=1, ops=["cond"])


Pair = __import__("collections").namedtuple("Pair", ["value", "extra"])


def namedtuple_in_out(p):
    return Pair(p.value * 2, {"n": p.extra + 1, "shape": tuple(p.value.shape)})


def test_namedtuple_arguments_and_results_keep_their_class():
    sf = check(namedtuple_in_out, (Pair(rt.to_tensor(F3[0]), rt.to_tensor(F3[1])),))
    out = sf(Pair(rt.to_tensor(F3[1]), rt.to_tensor(F3[2])))
    assert isinstance(out, Pair) and out.extra["shape"] == (3,)


class Box:
    pass


def attr_write_in_both_branches(x):
    b = Box()
    b.v = x
    b.n = 0
    if x.sum() > 0:
        b.v = x * 2
        b.n = 1
    else:
        b.v = x - 3
        b.n = 2
    return b.v, b.n


def test_object_attribute_written_in_both_branches_of_a_tensor_if():
    check(attr_write_in_both_branches, (F3[2],), (-F3[2],), programs=1, grad=True)
