"""Float arange/linspace values as Paddle's kernels make them (numpy's differed in the last bits):
arange adds step once per element in the dtype; linspace counts the first half up from start and the
rest down from stop, in the dtype. Expected values are Paddle 3.3's (CPU)."""
import numpy as np

import dy2st
import runtime as rt

from tests.hunt.eager_checks import same

F32 = np.float32


def _spaced(a, b):
    return rt.linspace(a, b, 7), rt.linspace(a, b, 6, dtype="float64"), rt.linspace(-1.0, 1.0, 11)


def test_arange_accumulates_in_dtype():
    np.testing.assert_array_equal(rt.arange(0, 1, 0.1).numpy()[6:],
                                  F32([0.6000000238418579, 0.7000000476837158, 0.8000000715255737,
                                       0.9000000953674316]))
    np.testing.assert_array_equal(rt.arange(0.5, 10.3, 0.7, dtype="float32").numpy()[-3:],
                                  F32([8.899998664855957, 9.599998474121094, 10.29999828338623]))
    np.testing.assert_array_equal(rt.arange(0, 1, 0.1, dtype="float64").numpy()[-3:],
                                  [0.7, 0.7999999999999999, 0.8999999999999999])
    np.testing.assert_array_equal(rt.arange(10, 0, -3).numpy(), [10, 7, 4, 1])


def test_linspace_counts_from_both_ends():
    np.testing.assert_array_equal(rt.linspace(0, 1, 4, dtype="float64").numpy(), [0.0, 1 / 3, 0.6666666666666667, 1.0])
    np.testing.assert_array_equal(rt.linspace(0, 1, 7).numpy()[4], F32(0.6666666269302368))
    np.testing.assert_array_equal(rt.linspace(0, 10, 4, dtype="int32").numpy(), [0, 3, 6, 10])
    a, b = rt.to_tensor(np.array(-3.3, "float64")), rt.to_tensor(np.array([7.1], "float32"))
    got = _spaced(a, b)
    np.testing.assert_array_equal(got[0].numpy()[1:3], F32([-1.5666667222976685, 0.16666650772094727]))
    np.testing.assert_array_equal(got[1].numpy()[1:3], [-1.220000019073486, 0.8599999618530276])
    np.testing.assert_array_equal(got[2].numpy()[3:5], F32([-0.3999999761581421, -0.19999998807907104]))
    sf = dy2st.to_static(_spaced)
    for av, bv in [(-3.3, 7.1), (0.0, 1.0), (2.5, -1.25)]:
        a, b = rt.to_tensor(np.array(av, "float64")), rt.to_tensor(np.array([bv], "float32"))
        same(_spaced(a, b), sf(a, b))
