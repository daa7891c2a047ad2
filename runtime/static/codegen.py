"""Compile a Block into a straight-line Python function, once, so each run only calls kernels.

As torch.fx turns its Graph into Python source, ``BlockCompiler.compile`` turns
the ops of a Block into a function like::

    def block0(v_x):
        v_fc_0_w_0 = _B0._value          # persistable: live eager tensor (or _rs('name'): scope)
        v_matmul_0 = _k0(v_x, v_fc_0_w_0, transpose_x=False, transpose_y=False)
        del v_x, v_fc_0_w_0
        v_add_0 = _k1(v_matmul_0, _c0)   # _c0: a constant folded when the plan was built
        ...
        return (v_relu_0,)

Kernels are resolved once, attrs are passed as literals, ops nothing fetched depends
on are dropped (unless they have side effects or write persistable state), and each
intermediate is deleted after its last use.  Control-flow ops get a callable from
their ``build_kernel(op, compiler)``, which compiles their sub-blocks with the same
compiler.  A line -> op table lets the executor say which op a failure came from.
"""
import itertools
import keyword
import linecache
import re
import weakref

import numpy as np

from ..registry import get_op

# generated filename -> the generated function, whose ``linemap`` ({line number: Operator}) is read
# when an error is annotated.  Weak: a plan's source, line map and Operators (and through them the
# Program and its parameters) live exactly as long as the compiled function, not forever.
GENERATED = weakref.WeakValueDictionary()
_ids = itertools.count()
_LITERAL_TYPES = (bool, int, str, type(None))


class UndefinedVariableError(ValueError):
    """A block reads names that nothing defines (not an input, not persistable, not computed)."""

    def __init__(self, message, names, block):
        super().__init__(message)
        self.names = names
        self.block = block


def _is_literal(value):
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf")) and type(value) is float
    if type(value) in _LITERAL_TYPES:
        return True
    if type(value) in (list, tuple):
        return all(_is_literal(v) for v in value)
    return False


def effective_attrs(opdef, op):
    attrs = dict(opdef.attrs)
    for k, v in op.attrs.items():
        if k in attrs:
            attrs[k] = v
    return attrs


class _Names:
    """Var name -> a readable, unique Python identifier."""

    def __init__(self):
        self.map, self.used = {}, set()

    def __call__(self, name):
        ident = self.map.get(name)
        if ident is None:
            base = "v_" + re.sub(r"\W", "_", name)
            ident, n = base, 1
            while ident in self.used:
                ident, n = f"{base}_{n}", n + 1
            self.used.add(ident)
            self.map[name] = ident
        return ident


class BlockCompiler:
    """Compiles Blocks of one Program against one Scope (control-flow kernels recurse into it)."""

    def __init__(self, program, scope):
        self.program = program
        self.scope = scope

    # -- where persistable values live ------------------------------------------------
    def persistable(self, block, name):
        """True when ``name`` is persistable state (bound eager tensor or scope entry)."""
        if name in self.program.bound_tensors:
            return True
        v = block._find_var(name)
        return v is not None and v.persistable

    def _read_scope(self, name):
        try:
            return self.scope[name]
        except KeyError:
            raise RuntimeError(f"persistable variable '{name}' has no value in the scope: run the startup "
                               "program first (exe.run(rt.static.default_startup_program()))") from None

    # -- the compiler ----------------------------------------------------------------
    def live_ops(self, block, ops, output_names):
        """Ops that outputs depend on, plus ops with side effects or persistable writes."""
        needed = set(output_names)
        keep = []
        for op in reversed(ops):
            opdef = get_op(op.type)
            outs = op.output_arg_names
            if (not opdef.pure or any(n in needed for n in outs)
                    or any(self.persistable(block, n) for n in outs)):
                keep.append(op)
                needed.difference_update(outs)
                needed.update(op.input_arg_names)
        keep.reverse()
        return keep

    def compile(self, block, input_names, output_names, op_range=None, name=None):
        input_names, output_names = list(input_names), list(output_names)
        ops = block.ops if op_range is None else block.ops[op_range[0]:op_range[1]]
        ops = self.live_ops(block, ops, output_names)
        g = {"_S": self.scope, "_rs": self._read_scope}
        ident = _Names()
        consts = self._fold(block, ops, input_names, g)
        body = [op for op in ops if id(op) not in consts["folded"]]
        cnames = consts["names"]

        def ref(n):
            return cnames[n] if n in cnames else ident(n)

        # Free names: read before any op defines them.
        defined = set(input_names) | set(cnames)
        free, undefined, written = [], [], []
        for op in body:
            for n in op.input_arg_names:
                if n not in defined:
                    (free if self.persistable(block, n) else undefined).append((n, op))
                    defined.add(n)
            for n in op.output_arg_names:
                defined.add(n)
                if self.persistable(block, n) and n not in written:
                    written.append(n)
        for n in output_names:
            if n not in defined:
                (free if self.persistable(block, n) else undefined).append((n, None))
                defined.add(n)
        if undefined:
            names = [n for n, _ in undefined]
            n, op = undefined[0]
            by = f"op '{op.type}'" if op is not None else "the fetch list"
            raise UndefinedVariableError(
                f"variable '{n}' is read by {by} in block {block.idx} but nothing defines it before "
                f"(not a feed/input, not persistable, not computed earlier); undefined: {names}", names, block)

        last_use = {}
        for i, op in enumerate(body):
            for n in op.input_arg_names:
                last_use[n] = i
        keep_alive = set(output_names) | set(written)
        fname = name or f"block{block.idx}"
        lines = [f"def {fname}({', '.join(ident(n) for n in input_names)}):"]
        linemap = {}
        bound = self.program.bound_tensors
        for n, _ in free:
            if n in bound:
                g["_B" + ident(n)[1:]] = bound[n]
                lines.append(f"    {ident(n)} = _B{ident(n)[1:]}._value")
            else:
                lines.append(f"    {ident(n)} = _rs({n!r})")
        for n in input_names:  # inputs nothing reads: drop their reference early
            if n not in last_use and n not in keep_alive:
                lines.append(f"    del {ident(n)}")
        for i, op in enumerate(body):
            call = self._call(block, op, i, ref, g)
            target = self._targets(op, lambda n: ident(n) if (n in last_use and last_use[n] > i) or
                                   n in keep_alive else "_")
            linemap[len(lines) + 1] = op
            lines.append(f"    {target} = {call}" if target else f"    {call}")
            dead = [ident(n) for n in dict.fromkeys(op.input_arg_names)
                    if last_use.get(n) == i and n not in keep_alive and n not in cnames]
            if dead:
                lines.append(f"    del {', '.join(dead)}")
        for n in written:
            if n in bound:
                g["_B" + ident(n)[1:]] = bound[n]
                lines.append(f"    _B{ident(n)[1:]}._value = {ident(n)}")
            else:
                lines.append(f"    _S[{n!r}] = {ident(n)}")
        outs = [f"{cnames[n]}.copy()" if n in cnames else ident(n) for n in output_names]
        lines.append(f"    return ({''.join(o + ', ' for o in outs)})")
        source = "\n".join(lines) + "\n"
        filename = f"<runtime-plan-{next(_ids)}:{fname}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), g)  # noqa: S102  (our own generated code)
        fn = g[fname]
        fn.source = source
        fn.linemap = linemap
        GENERATED[filename] = fn
        weakref.finalize(fn, linecache.cache.pop, filename, None)
        return fn

    def _fold(self, block, ops, input_names, g):
        """Evaluate pure ops whose inputs are all constants once, now (fill_constant, assign_value...)."""
        defs = {}
        for op in ops:
            for n in op.output_arg_names:
                defs[n] = defs.get(n, 0) + 1
        values, names, folded = {}, {}, set()
        for op in ops:
            opdef = get_op(op.type)
            outs = op.output_arg_names
            if (opdef.pure and opdef.kernel is not None and opdef.build_kernel is None and outs
                    and all(n in values for n in op.input_arg_names)
                    and all(defs[n] == 1 and n not in input_names and not self.persistable(block, n)
                            for n in outs)):
                args = self._arg_values(opdef, op, values)
                try:
                    res = opdef.kernel(*args, **effective_attrs(opdef, op))
                except Exception as e:
                    raise annotate(e, op) from None
                for n, v in zip(outs, _flat_outputs(opdef, res)):
                    values[n] = v
                    names[n] = f"_c{len(names)}"
                    g[names[n]] = v
                folded.add(id(op))
        return {"names": names, "folded": folded}

    @staticmethod
    def _arg_values(opdef, op, values):
        args = []
        for i, slot in enumerate(opdef.input_slots):
            ns = op.inputs.get(slot)
            if ns is None:
                args.append(None)
            elif opdef.is_variadic_input(i):
                args.append([values[n] for n in ns])
            else:
                args.append(values[ns[0]])
        return args

    def _alias(self, block, op):
        """The input an op returns unchanged, judging by static shapes/dtypes (its call is skipped)."""
        if op.type in ("reduce_as", "expand_as"):
            x, t = block._find_var(op.input("X")[0]), block._find_var(op.input("Target")[0])
            if x is not None and t is not None and x.shape == t.shape and -1 not in x.shape:
                return op.input("X")[0]
        elif op.type == "cast":
            x = block._find_var(op.input("X")[0])
            if x is not None and x.dtype == op.attrs.get("dtype"):
                return op.input("X")[0]
        return None

    def _call(self, block, op, i, ref, g):
        opdef = get_op(op.type)
        alias = self._alias(block, op)
        if alias is not None:
            return ref(alias)
        args = []
        for j, slot in enumerate(opdef.input_slots):
            ns = op.inputs.get(slot)
            if ns is None:
                args.append("None")
            elif opdef.is_variadic_input(j):
                args.append("[" + ", ".join(ref(n) for n in ns) + "]")
            else:
                if len(ns) != 1:
                    raise ValueError(f"op '{op.type}' slot {slot} takes one variable, got {ns}")
                args.append(ref(ns[0]))
        kname = f"_k{i}_" + re.sub(r"\W", "_", op.type)
        if opdef.build_kernel is not None:
            g[kname] = opdef.build_kernel(op, self)
            return f"{kname}({', '.join(args)})"
        if opdef.kernel is None:
            raise NotImplementedError(f"op '{op.type}' has no kernel and cannot run")
        fast = _fast_kernel(block, op)
        if fast is not None:  # ranks known statically: numpy directly, checks and attrs resolved now
            g[kname] = fast
            return f"{kname}({', '.join(args)})"
        g[kname] = opdef.kernel
        for k, v in effective_attrs(opdef, op).items():
            if _is_literal(v) and k.isidentifier() and not keyword.iskeyword(k):
                args.append(f"{k}={v!r}")
            else:
                aname = f"_a{i}_{len(g)}"
                g[aname] = {k: v}
                args.append(f"**{aname}")
        return f"{kname}({', '.join(args)})"

    @staticmethod
    def _targets(op, tgt):
        opdef = get_op(op.type)
        parts = []
        for j, slot in enumerate(opdef.output_slots):
            ns = op.outputs.get(slot)
            if ns is None:
                parts.append("_")
            elif opdef.is_variadic_output(j):
                parts.append("[" + ", ".join(tgt(n) for n in ns) + "]")
            else:
                parts.append(tgt(ns[0]))
        return ", ".join(parts)


def _mm_tx(x, y):
    return np.matmul(x.T, y)


def _mm_ty(x, y):
    return np.matmul(x, y.T)


def _mm_txy(x, y):
    return np.matmul(x.T, y.T)


_UFUNCS = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.true_divide}


def _fast_kernel(block, op):
    """A direct numpy callable for an op whose attrs and static ranks make the generic kernel's
    dispatching moot (numpy still raises ValueError on a bad shape; the executor names the op)."""
    if op.type in _UFUNCS:
        x, y = block._find_var(op.input("X")[0]), block._find_var(op.input("Y")[0])
        if x is not None and y is not None and x.dtype == y.dtype and \
                (op.type != "divide" or str(x.dtype).startswith("float")):
            return _UFUNCS[op.type]
        return None
    if op.type != "matmul":
        return None
    x, y = block._find_var(op.input("X")[0]), block._find_var(op.input("Y")[0])
    if x is None or y is None or x.ndim < 2 or y.ndim < 2:
        return None
    tx, ty = op.attrs.get("transpose_x", False), op.attrs.get("transpose_y", False)
    if not tx and not ty:
        return np.matmul
    if x.ndim != 2 or y.ndim != 2:
        return None
    return _mm_txy if tx and ty else (_mm_tx if tx else _mm_ty)


def _flat_outputs(opdef, res):
    if len(opdef.outputs) == 1:
        return list(res) if opdef.is_variadic_output(0) else [res]
    out = []
    for j, r in enumerate(res):
        out.extend(r if opdef.is_variadic_output(j) else [r])
    return out


def op_note(op):
    outs = op.output_arg_names
    where = f"op '{op.type}'" + (f" -> {', '.join(outs)}" if outs else "") + f" (block {op.block.idx})"
    if getattr(op, "origin", None):
        where += f", built at {op.origin}"
    return f"[while running {where}]"


def failing_op(exc):
    """The innermost op of generated plan code on the traceback of ``exc``, or None."""
    found, tb = None, exc.__traceback__
    while tb is not None:
        linemap = getattr(GENERATED.get(tb.tb_frame.f_code.co_filename), "linemap", None)
        if linemap is not None and tb.tb_lineno in linemap:
            found = linemap[tb.tb_lineno]
        tb = tb.tb_next
    return found


def annotate(exc, op=None):
    """The same exception type, its message extended with the failing op (and its origin)."""
    op = op or failing_op(exc)
    if op is None or getattr(exc, "_rt_annotated", False):
        return exc
    note = op_note(op)
    msg = exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], str) else str(exc)
    try:
        new = type(exc)(f"{msg}\n{note}")
        if not isinstance(new, BaseException):
            raise TypeError
    except Exception:  # exception types with unusual constructors keep their args and get a note
        exc.add_note(note)
        new = exc
    new._rt_annotated = True
    new.op = op
    return new.with_traceback(exc.__traceback__)
