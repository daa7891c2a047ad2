"""Inference-model files: save, read and validate them, then bind their parameters; never executing the file.

The Program inside is stored in the JSON format of ``program_format`` (whose names
this module re-exports); ``prune`` cuts it down to what the fetches need first.

An inference model is three files next to ``path_prefix``:

- ``.pdmodel``: JSON ``{"format": "dy2st.inference_model", "version": 1, "program": <program>,
  "feed": [names], "fetch": [names], "metadata": {..., "params_sha256": ...}}``;
- ``.pdiparams``: an ``np.savez`` archive, one array per persistable var (read with
  ``allow_pickle=False``: object arrays and pickles are rejected before anything runs);
- ``.pdiparams.info``: JSON list of ``{name, structured_name, dtype, shape, trainable, stop_gradient}``
  (plus ``aliases``, the other state_dict keys of a tensor shared under several names, and
  ``parameter``: a Parameter that takes no gradient, BatchNorm's running statistics, which the
  loaded model lists among its parameters as Paddle's does; older files lack it).

The three files are written by ``runtime.files.write_set_atomic``: temp files first, the
previous complete set kept as hidden hard links (``.<name>.previous.pdmodel`` ...) while the new
files move into place (``.pdmodel`` last), then the backup removed.  The checksums in ``.pdmodel``
detect a set mixed from two saves (a crash between the moves); ``read_inference_model`` then reads
the previous complete set, with a warning.  Files get the umask's permissions.  Reading bounds
what the archive can make us allocate, and checks every op against the registry (once per
distinct bytes of the three files: a model read again unchanged is only rebuilt).
"""
import collections
import hashlib
import io
import json
import os
import threading
import warnings
import zipfile

import numpy as np

from ...dtypes import convert_dtype
from ...files import read_npy_archive, write_set_atomic
from ...framework import Variable, default_main_program
from ...registry import all_ops
from ...serialization import MissingFileError
from ...tensor import Parameter, Tensor
# PROGRAM_*, program_to_json/program_from_json and prune are re-exported: callers import them from here
from .program_format import (
    ProgramFormatError,
    check_header,
    deserialize_program,
    need_field,
    reject_constant,
    serialize_program,
)
from ..passes.prune import prune
from ..scope import global_scope

MODEL_FORMAT = "dy2st.inference_model"
MODEL_VERSION = 1


# -- files -----------------------------------------------------------------------
_SUFFIXES = (".pdiparams", ".pdiparams.info", ".pdmodel")  # the .pdmodel (checksums) commits the set


def backup_prefix(path_prefix):
    """Where the previous complete save of ``path_prefix`` is kept while a new one replaces it."""
    folder, base = os.path.split(os.path.abspath(path_prefix))
    return os.path.join(folder, f".{base}.previous")


def params_to_bytes(values):
    """An ``np.savez``-format archive of ``{name: ndarray}`` (no pickled objects)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        for name in sorted(values):
            arr = np.require(values[name], requirements="C")  # ascontiguousarray would make 0-d arrays 1-d
            convert_dtype(arr.dtype)  # object/complex arrays cannot be saved
            member = io.BytesIO()
            np.lib.format.write_array(member, arr, allow_pickle=False)
            zf.writestr(name + ".npy", member.getvalue())
    return buf.getvalue()


def params_from_bytes(payload, filename):
    """``{name: ndarray}`` from an archive; pickles and object arrays are refused unread, sizes bounded."""
    if not zipfile.is_zipfile(io.BytesIO(payload)):
        raise ProgramFormatError(f"{filename}: not a parameter archive (expected an np.savez zip file; "
                                 "the file is truncated, corrupted or of another kind)")
    out = read_npy_archive(payload, filename, ProgramFormatError)
    for name, arr in out.items():
        try:
            convert_dtype(arr.dtype)
        except TypeError as e:
            raise ProgramFormatError(f"{filename}: array '{name}': {e}") from None
    return out


# -- inference models -------------------------------------------------------------
class InferenceModel:
    """What the three files hold: ``program``, ``feed_names``, ``fetch_names``, ``params``, ``info``, ``metadata``."""

    def __init__(self, program, feed_names, fetch_names, params, info, metadata):
        self.program = program
        self.feed_names = feed_names
        self.fetch_names = fetch_names
        self.params = params
        self.info = info
        self.metadata = metadata


def _names(vars_, what):
    if isinstance(vars_, (Variable, str)):
        vars_ = [vars_]
    out = []
    for v in vars_:
        if isinstance(v, Variable):
            out.append(v.name)
        elif isinstance(v, str):
            out.append(v)
        else:
            raise TypeError(f"save_inference_model: {what} must be Variables or names, got {type(v).__name__}")
    return out


def _persistable_vars(program):
    return [v for v in program.list_vars() if v.persistable and v.kind == "tensor"]


def _value_of(name, params, program, executor):
    if params is not None and name in params:
        return np.asarray(params[name])
    if name in program.bound_tensors:
        return np.asarray(program.bound_tensors[name]._value)
    scope = getattr(executor, "scope", None) or getattr(executor, "_scope", None) or global_scope()
    value = scope.find_var(name) if hasattr(scope, "find_var") else None
    if value is not None:
        return np.asarray(getattr(value, "_value", value))
    raise ValueError(f"save_inference_model: no value for persistable variable '{name}' (give it in params=, "
                     "bind an eager tensor to it, or run the startup program so the scope holds it)")


def save_inference_model(path_prefix, feed_vars, fetch_vars, executor=None, program=None, params=None,
                         structured_names=None, metadata=None, writes=()):
    """Write ``path_prefix.pdmodel``, ``.pdiparams`` and ``.pdiparams.info`` (each atomically).

    The Program is pruned to what ``fetch_vars`` need from ``feed_vars``.  Values of
    persistable vars come from ``params`` ({name: array or Tensor}), else the
    program's bound eager tensors, else the executor's scope.  ``structured_names``
    maps var names to the user-facing names (``layer.state_dict()`` keys): one, or a list of them
    (a tensor shared under several names; the others are written as the entry's ``aliases``).
    ``writes``: (var name, persistable var name) pairs the saved Program assigns at its end (a buffer
    the model's forward rebinds, `self.steps = self.steps + 1`, updated by the loaded model too).
    """
    program = program if program is not None else default_main_program()
    feeds, fetches = _names(feed_vars, "feed_vars"), _names(fetch_vars, "fetch_vars")
    pruned = prune(program, feeds, fetches + [src for src, _ in writes])
    for src, dst in writes:
        pruned.global_block().append_op("assign", inputs={"X": [src]}, outputs={"Out": [dst]})
    # An inference model records no gradient needs: which values need one is decided again by
    # whoever fine-tunes it (the loaded model's training step), from its parameters.
    for block in pruned.blocks:
        for v in block.vars.values():
            if not v.persistable:
                v.stop_gradient = True
    structured_names = structured_names or {}
    values, info = {}, []
    for v in _persistable_vars(pruned):
        arr = _value_of(v.name, params, program, executor)
        values[v.name] = arr
        names = structured_names.get(v.name, v.name)
        names = [names] if isinstance(names, str) else list(names)
        entry = {"name": v.name, "structured_name": names[0],
                 "dtype": str(convert_dtype(arr.dtype)), "shape": list(arr.shape),
                 "trainable": bool(v.trainable), "stop_gradient": bool(v.stop_gradient)}
        if not v.trainable and isinstance(program.bound_tensors.get(v.name), Parameter):
            entry["parameter"] = True
        if len(names) > 1:  # the other names of a tensor the layer lists under several
            entry["aliases"] = names[1:]
        info.append(entry)
    params_bytes = params_to_bytes(values)
    info_bytes = json.dumps(info, indent=1).encode()
    gb = pruned.global_block()
    meta = dict(metadata or {})
    meta.update({"producer": "runtime.static.formats.io", "params_sha256": hashlib.sha256(params_bytes).hexdigest(),
                 "info_sha256": hashlib.sha256(info_bytes).hexdigest(),
                 "feed_specs": [{"name": n, "shape": gb.var(n).shape, "dtype": str(gb.var(n).dtype)} for n in feeds]})
    model = {"format": MODEL_FORMAT, "version": MODEL_VERSION, "program": serialize_program(pruned),
             "feed": feeds, "fetch": fetches, "metadata": meta}
    model_bytes = json.dumps(model, allow_nan=False).encode()
    path_prefix = os.fspath(path_prefix)
    payloads = dict(zip(_SUFFIXES, (params_bytes, info_bytes, model_bytes)))
    write_set_atomic([(path_prefix + s, payloads[s]) for s in _SUFFIXES], path_prefix, backup_prefix(path_prefix))
    return pruned


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise MissingFileError(f"model file '{path}' does not exist") from None


def _json(payload, path):
    try:
        return json.loads(payload.decode("utf-8"), parse_constant=reject_constant)
    except UnicodeDecodeError as e:
        raise ProgramFormatError(f"{path}: not a text (UTF-8 JSON) file: {e}") from None
    except json.JSONDecodeError as e:
        raise ProgramFormatError(f"{path}: truncated or corrupted JSON ({e})") from None
    except RecursionError:
        raise ProgramFormatError(f"{path}: JSON nested too deeply") from None


def _check_info(info, params, path):
    if not isinstance(info, list):
        raise ProgramFormatError(f"{path}: expected a JSON list of parameter entries")
    fields = {"name": str, "structured_name": str, "dtype": str, "shape": list, "trainable": bool,
              "stop_gradient": bool}
    for i, entry in enumerate(info):
        for k, t in fields.items():
            need_field(entry, k, t, f"{path}, entry #{i}")
        if not isinstance(entry.get("parameter", False), bool):
            raise ProgramFormatError(f"{path}, entry #{i}: 'parameter' must be true or false")
        aliases = entry.get("aliases", [])
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise ProgramFormatError(f"{path}, entry #{i}: 'aliases' must be a list of strings")
        arr = params.get(entry["name"])
        if arr is None:
            raise ProgramFormatError(f"{path}: parameter '{entry['name']}' is not in the .pdiparams archive")
        if entry["shape"] != list(arr.shape) or convert_dtype(arr.dtype) != entry["dtype"]:
            raise ProgramFormatError(f"{path}: parameter '{entry['name']}' is listed as {entry['dtype']}"
                                     f"{entry['shape']} but the archive holds {arr.dtype}{list(arr.shape)}")
    unlisted = sorted(set(params) - {e["name"] for e in info})
    if unlisted:
        raise ProgramFormatError(f"{path}: parameters {unlisted} of the archive are not listed")


def _check_params(program, params, path):
    wanted = {v.name: v for v in _persistable_vars(program)}
    for name, v in wanted.items():
        if name not in params:
            raise ProgramFormatError(f"{path}: the Program needs parameter '{name}' ({v.dtype}{v.shape}) "
                                     "but the file does not hold it")
        arr = params[name]
        shape_ok = arr.ndim == len(v.shape) and all(d in (-1, a) for d, a in zip(v.shape, arr.shape))
        if not shape_ok or convert_dtype(arr.dtype) != v.dtype:
            raise ProgramFormatError(f"{path}: parameter '{name}' is {arr.dtype}{list(arr.shape)} in the file "
                                     f"but the Program declares {v.dtype}{v.shape}")
    extra = sorted(set(params) - set(wanted))
    if extra:
        raise ProgramFormatError(f"{path}: holds parameters the Program does not use: {extra}")


def read_inference_model(path_prefix):
    """Read and validate the three files into an ``InferenceModel`` (nothing is bound or run).

    When the files are a mix of two saves or one is missing (a save was interrupted between its
    moves) and the previous complete set is still kept beside them, that set is read instead.
    """
    path_prefix = os.fspath(path_prefix)
    try:
        return _read_model_files(path_prefix)
    except (ProgramFormatError, FileNotFoundError) as e:
        previous = backup_prefix(path_prefix)
        if not os.path.exists(previous + ".pdmodel"):
            raise
        try:
            model = _read_model_files(previous)
        except (ProgramFormatError, FileNotFoundError):
            raise e from None
        warnings.warn(f"{path_prefix}: the newest save is incomplete ({e}); loaded the previous complete save",
                      RuntimeWarning, stacklevel=2)
        return model


# Validating a model is a pure function of its three files' bytes and the op registry (which only
# grows): a model read again unchanged (``dy2st.export_onnx(prefix)`` right after
# ``dy2st.load(prefix)``) is rebuilt from its JSON without every op checked again.  What passed is
# remembered as the .pdmodel bytes (compared in full: hashing them with SHA-256 on every read
# would cost more than it saves) and the SHA-256 of the other two files, which every read
# computes anyway; LRU, bounded in bytes.  Nothing parsed is shared between reads.
_VALIDATED = collections.OrderedDict()
_VALIDATED_LOCK = threading.Lock()
_VALIDATED_MAX_BYTES = 32 << 20


def _was_validated(key, model_bytes):
    with _VALIDATED_LOCK:
        known = _VALIDATED.get(key)
        if known is not None and known == model_bytes:
            _VALIDATED.move_to_end(key)
            return True
        return False


def _remember_valid(key, model_bytes):
    with _VALIDATED_LOCK:
        _VALIDATED[key] = model_bytes
        total = sum(len(b) for b in _VALIDATED.values())
        while total > _VALIDATED_MAX_BYTES:
            total -= len(_VALIDATED.popitem(last=False)[1])


def _read_model_files(path_prefix):
    model_path, params_path = path_prefix + ".pdmodel", path_prefix + ".pdiparams"
    info_path = params_path + ".info"
    model_bytes = _read(model_path)
    try:  # read all three first (the cache key); a missing one is reported in the usual order below
        params_bytes, info_bytes = _read(params_path), _read(info_path)
        digests = (None,) + tuple(hashlib.sha256(b).hexdigest() for b in (params_bytes, info_bytes))
    except FileNotFoundError:
        params_bytes = info_bytes = digests = None
    key = None if digests is None else (hash(model_bytes), digests, len(all_ops()))
    model = _json(model_bytes, model_path)
    if key is not None and _was_validated(key, model_bytes):  # these bytes passed every check below
        program = deserialize_program(model["program"], trusted=True)
        return InferenceModel(program, model["feed"], model["fetch"], params_from_bytes(params_bytes, params_path),
                              _json(info_bytes, info_path), model["metadata"])
    try:
        check_header(model, MODEL_FORMAT, MODEL_VERSION, model_path)
        program = deserialize_program(need_field(model, "program", dict, model_path))
    except ProgramFormatError as e:
        msg = str(e)
        raise ProgramFormatError(msg if msg.startswith(model_path) else f"{model_path}: {msg}") from None
    try:
        program.verify()  # def-before-use, branch/carry agreement: a well-formed file is a well-formed Program
    except ValueError as e:
        raise ProgramFormatError(f"{model_path}: the Program is not well formed: {e}") from None
    feeds, fetches = need_field(model, "feed", list, model_path), need_field(model, "fetch", list, model_path)
    meta = need_field(model, "metadata", dict, model_path)
    gb = program.global_block()
    for n in feeds + fetches:
        if not isinstance(n, str) or n not in gb.vars:
            raise ProgramFormatError(f"{model_path}: feed/fetch name {n!r} is not a variable of the Program")
    if digests is None:
        params_bytes, info_bytes = _read(params_path), _read(info_path)
    params = params_from_bytes(params_bytes, params_path)
    _check_params(program, params, params_path)
    info = _json(info_bytes, info_path)
    _check_info(info, params, info_path)
    for k, (path, payload, key_name) in enumerate(((params_path, params_bytes, "params_sha256"),
                                                   (info_path, info_bytes, "info_sha256")), 1):
        want = meta.get(key_name)
        if want is not None and (digests[k] if digests else hashlib.sha256(payload).hexdigest()) != want:
            raise ProgramFormatError(f"{path} does not belong to {model_path} (checksum differs): the files come "
                                     "from different saves (an interrupted save?) or were modified")
    if key is not None:
        _remember_valid(key, model_bytes)
    return InferenceModel(program, feeds, fetches, params, info, meta)


def bind_params(program, params, info):
    """Bind each array as a live eager tensor of ``program`` (trainable ones as Parameters); returns them."""
    by_name = {e["name"]: e for e in info}
    tensors = {}
    for name, arr in params.items():
        entry = by_name.get(name, {})
        if entry.get("trainable") or entry.get("parameter"):
            t = Parameter(arr, name=name, trainable=bool(entry.get("trainable")))
        else:
            t = Tensor(arr, stop_gradient=entry.get("stop_gradient", True), name=name)
            t.persistable = True
        program.bound_tensors[name] = t
        tensors[name] = t
    return tensors


def load_inference_model(path_prefix, executor=None, model_filename=None, params_filename=None):
    """``[program, feed_names, fetch_vars]`` (Paddle's order); parameters are bound to the program.

    ``program.bound_tensors`` maps each parameter name to its loaded tensor, so any
    Executor reads them; ``executor`` is accepted for Paddle compatibility.  Paddle's older form
    ``load_inference_model(dirname, exe, model_filename="m.pdmodel", params_filename="m.pdiparams")``
    names the files inside a directory; they must be one saved model's ``.pdmodel``/``.pdiparams``.
    """
    if model_filename is not None or params_filename is not None:
        stem = os.fspath(model_filename or "")
        stem = stem[:-len(".pdmodel")] if stem.endswith(".pdmodel") else None
        if stem is None or params_filename is None or os.fspath(params_filename) != stem + ".pdiparams":
            raise ValueError(f"load_inference_model: model_filename {model_filename!r} and params_filename "
                             f"{params_filename!r} must name one saved model's NAME.pdmodel and NAME.pdiparams")
        path_prefix = os.path.join(os.fspath(path_prefix), stem)
    m = read_inference_model(path_prefix)
    bind_params(m.program, m.params, m.info)
    gb = m.program.global_block()
    return [m.program, list(m.feed_names), [gb.var(n) for n in m.fetch_names]]
