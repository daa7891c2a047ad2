"""Writing files that are never seen half-written, and reading array archives within a memory bound.

- ``write_atomic(path, payload)``: the bytes go to a fresh temp file in the target's directory,
  are fsynced and ``os.replace``d onto ``path``: readers see the old file or the new one, never a
  mix.  The temp file is created with mode 0o666 filtered by the process umask, exactly as
  ``open(path, "w")`` creates a file (``tempfile.mkstemp`` would give 0600, unreadable by the
  other users who serve a saved model).
- ``write_set_atomic([(path, payload), ...], backup_prefix)``: several files that belong together
  (an inference model).  The previous complete set is kept under ``backup_prefix`` while the new
  files move into place, so a crash between the moves leaves one complete set on disk; a reader
  that finds the main set inconsistent falls back to the backup (``runtime.static.formats.io`` does).
- ``read_npy_archive(source, filename, error)``: ``{member: ndarray}`` of an ``np.savez``-style zip,
  refusing pickles and object arrays, and checking *before allocating* that the archive's declared
  sizes are plausible for its size on disk (a zip bomb or a member header claiming a huge shape is
  an ``error`` naming the file, not a MemoryError after the memory is spent).
"""
import io
import os
import secrets
import zipfile

import numpy as np

# What a file may make a reader allocate: its own size times EXPANSION plus SLACK.  Archives this
# project writes are stored uncompressed (ratio 1); the slack admits small compressed files.
EXPANSION = 16
SLACK = 64 << 20
_CHUNK = 16 << 20


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


def _write_temp(path, payload):
    """A synced temp file next to ``path`` holding ``payload``; returns its path."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    while True:
        tmp = os.path.join(folder, f".{os.path.basename(path)}.{secrets.token_hex(6)}.tmp")
        try:
            # 0o666 & ~umask, as open(path, "w") does; O_EXCL: never reuse someone else's file
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass



def _move(tmp, path):
    """``os.replace(tmp, path)``; an error names ``path`` (what the caller asked for), never the
    temporary file's made-up name."""
    try:
        os.replace(tmp, path)
    except OSError as e:
        what = "is a directory" if os.path.isdir(path) else (e.strerror or str(e))
        raise type(e)(e.errno, f"cannot write the file, {what}", path) from None

def write_atomic(path, payload):
    """Replace ``path`` by a file holding ``payload`` in one step (umask permissions, fsynced)."""
    path = os.fspath(path)
    tmp = _write_temp(path, payload)
    try:
        _move(tmp, path)
    except BaseException:
        _unlink(tmp)
        raise
    _fsync_dir(os.path.dirname(os.path.abspath(path)))


def backup_paths(paths, backup_prefix, prefix):
    """Where each of ``paths`` (all starting with ``prefix``) is kept while a new set replaces it."""
    return [backup_prefix + p[len(prefix):] for p in paths]


def write_set_atomic(files, prefix, backup_prefix):
    """Write several files that only make sense together, keeping one complete set on disk at all times.

    ``files`` are (path, bytes), every path starting with ``prefix``; the LAST one is the commit
    file a reader checks the others against (it holds their checksums).  Steps: (1) every new
    file goes to a synced temp file; (2) unless a complete backup already exists (an earlier
    save crashed after making it, so the main set may be mixed), the current set is hard-linked
    under ``backup_prefix``, its commit file last; (3) the temp files move into place, the commit
    file last; (4) the backup is removed, its commit file first.  A crash at any point leaves
    the main set or the backup complete; a failure before any move leaves the disk as it was.
    """
    files = [(os.fspath(p), b) for p, b in files]
    paths = [p for p, _ in files]
    backups = backup_paths(paths, backup_prefix, prefix)
    folder = os.path.dirname(os.path.abspath(paths[0]))
    temps, moved, made_backup = [], 0, False
    try:
        for path, payload in files:
            temps.append(_write_temp(path, payload))
        if not os.path.exists(backups[-1]):
            made_backup = _backup(paths, backups)
        for tmp, path in zip(temps, paths):
            _move(tmp, path)
            moved += 1
        _fsync_dir(folder)
    finally:
        for tmp in temps[moved:]:
            _unlink(tmp)
        if moved == len(paths) or (moved == 0 and made_backup):
            for b in reversed(backups):  # the commit file first: a partial backup is never used
                _unlink(b)
            _fsync_dir(folder)


def _backup(paths, backups):
    """Hard-link (or copy) the current set under the backup names; False if there is no complete set."""
    for b in backups:
        _unlink(b)  # leftovers of an interrupted backup are incomplete: start over
    if not all(os.path.exists(p) for p in paths):
        return False  # no complete previous set to keep
    for p, b in zip(paths, backups):
        try:
            os.link(p, b)
        except OSError:  # a filesystem without hard links: copy
            with open(p, "rb") as f:
                payload = f.read()
            os.replace(_write_temp(b, payload), b)
    _fsync_dir(os.path.dirname(os.path.abspath(backups[-1])))
    return True


# -- reading -------------------------------------------------------------------------
def _file_size(source):
    if isinstance(source, (bytes, bytearray, memoryview)):
        return len(source)
    return os.path.getsize(source)


def read_npy_archive(source, filename, error):
    """``{member name without .npy: ndarray}`` of a zip of ``.npy`` members, within a memory bound.

    ``source``: a path or the archive's bytes.  Every problem raises ``error(message)`` with the
    message starting with ``filename``.  Pickled and object arrays are refused unread.
    """
    size = _file_size(source)
    budget = size * EXPANSION + SLACK
    try:
        with zipfile.ZipFile(io.BytesIO(source) if isinstance(source, (bytes, bytearray)) else source) as zf:
            infos = zf.infolist()
            names = [i.filename for i in infos]
            if len(set(names)) != len(names):
                raise error(f"{filename}: the archive lists a member twice")
            declared = sum(i.file_size for i in infos)
            if declared > budget:
                raise error(f"{filename}: the archive's members would expand to {declared} bytes from a "
                            f"{size}-byte file (more than {EXPANSION}x its size + {SLACK >> 20} MiB); refusing "
                            "to allocate that (a corrupted or malicious file)")
            out = {}
            for info in infos:
                if not info.filename.endswith(".npy"):
                    raise error(f"{filename}: unexpected member '{info.filename}' (only .npy arrays allowed)")
                out[info.filename[:-4]] = _read_member(zf, info, filename, error)
            return out
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, NotImplementedError) as e:
        raise error(f"{filename}: the archive is truncated or corrupted ({type(e).__name__}: {e})") from None


def _read_member(zf, info, filename, error):
    name = info.filename[:-4]
    with zf.open(info) as f:
        try:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
            else:
                raise ValueError(f"unsupported .npy version {version}")
        except (ValueError, SyntaxError, TypeError) as e:
            raise error(f"{filename}: array '{name}' has a bad header ({e})") from None
        if dtype.hasobject or dtype.kind not in "biuf":
            raise error(f"{filename}: array '{name}' cannot be loaded safely (dtype {dtype}): only bool, int "
                        "and float arrays are read; pickled/object data is never loaded")
        count = 1
        for d in shape:
            count *= d
        data_bytes = info.file_size - f.tell()
        if count * dtype.itemsize != data_bytes:
            raise error(f"{filename}: array '{name}' declares shape {list(shape)} of {dtype} "
                        f"({count * dtype.itemsize} bytes) but its member holds {data_bytes} bytes")
        arr = np.empty(shape[::-1] if fortran else shape, dtype=dtype)
        view = memoryview(arr.reshape(-1).view(np.uint8)) if data_bytes else None
        got = 0
        while got < data_bytes:  # in chunks: no second full-size buffer
            chunk = f.read(min(_CHUNK, data_bytes - got))
            if not chunk:
                break
            view[got:got + len(chunk)] = chunk
            got += len(chunk)
        if got != data_bytes:
            raise error(f"{filename}: array '{name}' is truncated ({got} of {data_bytes} bytes)")
        return arr.T if fortran else arr
