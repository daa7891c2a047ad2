"""F.multi_margin_loss with a class dim unknown while the Program is built divided margin ** p by
that dim's -1 placeholder: the per-class term changed sign (0.765 where eager gives 2.015, no error),
and a class weight was refused ("got 4 and -1"). The count is read when the Program runs, in double
as eager's Python float, so the results are bitwise eager's."""
import numpy as np

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime.static import InputSpec


def _losses(x, y):
    w = rt.to_tensor(np.array([1.0, 2.0, 0.5, 3.0], "float32"))
    return F.multi_margin_loss(x, y), F.multi_margin_loss(x, y, p=2, margin=0.7, weight=w, reduction="none")


def test_multi_margin_loss_over_a_run_time_class_count():
    sf = dy2st.to_static(_losses, input_spec=[InputSpec([None, None], "float32"), InputSpec([None], "int64")])
    x = rt.to_tensor(np.random.RandomState(0).rand(3, 4).astype("float32"))
    y = rt.to_tensor(np.array([0, 3, 1], "int64"))
    for e, s in zip(_losses(x, y), sf(x, y)):
        np.testing.assert_array_equal(s.numpy(), e.numpy())
