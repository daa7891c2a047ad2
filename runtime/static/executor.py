"""``Executor.run`` and ``compile_block``: build a plan once per (program version, feeds, fetches).

The plan is a generated Python function (see ``codegen``); a run checks the
feeds (dtype and shape, never casting), calls it and returns the fetched arrays.
A kernel failure is re-raised as the same exception type, its message naming the
op, its output var and the user's line the op came from (``op.origin``).
"""
import numpy as np

from ..dtypes import convert_dtype
from ..framework import Program, Variable, default_main_program
from ..tensor import Tensor
from . import passes
from .codegen import BlockCompiler, UndefinedVariableError
from .passes.features import KEY as FEATURE_KEY
from .scope import global_scope


def _shape_ok(got, want):
    if len(got) != len(want):
        return False
    return all(w < 0 or g == w for g, w in zip(got, want))


def check_feed(name, value, dtype, shape):
    """The fed array for var ``name`` (dtype/shape checked; -1 dims match anything)."""
    if isinstance(value, Tensor):
        value = value._value
    elif not isinstance(value, np.ndarray):
        value = np.asarray(value)
    if value.dtype != dtype:
        raise ValueError(f"feed '{name}': expected dtype {dtype.name} with shape {list(shape)}, got dtype "
                         f"{value.dtype.name} with shape {list(value.shape)} (feeds are never cast; "
                         f"use arr.astype('{dtype.name}'))")
    if not _shape_ok(value.shape, shape):
        raise ValueError(f"feed '{name}': expected shape {list(shape)} (-1 matches any size), got shape "
                         f"{list(value.shape)}")
    return value


def _name_of(v, what):
    if isinstance(v, Variable):
        return v.name
    if isinstance(v, str):
        return v
    raise TypeError(f"{what} entries must be Variables or var names, got {type(v).__name__}")


class _Plan:
    """One compiled run of a Program's global block for fixed feed and fetch names."""

    def __init__(self, program, feed_names, fetch_names, scope):
        block = program.global_block()
        for n in fetch_names:
            if n not in block.vars:
                where = [b.idx for b in program.blocks if n in b.vars]
                hint = (f"; it lives in sub-block {where[0]}, whose values exist only inside its "
                        "control-flow op" if where else "")
                raise ValueError(f"cannot fetch '{n}': it is not a variable of the Program's global block{hint}")
        specs = []
        for n in feed_names:
            if n not in block.vars:
                raise ValueError(f"feed '{n}' is not a variable of the Program; its feed (data) vars are "
                                 f"{sorted(v.name for v in block.vars.values() if v.is_data)}")
            v = block.vars[n]
            shape = tuple(v.shape)
            specs.append((n, convert_dtype(v.dtype).np, shape, -1 not in shape))
        self.specs = specs
        self.compiler = BlockCompiler(program, scope)
        try:
            self.fn = self.compiler.compile(block, feed_names, fetch_names, catch=True)
        except UndefinedVariableError as e:
            data = [n for n in e.names if block.has_var(n) and block.var(n).is_data]
            if data:
                expected = sorted(set(data) | set(n for n in feed_names if block.vars[n].is_data))
                raise ValueError(f"missing feed for data var(s) {data}: this run needs feeds {expected}, "
                                 f"got {sorted(feed_names)}") from None
            raise

    def run(self, feed):
        args = []
        for n, dt, shape, exact in self.specs:
            v = feed[n]
            # the common case checked inline; anything else (Tensors, lists, a mismatch) goes the long way
            if type(v) is not np.ndarray or v.dtype != dt or (v.shape != shape if exact else not _shape_ok(v.shape, shape)):
                v = check_feed(n, v, dt, shape)
            args.append(v)
        return self.fn(*args)  # the plan annotates its own errors


class Executor:
    """Runs Programs on numpy (``place`` is accepted for Paddle compatibility and ignored)."""

    def __init__(self, place=None):
        self.place = place

    def run(self, program=None, feed=None, fetch_list=None, scope=None, return_numpy=True):
        """Run ``program`` (the default main Program if None) with ``feed`` {name: array} and return the values of
        ``fetch_list`` (Variables or names), as numpy arrays unless ``return_numpy=False``.

        Parameters are read from and written to ``scope`` (the global scope). The compiled plan is cached per
        Program version, feed names and fetch list. TypeError when ``program`` is not a Program.
        """
        program = default_main_program() if program is None else program
        if not isinstance(program, Program):
            raise TypeError(f"Executor.run expects a Program, got {type(program).__name__}")
        feed = {} if feed is None else feed
        scope = global_scope() if scope is None else scope
        if isinstance(fetch_list, (Variable, str)):
            fetch_list = [fetch_list]
        fetch_names = tuple([f.name if type(f) is Variable else _name_of(f, "fetch_list") for f in fetch_list or ()])
        key = (program._version, tuple(feed), fetch_names, id(scope), FEATURE_KEY[0])
        plans = program.__dict__.get("_exec_plans")
        if plans is None:
            plans = program.__dict__["_exec_plans"] = {}
        plan = plans.get(key)
        if plan is None:
            if len(plans) > 64:  # old versions of a Program being built up
                plans.clear()
            plan = plans[key] = _Plan(program, tuple(feed), fetch_names, scope)
        outs = plan.run(feed)
        if return_numpy:
            return list(outs)
        return [Tensor._wrap(o) if isinstance(o, np.ndarray) else o for o in outs]

    def close(self):
        """Nothing to release; kept for Paddle compatibility."""
        pass


def segment_inputs(block, output_names, op_range=None, scope=None):
    """Names ``block.ops[op_range]`` must be given to produce ``output_names`` (persistables excluded).

    ``passes.liveness.segment_inputs``; ``scope`` is accepted for compatibility (persistable
    vars are known from the Program, wherever their values live).
    """
    return passes.segment_inputs(block, output_names, op_range)


def compile_block(block, input_names, output_names, op_range=None, scope=None):
    """A callable ``f(*arrays) -> tuple of arrays`` running ``block.ops[op_range]``.

    Names in ``input_names`` are the positional arguments; persistable vars are
    read from ``program.bound_tensors`` (live eager tensors) or the scope, and
    persistable outputs are written back after the call.  One Program holding a
    forward [0, k) and a backward [k, n) runs as two segments: compile [0, k)
    returning the intermediates the backward needs, then [k, n) taking them.
    """
    program = block.program
    compiler = BlockCompiler(program, global_scope() if scope is None else scope)
    # the generated function itself, annotating its own errors: no wrapper call per run
    run = compiler.compile(block, input_names, output_names, op_range, catch=True)
    run.input_names, run.output_names = list(input_names), list(output_names)
    return run
