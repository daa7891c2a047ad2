"""``python -m dy2st.fuzz --count N --seed S --jobs J``: run N random programs, compare, shrink failures.

Program ``i`` is generated from seed ``S + i`` (so any failure reruns alone with ``--seed S+i
--count 1``), checked in one of J worker processes (``dy2st.fuzz.check``), and the run prints a
summary by stage and kind of failure.  The first ``--shrink`` failures are cut down to minimal
programs (``dy2st.fuzz.shrink``, each try in a forked process with a time and memory limit) and
printed.  Exit status 1 when anything failed.

Every program gets every check by default (forward values and Layer state, gradients, finite
differences for function programs without a no_grad region, save + load, ONNX in onnxruntime);
``--fd-every/--save-every/--onnx-every K`` thin them out.  ``--train-mode`` also runs Layers in
train mode (dropout draws and batch norm's running statistics compared with eager execution).
"""
import argparse
import collections
import gc
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import time

from .check import Failure, Options, check, preload
from .generator import DEFAULT_FEATURES, FEATURES, generate
from .shrink import bounded, shrink

_state = {}


def _init(features, options, folder, time_limit=0):
    _state.update(features=features, options=options, folder=folder, time_limit=time_limit)
    # Tracing and conversion allocate many small linked objects (ops, variables, AST nodes), so the
    # cyclic collector runs often and re-scans everything imported each time: ~20% of a worker's
    # time.  Freezing what exists now (the imported modules) and collecting young objects less
    # often keeps what is collected the same, only later; a worker is replaced every 500 programs.
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
    # Workers forked while the parent waits inherit its Ctrl-C/SIGTERM handling; the parent alone
    # reacts to those and ends the workers with SIGTERM, which must stop them quietly.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # the ``idioms`` grammar prints tensors: a worker's output would bury the summary
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (the worker's lifetime)


class _TimedOut(BaseException):
    """A program ran past ``--time-limit`` (a BaseException: the checks' own ``except Exception`` lets it by)."""


def _timed_out(signum, frame):
    raise _TimedOut


def _one(seed):
    limit = _state.get("time_limit") or 0
    if limit:  # a loop that never ends must not hold its worker (and the run) forever
        signal.signal(signal.SIGALRM, _timed_out)
        signal.alarm(limit)
    try:
        src, meta = generate(seed, _state["features"])
        return seed, check(src, meta, seed, _state["folder"], _state["options"])
    except _TimedOut:
        return seed, Failure("run", "timeout", f"the program did not finish in {limit} s")
    finally:
        if limit:
            signal.alarm(0)


def _parse(argv):
    p = argparse.ArgumentParser(prog="python -m dy2st.fuzz", description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=1000, help="how many programs (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first program (default 0)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: CPUs)")
    p.add_argument("--features", default=",".join(sorted(DEFAULT_FEATURES)),
                   help=f"comma-separated grammar features, of {', '.join(sorted(FEATURES))} "
                        f"(default: {', '.join(sorted(DEFAULT_FEATURES))}); 'none' for the plain grammar")
    p.add_argument("--train-mode", action="store_true", help="also run Layers in train mode (dropout, batch stats)")
    p.add_argument("--none-grads", action="store_true",
                   help="a gradient that is None eagerly must be None statically too (not zeros)")
    p.add_argument("--fd-every", type=int, default=1, help="finite differences on every K-th program (0: never)")
    p.add_argument("--save-every", type=int, default=1, help="save+load on every K-th program (0: never)")
    p.add_argument("--onnx-every", type=int, default=1, help="ONNX export on every K-th program (0: never)")
    p.add_argument("--shrink", type=int, default=3, help="shrink and print the first K failures (default 3)")
    p.add_argument("--time-limit", type=int, default=120,
                   help="seconds one program may take before it counts as failed (default 120; 0: no limit)")
    args = p.parse_args(argv)
    feats = set() if args.features in ("", "none") else set(args.features.split(","))
    unknown = feats - FEATURES
    if unknown:
        p.error(f"unknown features {sorted(unknown)}; known: {sorted(FEATURES)}")
    return args, frozenset(feats)


def scratch_dir(prefix):
    """A fresh folder for the programs' module and model files: in memory (``/dev/shm``) where there
    is one, since the saves fsync each file they write and a disk makes that the slowest step."""
    shm = "/dev/shm"
    where = shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None
    return tempfile.mkdtemp(prefix=prefix, dir=where)


def main(argv=None):
    """``python -m dy2st.fuzz``: run the random programs, print a summary, exit 1 on any mismatch."""
    args, features = _parse(argv)
    options = Options(fd_every=args.fd_every, save_every=args.save_every, onnx_every=args.onnx_every,
                      train_mode=args.train_mode, none_grads=args.none_grads)
    seeds = range(args.seed, args.seed + args.count)
    start = time.time()
    ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    folder = scratch_dir("dy2st-fuzz-")  # each program's module and model files, removed after
    if args.onnx_every:
        preload()  # imported once here, inherited by every forked worker
    try:
        with ctx.Pool(max(1, args.jobs), initializer=_init, initargs=(features, options, folder, args.time_limit),
                      maxtasksperchild=500) as pool:
            done, failures = _collect(pool.imap_unordered(_one, seeds, chunksize=2), args.count, start)
            pool.terminate()  # after an interrupt: stop the workers now
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    elapsed = time.time() - start
    cut = "" if done == args.count else f" (interrupted after {done} of {args.count})"
    print(f"{done} programs from seed {args.seed}{cut} (features: {', '.join(sorted(features)) or 'none'}), "
          f"{args.jobs} jobs, {elapsed:.0f} s: {done - len(failures)} passed, {len(failures)} failed")
    by_kind = collections.Counter((f.stage, f.kind) for _, f in failures)
    for (stage, kind), n in by_kind.most_common():
        seeds_of = sorted(s for s, f in failures if (f.stage, f.kind) == (stage, kind))
        print(f"  {n:5d}  {stage}: {kind}  (seeds {', '.join(map(str, seeds_of[:8]))}{' ...' if n > 8 else ''})")
    if failures and args.shrink:
        _shrink_report(sorted(failures)[:args.shrink], features, options)
    return 1 if failures else 0


def _collect(results, count, start):
    """(programs done, failures); Ctrl-C (or SIGTERM) ends the run early with what is done."""
    failures, done = [], 0
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        for seed, failure in results:
            done += 1
            if failure is not None:
                failures.append((seed, failure))
                print(f"FAIL seed {seed}: {failure.stage}: {failure.message}", flush=True)
            if done % 100 == 0:
                print(f"... {done}/{count} programs, {len(failures)} failed, {time.time() - start:.0f} s", flush=True)
    except KeyboardInterrupt:
        print(f"interrupted after {done} programs", flush=True)
    finally:
        signal.signal(signal.SIGTERM, previous)
    return done, failures


def _shrink_report(failures, features, options):
    folder = scratch_dir("dy2st-fuzz-shrink-")
    try:
        for seed, failure in failures:
            src, meta = generate(seed, features)

            def still_fails(text, meta=meta, seed=seed, failure=failure):
                meta = dict(meta, tensor_cf=meta["tensor_cf"] and failure.kind == "mismatch")
                got = check(text, meta, seed, folder, options)
                return got is not None and (got.stage, got.kind) == (failure.stage, failure.kind)
            small = shrink(src, bounded(still_fails))
            again = check(small, dict(meta, tensor_cf=False), seed, folder, options)
            print(f"\n--- seed {seed}: {failure.stage}: {failure.message}\n--- minimal program "
                  f"({len(small.splitlines())} of {len(src.splitlines())} lines) ---\n{small}"
                  f"--- it fails with: {again.message if again else '(no longer fails alone)'}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
