"""The demo's interleaved training measurement: eager and static epochs alternate, each reseeded from
its epoch number, so their per-step losses stay identical whatever order they run in."""
import runtime as rt
from dy2st.frontend import api
from dy2st.tools import demo


_DATA = []


def _small_data():
    if not _DATA:  # loaded once: reading the bundled digits is most of these tests' time
        (x, y), _ = demo.load_digits()
        _DATA.append((x[:96], y[:96]))
    return _DATA[0]


def test_interleaved_epochs_give_identical_losses_and_positive_throughput():
    data = _small_data()
    rt.seed(2024)
    eager = demo.DigitsNet()
    rt.seed(2024)
    static = api.to_static(demo.DigitsNet())
    le, te, ls, ts = demo.train_both(eager, static, data, epochs=2, batch_size=32, lr=0.01, progress=False)
    assert len(le) == len(ls) == 2 * 3
    assert le == ls  # bitwise: the same masks, batches and arithmetic in every epoch
    assert te > 0 and ts > 0


def test_an_epoch_is_reseeded_from_its_number():
    data = _small_data()
    rt.seed(2024)
    a = demo.prepare(demo.DigitsNet(), data, 32, 0.01)
    rt.seed(2024)
    b = demo.prepare(demo.DigitsNet(), data, 32, 0.01)
    first, _ = demo.train_epoch(a, data, 32, 0, None)
    rt.seed(99)  # whatever ran in between: the epoch reseeds
    again, _ = demo.train_epoch(b, data, 32, 0, None)
    assert first == again
