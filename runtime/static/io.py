"""Saving and loading Programs and inference models, without ever executing the file.

A Program is written as plain JSON (format ``"dy2st.program"``, version 1)::

    {"format": "dy2st.program", "version": 1, "random_seed": null,
     "blocks": [{"idx": 0, "parent": -1,
                 "vars": [{"name": "x", "shape": [-1, 4], "dtype": "float32", "persistable": false,
                           "stop_gradient": true, "is_data": true, "trainable": false, "kind": "tensor"}],
                 "ops":  [{"type": "matmul", "inputs": {"X": ["x"], "Y": ["w"]},
                           "outputs": {"Out": ["matmul_0"]}, "attrs": {"transpose_x": false}}]}]}

An op may carry ``"origin"``: the text of the user's line that built it (or null), so
errors from a loaded model still point there.  Attribute values are JSON scalars and
lists; a JSON object is always a tagged value: ``{"block": idx}`` (a sub-block), ``{"ndarray": {"dtype", "shape", "data"}}``,
``{"float": "nan" | "inf" | "-inf"}`` (JSON has no non-finite numbers) and ``{"dict": {...}}``.
Tuples come back as lists.  Loading checks every field's type, that the format and
version are known, that every op type is registered and that every var name an op
reads or writes resolves; it never evaluates, unpickles or imports anything.

An inference model is three files next to ``path_prefix``:

- ``.pdmodel``: JSON ``{"format": "dy2st.inference_model", "version": 1, "program": <program>,
  "feed": [names], "fetch": [names], "metadata": {..., "params_sha256": ...}}``;
- ``.pdiparams``: an ``np.savez`` archive, one array per persistable var (read with
  ``allow_pickle=False``: object arrays and pickles are rejected before anything runs);
- ``.pdiparams.info``: JSON list of ``{name, structured_name, dtype, shape, trainable, stop_gradient}``.

Each file is written to a temp file in the same directory, fsynced, then moved into
place with ``os.replace``; the params' checksum in ``.pdmodel`` detects a set of files
mixed from two saves (a crash between the moves).
"""
import hashlib
import io
import json
import math
import os
import tempfile
import zipfile

import numpy as np

from ..dtypes import convert_dtype
from ..framework import Block, Program, Variable, default_main_program
from ..registry import has_op
from ..tensor import Parameter, Tensor
from .scope import global_scope

PROGRAM_FORMAT = "dy2st.program"
PROGRAM_VERSION = 1
MODEL_FORMAT = "dy2st.inference_model"
MODEL_VERSION = 1

_VAR_FIELDS = {"name": str, "shape": list, "dtype": str, "persistable": bool, "stop_gradient": bool,
               "is_data": bool, "trainable": bool, "kind": str}


class ProgramFormatError(ValueError):
    """A saved Program or model is malformed; the message says which file/field and what is wrong."""


# -- attrs <-> JSON --------------------------------------------------------------
def _encode_attr(value, where):
    if isinstance(value, Block):
        return {"block": value.idx}
    if value is None:
        return None
    for exact in (bool, str, int):  # subclasses (IntEnum, DType...) are stored as the plain value
        if isinstance(value, exact):
            return exact(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else {"float": repr(float(value))}
    if isinstance(value, np.generic):
        if isinstance(value, (np.bool_, np.integer, np.floating)):
            return _encode_attr(value.item(), where)
    if isinstance(value, np.dtype):
        return str(convert_dtype(value))
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            raise TypeError(f"{where}: object arrays cannot be saved")
        dt = str(convert_dtype(value.dtype))
        return {"ndarray": {"dtype": dt, "shape": list(value.shape),
                            "data": [_encode_attr(v, where) for v in value.ravel().tolist()]}}
    if isinstance(value, (list, tuple)):
        return [_encode_attr(v, where) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise TypeError(f"{where}: dict attributes need str keys, got {list(value)!r}")
        return {"dict": {k: _encode_attr(v, f"{where}[{k!r}]") for k, v in value.items()}}
    raise TypeError(f"{where} has a value of type {type(value).__name__} ({value!r:.80}); only JSON values "
                    "(None, bool, int, float, str, lists, str-keyed dicts), numpy scalars/arrays and Blocks "
                    "can be saved")


def _decode_attr(value, blocks, where):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [_decode_attr(v, blocks, where) for v in value]
    if isinstance(value, dict) and len(value) == 1:
        (tag, body), = value.items()
        if tag == "block":
            if type(body) is not int or not 0 < body < len(blocks):
                raise ProgramFormatError(f"{where}: block reference {body!r} is not a sub-block index "
                                         f"(the Program has {len(blocks)} blocks)")
            return blocks[body]
        if tag == "float" and body in ("nan", "inf", "-inf"):
            return float(body)
        if tag == "dict" and isinstance(body, dict):
            return {k: _decode_attr(v, blocks, f"{where}[{k!r}]") for k, v in body.items()}
        if tag == "ndarray" and isinstance(body, dict):
            try:
                dt = convert_dtype(body["dtype"])
                data = [_decode_attr(v, blocks, where) for v in body["data"]]
                return np.asarray(data, dtype=dt.np).reshape([int(d) for d in body["shape"]])
            except (KeyError, TypeError, ValueError) as e:
                raise ProgramFormatError(f"{where}: bad ndarray attribute: {e}") from None
    raise ProgramFormatError(f"{where}: unknown attribute encoding {value!r:.120}")


# -- Program <-> dict ----------------------------------------------------------
def serialize_program(program):
    """The JSON-able dict of ``program`` (see the module docstring for the format)."""
    blocks = []
    for blk in program.blocks:
        vars_ = [{"name": v.name, "shape": list(v.shape), "dtype": str(v.dtype), "persistable": bool(v.persistable),
                  "stop_gradient": bool(v.stop_gradient), "is_data": bool(v.is_data),
                  "trainable": bool(getattr(v, "trainable", False)), "kind": v.kind} for v in blk.vars.values()]
        ops = []
        for i, op in enumerate(blk.ops):
            where = f"block {blk.idx}, op #{i} '{op.type}'"
            attrs = {k: _encode_attr(v, f"{where} attribute '{k}'") for k, v in op.attrs.items()}
            origin = getattr(op, "origin", None)
            ops.append({"type": op.type, "inputs": {k: list(v) for k, v in op.inputs.items()},
                        "outputs": {k: list(v) for k, v in op.outputs.items()}, "attrs": attrs,
                        "origin": None if origin is None else str(origin)})
        blocks.append({"idx": blk.idx, "parent": blk.parent_idx, "vars": vars_, "ops": ops})
    seed = program.random_seed
    return {"format": PROGRAM_FORMAT, "version": PROGRAM_VERSION,
            "random_seed": None if seed is None else int(seed), "blocks": blocks}


def _need(obj, key, typ, where):
    if not isinstance(obj, dict) or key not in obj:
        raise ProgramFormatError(f"{where}: missing field '{key}'")
    val = obj[key]
    ok = isinstance(val, typ) and not (typ is int and isinstance(val, bool))
    if not ok:
        name = typ.__name__ if isinstance(typ, type) else "/".join(t.__name__ for t in typ)
        raise ProgramFormatError(f"{where}: field '{key}' should be {name}, got {type(val).__name__}")
    return val


def _check_header(data, fmt, known, what):
    if not isinstance(data, dict):
        raise ProgramFormatError(f"{what}: expected a JSON object, got {type(data).__name__}")
    got = data.get("format")
    if got != fmt:
        raise ProgramFormatError(f"{what}: unknown format {got!r}; expected {fmt!r}")
    version = data.get("version")
    if version != known:
        raise ProgramFormatError(f"{what}: format version {version!r} is not supported "
                                 f"(this runtime reads {fmt} version {known})")


def _slots(op, key, where):
    slots = _need(op, key, dict, where)
    for slot, names in slots.items():
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ProgramFormatError(f"{where}: {key} slot '{slot}' should be a list of var names")
    return slots


def deserialize_program(data):
    """Rebuild a Program from ``serialize_program``'s dict, validating everything (ProgramFormatError)."""
    try:
        return _deserialize(data)
    except RecursionError:
        raise ProgramFormatError("program: attributes are nested too deeply") from None


def _deserialize(data):
    _check_header(data, PROGRAM_FORMAT, PROGRAM_VERSION, "program")
    raw_blocks = _need(data, "blocks", list, "program")
    if not raw_blocks:
        raise ProgramFormatError("program: has no blocks")
    seed = data.get("random_seed")
    if seed is not None and (type(seed) is not int):
        raise ProgramFormatError(f"program: field 'random_seed' should be int or null, got {type(seed).__name__}")
    prog = Program()
    prog.random_seed = seed
    for i, rb in enumerate(raw_blocks):
        where = f"block #{i}"
        idx, parent = _need(rb, "idx", int, where), _need(rb, "parent", int, where)
        if idx != i or not -1 <= parent < i or (i > 0) == (parent < 0):
            raise ProgramFormatError(f"{where}: idx {idx} / parent {parent} are inconsistent "
                                     "(blocks must be listed in order, each after its parent)")
        blk = prog.blocks[0] if i == 0 else Block(prog, i, parent)
        if i > 0:
            prog.blocks.append(blk)
        for j, rv in enumerate(_need(rb, "vars", list, where)):
            vw = f"{where}, var #{j}"
            fields = {k: _need(rv, k, t, vw) for k, t in _VAR_FIELDS.items()}
            if not all(type(d) is int and d >= -1 for d in fields["shape"]):
                raise ProgramFormatError(f"{vw} '{fields['name']}': shape {fields['shape']} must be ints >= -1")
            try:
                convert_dtype(fields["dtype"])
            except TypeError as e:
                raise ProgramFormatError(f"{vw} '{fields['name']}': {e}") from None
            if fields["name"] in blk.vars:
                raise ProgramFormatError(f"{vw}: variable '{fields['name']}' is declared twice")
            trainable = fields.pop("trainable")
            v = blk.create_var(**fields)
            v.trainable = trainable
    for i, rb in enumerate(raw_blocks):
        blk = prog.blocks[i]
        for j, ro in enumerate(_need(rb, "ops", list, f"block #{i}")):
            where = f"block {i}, op #{j}"
            typ = _need(ro, "type", str, where)
            where = f"{where} '{typ}'"
            if not has_op(typ):
                raise ProgramFormatError(f"{where}: op type '{typ}' is not registered in this runtime")
            ins, outs = _slots(ro, "inputs", where), _slots(ro, "outputs", where)
            for key, slots in (("input", ins), ("output", outs)):
                for slot, names in slots.items():
                    for n in names:
                        if not blk.has_var(n):
                            raise ProgramFormatError(f"{where}: {key} {slot}='{n}' is not a variable of "
                                                     f"block {i} or its parents")
            attrs = {k: _decode_attr(v, prog.blocks, f"{where} attribute '{k}'")
                     for k, v in _need(ro, "attrs", dict, where).items()}
            origin = ro.get("origin")
            if origin is not None and not isinstance(origin, str):
                raise ProgramFormatError(f"{where}: field 'origin' should be str or null")
            blk.append_op(typ, ins, outs, attrs).origin = origin
    return prog


def program_to_json(program):
    return json.dumps(serialize_program(program), allow_nan=False)


def program_from_json(text):
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise ProgramFormatError(f"program: not valid JSON ({e})") from None
    except RecursionError:
        raise ProgramFormatError("program: JSON nested too deeply") from None
    return deserialize_program(data)


def _reject_constant(name):
    raise ProgramFormatError(f"non-standard JSON constant {name}")


# -- prune -------------------------------------------------------------------
def _sub_block_reads(op):
    """Every var name read by ops inside ``op``'s sub-blocks (recursively)."""
    names = set()
    for blk in op.sub_blocks():
        for inner in blk.ops:
            names.update(inner.input_arg_names)
            names |= _sub_block_reads(inner)
    return names


def _remap_blocks(value, mapping):
    if isinstance(value, list):
        return [_remap_blocks(v, mapping) for v in value]
    if isinstance(value, dict) and len(value) == 1:
        (tag, body), = value.items()
        if tag == "block":
            return {"block": mapping[body]}
        if tag == "dict":
            return {"dict": {k: _remap_blocks(v, mapping) for k, v in body.items()}}
    return value


def _blocks_of(raw_op):
    found = []

    def walk(v):
        if isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict) and len(v) == 1:
            (tag, body), = v.items()
            if tag == "block":
                found.append(body)
            elif tag == "dict":
                for x in body.values():
                    walk(x)
    walk(list(raw_op["attrs"].values()))
    return found


def prune(program, feed_names, fetch_names):
    """A new Program with only the global-block ops the fetches need, given the feeds.

    Liveness is walked backwards from the fetches, so backward and optimizer ops
    (which only write gradients or update parameters after their last forward
    read) fall away; a cond/while is kept whole, with everything its sub-blocks
    read from outside.  Feed vars become data vars of the result.
    """
    gb = program.global_block()
    feeds, fetches = list(feed_names), list(fetch_names)
    for n in feeds + fetches:
        if n not in gb.vars:
            raise ValueError(f"prune: '{n}' is not a variable of the Program's global block")
    feed_set = set(feeds)
    needed, keep, used = set(fetches) - feed_set, [], set(feeds) | set(fetches)
    for i in reversed(range(len(gb.ops))):
        op = gb.ops[i]
        outs = set(op.output_arg_names)
        if not outs & needed:
            continue
        keep.append(i)
        reads = set(op.input_arg_names) | _sub_block_reads(op)
        used |= outs | reads
        needed = (needed - outs) | (reads - feed_set)
    for n in sorted(needed):
        v = gb.vars.get(n)
        if v is None or v.persistable:
            continue
        if v.is_data:
            raise ValueError(f"prune: the fetches need input '{n}', which is not among the feeds {feeds}")
        raise ValueError(f"prune: the fetches need '{n}', which no op before them defines")
    data = serialize_program(program)
    raw_global = data["blocks"][0]
    raw_global["ops"] = [raw_global["ops"][i] for i in sorted(keep)]
    reachable, stack = {0}, [0]
    while stack:
        for raw_op in data["blocks"][stack.pop()]["ops"]:
            for b in _blocks_of(raw_op):
                if b not in reachable:
                    reachable.add(b)
                    stack.append(b)
    order = sorted(reachable)
    mapping = {old: new for new, old in enumerate(order)}
    blocks = []
    for old in order:
        rb = data["blocks"][old]
        rb["idx"], rb["parent"] = mapping[old], (-1 if old == 0 else mapping[rb["parent"]])
        for raw_op in rb["ops"]:
            raw_op["attrs"] = {k: _remap_blocks(v, mapping) for k, v in raw_op["attrs"].items()}
        blocks.append(rb)
    raw_global["vars"] = [v for v in raw_global["vars"] if v["name"] in used]
    for v in raw_global["vars"]:
        if v["name"] in feed_set:
            v["is_data"] = True
    data["blocks"] = blocks
    pruned = deserialize_program(data)
    pruned.bound_tensors = {n: t for n, t in program.bound_tensors.items() if n in pruned.global_block().vars}
    return pruned


# -- files -----------------------------------------------------------------------
def _write_files_atomically(files):
    """Write every (path, bytes) to a temp file first, then move them all into place.

    A failure while writing leaves every previous file untouched; the moves come
    last, params before the model (whose checksum then ties the set together).
    """
    temps = []
    try:
        for path, payload in files:
            folder = os.path.dirname(os.path.abspath(path))
            os.makedirs(folder, exist_ok=True)  # as paddle.jit.save does for a new output folder
            fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
            temps.append((tmp, path))
            with os.fdopen(fd, "wb") as f:
                f.write(payload)
                f.flush()
                os.fsync(f.fileno())
        while temps:
            tmp, path = temps[0]
            os.replace(tmp, path)
            temps.pop(0)
        _fsync_dir(os.path.dirname(os.path.abspath(files[0][0])))
    finally:
        for tmp, _ in temps:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _fsync_dir(folder):
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems cannot fsync a directory; the files themselves are synced
    finally:
        os.close(fd)


def params_to_bytes(values):
    """An ``np.savez``-format archive of ``{name: ndarray}`` (no pickled objects)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        for name in sorted(values):
            arr = np.ascontiguousarray(values[name])
            convert_dtype(arr.dtype)  # object/complex arrays cannot be saved
            member = io.BytesIO()
            np.lib.format.write_array(member, arr, allow_pickle=False)
            zf.writestr(name + ".npy", member.getvalue())
    return buf.getvalue()


def params_from_bytes(payload, filename):
    """``{name: ndarray}`` from an archive; pickles and object arrays are refused unread."""
    if not zipfile.is_zipfile(io.BytesIO(payload)):
        raise ProgramFormatError(f"{filename}: not a parameter archive (expected an np.savez zip file; "
                                 "the file is truncated, corrupted or of another kind)")
    out = {}
    try:
        with zipfile.ZipFile(io.BytesIO(payload)) as zf:
            for member in zf.namelist():
                if not member.endswith(".npy"):
                    raise ProgramFormatError(f"{filename}: unexpected member '{member}' (only .npy arrays allowed)")
                with zf.open(member) as f:
                    try:
                        arr = np.lib.format.read_array(f, allow_pickle=False)
                    except ValueError as e:
                        raise ProgramFormatError(f"{filename}: array '{member[:-4]}' cannot be loaded safely "
                                                 f"({e}); pickled/object data is never loaded") from None
                try:
                    convert_dtype(arr.dtype)
                except TypeError as e:
                    raise ProgramFormatError(f"{filename}: array '{member[:-4]}': {e}") from None
                out[member[:-4]] = arr
    except (zipfile.BadZipFile, EOFError, OSError) as e:
        raise ProgramFormatError(f"{filename}: corrupted or truncated parameter archive ({e})") from None
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
                         structured_names=None, metadata=None):
    """Write ``path_prefix.pdmodel``, ``.pdiparams`` and ``.pdiparams.info`` (each atomically).

    The Program is pruned to what ``fetch_vars`` need from ``feed_vars``.  Values of
    persistable vars come from ``params`` ({name: array or Tensor}), else the
    program's bound eager tensors, else the executor's scope.  ``structured_names``
    maps var names to the user-facing names (``layer.state_dict()`` keys).
    """
    program = program if program is not None else default_main_program()
    feeds, fetches = _names(feed_vars, "feed_vars"), _names(fetch_vars, "fetch_vars")
    pruned = prune(program, feeds, fetches)
    structured_names = structured_names or {}
    values, info = {}, []
    for v in _persistable_vars(pruned):
        arr = _value_of(v.name, params, program, executor)
        values[v.name] = arr
        info.append({"name": v.name, "structured_name": structured_names.get(v.name, v.name),
                     "dtype": str(convert_dtype(arr.dtype)), "shape": list(arr.shape),
                     "trainable": bool(v.trainable), "stop_gradient": bool(v.stop_gradient)})
    params_bytes = params_to_bytes(values)
    info_bytes = json.dumps(info, indent=1).encode()
    gb = pruned.global_block()
    meta = dict(metadata or {})
    meta.update({"producer": "runtime.static.io", "params_sha256": hashlib.sha256(params_bytes).hexdigest(),
                 "info_sha256": hashlib.sha256(info_bytes).hexdigest(),
                 "feed_specs": [{"name": n, "shape": gb.var(n).shape, "dtype": str(gb.var(n).dtype)} for n in feeds]})
    model = {"format": MODEL_FORMAT, "version": MODEL_VERSION, "program": serialize_program(pruned),
             "feed": feeds, "fetch": fetches, "metadata": meta}
    model_bytes = json.dumps(model, allow_nan=False).encode()
    _write_files_atomically([(path_prefix + ".pdiparams", params_bytes),
                             (path_prefix + ".pdiparams.info", info_bytes),
                             (path_prefix + ".pdmodel", model_bytes)])
    return pruned


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise FileNotFoundError(f"model file '{path}' does not exist") from None


def _read_json(path):
    payload = _read(path)
    try:
        return json.loads(payload.decode("utf-8"), parse_constant=_reject_constant)
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
            _need(entry, k, t, f"{path}, entry #{i}")
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
    """Read and validate the three files into an ``InferenceModel`` (nothing is bound or run)."""
    model_path, params_path = path_prefix + ".pdmodel", path_prefix + ".pdiparams"
    info_path = params_path + ".info"
    model = _read_json(model_path)
    try:
        _check_header(model, MODEL_FORMAT, MODEL_VERSION, model_path)
        program = deserialize_program(_need(model, "program", dict, model_path))
    except ProgramFormatError as e:
        msg = str(e)
        raise ProgramFormatError(msg if msg.startswith(model_path) else f"{model_path}: {msg}") from None
    try:
        program.verify()  # def-before-use, branch/carry agreement: a well-formed file is a well-formed Program
    except ValueError as e:
        raise ProgramFormatError(f"{model_path}: the Program is not well formed: {e}") from None
    feeds, fetches = _need(model, "feed", list, model_path), _need(model, "fetch", list, model_path)
    meta = _need(model, "metadata", dict, model_path)
    gb = program.global_block()
    for n in feeds + fetches:
        if not isinstance(n, str) or n not in gb.vars:
            raise ProgramFormatError(f"{model_path}: feed/fetch name {n!r} is not a variable of the Program")
    params_bytes, info_bytes = _read(params_path), _read(info_path)
    params = params_from_bytes(params_bytes, params_path)
    _check_params(program, params, params_path)
    info = _read_json(info_path)
    _check_info(info, params, info_path)
    for path, payload, key in ((params_path, params_bytes, "params_sha256"), (info_path, info_bytes, "info_sha256")):
        want = meta.get(key)
        if want is not None and hashlib.sha256(payload).hexdigest() != want:
            raise ProgramFormatError(f"{path} does not belong to {model_path} (checksum differs): the files come "
                                     "from different saves (an interrupted save?) or were modified")
    return InferenceModel(program, feeds, fetches, params, info, meta)


def bind_params(program, params, info):
    """Bind each array as a live eager tensor of ``program`` (trainable ones as Parameters); returns them."""
    by_name = {e["name"]: e for e in info}
    tensors = {}
    for name, arr in params.items():
        entry = by_name.get(name, {})
        if entry.get("trainable"):
            t = Parameter(arr, name=name, trainable=True)
        else:
            t = Tensor(arr, stop_gradient=entry.get("stop_gradient", True), name=name)
            t.persistable = True
        program.bound_tensors[name] = t
        tensors[name] = t
    return tensors


def load_inference_model(path_prefix, executor=None):
    """``[program, feed_names, fetch_vars]`` (Paddle's order); parameters are bound to the program.

    ``program.bound_tensors`` maps each parameter name to its loaded tensor, so any
    Executor reads them; ``executor`` is accepted for Paddle compatibility.
    """
    m = read_inference_model(path_prefix)
    bind_params(m.program, m.params, m.info)
    gb = m.program.global_block()
    return [m.program, list(m.feed_names), [gb.var(n) for n in m.fetch_names]]
