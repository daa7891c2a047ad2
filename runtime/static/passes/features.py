"""Switches for the executor's optimizations, each on by default once its semantics tests pass.

Every optimization the compiler applies when it builds a plan is named here, so
a test can build the same Program with it off and on and compare results::

    with passes.features(inplace=False):
        exe.run(prog, ...)          # a plan built without buffer reuse

Plans are cached per feature set (``feature_key()`` is part of the cache key); change
settings through ``features()``, which keeps that key in step.
"""
import contextlib

FEATURES = {
    # a while op without a gradient runs as one generated function holding the Python loop,
    # instead of a kernel calling a body function once per step
    "compiled_loops": True,
    # cheap ops become Python expressions in the plan (getitem with its index built in place,
    # arithmetic and comparisons on one-element values such as loop counters)
    "expressions": True,
    # hand-written numpy for layer_norm (inference), gelu and softmax: in place, float32 kept
    "fast_kernels": True,
    # within fast_kernels: softmax's max is the registry's softmax_max (the ufunc reduce .max calls,
    # without its Python wrapper; short rows reduced transposed), not ndarray.max (the same maxima)
    "fast_reductions": True,
    # within fast_kernels: embedding without padding_idx is w.take(ids, 0) after one check of the ids
    "fast_embedding": True,
    # within fast_kernels: a matmul with transpose_x/y is np.matmul of .mT views written into the plan line
    # (the registry's swapaxes views, without its Python function and np.swapaxes around the call)
    "matmul_views": True,
    # numel/shape of a var whose static shape is fully known are constants of the plan
    "shape_folding": True,
    # an elementwise op writes into a dead single-use temporary instead of a fresh array
    "inplace": True,
    # a block without control-flow ops reads each parameter where it is used (no hoisted local)
    "inline_params": True,
    # a compiled loop's predicate on one-element values compares numpy scalars, not arrays
    "scalar_predicates": True,
    # pure ops of a compiled loop that read only values the loop never changes run once, before it
    "hoist_invariants": True,
    # a training step's update scales the gradients only it holds in place (passes/owned_grads.py)
    "consume_grads": True,
    # a training step's SGD/Adam update runs as straight-line code written for the plan at its first
    # run, behind inline tests of the state it was written for (optimizer/plan_update.py)
    "plan_updates": True,
    # relu written into a dead temporary takes zeros of its operand's shape (numpy's trivial loop),
    # a constant for a known shape, looked up once per run for relus of one run-time shape
    "shared_zeros": True,
    # a matmul of two matrices (np.dot, ``fast_kernels``) is written ``x.dot(y)``: the same C function
    # without np.dot's __array_function__ dispatch
    "dot_method": True,
    # an op declared float16_in_float32 whose inputs' static dtypes hold no float16 calls its kernel
    # itself, not the wrapper that looks for float16 arrays on every call (~0.45 us: scale 1.6 -> 1.1 us);
    # feeds are dtype-checked, so no float16 array reaches it.  Eager mode too: run_eager, having read
    # the input arrays, calls the kernel itself when none is float16 (runtime/dispatch.py), and a
    # float16_in_float32 composite whose first argument is a float32/float64 Tensor calls its function
    # (runtime/fp16_compute.py): both what the wrappers would call, without their loops
    "plain_kernels": True,
    # the onnxruntime backend hands its session one RunOptions made once, not None (which the C
    # entry point turns into a fresh default RunOptions on every call); read when a runner is built
    "ort_run_options": True,
}


# the settings as a key, kept in step by ``features()`` (a run reads it without rebuilding it)
KEY = [tuple(FEATURES.values())]


def enabled(name):
    """True when optimization ``name`` is on."""
    return FEATURES[name]


def feature_key():
    """The current settings as a hashable key (plans built under different settings differ)."""
    return KEY[0]


@contextlib.contextmanager
def features(**flags):
    """Turn optimizations on or off for the ``with`` body, e.g. ``features(inplace=False)``."""
    unknown = set(flags) - set(FEATURES)
    if unknown:
        raise ValueError(f"unknown executor feature(s) {sorted(unknown)}; known: {sorted(FEATURES)}")
    old = dict(FEATURES)
    FEATURES.update(flags)
    KEY[0] = tuple(FEATURES.values())
    try:
        yield
    finally:
        FEATURES.clear()
        FEATURES.update(old)
        KEY[0] = tuple(FEATURES.values())
