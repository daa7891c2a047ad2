"""Feed names follow the argument each tensor comes from, as Paddle names them: `l_0`, `l_1` for
a list, a dict's keys, `args_i` for `*args`, keyword names; a Python value before a tensor no
longer lends it its name (the tensor of `f(k, x)` was fed as 'k')."""
import dy2st
import runtime as rt
from dy2st import InputSpec


class _Net(rt.nn.Layer):
    @dy2st.to_static(input_spec=[[InputSpec([None]), {"x": InputSpec([None, 3]), "y": InputSpec([None, 3], name="yy")}]])
    def nested(self, dl):
        return dl[1]["x"] + dl[1]["y"] + dl[0][:1]


def _mixed(k, x, *rest, scale=None):
    out = x * k
    for r in rest:
        out = out + r
    return out * scale


def test_feed_names_follow_the_arguments():
    net = _Net()  # a converted method holds its Layer weakly, as Paddle's does
    assert [v.name for v in net.nested.inputs] == ["dl_0", "x", "yy"]
    sf = dy2st.to_static(_mixed)
    x = rt.ones([2])
    assert sf(3, x, x * 2, x, scale=x * 5).numpy().tolist() == _mixed(3, x, x * 2, x, scale=x * 5).numpy().tolist()
    assert [v.name for v in sf.program_cache.last().inputs] == ["x", "rest_0", "rest_1", "scale"]
