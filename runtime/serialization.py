"""``rt.save`` / ``rt.load``: nested containers of Tensors, arrays and plain values, without pickle.

The file is a numpy ``.npz`` archive: each array is a member ``a0, a1, ...``
and the member ``__header__`` is a uint8 array holding UTF-8 JSON: the
containers as a ``runtime.pytree`` tree description and one entry per leaf::

    {"format": "runtime.save", "version": 2,
     "tree": ["dict", [["fc.weight", ["leaf"]], ...], ["fc.weight", ...]],
     "leaves": [{"t": "tensor", "ref": "a0", "name": "linear_0.w_0"}, ...]}

Version 1 files (the whole structure as nested ``{"t": "dict", "items": ...}``
entries) still load.  Loading reads ``.npy`` members (never pickles) and only JSON, so reading a file
never executes code; anything that is not this format (a pickle, a truncated
or corrupted archive, random bytes) raises ``SerializationError``, a
``ValueError`` naming the file and the problem.  What a file can make ``load``
allocate is bounded before anything is read (``runtime.files``), and each member
may back one entry only (``rt.save`` writes every array once), so a small header
cannot multiply a big member.  0-d arrays stay 0-d.  Saving writes the file
atomically with the umask's permissions (``runtime.files.write_atomic``), so a
failed save leaves the previous file intact.
"""
import io
import json
import os

import numpy as np

from . import pytree
from .dtypes import convert_dtype
from .files import read_npy_archive, write_atomic
from .tensor import Tensor

FORMAT = "runtime.save"
VERSION = 2
_READS = (1, 2)  # the versions load() reads
_HEADER = "__header__"
_ZIP_MAGIC = b"PK\x03\x04"
_EMPTY_ZIP_MAGIC = b"PK\x05\x06"


class SerializationError(ValueError):
    """A file given to ``rt.load`` is not a readable ``rt.save`` file."""


# Other objects stored as JSON (a Program's structure): class -> (tag, to_json, from_json).
_EXTRA_TYPES = {}


def register_type(cls, tag, to_json, from_json):
    """Store instances of ``cls`` as ``{"t": tag, "v": to_json(obj)}``; ``from_json`` rebuilds them on load."""
    _EXTRA_TYPES[cls] = (tag, to_json, from_json)


# -- encoding ------------------------------------------------------------------
def _where(path):
    return "root" + "".join(f"[{k!r}]" for k in path)


class MissingFileError(FileNotFoundError, ValueError):
    """A path to load that does not exist: a FileNotFoundError, and the ValueError Paddle's
    ``paddle.load`` / ``paddle.jit.load`` raise for it (so code written for either catches it)."""


class _Encoder:
    def __init__(self):
        self.arrays = {}

    def _array(self, arr):
        arr = np.asarray(arr)
        convert_dtype(arr.dtype)  # object/complex/str arrays cannot be stored without pickle
        key = f"a{len(self.arrays)}"
        self.arrays[key] = np.require(arr, requirements="C")  # ascontiguousarray would make 0-d 1-d
        return key

    def header(self, obj):
        """The JSON header of ``obj``: its containers as a tree description, its leaves as entries."""
        leaves, spec = pytree.flatten(obj, sort_keys=False)
        leaf_paths = []
        for path, node in spec.walk():
            if node.kind == "dict":
                for k in node.meta[0]:
                    if not isinstance(k, (str, int)) or isinstance(k, bool):
                        raise TypeError(f"rt.save: dict keys must be str or int, got {type(k).__name__} at "
                                        f"{_where(path)}")
            elif node.kind == "leaf":
                leaf_paths.append(path)
        entries = [self.leaf(v, p) for v, p in zip(leaves, leaf_paths)]
        return {"format": FORMAT, "version": VERSION, "tree": spec.to_json(plain_tuples=True), "leaves": entries}

    def leaf(self, obj, path):
        if isinstance(obj, Tensor):
            node = {"t": "tensor", "ref": self._array(obj.numpy()), "stop_gradient": bool(obj.stop_gradient)}
            if obj._name is not None:  # a name given or read, not one made for the file
                node["name"] = obj._name
            return node
        if isinstance(obj, np.ndarray):
            return {"t": "ndarray", "ref": self._array(obj)}
        if type(obj) in _EXTRA_TYPES:
            tag, to_json, _ = _EXTRA_TYPES[type(obj)]
            return {"t": tag, "v": to_json(obj)}
        if isinstance(obj, np.generic):
            return {"t": "npscalar", "ref": self._array(np.asarray(obj))}
        if obj is None or isinstance(obj, (bool, str)):
            return {"t": "value", "v": obj}
        if isinstance(obj, int):
            return {"t": "value", "v": int(obj)}
        if isinstance(obj, float):
            return {"t": "float", "v": repr(obj)}  # repr keeps nan/inf and every digit
        raise TypeError(f"rt.save cannot store {type(obj).__name__} at {_where(path)}: only Tensors, numpy arrays, "
                        "dicts, lists, tuples, str, int, float, bool and None are supported (no pickle)")


def save(obj, path, protocol=4, **configs):
    """Write ``obj`` to ``path`` atomically (temp file in the same directory, then ``os.replace``)."""
    path = os.fspath(path)
    enc = _Encoder()
    header = enc.header(obj)
    blob = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)
    buf = io.BytesIO()
    np.savez(buf, **{_HEADER: blob}, **enc.arrays)
    write_atomic(path, buf.getvalue())


# -- decoding ------------------------------------------------------------------
class _Decoder:
    def __init__(self, archive, path, return_numpy):
        self.archive, self.path, self.return_numpy = archive, path, return_numpy
        self.used = set()

    def fail(self, what):
        raise SerializationError(f"rt.load('{self.path}'): {what}")

    def _array(self, node):
        ref = node.get("ref")
        if not isinstance(ref, str) or ref == _HEADER or ref not in self.archive:
            self.fail(f"the header refers to a missing array {ref!r}")
        if ref in self.used:
            self.fail(f"the header refers to array {ref!r} more than once (rt.save writes each array once)")
        self.used.add(ref)
        return self.archive[ref]

    def leaf(self, node):
        if not isinstance(node, dict) or "t" not in node:
            self.fail(f"malformed header entry {str(node)[:80]!r}")
        t = node["t"]
        if t == "tensor":
            arr = self._array(node)
            if self.return_numpy:
                return arr
            out = Tensor(arr, stop_gradient=bool(node.get("stop_gradient", True)))
            out.name = node.get("name")
            return out
        if t == "ndarray":
            return self._array(node)
        if t == "npscalar":
            return self._array(node)[()]
        if t == "value":
            return node.get("v")
        if t == "float":
            try:
                return float(node["v"])
            except (KeyError, TypeError, ValueError):
                self.fail(f"bad float entry {node!r}")
        for tag, _, from_json in _EXTRA_TYPES.values():
            if t == tag:
                try:
                    return from_json(node.get("v"))
                except ValueError as e:
                    self.fail(f"bad {tag} entry ({e})")
        self.fail(f"unknown entry type {t!r}")

    def decode(self, tree, entries):
        """The saved object from its tree description and leaf entries."""
        if not isinstance(entries, list):
            self.fail(f"malformed leaf list {str(entries)[:80]!r}")
        try:
            spec = pytree.TreeSpec.from_json(tree)
        except (ValueError, TypeError, IndexError) as e:
            self.fail(f"malformed tree description ({str(e)[:120]})")
        if spec.num_leaves != len(entries):
            self.fail(f"the tree has {spec.num_leaves} leaves but the header lists {len(entries)} entries")
        leaves = [self.leaf(n) for n in entries]
        try:
            return pytree.unflatten(spec, leaves)
        except TypeError as e:  # a key the header lists that no dict can hold
            self.fail(f"malformed tree description ({str(e)[:120]})")

    def version1(self, node, entries):
        """The tree description of a version 1 header's nested entry ``node``; its leaves go to ``entries``."""
        if not isinstance(node, dict) or "t" not in node:
            self.fail(f"malformed header entry {str(node)[:80]!r}")
        t = node["t"]
        if t in ("list", "tuple"):
            return [t, [self.version1(v, entries) for v in self._items(node)]]
        if t == "dict":
            pairs = []
            for pair in self._items(node):
                if not isinstance(pair, list) or len(pair) != 2:
                    self.fail(f"malformed dict item {str(pair)[:80]!r}")
                pairs.append([pair[0], self.version1(pair[1], entries)])
            return ["dict", pairs, [k for k, _ in pairs]]
        entries.append(node)
        return ["leaf"]

    def _items(self, node):
        items = node.get("items")
        if not isinstance(items, list):
            self.fail(f"malformed container entry {str(node)[:80]!r}")
        return items


def _check_magic(path):
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except FileNotFoundError:
        raise MissingFileError(f"rt.load: no such file '{path}'") from None
    if head not in (_ZIP_MAGIC, _EMPTY_ZIP_MAGIC):
        kind = "a pickle" if head[:1] == b"\x80" else ("empty" if not head else "not an rt.save archive")
        raise SerializationError(f"rt.load('{path}'): the file is {kind} (expected an .npz archive written by "
                                 "rt.save; pickle files are never loaded)")


def load(path, return_numpy=False, **configs):
    """Read a file written by ``rt.save``; Tensors come back as Tensors (arrays with ``return_numpy``)."""
    path = os.fspath(path)
    if not os.path.exists(path) and os.path.exists(path + ".pdmodel"):
        return _load_model_params(path, return_numpy)
    _check_magic(path)
    archive = read_npy_archive(path, f"rt.load('{path}')", SerializationError)
    if _HEADER not in archive:
        raise SerializationError(f"rt.load('{path}'): the archive has no '{_HEADER}' entry; "
                                 "it was not written by rt.save")
    raw = archive.pop(_HEADER)
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise SerializationError(f"rt.load('{path}'): the '{_HEADER}' entry is not a uint8 array "
                                 "(not written by rt.save)")
    try:
        header = json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SerializationError(f"rt.load('{path}'): the header is not valid JSON ({e})") from None
    except RecursionError:
        raise SerializationError(f"rt.load('{path}'): the header is nested too deeply") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise SerializationError(f"rt.load('{path}'): unknown format "
                                 f"{header.get('format') if isinstance(header, dict) else header!r}")
    if header.get("version") not in _READS:
        raise SerializationError(f"rt.load('{path}'): unsupported format version {header.get('version')!r} "
                                 f"(this runtime reads versions {', '.join(map(str, _READS))})")
    decoder = _Decoder(archive, path, return_numpy)
    try:
        if header["version"] == 1:
            entries = []
            tree = decoder.version1(header.get("root"), entries)
            return decoder.decode(tree, entries)
        return decoder.decode(header.get("tree"), header.get("leaves"))
    except RecursionError:
        raise SerializationError(f"rt.load('{path}'): the header is nested too deeply") from None


def _load_model_params(prefix, return_numpy):
    """``rt.load(prefix)`` of a model saved by ``dy2st.save`` (as Paddle's ``paddle.load`` reads a
    ``paddle.jit.save`` prefix): its parameters and buffers as a ``state_dict`` (keys as the
    Layer named them), ready for ``set_state_dict`` on a fresh Layer."""
    from runtime.static.formats.io import read_inference_model  # the static formats import this module

    m = read_inference_model(prefix)
    out = {}
    for entry in m.info:
        arr = m.params[entry["name"]]
        out[entry.get("structured_name") or entry["name"]] = arr if return_numpy else Tensor(arr)
    return out
