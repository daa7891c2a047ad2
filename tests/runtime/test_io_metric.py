"""rt.io (Dataset, TensorDataset, DataLoader, samplers) and rt.metric (accuracy, Accuracy)."""
import numpy as np
import pytest

import dy2st
import runtime as rt


class Squares(rt.io.Dataset):
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return np.array([i, i * i], np.float32), i % 3

    def __len__(self):
        return self.n


@pytest.mark.parametrize("n,bs,drop,want", [(10, 3, False, 4), (10, 3, True, 3), (9, 3, False, 3), (2, 5, False, 1)])
def test_dataloader_len_and_batches(n, bs, drop, want):
    dl = rt.io.DataLoader(Squares(n), batch_size=bs, drop_last=drop)
    batches = list(dl)
    assert len(dl) == want == len(batches)
    xs = np.concatenate([b[0].numpy() for b in batches])
    ys = np.concatenate([b[1].numpy() for b in batches])
    m = want * bs if drop else n
    np.testing.assert_array_equal(xs, [[i, i * i] for i in range(m)])
    np.testing.assert_array_equal(ys, [i % 3 for i in range(m)])
    b = batches[0]
    assert isinstance(b, list) and all(isinstance(t, rt.Tensor) for t in b)
    assert b[0].dtype == "float32" and b[1].dtype == "int64"


def test_tensor_dataset_shuffle_is_a_repeatable_permutation():
    x = rt.to_tensor(np.arange(20, dtype=np.float32).reshape(10, 2))
    y = rt.to_tensor(np.arange(10).reshape(10, 1))
    ds = rt.io.TensorDataset([x, y])
    assert len(ds) == 10 and ds[3][0].numpy().tolist() == [6.0, 7.0]
    rt.seed(5)
    first = [b[1].numpy().ravel().tolist() for b in rt.io.DataLoader(ds, batch_size=4, shuffle=True)]
    rt.seed(5)
    again = [b[1].numpy().ravel().tolist() for b in rt.io.DataLoader(ds, batch_size=4, shuffle=True)]
    flat = sum(first, [])
    assert first == again and sorted(flat) == list(range(10)) and flat != list(range(10))
    for xb, yb in rt.io.DataLoader(ds, batch_size=4, shuffle=True):
        np.testing.assert_array_equal(xb.numpy()[:, 0], 2 * yb.numpy()[:, 0])
    with pytest.raises(ValueError, match="same first dim"):
        rt.io.TensorDataset([x, rt.zeros([3])])


def test_collate_dicts_custom_collate_and_batch_sampler():
    class D(rt.io.Dataset):
        def __getitem__(self, i):
            return {"x": np.full([2], i, np.float32), "name": f"s{i}"}

        def __len__(self):
            return 5

    b = next(iter(rt.io.DataLoader(D(), batch_size=2)))
    assert b["name"] == ["s0", "s1"] and b["x"].numpy().tolist() == [[0, 0], [1, 1]]
    dl = rt.io.DataLoader(D(), batch_size=2, collate_fn=lambda s: [np.stack([d["x"] for d in s]).sum(0)])
    assert [t.numpy().tolist() for (t,) in dl] == [[1, 1], [5, 5], [4, 4]]
    bs = rt.io.BatchSampler(D(), batch_size=3)
    dl = rt.io.DataLoader(D(), batch_sampler=bs)
    assert len(dl) == 2 and [b["x"].shape[0] for b in dl] == [3, 2]
    with pytest.raises(ValueError, match="batch_size must be a positive int"):
        rt.io.DataLoader(D(), batch_size=0)


def test_iterable_dataset_and_random_split():
    class Stream(rt.io.IterableDataset):
        def __iter__(self):
            for i in range(7):
                yield np.array([i], np.int64)

    dl = rt.io.DataLoader(Stream(), batch_size=3)
    assert [b.numpy().ravel().tolist() for b in dl] == [[0, 1, 2], [3, 4, 5], [6]]
    with pytest.raises(TypeError, match="IterableDataset"):
        len(dl)
    a, b = rt.io.random_split(Squares(10), [7, 3])
    assert len(a) == 7 and len(b) == 3
    assert sorted(a.indices + b.indices) == list(range(10))
    assert a[0][0].tolist() == Squares(10)[a.indices[0]][0].tolist()


def test_training_loop_with_dataloader_reaches_low_loss():
    rt.seed(0)
    rng = np.random.RandomState(0)
    x = rng.randn(64, 3).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)
    model = rt.nn.Linear(3, 1)
    opt = rt.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    loader = rt.io.DataLoader(rt.io.TensorDataset([rt.to_tensor(x), rt.to_tensor(y)]), batch_size=16, shuffle=True)
    for _ in range(30):
        for xb, yb in loader:
            loss = rt.nn.functional.mse_loss(model(xb), yb)
            loss.backward()
            opt.step()
            opt.clear_grad()
    assert float(loss) < 1e-3


# -- metrics -------------------------------------------------------------------------------------------
def _np_topk_acc(scores, labels, k):
    top = np.argsort(-scores, axis=1)[:, :k]
    return float(np.mean([labels[i] in top[i] for i in range(len(labels))]))


@pytest.mark.parametrize("k", [1, 2, 3])
def test_accuracy_matches_numpy_eager_and_to_static(k):
    rng = np.random.RandomState(k)
    sf = dy2st.to_static(lambda s, lab: rt.metric.accuracy(s, lab, k=k))
    for n in (6, 11):
        scores = rng.rand(n, 5).astype(np.float32)
        labels = rng.randint(0, 5, size=(n, 1))
        acc = rt.metric.accuracy(rt.to_tensor(scores), rt.to_tensor(labels), k=k)
        assert acc.shape == [] and acc.dtype == "float32"
        np.testing.assert_allclose(acc.numpy(), _np_topk_acc(scores, labels.ravel(), k), rtol=1e-6)
        np.testing.assert_allclose(sf(rt.to_tensor(scores), rt.to_tensor(labels)).numpy(), acc.numpy())
    with pytest.raises(TypeError, match="int32 or int64"):
        rt.metric.accuracy(rt.to_tensor(scores), rt.to_tensor(labels.astype(np.float32)))


def test_accuracy_metric_accumulates_over_batches():
    rng = np.random.RandomState(0)
    m = rt.metric.Accuracy(topk=(1, 3))
    assert m.name() == ["acc_top1", "acc_top3"]
    all_s, all_l = [], []
    for n in (4, 7, 5):
        s = rng.rand(n, 6).astype(np.float32)
        lab = rng.randint(0, 6, size=(n,))
        correct = m.compute(rt.to_tensor(s), rt.to_tensor(lab))
        assert correct.shape == [n, 3] and correct.dtype == "float32"
        batch = m.update(correct)
        np.testing.assert_allclose(batch, [_np_topk_acc(s, lab, 1), _np_topk_acc(s, lab, 3)])
        all_s.append(s)
        all_l.append(lab)
    s, lab = np.concatenate(all_s), np.concatenate(all_l)
    np.testing.assert_allclose(m.accumulate(), [_np_topk_acc(s, lab, 1), _np_topk_acc(s, lab, 3)])
    m.reset()
    assert m.accumulate() == [0.0, 0.0]
    one = rt.metric.Accuracy()
    assert one.name() == ["acc"]
    onehot = np.eye(3, dtype=np.float32)[[2, 0]]
    one.update(one.compute(rt.to_tensor(np.array([[0, 1, 5], [3, 1, 0]], np.float32)), rt.to_tensor(onehot)))
    assert one.accumulate() == 1.0


def test_dataloader_batches_feed_a_converted_model_like_eager():
    rt.seed(2)
    eager = rt.nn.Sequential(rt.nn.Linear(2, 3), rt.nn.ReLU(), rt.nn.Linear(3, 2))
    rt.seed(2)
    static = dy2st.to_static(rt.nn.Sequential(rt.nn.Linear(2, 3), rt.nn.ReLU(), rt.nn.Linear(3, 2)),
                             input_spec=[rt.static.InputSpec([None, 2], "float32")])
    x = rt.to_tensor(np.random.RandomState(3).randn(10, 2).astype(np.float32))
    y = rt.to_tensor(np.random.RandomState(4).randint(0, 2, size=(10, 1)))
    loader = rt.io.DataLoader(rt.io.TensorDataset([x, y]), batch_size=4)
    metric = {"eager": rt.metric.Accuracy(), "static": rt.metric.Accuracy()}
    for xb, yb in loader:
        for name, model in (("eager", eager), ("static", static)):
            logits = model(xb)
            loss = rt.nn.functional.cross_entropy(logits, yb)
            loss.backward()
            metric[name].update(metric[name].compute(logits, yb))
        for pe, ps in zip(eager.parameters(), static.parameters()):
            np.testing.assert_allclose(ps.gradient(), pe.gradient(), rtol=1e-5, atol=1e-7)
    assert metric["eager"].accumulate() == metric["static"].accumulate()
    assert len(static.forward.program_cache) == 1
