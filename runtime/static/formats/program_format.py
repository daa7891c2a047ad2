"""The versioned JSON Program format: a Program to a plain dict and back, validated on the way in.

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
reads or writes resolves, and every op agrees with its registry declaration (slots,
attributes, shape/dtype inference: ``program_check``); it never evaluates, unpickles or
imports anything.
"""
import json
import math

import numpy as np

from ...dtypes import convert_dtype
from ...framework import Block, Program
from ...registry import has_op
from .program_check import ProgramFormatError, check_op

PROGRAM_FORMAT = "dy2st.program"
PROGRAM_VERSION = 1

_VAR_FIELDS = {"name": str, "shape": list, "dtype": str, "persistable": bool, "stop_gradient": bool,
               "is_data": bool, "trainable": bool, "kind": str}


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
    saved = getattr(type(value), "saved_attr", None)
    if saved is not None:  # a value that cannot be saved says what stands for it in a saved Program
        return _encode_attr(saved(value), where)
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
# Attribute values stored as they are (``_encode_attr`` returns them unchanged): the usual case.
_PLAIN_ENCODED = frozenset({bool, str, int, type(None)})


def _encode_attrs(attrs, where_op):
    out = {}
    for k, v in attrs.items():
        tv = type(v)
        if tv in _PLAIN_ENCODED:
            out[k] = v
        elif tv is list and all(type(x) in _PLAIN_ENCODED for x in v):
            out[k] = list(v)
        else:  # where only built when needed: it names the attribute in an error
            out[k] = _encode_attr(v, f"{where_op()} attribute '{k}'")
    return out


def serialize_program(program):
    """The JSON-able dict of ``program`` (see the module docstring for the format)."""
    blocks = []
    for blk in program.blocks:
        vars_ = [{"name": v.name, "shape": list(v.shape), "dtype": str(v.dtype), "persistable": bool(v.persistable),
                  "stop_gradient": bool(v.stop_gradient), "is_data": bool(v.is_data),
                  "trainable": bool(getattr(v, "trainable", False)), "kind": v.kind} for v in blk.vars.values()]
        ops = []
        for i, op in enumerate(blk.ops):
            attrs = _encode_attrs(op.attrs, lambda blk=blk, i=i, op=op: f"block {blk.idx}, op #{i} '{op.type}'")
            origin = getattr(op, "origin", None)
            ops.append({"type": op.type, "inputs": {k: list(v) for k, v in op.inputs.items()},
                        "outputs": {k: list(v) for k, v in op.outputs.items()}, "attrs": attrs,
                        "origin": None if origin is None else str(origin)})
        blocks.append({"idx": blk.idx, "parent": blk.parent_idx, "vars": vars_, "ops": ops})
    seed = program.random_seed
    return {"format": PROGRAM_FORMAT, "version": PROGRAM_VERSION,
            "random_seed": None if seed is None else int(seed), "blocks": blocks}


def need_field(obj, key, typ, where):
    """``obj[key]``, checked to be of type ``typ``; ProgramFormatError naming ``where`` otherwise."""
    if not isinstance(obj, dict) or key not in obj:
        raise ProgramFormatError(f"{where}: missing field '{key}'")
    val = obj[key]
    ok = isinstance(val, typ) and not (typ is int and isinstance(val, bool))
    if not ok:
        name = typ.__name__ if isinstance(typ, type) else "/".join(t.__name__ for t in typ)
        raise ProgramFormatError(f"{where}: field '{key}' should be {name}, got {type(val).__name__}")
    return val


def check_header(data, fmt, known, what):
    """Check a file's ``format`` name and ``version``; ProgramFormatError naming ``what`` otherwise."""
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
    slots = need_field(op, key, dict, where)
    for slot, names in slots.items():
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ProgramFormatError(f"{where}: {key} slot '{slot}' should be a list of var names")
    return slots


def deserialize_program(data, trusted=False):
    """Rebuild a Program from ``serialize_program``'s dict, validating everything (ProgramFormatError).

    ``trusted=True`` only builds: for data known to pass every check (the same file bytes were
    validated before, see ``io.read_inference_model``); never for data of unknown origin.
    """
    if trusted:
        return _build(data)
    try:
        return _deserialize(data)
    except RecursionError:
        raise ProgramFormatError("program: attributes are nested too deeply") from None


# JSON scalars: ``_decode_attr`` returns them unchanged (the usual attribute value).
_SCALARS = frozenset({type(None), bool, int, float, str})


def _build(data):
    """The Program of already validated ``data``: what ``_deserialize`` builds, without its checks."""
    prog = Program()
    prog.random_seed = data.get("random_seed")
    raw_blocks = data["blocks"]
    for i, rb in enumerate(raw_blocks):
        blk = prog.blocks[0] if i == 0 else Block(prog, i, rb["parent"])
        if i > 0:
            prog.blocks.append(blk)
        for rv in rb["vars"]:
            v = blk.create_var(rv["name"], rv["shape"], rv["dtype"], persistable=rv["persistable"],
                               stop_gradient=rv["stop_gradient"], is_data=rv["is_data"], kind=rv["kind"])
            v.trainable = rv["trainable"]
    blocks = prog.blocks
    for blk, rb in zip(blocks, raw_blocks):
        for ro in rb["ops"]:
            attrs = {k: v if type(v) in _SCALARS else _decode_attr(v, blocks, "") for k, v in ro["attrs"].items()}
            blk.append_op(ro["type"], ro["inputs"], ro["outputs"], attrs).origin = ro.get("origin")
    return prog


def _read_var(rv, blk, where, j, dtypes_ok):
    """The create_var fields of var entry ``rv`` (#``j`` of the block ``where``), all checked."""
    if type(rv) is dict:  # the usual case: read each field once, check its exact type
        name, shape, dtype = rv.get("name"), rv.get("shape"), rv.get("dtype")
        persistable, stop_gradient = rv.get("persistable"), rv.get("stop_gradient")
        is_data, trainable, kind = rv.get("is_data"), rv.get("trainable"), rv.get("kind")
        ok = (type(name) is str and type(shape) is list and type(dtype) is str and type(persistable) is bool
              and type(stop_gradient) is bool and type(is_data) is bool and type(trainable) is bool
              and type(kind) is str)
    else:
        ok = False
    if not ok:  # need_field names what is missing or wrong
        fields = {k: need_field(rv, k, t, f"{where}, var #{j}") for k, t in _VAR_FIELDS.items()}
        name, shape, dtype = fields["name"], fields["shape"], fields["dtype"]
        persistable, stop_gradient = fields["persistable"], fields["stop_gradient"]
        is_data, trainable, kind = fields["is_data"], fields["trainable"], fields["kind"]
    for d in shape:
        if type(d) is not int or d < -1:
            raise ProgramFormatError(f"{where}, var #{j} '{name}': shape {shape} must be ints >= -1")
    if dtype not in dtypes_ok:
        try:
            convert_dtype(dtype)
        except TypeError as e:
            raise ProgramFormatError(f"{where}, var #{j} '{name}': {e}") from None
        dtypes_ok.add(dtype)
    if name in blk.vars:
        raise ProgramFormatError(f"{where}, var #{j}: variable '{name}' is declared twice")
    v = blk.create_var(name, shape, dtype, persistable=persistable, stop_gradient=stop_gradient,
                       is_data=is_data, kind=kind)
    v.trainable = trainable


def _deserialize(data):
    check_header(data, PROGRAM_FORMAT, PROGRAM_VERSION, "program")
    raw_blocks = need_field(data, "blocks", list, "program")
    if not raw_blocks:
        raise ProgramFormatError("program: has no blocks")
    seed = data.get("random_seed")
    if seed is not None and (type(seed) is not int):
        raise ProgramFormatError(f"program: field 'random_seed' should be int or null, got {type(seed).__name__}")
    prog = Program()
    prog.random_seed = seed
    dtypes_ok = set()  # dtype names convert_dtype accepted in this file (it is a pure function of the name)
    for i, rb in enumerate(raw_blocks):
        where = f"block #{i}"
        idx, parent = need_field(rb, "idx", int, where), need_field(rb, "parent", int, where)
        if idx != i or not -1 <= parent < i or (i > 0) == (parent < 0):
            raise ProgramFormatError(f"{where}: idx {idx} / parent {parent} are inconsistent "
                                     "(blocks must be listed in order, each after its parent)")
        blk = prog.blocks[0] if i == 0 else Block(prog, i, parent)
        if i > 0:
            prog.blocks.append(blk)
        for j, rv in enumerate(need_field(rb, "vars", list, where)):
            _read_var(rv, blk, where, j, dtypes_ok)
    # Every var exists before any op is read: the names each block sees (its own and its parents')
    # are fixed from here on, so they are collected once instead of walking the parents per name.
    visible = []
    for blk in prog.blocks:
        visible.append(set(blk.vars) | (visible[blk.parent_idx] if blk.parent_idx >= 0 else set()))
    blocks = prog.blocks
    for i, rb in enumerate(raw_blocks):
        blk, seen = blocks[i], visible[i]
        for j, ro in enumerate(need_field(rb, "ops", list, f"block #{i}")):
            typ = ro.get("type") if type(ro) is dict else None
            ins, outs = (ro.get("inputs"), ro.get("outputs")) if typ is not None else (None, None)
            if not (type(typ) is str and has_op(typ) and _names_ok(ins, seen) and _names_ok(outs, seen)):
                typ, ins, outs = _read_slots(ro, blk, i, j)  # the full checks: they name the problem
            where = f"block {i}, op #{j} '{typ}'"
            raw_attrs = ro.get("attrs")
            if type(raw_attrs) is not dict:
                raw_attrs = need_field(ro, "attrs", dict, where)
            attrs = {k: v if type(v) in _SCALARS else _decode_attr(v, blocks, f"{where} attribute '{k}'")
                     for k, v in raw_attrs.items()}
            origin = ro.get("origin")
            if origin is not None and not isinstance(origin, str):
                raise ProgramFormatError(f"{where}: field 'origin' should be str or null")
            check_op(typ, ins, outs, attrs, blk, where)
            blk.append_op(typ, ins, outs, attrs).origin = origin
    return prog


def _names_ok(slots, seen):
    """Whether ``slots`` is a dict of lists of names of visible variables (what ``_read_slots`` checks)."""
    if type(slots) is not dict:
        return False
    for names in slots.values():
        if type(names) is not list:
            return False
        for n in names:
            if type(n) is not str or n not in seen:
                return False
    return True


def _read_slots(ro, blk, i, j):
    """(type, inputs, outputs) of op entry ``ro`` (#``j`` of block ``i``), every field checked in order."""
    where = f"block {i}, op #{j}"
    typ = need_field(ro, "type", str, where)
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
    return typ, ins, outs


def program_to_json(program):
    """The Program as JSON text (the ``.pdmodel`` format)."""
    return json.dumps(serialize_program(program), allow_nan=False)


def program_from_json(text):
    """A Program from ``program_to_json`` text; ProgramFormatError for invalid or malformed JSON."""
    try:
        data = json.loads(text, parse_constant=reject_constant)
    except json.JSONDecodeError as e:
        raise ProgramFormatError(f"program: not valid JSON ({e})") from None
    except RecursionError:
        raise ProgramFormatError("program: JSON nested too deeply") from None
    return deserialize_program(data)


def reject_constant(name):
    """``json.loads`` hook refusing NaN/Infinity constants with a ProgramFormatError."""
    raise ProgramFormatError(f"non-standard JSON constant {name}")
