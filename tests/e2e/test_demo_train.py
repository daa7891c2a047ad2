"""The demo's interleaved training measurement: eager and static epochs alternate, each reseeded from
its epoch number, so their per-step losses stay identical whatever order they run in."""
import runtime as rt
from dy2st.frontend import api
from dy2st.tools import demo


def test_interleaved_epochs_give_identical_losses_and_each_epoch_is_reseeded_from_its_number():
    # one test: loading the bundled digits (scikit-learn's import) is most of its time
    (x, y), _ = demo.load_digits()
    data = x[:96], y[:96]
    rt.seed(2024)
    eager = demo.DigitsNet()
    rt.seed(2024)
    static = api.to_static(demo.DigitsNet())
    le, te, ls, ts = demo.train_both(eager, static, data, epochs=2, batch_size=32, lr=0.01, progress=False)
    assert len(le) == len(ls) == 2 * 3
    assert le == ls  # bitwise: the same masks, batches and arithmetic in every epoch
    assert te > 0 and ts > 0

    rt.seed(2024)
    a = demo.prepare(demo.DigitsNet(), data, 32, 0.01)
    rt.seed(2024)
    b = demo.prepare(demo.DigitsNet(), data, 32, 0.01)
    first, _ = demo.train_epoch(a, data, 32, 0, None)
    rt.seed(99)  # whatever ran in between: the epoch reseeds
    again, _ = demo.train_epoch(b, data, 32, 0, None)
    assert first == again
