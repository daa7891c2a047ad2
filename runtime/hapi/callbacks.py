"""``rt.callbacks``: the hooks ``rt.Model.fit/evaluate/predict`` call (Paddle's ``paddle.callbacks``).

``config_callbacks`` adds the defaults Paddle adds: a ``ProgBarLogger`` (unless ``verbose=0``), a
``ModelCheckpoint`` (saving only with a ``save_dir``) and an ``LRScheduler`` stepping the optimizer's
scheduler after every training batch.
"""
import numbers
import os
import warnings

import numpy as np

from ..optimizer.lr import LRScheduler as _Scheduler
from .progressbar import ProgressBar

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "LRScheduler", "EarlyStopping", "ReduceLROnPlateau",
           "config_callbacks"]

_MODES = ("train", "eval", "predict")


def config_callbacks(callbacks=None, model=None, batch_size=None, epochs=None, steps=None, log_freq=2, verbose=2,
                     save_freq=1, save_dir=None, metrics=None, mode="train"):
    """The user's callbacks plus the defaults, bound to ``model`` and given the run's parameters."""
    cbks = list(callbacks if isinstance(callbacks, (list, tuple)) else [callbacks] if callbacks else [])
    if verbose and not any(isinstance(k, ProgBarLogger) for k in cbks):
        cbks = [ProgBarLogger(log_freq, verbose=verbose), *cbks]
    if not any(isinstance(k, ModelCheckpoint) for k in cbks):
        cbks.append(ModelCheckpoint(save_freq, save_dir))
    for k in cbks:
        if isinstance(k, EarlyStopping):
            k.save_dir = save_dir
    if not any(isinstance(k, LRScheduler) for k in cbks):
        cbks.append(LRScheduler())
    cbk_list = CallbackList(cbks)
    cbk_list.set_model(model)
    cbk_list.set_params({"batch_size": batch_size, "epochs": epochs, "steps": steps, "verbose": verbose,
                         "metrics": (metrics or []) if mode != "test" else []})
    return cbk_list


class CallbackList:
    """Calls the same hook on every callback, in order."""

    def __init__(self, callbacks):
        self.callbacks = list(callbacks)

    def __iter__(self):
        return iter(self.callbacks)

    def append(self, callback):
        """Add ``callback`` at the end."""
        self.callbacks.append(callback)

    def set_params(self, params):
        """Give every callback the run's parameters."""
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model):
        """Give every callback the model."""
        for c in self.callbacks:
            c.set_model(model)

    def _call(self, name, *args):
        for c in self.callbacks:
            getattr(c, name)(*args)

    def on_begin(self, mode, logs=None):
        """``on_{mode}_begin`` of every callback."""
        self._call(f"on_{_check(mode)}_begin", logs)

    def on_end(self, mode, logs=None):
        """``on_{mode}_end`` of every callback."""
        self._call(f"on_{_check(mode)}_end", logs)

    def on_epoch_begin(self, epoch=None, logs=None):
        """``on_epoch_begin`` of every callback."""
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch=None, logs=None):
        """``on_epoch_end`` of every callback."""
        self._call("on_epoch_end", epoch, logs)

    def on_batch_begin(self, mode, step=None, logs=None):
        """``on_{mode}_batch_begin`` of every callback."""
        self._call(f"on_{_check(mode)}_batch_begin", step, logs)

    def on_batch_end(self, mode, step=None, logs=None):
        """``on_{mode}_batch_end`` of every callback."""
        self._call(f"on_{_check(mode)}_batch_end", step, logs)


def _check(mode):
    if mode not in _MODES:
        raise ValueError(f"callback mode should be 'train', 'eval' or 'predict', got {mode!r}")
    return mode


class Callback:
    """Base of callbacks: every hook does nothing; ``self.model`` is the ``rt.Model``, ``self.params`` the run's
    ``batch_size``/``epochs``/``steps``/``verbose``/``metrics``."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_params(self, params):
        """Receive the run's parameters (``batch_size``, ``epochs``, ``steps``, ``verbose``, ``metrics``)."""
        self.params = params

    def set_model(self, model):
        """Receive the ``rt.Model`` being run."""
        self.model = model

    def on_train_begin(self, logs=None):
        """Called once before training."""

    def on_train_end(self, logs=None):
        """Called once after training, with the last epoch's logs."""

    def on_eval_begin(self, logs=None):
        """Called before an evaluation; ``logs`` has ``steps`` and ``metrics`` (the log keys)."""

    def on_eval_end(self, logs=None):
        """Called after an evaluation with its logs (the last batch's loss, the metrics over all batches)."""

    def on_predict_begin(self, logs=None):
        """Called before a prediction; ``logs`` has ``steps``."""

    def on_predict_end(self, logs=None):
        """Called after a prediction."""

    def on_epoch_begin(self, epoch, logs=None):
        """Called at the start of training epoch ``epoch`` (from 0)."""

    def on_epoch_end(self, epoch, logs=None):
        """Called at the end of training epoch ``epoch`` with its logs."""

    def on_train_batch_begin(self, step, logs=None):
        """Called before training batch ``step``."""

    def on_train_batch_end(self, step, logs=None):
        """Called after training batch ``step``; ``logs`` has ``loss``, the metrics, ``step`` and ``batch_size``."""

    def on_eval_batch_begin(self, step, logs=None):
        """Called before evaluation batch ``step``."""

    def on_eval_batch_end(self, step, logs=None):
        """Called after evaluation batch ``step`` with the logs so far."""

    def on_predict_batch_begin(self, step, logs=None):
        """Called before prediction batch ``step``."""

    def on_predict_batch_end(self, step, logs=None):
        """Called after prediction batch ``step``."""


class ProgBarLogger(Callback):
    """Print the loss and metrics every ``log_freq`` steps and at the end of an epoch: ``verbose`` 0 silent,
    1 a progress bar, 2 one line per print."""

    def __init__(self, log_freq=1, verbose=2):
        super().__init__()
        self.log_freq, self.verbose = log_freq, verbose
        self.epochs = self.steps = None

    def on_train_begin(self, logs=None):
        self.epochs = self.params["epochs"]
        self.train_metrics = self.params["metrics"]
        if self.verbose:
            print("The loss value printed in the log is the current step, and the metric is the average value "
                  "of previous steps.")

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps, self.epoch, self.train_step = self.params["steps"], epoch, 0
        if self.epochs and self.verbose:
            print(f"Epoch {epoch + 1}/{self.epochs}")
        self.train_progbar = ProgressBar(num=self.steps, verbose=self.verbose)

    def _updates(self, logs, mode):
        metrics = getattr(self, f"{mode}_metrics")
        getattr(self, f"{mode}_progbar").update(getattr(self, f"{mode}_step"),
                                                 [(k, logs[k]) for k in metrics if k in logs])

    def _batch_end(self, mode, total, logs):
        setattr(self, f"{mode}_step", getattr(self, f"{mode}_step") + 1)
        step = getattr(self, f"{mode}_step")
        if self.verbose and step % self.log_freq == 0 and (total is None or step < total):
            self._updates(logs or {}, mode)

    def on_train_batch_end(self, step, logs=None):
        self._batch_end("train", self.steps, logs)

    def on_epoch_end(self, epoch, logs=None):
        if self.verbose and self.steps is not None:
            self._updates(logs or {}, "train")

    def _begin(self, mode, logs, title):
        logs = logs or {}
        setattr(self, f"{mode}_steps", logs.get("steps"))
        setattr(self, f"{mode}_metrics", logs.get("metrics", []))
        setattr(self, f"{mode}_step", 0)
        self.samples = 0
        setattr(self, f"{mode}_progbar", ProgressBar(num=logs.get("steps"), verbose=self.verbose))
        if self.verbose:
            print(title)

    def on_eval_begin(self, logs=None):
        self._begin("eval", logs, "Eval begin...")

    def on_eval_batch_end(self, step, logs=None):
        self.samples += (logs or {}).get("batch_size", 1)
        self._batch_end("eval", self.eval_steps, logs)

    def on_eval_end(self, logs=None):
        if self.verbose and self.eval_steps is not None:
            self._updates(logs or {}, "eval")
            print(f"Eval samples: {self.samples}")

    def on_predict_begin(self, logs=None):
        self._begin("test", logs, "Predict begin...")

    def on_predict_batch_end(self, step, logs=None):
        self.samples += (logs or {}).get("batch_size", 1)
        self._batch_end("test", self.test_steps, logs)

    def on_predict_end(self, logs=None):
        if self.verbose:
            if self.test_step % self.log_freq != 0 or self.verbose == 1:
                self._updates(logs or {}, "test")
            print(f"Predict samples: {self.samples}")


class ModelCheckpoint(Callback):
    """Save the model (``model.save``) to ``{save_dir}/{epoch}`` every ``save_freq`` epochs and to
    ``{save_dir}/final`` after training; nothing without a ``save_dir``."""

    def __init__(self, save_freq=1, save_dir=None):
        super().__init__()
        self.save_freq, self.save_dir = save_freq, save_dir

    def on_epoch_begin(self, epoch=None, logs=None):
        self.epoch = epoch

    def _save(self, name):
        if self.model is not None and self.save_dir:
            path = f"{self.save_dir}/{name}"
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)

    def on_epoch_end(self, epoch, logs=None):
        if self.epoch % self.save_freq == 0:
            self._save(epoch)

    def on_train_end(self, logs=None):
        self._save("final")


class LRScheduler(Callback):
    """Step the optimizer's learning-rate scheduler after every training batch (``by_step``) or epoch
    (``by_epoch``)."""

    def __init__(self, by_step=True, by_epoch=False):
        super().__init__()
        if by_step and by_epoch:
            raise ValueError("by_step option is mutually exclusive with by_epoch")
        self.by_step, self.by_epoch = by_step, by_epoch

    def _step(self):
        opt = getattr(self.model, "_optimizer", None)
        if opt is not None and isinstance(getattr(opt, "_learning_rate", None), _Scheduler):
            opt._learning_rate.step()

    def on_epoch_end(self, epoch, logs=None):
        if self.by_epoch:
            self._step()

    def on_train_batch_end(self, step, logs=None):
        if self.by_step:
            self._step()


class EarlyStopping(Callback):
    """Stop training (``model.stop_training = True``) when ``monitor`` (from the evaluation after each epoch)
    has not improved by ``min_delta`` for ``patience`` evaluations; with ``fit(save_dir=...)`` the best
    model is saved to ``{save_dir}/best_model``."""

    def __init__(self, monitor="loss", mode="auto", patience=0, verbose=1, min_delta=0, baseline=None,
                 save_best_model=True):
        super().__init__()
        self.monitor, self.patience, self.verbose, self.baseline = monitor, patience, verbose, baseline
        self.save_best_model, self.save_dir = save_best_model, None
        self.wait_epoch = self.stopped_epoch = 0
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"EarlyStopping mode {mode} is unknown, fallback to auto mode.", stacklevel=2)
            mode = "auto"
        bigger = mode == "max" or (mode == "auto" and "acc" in monitor)
        self.monitor_op = np.greater if bigger else np.less
        self.min_delta = abs(min_delta) if bigger else -abs(min_delta)

    def on_train_begin(self, logs=None):
        self.wait_epoch = 0
        if self.baseline is not None:
            self.best_value = self.baseline
        else:
            self.best_value = np.inf if self.monitor_op == np.less else -np.inf

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs:
            warnings.warn("Monitor of EarlyStopping should be loss or metric name.", stacklevel=2)
            return
        current = logs[self.monitor]
        if isinstance(current, (list, tuple)):
            current = current[0]
        elif not isinstance(current, numbers.Number):
            return
        best_path = os.path.join(self.save_dir, "best_model") if self.save_dir is not None else None
        if self.monitor_op(current - self.min_delta, self.best_value):
            self.best_value, self.wait_epoch = current, 0
            if self.save_best_model and best_path:
                self.model.save(best_path)
        else:
            self.wait_epoch += 1
        if self.wait_epoch >= self.patience:
            self.model.stop_training = True
            if self.verbose > 0:
                print(f"Epoch {self.stopped_epoch + 1}: Early stopping.")
                if self.save_best_model and best_path:
                    print(f"Best checkpoint has been saved at {os.path.abspath(best_path)}")
        self.stopped_epoch += 1


class ReduceLROnPlateau(Callback):
    """Multiply a float learning rate by ``factor`` (not below ``min_lr``) when ``monitor`` (from the
    evaluation after each epoch) has not improved by ``min_delta`` for ``patience`` evaluations, then
    wait ``cooldown`` evaluations."""

    def __init__(self, monitor="loss", factor=0.1, patience=10, verbose=1, mode="auto", min_delta=1e-4, cooldown=0,
                 min_lr=0):
        super().__init__()
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        self.monitor, self.factor, self.min_lr, self.min_delta = monitor, factor, min_lr, min_delta
        self.patience, self.verbose, self.cooldown, self.mode, self.epoch = patience, verbose, cooldown, mode, 0
        self._reset()

    def _reset(self):
        if self.mode not in ("auto", "min", "max"):
            warnings.warn(f"Learning rate reduction mode {self.mode} is unknown, fallback to auto mode.", stacklevel=3)
            self.mode = "auto"
        if self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor):
            self.monitor_op, self.best = (lambda a, b: np.less(a, b - self.min_delta)), np.inf
        else:
            self.monitor_op, self.best = (lambda a, b: np.greater(a, b + self.min_delta)), -np.inf
        self.cooldown_counter = self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs:
            warnings.warn("Monitor of ReduceLROnPlateau should be loss or metric name.", stacklevel=2)
            return
        opt = getattr(self.model, "_optimizer", None)
        if not isinstance(getattr(opt, "_learning_rate", None), float):
            warnings.warn(f"Expected learning_rate be float, bug got {type(getattr(opt, '_learning_rate', None))}.",
                          stacklevel=2)
            return
        current = logs[self.monitor]
        if isinstance(current, (list, tuple)):
            current = current[0]
        elif not isinstance(current, numbers.Number):
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best, self.wait = current, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = opt.get_lr()
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    opt._learning_rate = new_lr
                    if self.verbose > 0:
                        print(f"\nEpoch {self.epoch + 1}: ReduceLROnPlateau reducing learning rate to {new_lr}.")
                    self.cooldown_counter, self.wait = self.cooldown, 0
        self.epoch += 1
