"""Scenarios of Paddle's test_gradient_aggregation, test_typing, test_multiple_to_static and
test_local_cast, rewritten: backward from the first of two returned outputs, forwards annotated
`-> Tuple[Tensor, str]` / `List[...]` / `Dict[...]` returning a string, a numpy array, a list or a
dict beside their tensor (eagerly, converted, and saved and loaded), two `not_to_static` functions
converted one after the other with a static-mode round trip between them, and
`with paddle.amp.auto_cast(False/True)` blocks around a tensor `if` (on CPU auto_cast leaves float32
math as it is, eagerly and converted)."""
import contextlib
from typing import Dict, List, Tuple

import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.compat.helpers import arr, pair, same


class SimpleNet(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.linear1 = rt.nn.Linear(10, 3)
        self.linear2 = rt.nn.Linear(3, 1)

    def forward(self, x):
        out1 = self.linear1(x)
        out2 = self.linear2(out1)
        return [out1, out2]


def test_backward_from_the_first_output():
    eager, static = pair(SimpleNet)
    inp = rt.to_tensor(np.random.default_rng(0).standard_normal(10)).astype("float32")
    eager(inp)[0].backward()
    dy2st.to_static(static)(inp)[0].backward()
    np.testing.assert_allclose(static.linear1.weight.grad.numpy(), eager.linear1.weight.grad.numpy(), rtol=1e-6)
    assert static.linear2.weight.grad is None and eager.linear2.weight.grad is None


class BaseLayer(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self._linear = rt.nn.Linear(16, 16)

    def build(self, x):
        out1 = self._linear(x)
        return out1, rt.mean(out1)


class WithTuple(BaseLayer):
    def forward(self, x) -> Tuple[rt.Tensor, str]:
        out1, out2 = self.build(x)
        return (out2, "str")


class WithNumpy(BaseLayer):
    def forward(self, x) -> Tuple[rt.Tensor, np.array]:
        out1, out2 = self.build(x)
        return (out2, np.ones([4, 16]))


class WithList(BaseLayer):
    def forward(self, x) -> List[rt.Tensor]:
        out1, out2 = self.build(x)
        return [out2]


class WithDict(BaseLayer):
    def forward(self, x) -> Dict[str, rt.Tensor]:
        out1, out2 = self.build(x)
        return {"out": out2}


@pytest.mark.parametrize("cls, first", [(WithTuple, lambda o: o[0]), (WithNumpy, lambda o: o[0]),
                                        (WithList, lambda o: o[0]), (WithDict, lambda o: o["out"])])
def test_annotated_outputs(tmp_path, cls, first):
    eager, static = pair(cls)
    x = rt.to_tensor(arr(4, 16))
    want = eager(x)
    got = dy2st.to_static(static)(x)
    if cls is WithNumpy:
        np.testing.assert_array_equal(got[1], np.ones([4, 16]))
        want, got = want[0], got[0]
    same(want, got)
    with pytest.warns(UserWarning) if cls is WithDict else contextlib.nullcontext():
        dy2st.save(eager, str(tmp_path / "net"), input_spec=[rt.static.InputSpec(shape=[None, 16])])
    loaded = dy2st.load(str(tmp_path / "net"))(x)
    loaded = loaded if rt.is_tensor(loaded) else loaded[0]
    np.testing.assert_allclose(loaded.numpy(), first(eager(x)).numpy(), rtol=1e-6)


@dy2st.not_to_static
def part1(x):
    return x + 1


@dy2st.not_to_static
def part2(x):
    return x + x


def test_two_conversions_with_a_static_mode_round_trip_between():
    x = dy2st.to_static(part1)(rt.to_tensor([4.0]))
    rt.enable_static()
    rt.disable_static()
    x = dy2st.to_static(part2)(x)
    np.testing.assert_array_equal(x.numpy(), [10.0])


class LocalAutoCast1(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self._fc = rt.nn.Linear(10, 10)

    def forward(self, x):
        x = self._fc(x)
        y = self._fc(x) * 2
        with rt.amp.auto_cast(False):
            x = x.astype("float32")
            y = y.astype("float32")
            if x[0][0] > 1:
                x = x + y
            else:
                x = x - y
                x = x * 2
        return x + 1


class LocalAutoCast2(LocalAutoCast1):
    def forward(self, x):
        with rt.amp.auto_cast(True):
            x = x.astype("float32")
            x = self._fc(x)
            y = self._fc(x) * 2
        if x[0][0] > 1:
            x = x + y
        else:
            x = x - y
            x = x * 2
        return x + 1


@pytest.mark.parametrize("cls", [LocalAutoCast1, LocalAutoCast2])
@pytest.mark.parametrize("outer", [False, True])
def test_local_auto_cast_blocks(cls, outer):
    eager, static = pair(cls)
    sf = dy2st.to_static(static)
    for seed in (0, 1):
        x = rt.to_tensor(arr(10, 10, seed=seed, lo=-3, hi=3))
        with rt.amp.auto_cast(outer):
            want, got = eager(x), sf(x)
        assert got.dtype == want.dtype == "float32"
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_batch_norm_statistics_are_parameters_as_in_paddle():
    bn = rt.nn.BatchNorm2D(4)
    assert list(bn.state_dict()) == ["weight", "bias", "_mean", "_variance"]
    assert (len(bn.parameters()), len(bn.buffers())) == (4, 0)  # PaddlePaddle 3.3
