"""A lambda written as an item of a dict, list or call (its line does not parse alone) converts."""
import numpy as np

import dy2st
import runtime as rt

TABLE = {
    "branchy": lambda x: x * 2 if x.sum() > 0 else x - 1,
    "plain": lambda x: rt.nn.functional.relu(x) + 1,
}
LAST = [lambda x: x + 3,
        lambda x: x * x]


def test_lambdas_in_containers_convert_and_match_eager():
    for fn in list(TABLE.values()) + LAST:
        sf = dy2st.to_static(fn)
        for v in ([1.0, -2.0], [-3.0, 0.5]):
            x = rt.to_tensor(np.array(v, "float32"))
            np.testing.assert_array_equal(sf(x).numpy(), fn(x).numpy())
    assert "_jst.IfElse(x.sum() > 0" in dy2st.to_code(TABLE["branchy"])
