"""``dy2st demo``: the whole workflow on real data that ships with scikit-learn.

Train the same classifier code eagerly and with ``@to_static`` on the 8x8
handwritten digits (1,797 images, bundled with scikit-learn, no download),
compare accuracies, show the converted ``forward``, save an inference model,
reload it without the class, check its predictions, and time eager against
static inference and training.
"""
import argparse
import os
import sys
import time

import numpy as np

import runtime as rt
import runtime.nn.functional as F
from runtime import nn

from ..deploy import io
from ..frontend import api
from ..frontend.static_function import StaticFunction


class DigitsNet(nn.Layer):
    """A small MLP; dropout only while training (a Python bool, decided at trace time)."""

    def __init__(self, hidden=64, classes=10):
        super().__init__()
        self.fc1 = nn.Linear(64, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, classes)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        if self.training:
            h = self.dropout(h)
        h = F.relu(self.fc2(h)) + h
        return self.out(h)


def load_digits(seed=0):
    """scikit-learn's 8x8 digits as float32 images in [0, 1] and int64 labels, split into train and test.

    Exits with an install hint when scikit-learn is missing.
    """
    try:
        from sklearn.datasets import load_digits as sk_load_digits
    except ImportError:
        sys.exit("dy2st demo needs scikit-learn for its bundled digits data: pip install scikit-learn tqdm, or from the project folder: pip install '.[demo]'")
    data = sk_load_digits()
    x = (data.data / 16.0).astype("float32")
    y = data.target.astype("int64")
    order = np.random.default_rng(seed).permutation(len(x))
    x, y = x[order], y[order]
    n_test = 360
    return (x[n_test:], y[n_test:]), (x[:n_test], y[:n_test])


def _progress(iterable, total, desc, enabled):
    if not enabled:
        return iterable  # no wrapper (tqdm's disabled one is a generator step per batch in the timed loop)
    try:
        from tqdm import tqdm
    except ImportError:
        return iterable
    # disable=None: bars only on a terminal, never carriage-return clutter in a log file.
    return tqdm(iterable, total=total, desc=desc, leave=False, disable=None if enabled else True, file=sys.stderr)


def make_train_step(model, opt, convert):
    """The training loop's body: forward, ``cross_entropy``, backward, optimizer step, clear.

    ``convert=False`` returns it as is (the eager loop); ``convert=True`` returns the same
    function under ``@to_static``, which compiles forward, backward and the update into one
    Program, built once per batch shape and run by every later call."""
    def train_step(images, labels):
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    return api.to_static(train_step) if convert else train_step


def warm_up(step, data, batch_size):
    """Build a converted step's Programs for every batch size the loop will see, before the timed
    window and without running them (no weight changes); an eager step has nothing to build."""
    if not isinstance(step, StaticFunction):
        return
    x_train, y_train = data
    for n in sorted({min(batch_size, len(x_train)), len(x_train) % batch_size or batch_size}):
        step.get_concrete_program(rt.to_tensor(x_train[:n]), rt.to_tensor(y_train[:n]))


def prepare(model, data, batch_size, lr, convert=False):
    """The step function of one run (its own Adam over ``model``), with its Programs built:
    conversion and tracing happen here, before any timed window, as they would be amortised
    over a real training run."""
    opt = rt.optimizer.Adam(learning_rate=lr, parameters=model.parameters())
    model.train()
    step = make_train_step(model, opt, convert)
    warm_up(step, data, batch_size)
    return step


def train_epoch(step, data, batch_size, epoch, desc):
    """One epoch of the training loop; returns its per-batch losses and its time (the loop alone).

    The framework RNG (dropout masks) and the data order are reseeded from ``epoch`` first, so
    the eager and the converted run see the same masks and batches in every epoch whatever ran
    between their epochs, and their losses can be compared step by step."""
    x_train, y_train = data
    rt.seed(7 + epoch)
    order = np.random.default_rng((1, epoch)).permutation(len(x_train))
    n_batches = (len(x_train) + batch_size - 1) // batch_size
    batches = _progress(range(n_batches), n_batches, desc, desc is not None)
    losses = []
    start = time.perf_counter()
    for b in batches:
        idx = order[b * batch_size:(b + 1) * batch_size]
        loss = step(rt.to_tensor(x_train[idx]), rt.to_tensor(y_train[idx]))
        losses.append(float(loss))
    return losses, time.perf_counter() - start


def train_both(eager, static, data, epochs, batch_size, lr, progress=True):
    """Train both models with the same loop, their epochs interleaved (eager epoch k, static epoch k,
    ...; the first of each pair alternating), so drift of the machine's speed during the run hits
    both alike.  Returns each run's per-batch losses and its throughput (images per second of the
    summed epoch times)."""
    runs = {"eager ": prepare(eager, data, batch_size, lr), "static": prepare(static, data, batch_size, lr, True)}
    losses = {name: [] for name in runs}
    seconds = dict.fromkeys(runs, 0.0)
    names = list(runs)
    for epoch in range(epochs):
        for name in (names if epoch % 2 == 0 else names[::-1]):
            desc = f"{name} epoch {epoch + 1}/{epochs}" if progress else None
            got, elapsed = train_epoch(runs[name], data, batch_size, epoch, desc)
            losses[name] += got
            seconds[name] += elapsed
    n = epochs * len(data[0])
    return losses["eager "], n / seconds["eager "], losses["static"], n / seconds["static"]


def accuracy(model, data):
    """The fraction of ``data = (x, y)`` the model classifies right, in ``eval()`` mode."""
    x, y = data
    model.eval()
    with rt.no_grad():
        pred = model(rt.to_tensor(x)).numpy().argmax(axis=1)
    return float((pred == y).mean())


def latency_per_1000(model, x, n=1000):
    """Seconds for ``n`` single-image forward calls (after one warm-up call)."""
    model.eval()
    with rt.no_grad():
        model(rt.to_tensor(x[:1]))  # warm-up (builds the Program once for a static model)
        start = time.perf_counter()
        for i in range(n):
            model(rt.to_tensor(x[i % len(x)][None]))
    return time.perf_counter() - start


def run(epochs=10, out_dir="dy2st_demo_out", batch_size=32, lr=0.01, progress=True, show_code=True):
    """The demo: train the same net eagerly and converted, compare them, save the static model to ``out_dir`` and
    reload it.
    """
    train_data, test_data = load_digits()
    print(f"digits: {len(train_data[0])} train / {len(test_data[0])} test images of 8x8 pixels")

    rt.seed(2024)
    eager = DigitsNet()
    rt.seed(2024)
    static = api.to_static(DigitsNet())  # forward converted too: shown, saved and timed for inference below

    eager_losses, eager_tput, static_losses, static_tput = train_both(
        eager, static, train_data, epochs, batch_size, lr, progress)
    max_diff = float(np.max(np.abs(np.array(eager_losses) - np.array(static_losses))))
    acc_e, acc_s = accuracy(eager, test_data), accuracy(static, test_data)
    print(f"final loss: eager {eager_losses[-1]:.4f}, static {static_losses[-1]:.4f} "
          f"(largest per-step difference {max_diff:.2e})")
    print(f"test accuracy: eager {acc_e:.2%}, static {acc_s:.2%}")

    if show_code:
        print("\nforward after conversion:\n")
        print(static.forward.code)

    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "digits")
    io.save(static, path, input_spec=[rt.static.InputSpec([None, 64], "float32", "image")])
    loaded = io.load(path)
    loaded.eval()
    with rt.no_grad():
        ref = static(rt.to_tensor(test_data[0])).numpy()
        got = loaded(rt.to_tensor(test_data[0])).numpy()
    same = bool(np.allclose(ref, got, atol=1e-5))
    print(f"\nsaved {path}.pdmodel/.pdiparams/.pdiparams.info; reloaded predictions match: {same}")

    t_eager = latency_per_1000(eager, test_data[0])
    t_static = latency_per_1000(static, test_data[0])
    t_loaded = latency_per_1000(loaded, test_data[0])
    rows = [
        ("inference, 1000 single images (s)", f"{t_eager:.3f}", f"{t_static:.3f}", f"{t_eager / t_static:.2f}x"),
        ("  reloaded inference model (s)", "", f"{t_loaded:.3f}", f"{t_eager / t_loaded:.2f}x"),
        ("training throughput (images/s)", f"{eager_tput:.0f}", f"{static_tput:.0f}",
         f"{static_tput / eager_tput:.2f}x"),
    ]
    print("\n| measure | eager | static | speedup |\n|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print("\nTimed windows: inference, 1000 calls after one warm-up call; training, the epochs loop "
          f"({epochs} epochs of batch {batch_size}: one call of the step function (forward, cross_entropy, "
          "backward, Adam step, clear_grad) and float(loss) per batch), eager and static epochs interleaved, "
          "throughput from the summed epoch times. Eager runs the step function as "
          "written; static runs the same function under @to_static, one compiled Program per call. "
          "Converting and tracing happen once, before either window.")
    return {"acc_eager": acc_e, "acc_static": acc_s, "loss_diff": max_diff, "reload_match": same,
            "t_eager": t_eager, "t_static": t_static, "tput_eager": eager_tput, "tput_static": static_tput}


DESCRIPTION = """\
Train the same digits classifier (scikit-learn's bundled 8x8 digits, no download)
eagerly and with @to_static using one training loop, print both test accuracies and
the largest per-step loss difference, show the converted forward, save an inference
model to OUT_DIR/digits.{pdmodel,pdiparams,pdiparams.info}, reload it with dy2st.load,
check its predictions, and print an eager-vs-static timing table.
Takes a few seconds; the default 10 epochs reach about 96% test accuracy."""


def _positive(kind):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a positive {kind.__name__}, got {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"expected a positive {kind.__name__}, got {text}")
        return value
    return parse


def add_arguments(parser):
    """Add the demo's options (epochs, output folder, batch size, learning rate, progress) to ``parser``."""
    parser.add_argument("--epochs", type=_positive(int), default=10, help="training epochs for each model (default 10)")
    parser.add_argument("--out-dir", default="dy2st_demo_out", help="where the inference model is saved (default dy2st_demo_out)")
    parser.add_argument("--batch-size", type=_positive(int), default=32, help="training batch size (default 32)")
    parser.add_argument("--lr", type=_positive(float), default=0.01, help="Adam learning rate (default 0.01)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")


def main(argv=None):
    """Run the demo from command-line arguments; returns the exit code."""
    parser = argparse.ArgumentParser(prog="dy2st demo", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    args = parser.parse_args(argv)
    run(args.epochs, args.out_dir, args.batch_size, args.lr, progress=not args.no_progress)
    return 0

