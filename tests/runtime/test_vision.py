"""rt.vision: the MNIST datasets read from IDX files, the transforms and the LeNet/ResNet models,
checked against values and names Paddle 3.3 gives for the same inputs."""
import gzip

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.vision import transforms as T


def _idx_files(tmp_path, n=21, seed=0):
    rng = np.random.default_rng(seed)
    imgs = rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, size=n, dtype=np.uint8)
    img, lab = tmp_path / "img.gz", tmp_path / "labels-idx1-ubyte"
    with gzip.open(img, "wb") as f:
        f.write(b"".join(v.to_bytes(4, "big") for v in (2051, n, 28, 28)) + imgs.tobytes())
    lab.write_bytes((2049).to_bytes(4, "big") + n.to_bytes(4, "big") + labels.tobytes())  # not gzipped
    return str(img), str(lab), imgs, labels


@pytest.fixture
def cv2_backend():
    old = rt.vision.get_image_backend()
    rt.vision.set_image_backend("cv2")
    yield
    rt.vision.set_image_backend(old)


def test_mnist_items_and_the_seed_loader(tmp_path, cv2_backend):
    img, lab, imgs, labels = _idx_files(tmp_path)
    data = rt.vision.datasets.MNIST(image_path=img, label_path=lab, mode="test")
    assert len(data) == 21
    image, label = data[4]
    assert image.dtype == np.float32 and image.shape == (28, 28) and label.dtype == np.int64
    np.testing.assert_array_equal(image, imgs[4])
    np.testing.assert_array_equal(label, [labels[4]])
    loader = rt.io.DataLoader(data, batch_size=8, shuffle=False)
    batches = list(enumerate(loader()))  # the seed's `enumerate(train_loader())`
    assert [b[0].shape for _, b in batches] == [[8, 28, 28], [8, 28, 28], [5, 28, 28]]
    assert batches[0][1][1].shape == [8, 1] and str(batches[0][1][1].dtype) == "int64"


def test_mnist_pil_backend_and_transforms(tmp_path):
    pytest.importorskip("PIL")  # the 'pil' backend's optional dependency
    img, lab, imgs, _ = _idx_files(tmp_path)
    data = rt.vision.datasets.MNIST(image_path=img, label_path=lab, backend="pil",
                                    transform=T.Compose([T.ToTensor(), T.Normalize(mean=[0.5], std=[0.5])]))
    image, _ = data[2]
    assert image.shape == [1, 28, 28]
    np.testing.assert_allclose(image.numpy()[0], (imgs[2] / np.float32(255) - 0.5) / 0.5, rtol=1e-6)


def test_the_pil_backend_without_pillow_says_what_to_do(tmp_path, monkeypatch):
    img, lab, _, _ = _idx_files(tmp_path)
    monkeypatch.setitem(__import__("sys").modules, "PIL", None)  # as if Pillow were not installed
    data = rt.vision.datasets.MNIST(image_path=img, label_path=lab, backend="pil")
    with pytest.raises(ImportError, match="set_image_backend\\('cv2'\\)"):
        data[0]


def test_transforms_match_paddle():
    a = np.arange(12, dtype=np.uint8).reshape(2, 2, 3) * 20
    t = T.ToTensor()(a)
    assert t.shape == [3, 2, 2]
    np.testing.assert_allclose(t.numpy()[1], [[0.078431375, 0.3137255], [0.54901963, 0.78431374]], rtol=1e-6)
    f = T.ToTensor()(a.astype("float32"))  # float input: not scaled (Paddle's ToTensor)
    np.testing.assert_array_equal(f.numpy()[2], [[40.0, 100.0], [160.0, 220.0]])
    n = T.Normalize(mean=[1.0, 2.0, 3.0], std=[2.0, 4.0, 8.0])(f)
    np.testing.assert_allclose(n.numpy()[:, 0, 0], [-0.5, 4.5, 4.625])
    hwc = T.Normalize(mean=[1.0, 2.0, 3.0], std=[2.0, 4.0, 8.0], data_format="HWC")(a.astype("float32"))
    np.testing.assert_allclose(hwc.transpose(2, 0, 1), n.numpy())
    assert T.Transpose()(np.zeros((4, 5), "float32")).shape == (1, 4, 5)


def test_dataset_errors(tmp_path):
    img, lab, _, _ = _idx_files(tmp_path)
    with pytest.raises(ValueError, match="not an IDX file of labels"):
        rt.vision.datasets.MNIST(image_path=img, label_path=img)
    with pytest.raises(ValueError, match="mode must be 'train' or 'test'"):
        rt.vision.datasets.MNIST(image_path=img, label_path=lab, mode="val")
    with pytest.raises(FileNotFoundError, match="not downloaded"):
        rt.vision.datasets.FashionMNIST(image_path=None, label_path=lab)
    with pytest.raises(ValueError, match="expected one of"):
        rt.vision.set_image_backend("opencv")
    with pytest.raises(ValueError, match="pretrained weights are not downloaded"):
        rt.vision.models.resnet18(pretrained=True)


def test_resnet_names_are_paddles_and_static_matches_eager():
    rt.seed(0)
    model = rt.vision.models.resnet18(num_classes=5)
    keys = list(model.state_dict())
    assert len(keys) == 102  # Paddle 3.3's resnet18 state dict: the same 102 names, in this order
    assert keys[:6] == ["conv1.weight", "bn1.weight", "bn1.bias", "bn1._mean", "bn1._variance",
                        "layer1.0.conv1.weight"]
    assert "layer2.0.downsample.0.weight" in keys and keys[-2:] == ["fc.weight", "fc.bias"]
    model.eval()
    x = rt.to_tensor(np.random.default_rng(1).normal(size=(1, 3, 16, 16)).astype("float32"))
    np.testing.assert_array_equal(dy2st.to_static(model)(x).numpy(), model(x).numpy())


def test_lenet_trains_the_same_converted():
    rt.seed(0)
    eager = rt.vision.models.LeNet()
    static = rt.vision.models.LeNet()
    static.set_state_dict(eager.state_dict())
    static = dy2st.to_static(static)
    rng = np.random.default_rng(2)
    losses = {}
    for name, model in (("eager", eager), ("static", static)):
        opt = rt.optimizer.Adam(1e-3, parameters=model.parameters())
        losses[name] = []
        for step in range(2):
            x = rt.to_tensor(np.random.default_rng(step).normal(size=(4, 1, 28, 28)).astype("float32"))
            y = rt.to_tensor(rng.integers(0, 10, size=(4, 1)).astype("int64") * 0 + step)
            loss = rt.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses[name].append(float(loss))
    assert losses["eager"] == losses["static"]
    for (k, a), b in zip(eager.state_dict().items(), static.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)
