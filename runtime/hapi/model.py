"""``rt.Model``: Paddle's high-level training API (``paddle.Model``) over a Layer, eagerly.

    model = rt.Model(net)
    model.prepare(rt.optimizer.SGD(0.1, parameters=model.parameters()), rt.nn.CrossEntropyLoss(),
                  rt.metric.Accuracy())
    model.fit(train_dataset, eval_dataset, batch_size=32, epochs=2)

A network converted by ``dy2st.to_static`` (its ``forward`` decorated, or the Layer passed through
it) is called the same way: its converted forward computes what the eager one does, so ``fit``
trains it to the same parameters.  The logs follow Paddle's: ``loss`` is the last batch's loss (a
list, one value per loss output), the metrics are accumulated over the epoch.  ``save``/``load``
are inherited from ``ModelCheckpoint`` (``model_checkpoint.py``).
"""
import inspect
import warnings

import numpy as np

from .. import amp
from ..io import DataLoader, Dataset, IterableDataset
from ..metric import Metric
from ..nn import Layer
from ..ops.creation import to_tensor
from ..ops.math import add_n
from ..static import InputSpec
from ..tensor import Tensor, no_grad
from ..utils import flatten
from .callbacks import EarlyStopping, config_callbacks
from .model_checkpoint import INFERENCE_SAVER, ModelCheckpoint  # noqa: F401  (dy2st sets INFERENCE_SAVER here)
from .model_summary import summary

__all__ = ["Model"]

_AMP_KEYS = {"init_loss_scaling", "incr_ratio", "decr_ratio", "incr_every_n_steps", "decr_every_n_nan_or_inf",
             "use_dynamic_loss_scaling"}
_AMP_LISTS = ("custom_white_list", "custom_black_list", "custom_black_varnames")


def _to_list(value):
    if value is None:
        return value
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _to_numpy(value):
    return value.numpy() if isinstance(value, Tensor) else np.asarray(value)


def _as_tensor(x):
    return x if isinstance(x, Tensor) else to_tensor(x)


def _input_info(inputs):
    """``(shapes, dtypes)`` of the given specs or batch, for the inference-save hint."""
    if isinstance(inputs, dict):
        inputs = list(inputs.values())
    if isinstance(inputs, (InputSpec, Tensor, np.ndarray)):
        inputs = [inputs]
    if not isinstance(inputs, (list, tuple)) or not all(hasattr(x, "shape") and hasattr(x, "dtype") for x in inputs):
        return None  # e.g. nested Python lists: no hint then
    return [list(x.shape) for x in inputs], [str(np.dtype(x.dtype)) if isinstance(x, np.ndarray) else str(x.dtype)
                                             for x in inputs]


def _forward_arg_names(network):
    """The names of ``forward``'s positional parameters (without ``self``), through a ``to_static`` wrapper."""
    fn = network.forward
    fn = getattr(fn, "dygraph_function", fn)  # a to_static wrapper keeps the plain function
    fn = getattr(fn, "__func__", fn)  # a bound method: its function, whose first parameter is self
    params = [p for p in inspect.signature(fn).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return [p.name for p in params[1:]]


class Model(ModelCheckpoint):
    """Train, evaluate and run ``network`` (a Layer) batch by batch or over datasets (Paddle's ``paddle.Model``).

    ``inputs``/``labels`` are InputSpecs (or lists/dicts of them) naming the network's inputs; without
    ``inputs`` the network takes as many inputs as ``forward`` has parameters, and the rest of each
    batch is the labels.
    """

    def __init__(self, network, inputs=None, labels=None):
        if not isinstance(network, Layer):
            raise TypeError(f"Model expects an rt.nn.Layer, got {type(network).__name__}")
        self.mode = "train"
        self.network = network
        self._loss = self._optimizer = self._scaler = None
        self._metrics = []
        self._amp_level, self._amp_configs, self._amp_lists = "O0", {}, {}
        self._test_dataloader = None
        self.stop_training = False
        self._input_info = _input_info(inputs) if inputs else None
        self._given_inputs = inputs is not None
        self._inputs = self._verify_spec(inputs, is_input=True)
        self._labels = self._verify_spec(labels)

    def _verify_spec(self, specs, is_input=False):
        if specs is None:
            if not is_input:
                return None
            out = [InputSpec([None], name=n) for n in _forward_arg_names(self.network)]
        elif isinstance(specs, dict):
            if is_input is False:
                raise TypeError("Model: labels cannot be a dict")
            out = [specs[n] for n in _forward_arg_names(self.network)]
        else:
            out = _to_list(specs)
        for i, spec in enumerate(out):
            if not isinstance(spec, InputSpec):
                raise TypeError(f"Model: inputs and labels must be InputSpecs, got {type(spec).__name__} at {i}")
            if spec.name is None:
                raise ValueError(f"Requires Input[{i}].name != None, but receive `None` with {spec}.")
        return out

    # -- one batch ---------------------------------------------------------------------------------
    def train_batch(self, inputs, labels=None, update=True):
        """One training step on one batch: forward, loss, backward and (``update``) the optimizer step.
        Returns the losses as numpy arrays, with the metrics' ``update`` results when there are metrics."""
        if self._optimizer is None or self._loss is None:
            raise RuntimeError("model not ready, please call `model.prepare(optimizer, loss)` first")
        self.network.train()
        self.mode = "train"
        inputs = _to_list(inputs)
        self._input_info = _input_info(inputs)
        labels = [_as_tensor(v) for v in _to_list(labels or [])]
        if self._amp_level != "O0" and self._scaler is None:
            self._scaler = amp.GradScaler(**self._amp_configs)
        with amp.auto_cast(enable=self._amp_level != "O0", level=self._amp_level, **self._amp_lists):
            outputs = self.network(*[_as_tensor(x) for x in inputs])
        losses = _to_list(self._loss(*(_to_list(outputs) + labels)))
        final = losses[0] if len(losses) == 1 else add_n(losses)
        if self._scaler is not None:
            final = self._scaler.scale(final)
        final.backward()
        if update:
            if self._scaler is not None:
                self._scaler.minimize(self._optimizer, final)
            else:
                self._optimizer.minimize(final)
            self.network.clear_gradients()
        metrics = self._update_metrics(outputs, labels)
        losses = [_to_numpy(v) for v in losses]
        return (losses, metrics) if metrics else losses

    def eval_batch(self, inputs, labels=None):
        """Loss and metrics of one batch in eval mode, no update: the losses (numpy), the metrics' ``update``
        results, or both, as Paddle returns them."""
        self.network.eval()
        self.mode = "eval"
        inputs = _to_list(inputs)
        self._input_info = _input_info(inputs)
        labels = [_as_tensor(v) for v in _to_list(labels or [])]
        with no_grad():
            outputs = self.network(*[_as_tensor(x) for x in inputs])
            losses = _to_list(self._loss(*(_to_list(outputs) + labels))) if self._loss else None
            metrics = self._update_metrics(outputs, labels)
        if losses is None:
            return metrics
        losses = [_to_numpy(v) for v in losses]
        return (losses, metrics) if metrics else losses

    def predict_batch(self, inputs):
        """The network's outputs on one batch in eval mode, as a list of numpy arrays."""
        self.network.eval()
        self.mode = "test"
        inputs = [_as_tensor(x) for x in _to_list(inputs)]
        self._input_info = _input_info(inputs)
        with no_grad():
            outputs = self.network(*inputs)
        return [_to_numpy(o) for o in _to_list(outputs)]

    def _update_metrics(self, outputs, labels):
        out = []
        for metric in self._metrics:
            computed = metric.compute(*(_to_list(outputs) + labels))
            out.append(metric.update(*[_to_numpy(m) for m in _to_list(computed)]))
        return out

    def parameters(self, *args, **kwargs):
        """The network's parameters (``network.parameters(*args, **kwargs)``)."""
        return self.network.parameters(*args, **kwargs)

    # -- configuration -----------------------------------------------------------------------------
    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None):
        """Set the optimizer (needed to train), the loss (a Layer or callable on ``outputs + labels``), the
        metrics (rt.metric.Metric instances) and ``amp_configs`` ('O0'/'O1'/'O2' or a dict with ``level``)."""
        self._optimizer = optimizer
        if loss is not None and not isinstance(loss, Layer) and not callable(loss):
            raise TypeError("'loss' must be sub classes of `rt.nn.Layer` or any callable function.")
        self._loss = loss
        self._metrics = _to_list(metrics or [])
        for metric in self._metrics:
            if not isinstance(metric, Metric):
                raise TypeError(f"{type(metric).__name__} is not sub class of Metric")
        self._prepare_amp(amp_configs)

    def _prepare_amp(self, configs):
        self._amp_configs, self._amp_lists, self._scaler = {}, {}, None
        if not configs:
            self._amp_level = "O0"
            return
        configs = {"level": configs} if isinstance(configs, str) else dict(configs)
        level = configs.pop("level", "O1")
        if level not in ("O0", "O1", "O2"):
            raise ValueError("The level of amp_configs should be 'O0', 'O1' or 'O2'.")
        self._amp_level = level
        if level == "O0":
            return
        if "use_pure_fp16" in configs:
            raise ValueError("'use_pure_fp16' is an invalid parameter, the level of mixed precision training only "
                             "depends on 'O1' or 'O2'.")
        self._amp_lists = {k: configs.pop(k) for k in _AMP_LISTS if k in configs}
        if "custom_black_varnames" in self._amp_lists:
            raise NotImplementedError("amp_configs['custom_black_varnames'] is static-graph only in Paddle")
        unknown = set(configs) - _AMP_KEYS
        if unknown:
            raise ValueError("Except for 'level', the keys of 'amp_configs' must be accepted by mixed precision "
                             f"APIs, but {tuple(sorted(unknown))} could not be recognized.")
        self._amp_configs = configs

    # -- whole datasets ----------------------------------------------------------------------------
    def _loader(self, data, batch_size, shuffle=False, drop_last=False, num_workers=0):
        if isinstance(data, Dataset):
            shuffle = shuffle and not isinstance(data, IterableDataset)  # a stream has no order to shuffle
            return DataLoader(data, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last,
                              num_workers=num_workers)
        return data

    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs=1, eval_freq=1, log_freq=10, save_dir=None,
            save_freq=1, verbose=2, drop_last=False, shuffle=True, num_workers=0, callbacks=None,
            accumulate_grad_batches=1, num_iters=None):
        """Train for ``epochs`` over ``train_data`` (a Dataset, batched here, or a DataLoader/iterable of
        batches), evaluating on ``eval_data`` every ``eval_freq`` epochs; ``batch_size`` may be
        ``[train, eval]``.  The callbacks see the logs; ``save_dir`` saves checkpoints every ``save_freq``
        epochs; ``num_iters`` stops after that many batches."""
        if train_data is None:
            raise ValueError("train_data must be given!")
        train_bs, eval_bs = batch_size if isinstance(batch_size, (list, tuple)) else (batch_size, batch_size)
        train_loader = self._loader(train_data, train_bs, shuffle, drop_last, num_workers)
        eval_loader = self._loader(eval_data, eval_bs, num_workers=num_workers) if eval_data is not None else None
        self._test_dataloader = eval_loader
        self._accumulate = accumulate_grad_batches
        steps = _len(train_loader)
        self.num_iters = num_iters
        if num_iters is not None and steps is not None:
            if num_iters <= 0:
                raise ValueError("num_iters must be greater than 0!")
            epochs, steps = num_iters // steps + 1, min(num_iters, steps)
        cbks = config_callbacks(callbacks, model=self, epochs=epochs, steps=steps, log_freq=log_freq,
                                save_freq=save_freq, save_dir=save_dir, verbose=verbose, metrics=self._metrics_name())
        if eval_loader is None and any(isinstance(k, EarlyStopping) for k in cbks):
            warnings.warn("EarlyStopping needs validation data.", stacklevel=2)
        self.stop_training = False
        logs = {}
        cbks.on_begin("train")
        for epoch in range(epochs):
            cbks.on_epoch_begin(epoch)
            logs = self._run_one_epoch(train_loader, cbks, "train")
            cbks.on_epoch_end(epoch, logs)
            if eval_loader is not None and epoch % eval_freq == 0:
                cbks.on_begin("eval", {"steps": _len(eval_loader), "metrics": self._metrics_name()})
                cbks.on_end("eval", self._run_one_epoch(eval_loader, cbks, "eval"))
            if self.stop_training:
                break
        cbks.on_end("train", logs)
        self._test_dataloader = None

    def evaluate(self, eval_data, batch_size=1, log_freq=10, verbose=2, num_workers=0, callbacks=None,
                 num_iters=None):
        """Loss and metrics over ``eval_data``: ``{'loss': [last batch's loss], metric name: value, ...}``."""
        loader = self._loader(eval_data, batch_size, num_workers=num_workers)
        self._test_dataloader = loader
        cbks = config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=verbose,
                                metrics=self._metrics_name())
        steps = _len(loader)
        self.num_iters = num_iters
        if num_iters is not None and steps is not None:
            if num_iters <= 0:
                raise ValueError("num_iters must be greater than 0!")
            steps = self.num_iters = min(num_iters, steps)
        cbks.on_begin("eval", {"steps": steps, "metrics": self._metrics_name()})
        logs = self._run_one_epoch(loader, cbks, "eval")
        cbks.on_end("eval", logs)
        self._test_dataloader = None
        return {k: logs[k] for k in self._metrics_name()}

    def predict(self, test_data, batch_size=1, num_workers=0, stack_outputs=False, verbose=1, callbacks=None):
        """The network's outputs over ``test_data``: one list per output, of per-batch numpy arrays, or
        with ``stack_outputs`` one array per output (the batches stacked)."""
        loader = self._loader(test_data, batch_size, num_workers=num_workers)
        self._test_dataloader = loader
        cbks = config_callbacks(callbacks, model=self, verbose=verbose)
        cbks.on_begin("predict", {"steps": _len(loader)})
        logs, outputs = self._run_one_epoch(loader, cbks, "predict")
        outputs = list(zip(*outputs))
        if stack_outputs:
            outputs = [np.vstack(outs) for outs in outputs]
        self._test_dataloader = None
        cbks.on_end("predict", logs)
        return outputs

    def _run_one_epoch(self, loader, callbacks, mode):
        logs, outputs = {}, []
        n_in = len(self._inputs)
        for step, data in enumerate(loader):
            # a batch is [inputs..., labels...], or nested ([inputs], [labels]): flattened either way
            data = flatten(data)
            callbacks.on_batch_begin(mode, step, logs)
            if mode == "predict":
                outputs.append(self.predict_batch(data[:n_in]))
            else:
                args = [data[:n_in], data[n_in:]]
                if mode == "train":
                    args.append((step + 1) % self._accumulate == 0 or step + 1 == _len(loader))
                outs = getattr(self, mode + "_batch")(*args)
                values = []
                if self._loss:
                    values.append([float(v) for v in (outs[0] if self._metrics else outs)])
                for metric in self._metrics:
                    values.extend(_to_list(metric.accumulate()))
                logs.update(zip(self._metrics_name(), values))
            logs["step"] = step
            logs["batch_size"] = data[0].shape[0]
            callbacks.on_batch_end(mode, step, logs)
            if getattr(self, "num_iters", None) is not None:
                self.num_iters -= 1
                if self.num_iters <= 0:
                    self.stop_training = True
                    del self.num_iters
                    break
        for metric in self._metrics:
            metric.reset()
        return (logs, outputs) if mode == "predict" else logs

    def _metrics_name(self):
        names = ["loss"] if self._loss else []
        for m in self._metrics:
            names.extend(_to_list(m.name()))
        return names

    def summary(self, input_size=None, dtype=None):
        """``rt.summary`` of the network for ``input_size`` (default: the ``inputs`` specs' shapes)."""
        if input_size is None and self._inputs is None:
            raise ValueError("'input_size' or 'self._input' must be set")
        return summary(self.network, input_size if input_size is not None else self._inputs, dtypes=dtype)


def _len(loader):
    try:
        return len(loader)
    except Exception:  # an iterable of unknown length
        return None
