"""A converted function writing into its list/dict arguments (an incremental decoder's per-layer
key/value caches) leaves in the caller's containers what eager leaves there, at every call of one
cached Program, inside tensor loops too; what cannot be carried out is a TypeError at the user's line."""
import collections
import dataclasses

import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F

D = 4


def _attend(tok, w, cache):
    """One attention step over a growing key/value cache, as Paddle's transformer decoder writes it."""
    k, v = rt.matmul(tok, w), rt.matmul(tok, w * 0.5)
    cache["k"], cache["v"] = rt.concat([cache["k"], k], axis=0), rt.concat([cache["v"], v], axis=0)
    att = F.softmax(rt.matmul(tok, cache["k"].t()) / 2.0, axis=-1)
    return rt.matmul(att, cache["v"])


def step(tok, w, caches):
    for cache in caches:
        tok = _attend(tok, w, cache)
    return tok


def decode(tok, w, caches, n):
    """Greedy decoding in a tensor `while`: every iteration writes into every layer's cache."""
    i = rt.zeros([1], "int64")
    out = tok
    while i < n:
        out = step(out, w, caches)
        i = i + 1
    return out


def _caches(seed, length=1, layers=2):
    rs = np.random.RandomState(seed)
    return [{"k": rt.to_tensor(rs.randn(length, D).astype("float32")),
             "v": rt.to_tensor(rs.randn(length, D).astype("float32"))} for _ in range(layers)]


def _same(eager, converted):
    assert len(eager) == len(converted)
    for a, b in zip(eager, converted):
        assert list(a) == list(b)
        for key in a:
            np.testing.assert_array_equal(a[key].numpy(), b[key].numpy())


def _inputs(seed):
    rs = np.random.RandomState(100 + seed)
    return rt.to_tensor(rs.randn(1, D).astype("float32")), rt.to_tensor(rs.randn(D, D).astype("float32"))


def test_cache_step_through_one_program():
    sf = dy2st.to_static(step)
    for seed in range(3):
        tok, w = _inputs(seed)
        eager, converted = _caches(seed), _caches(seed)
        before = converted[0]
        np.testing.assert_array_equal(step(tok, w, eager).numpy(), sf(tok, w, converted).numpy())
        _same(eager, converted)
        assert converted[0] is before and converted[0]["k"].shape == [2, D]  # the caller's dict, written
    assert sf.get_traced_count() == 1


def test_greedy_decoding_step_by_step():
    """The decoding loop in Python around a converted step: the caches grow, each length one Program."""
    sf = dy2st.to_static(step)
    tok, w = _inputs(0)
    eager, converted = _caches(1), _caches(1)
    a = b = tok
    for _ in range(3):
        a, b = step(a, w, eager), sf(b, w, converted)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        _same(eager, converted)
    assert sf.get_traced_count() == 3


def test_decoding_loop_inside_the_program():
    sf = dy2st.to_static(decode)
    for seed, n in ((0, 3), (1, 1), (2, 4)):
        tok, w = _inputs(seed)
        eager, converted = _caches(seed), _caches(seed)
        steps = rt.to_tensor([n], "int64")
        np.testing.assert_array_equal(decode(tok, w, eager, steps).numpy(), sf(tok, w, converted, steps).numpy())
        _same(eager, converted)
        assert converted[1]["k"].shape == [1 + n, D]
    assert sf.get_traced_count() == 1


def _grows(x, w, cache):
    cache["k"] = rt.concat([cache["k"], rt.matmul(x, w)], axis=0)
    return (cache["k"] * cache["k"]).sum()


def test_gradients_through_the_cache():
    sf = dy2st.to_static(_grows)
    rs = np.random.RandomState(0)
    for _ in range(2):
        xs, ws, cs = (rs.randn(*s).astype("float32") for s in ((1, 2), (2, 2), (2, 2)))
        got = []
        for fn in (_grows, sf):
            w, c0 = rt.to_tensor(ws, stop_gradient=False), rt.to_tensor(cs, stop_gradient=False)
            cache = {"k": c0}
            out = fn(rt.to_tensor(xs), w, cache)
            (out + cache["k"].sum() * 2).backward()  # the written tensor carries the run's gradient history
            got.append((out.numpy(), cache["k"].numpy(), cache["k"].stop_gradient, w.grad.numpy(), c0.grad.numpy()))
        for a, b in zip(*got):
            np.testing.assert_array_equal(a, b)
    assert sf.get_traced_count() == 1


def _reshuffles(x, xs, d):
    xs[0], xs[1] = xs[1], xs[0]
    xs.append({"new": x + 1, "n": 3})
    v = d.pop("a")
    d["b"], d["same"] = v + x, x
    d["count"] = d.get("count", 0) + 1
    return d["b"]


def test_moved_added_popped_items_and_python_values():
    sf = dy2st.to_static(_reshuffles)
    x = rt.to_tensor([2.0])
    for count in (0, 0, 1):
        def given():
            d = {"a": rt.to_tensor([3.0]), "z": 1}
            if count:
                d["count"] = count
            return [rt.to_tensor([1.0]), rt.to_tensor([5.0])], d
        (exs, ed), (xs, d) = given(), given()
        one, two = xs
        _reshuffles(x, exs, ed)
        out = sf(x, xs, d)
        assert xs[0] is two and xs[1] is one and d["same"] is x and out is d["b"]  # eager's objects
        assert list(d) == list(ed) and d["count"] == ed["count"] == count + 1 and repr(xs) == repr(exs)
        np.testing.assert_array_equal(d["b"].numpy(), [5.0])
        assert xs[2]["n"] == 3
    assert sf.get_traced_count() == 2  # d["count"] given: another key


def _collects(x, acc):
    i = rt.zeros([1], "int64")
    while i < 3:
        acc.append(x * 2.0)
        i = i + 1
    return x


def test_list_argument_grown_in_a_tensor_loop_is_refused_at_its_line():
    with pytest.raises(TypeError, match=r"list argument #1 \('acc'\) grows inside a tensor-dependent loop") as e:
        dy2st.to_static(_collects)(rt.to_tensor([1.0]), [])
    assert "test_hunt_container_args.py" in str(e.value) and "while i < 3" in str(e.value)


def _rebinds(x, xs):
    i = rt.zeros([1], "int64")
    while i < 3:
        xs = xs + [x * 2.0]  # a new list: the caller's stays as it is
        i = i + 1
    return rt.stack(xs).sum()


def test_list_argument_rebound_in_a_tensor_loop_still_converts():
    xs = [rt.to_tensor([1.0])]
    out = dy2st.to_static(_rebinds)(rt.to_tensor([2.0]), xs)
    np.testing.assert_array_equal(out.numpy(), _rebinds(rt.to_tensor([2.0]), [rt.to_tensor([1.0])]).numpy())
    assert len(xs) == 1


def test_one_dict_given_twice_is_refused():
    def reads_other(x, a, b):
        a["k"] = x * 2
        return b["k"]
    sf = dy2st.to_static(reads_other)
    a, b = {"k": rt.to_tensor([1.0])}, {"k": rt.to_tensor([1.0])}
    np.testing.assert_array_equal(sf(rt.to_tensor([3.0]), a, b).numpy(), [1.0])
    shared = {"k": rt.to_tensor([1.0])}
    with pytest.raises(TypeError, match=r"one list/dict is given at two places of them \(#1 and #2\)"):
        sf(rt.to_tensor([3.0]), shared, shared)
    np.testing.assert_array_equal(shared["k"].numpy(), [1.0])  # refused before the run: unchanged


def _writes_in_a_while_loop_body(x, cache):
    def body(i):
        cache["k"] = x * 2  # a value of the loop's block: the loop does not carry it out
        return [i + 1]
    rt.static.nn.while_loop(lambda i: i < 3, body, [rt.zeros([1], "int64")])
    return x


def test_write_a_loop_does_not_carry_out_is_refused_at_its_line():
    with pytest.raises(TypeError, match="does not carry the write out") as e:
        dy2st.to_static(_writes_in_a_while_loop_body)(rt.to_tensor([1.0]), {"k": rt.to_tensor([1.0])})
    assert '> ' in "".join(e.value.__notes__) and 'cache["k"] = x * 2' in "".join(e.value.__notes__)


Pair = collections.namedtuple("Pair", "k v")


@dataclasses.dataclass
class State:
    h: object
    n: int = 0


def _made_inside(x, c, acc, st):
    shared = {"s": x * 2}
    c["p"], c["o"], c["sh"] = Pair(x + 1, 3), collections.OrderedDict(a=x), shared
    acc.append(shared)
    st.h, st.n = st.h + x, st.n + 1
    return x


def test_containers_made_inside_and_dataclass_fields():
    sf = dy2st.to_static(_made_inside)
    for v in (1.0, 2.0):
        c, acc, st = {}, [], State(rt.to_tensor([1.0]))
        x = rt.to_tensor([v])
        sf(x, c, acc, st)
        assert type(c["p"]) is Pair and c["p"].v == 3 and type(c["o"]) is collections.OrderedDict
        assert c["o"]["a"] is x and c["sh"] is acc[0]  # one dict at two places, as eagerly
        np.testing.assert_array_equal(c["p"].k.numpy(), [v + 1])
        np.testing.assert_array_equal(acc[0]["s"].numpy(), [v * 2])
        np.testing.assert_array_equal(st.h.numpy(), [1.0 + v])
        assert st.n == 1
    assert sf.get_traced_count() == 1


class _SelfAttention(rt.nn.Layer):
    """Paddle's transformer MultiHeadAttention cache handling (transformer_dygraph_model.py)."""

    def __init__(self):
        super().__init__()
        self.q, self.k, self.v = rt.nn.Linear(D, D), rt.nn.Linear(D, D), rt.nn.Linear(D, D)

    def forward(self, x, memory, cache=None):
        q, k, v = self.q(x), self.k(x), self.v(x)
        if cache is not None:
            if "static_k" not in cache:  # encoder-decoder keys: cached once
                cache["static_k"], cache["static_v"] = self.k(memory), self.v(memory)
            if "k" in cache:
                k, v = rt.concat([cache["k"], k], axis=1), rt.concat([cache["v"], v], axis=1)
            cache["k"], cache["v"] = k, v
        att = F.softmax(rt.matmul(q, k, transpose_y=True), axis=-1)
        return rt.matmul(att, v) + rt.matmul(q, cache["static_k"], transpose_y=True).sum()


def test_paddle_transformer_cache_pattern_in_a_layer():
    rt.seed(3)
    eager = _SelfAttention()
    converted = _SelfAttention()
    converted.set_state_dict(eager.state_dict())
    sf = dy2st.to_static(converted)
    memory = rt.to_tensor(np.random.RandomState(7).randn(2, 3, D).astype("float32"))
    ce, cc = {}, {}
    a = b = rt.to_tensor(np.random.RandomState(8).randn(2, 1, D).astype("float32"))
    for _ in range(3):
        a, b = eager(a, memory, cache=ce), sf(b, memory, cache=cc)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert list(ce) == list(cc)
        for key in ce:
            np.testing.assert_array_equal(ce[key].numpy(), cc[key].numpy())
    assert cc["k"].shape == [2, 3, D]


def test_gradients_through_caches_written_in_the_decoding_loop():
    sf = dy2st.to_static(decode)
    got = []
    for fn in (decode, sf):
        tok, w = _inputs(0)
        w.stop_gradient = False
        caches = _caches(0)
        k0 = caches[0]["k"]
        k0.stop_gradient = False
        out = fn(tok, w, caches, rt.to_tensor([2], "int64"))
        (out.sum() + caches[1]["v"].sum()).backward()
        got.append((out.numpy(), caches[1]["v"].numpy(), k0.grad.numpy(), w.grad.numpy()))
    for a, b in zip(got[0][:3], got[1][:3]):
        np.testing.assert_array_equal(a, b)
    # the while op's gradient sums the iterations' contributions in another order than eager's tape
    # (the same 1-ulp difference with caches local to the function)
    np.testing.assert_allclose(got[0][3], got[1][3], rtol=1e-6, atol=1e-6)
