"""paddle.inference: the deployment API that serves a model ``dy2st.save`` (``paddle.jit.save``) wrote,
as PaddleOCR's and PaddleClas's ``predict_*.py`` scripts use it::

    config = inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    predictor = inference.create_predictor(config)
    handle = predictor.get_input_handle(predictor.get_input_names()[0])
    handle.copy_from_cpu(images)
    predictor.run()
    out = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()

The Program runs on ``static.Executor`` (the numpy backend, as ``dy2st.load``). Config's device and
engine switches (GPU, TensorRT, MKLDNN, thread counts, IR optimisation) are accepted and change
nothing: there is one CPU backend, and its results do not depend on them.
"""
import os

import numpy as np

from .static import Executor
from .static.formats.io import load_inference_model
from .tensor import Tensor as _RtTensor

__all__ = ["Config", "Predictor", "Tensor", "create_predictor", "get_version"]

# Config switches that tune Paddle's engines; here they are recorded and change no result
_SWITCHES = (
    "enable_use_gpu", "disable_gpu", "enable_xpu", "enable_mkldnn", "disable_mkldnn", "enable_onednn",
    "disable_onednn", "enable_mkldnn_bfloat16", "enable_mkldnn_int8", "set_mkldnn_cache_capacity",
    "set_onednn_cache_capacity", "set_cpu_math_library_num_threads", "switch_ir_optim", "switch_ir_debug",
    "enable_memory_optim", "disable_glog_info", "switch_use_feed_fetch_ops", "switch_specify_input_names",
    "enable_tensorrt_engine", "set_trt_dynamic_shape_info", "collect_shape_range_info",
    "enable_tuned_tensorrt_dynamic_shape", "enable_profile", "delete_pass", "set_optim_cache_dir",
    "enable_new_ir", "enable_new_executor", "enable_low_precision_io", "set_optimization_level",
    "enable_onnxruntime", "disable_onnxruntime", "enable_ort_optimization", "exp_disable_tensorrt_ops",
    "set_mkldnn_op", "set_onednn_op", "enable_save_optim_model",
)


class Config:
    """Where the model is: ``Config(prog_file, params_file)``, ``Config(path_prefix)`` or
    ``Config(model_dir)`` (a folder holding one ``*.pdmodel``, e.g. ``inference.pdmodel``)."""

    def __init__(self, prog_file: str | None = None, params_file: str | None = None) -> None:
        self._prog, self._params, self._dir = None, None, None
        self._switches = {}
        if params_file is not None:
            self.set_model(prog_file, params_file)
        elif prog_file is not None:
            self._dir = os.fspath(prog_file)

    def __getattr__(self, name):
        # the engine switches (enable_use_gpu, enable_mkldnn...): recorded, changing nothing
        if name in _SWITCHES:
            return lambda *args, **kwargs: self._switches.__setitem__(name, (args, kwargs))
        raise AttributeError(f"'Config' object has no attribute {name!r}")

    def set_model(self, prog_file: str, params_file: str | None = None) -> None:
        """The model's two files (or, with one argument, its folder or path prefix)."""
        if params_file is None:
            self._dir, self._prog, self._params = os.fspath(prog_file), None, None
        else:
            self._prog, self._params, self._dir = os.fspath(prog_file), os.fspath(params_file), None

    def set_prog_file(self, path: str) -> None:
        """The model file (``NAME.pdmodel``)."""
        self._prog = os.fspath(path)

    def set_params_file(self, path: str) -> None:
        """The parameters file (``NAME.pdiparams``)."""
        self._params = os.fspath(path)

    def prog_file(self) -> str:
        """The model file given, or ""."""
        return self._prog or ""

    def params_file(self) -> str:
        """The parameters file given, or ""."""
        return self._params or ""

    def model_dir(self) -> str:
        """The folder or path prefix given, or ""."""
        return self._dir or ""

    def use_gpu(self) -> bool:
        """False: inference runs on the CPU."""
        return False

    def summary(self) -> str:
        """A short description of the configuration."""
        return f"model: {self._prefix()}\nbackend: numpy (CPU)\n"

    def _prefix(self):
        """The saved model's path prefix (``prefix.pdmodel`` / ``prefix.pdiparams``)."""
        if self._prog is not None:
            if not self._prog.endswith(".pdmodel") or self._params != self._prog[:-len(".pdmodel")] + ".pdiparams":
                raise ValueError(f"Config: prog_file {self._prog!r} and params_file {self._params!r} must be one "
                                 f"saved model's NAME.pdmodel and NAME.pdiparams")
            return self._prog[:-len(".pdmodel")]
        if self._dir is None:
            raise ValueError("Config: no model given; pass Config(prog_file, params_file) or Config(model_dir)")
        if os.path.isdir(self._dir):
            found = sorted(f for f in os.listdir(self._dir) if f.endswith(".pdmodel"))
            if len(found) != 1:
                raise ValueError(f"Config: the folder {self._dir!r} must hold exactly one .pdmodel file, "
                                 f"found {found}")
            return os.path.join(self._dir, found[0][:-len(".pdmodel")])
        return self._dir[:-len(".pdmodel")] if self._dir.endswith(".pdmodel") else self._dir


class _Handle:
    """An input or output of a Predictor: a named numpy array the script copies in or out."""

    def __init__(self, name, array=None):
        self._name, self._array = name, array

    def name(self) -> str:
        """The input's or output's name."""
        return self._name

    def reshape(self, shape) -> None:
        """Sets the shape of the next ``copy_from_cpu`` (Paddle allocates here; the copy sets the data)."""
        self._shape = [int(d) for d in shape]

    def copy_from_cpu(self, data) -> None:
        """A copy of the numpy array ``data`` becomes the input."""
        self._array = np.array(data, copy=True)

    def share_external_data(self, data) -> None:
        """``data`` (an array or Tensor) becomes the input without a copy."""
        self._array = np.asarray(data.numpy() if isinstance(data, _RtTensor) else data)

    def copy_to_cpu(self) -> np.ndarray:
        """A numpy copy of the value."""
        if self._array is None:
            raise RuntimeError(f"inference: {self._name!r} holds no data yet (copy_from_cpu an input, or "
                               f"run() before reading an output)")
        return np.array(self._array, copy=True)

    def shape(self) -> list:
        """The value's shape ([] before any data)."""
        return [] if self._array is None else list(self._array.shape)

    def lod(self) -> list:
        """[]: no LoD (level-of-detail) information."""
        return []


class Predictor:
    """Runs a saved inference Program: feed the input handles, ``run()``, read the output handles;
    or ``run([tensors])`` -> list of output Tensors."""

    def __init__(self, config: Config, _loaded=None) -> None:
        self._config = config
        self._program, self._feeds, fetch = _loaded or load_inference_model(config._prefix())
        self._fetch = fetch
        self._fetch_names = [v.name for v in fetch]
        self._inputs = {n: _Handle(n) for n in self._feeds}
        self._outputs = {n: _Handle(n) for n in self._fetch_names}
        self._exe = Executor()

    def get_input_names(self) -> list:
        """The names of the model's inputs, in order."""
        return list(self._feeds)

    def get_output_names(self) -> list:
        """The names of the model's outputs, in order."""
        return list(self._fetch_names)

    def get_input_handle(self, name: str) -> _Handle:
        """The handle to copy input ``name`` into."""
        return self._inputs[name]

    def get_output_handle(self, name: str) -> _Handle:
        """The handle to read output ``name`` from after ``run()``."""
        return self._outputs[name]

    def run(self, inputs=None):
        """Runs the model on the input handles' data (or on ``inputs``, returning the outputs as Tensors)."""
        if inputs is not None:
            if len(inputs) != len(self._feeds):
                raise ValueError(f"Predictor.run: the model takes {len(self._feeds)} inputs {self._feeds}, "
                                 f"got {len(inputs)}")
            for name, t in zip(self._feeds, inputs):
                self._inputs[name].share_external_data(t)
        missing = [n for n, h in self._inputs.items() if h._array is None]
        if missing:
            raise RuntimeError(f"Predictor.run: no data for the inputs {missing} (copy_from_cpu them first)")
        outs = self._exe.run(self._program, feed={n: h._array for n, h in self._inputs.items()},
                             fetch_list=self._fetch)
        for name, value in zip(self._fetch_names, outs):
            self._outputs[name]._array = np.asarray(value)
        if inputs is not None:
            return [_RtTensor(np.asarray(v)) for v in outs]
        return None

    # The legacy AnalysisPredictor's names (``base.core.create_paddle_predictor``), which Paddle's own
    # dygraph-to-static tests still serve saved models with
    get_input_tensor = get_input_handle
    get_output_tensor = get_output_handle

    def zero_copy_run(self) -> bool:
        """Runs the model on the input handles' data (``run()``); True when it ran."""
        self.run()
        return True

    def clone(self) -> "Predictor":
        """Another predictor on the same loaded Program and parameters, with its own handles."""
        return Predictor(self._config, (self._program, self._feeds, self._fetch))

    def clear_intermediate_tensor(self) -> None:
        """Nothing is kept between runs."""

    def try_shrink_memory(self) -> int:
        """0: nothing is pooled."""
        return 0


Tensor = _Handle  # paddle.inference.Tensor is the handle type


def create_predictor(config: Config) -> Predictor:
    """A Predictor for the model ``config`` names."""
    return Predictor(config)


def get_version() -> str:
    """The version of this runtime and its backend."""
    from .version import __version__
    return f"version: {__version__}\nbackend: numpy (CPU)"
