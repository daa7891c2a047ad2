"""The Python line computing one op in a compiled plan (``codegen``): the kernel call, a numpy
expression or method instead when ``passes`` allow it, the attrs as literals, the targets.

``BlockCompiler`` (``codegen.py``) inherits ``OpCalls`` and writes the whole function around
these lines (inputs, liveness, loops, deletion of dead values); this module is the per-op part,
kept apart so each stays readable.
"""
import numpy as np

from ..registry import get_op
from .passes.expressions import expression
from .passes.features import enabled
from .passes.fold import effective_attrs, fold_constants
from .passes.kernels import select_kernel, zeros_table
from .plan_code import _identifier, _is_literal, _keyword_ok
from .plan_errors import annotate


class OpCalls:
    """The per-op source writers of ``BlockCompiler`` (a base class: no extra call layer)."""

    @staticmethod
    def _zeros(choice, buf, seen, lines, ind, g):
        """The name of relu's zeros operand for ``passes.kernels.shared_zeros``' ``choice``; the first
        relu of a run-time shape group reads them first (``_zN = _ZN[buf.shape]``)."""
        group, dtype, shape = choice
        name = f"_z{group}"
        if shape is not None:  # a known shape: the plan's own constant
            if name not in g:
                g[name] = zeros_table(dtype)[shape]
        elif group not in seen:
            seen.add(group)
            g["_Z" + name[2:]] = zeros_table(dtype)
            lines.append(f"{ind}{name} = _Z{name[2:]}[{buf}.shape]")
        return name

    @staticmethod
    def _scalar_ref(ref, g):
        """``ref`` but one-element constants as numpy scalars (fast operands of scalar expressions)."""
        def scalar_ref(n):
            r = ref(n)
            c = g.get(r)
            if r.startswith("_c") and isinstance(c, np.ndarray) and c.ndim == 0:
                g[r + "s"] = c[()]
                return r + "s"
            return r
        return scalar_ref

    @staticmethod
    def _fold(block, ops, input_names, g, io=None):
        """Constants computed now (``passes.fold``), each bound to a global ``_cN`` of the plan."""
        values, folded = fold_constants(block, ops, input_names, on_error=annotate, shapes=enabled("shape_folding"),
                                        io=io)
        names = {}
        for n, v in values.items():
            names[n] = f"_c{len(names)}"
            g[names[n]] = v
        return {"names": names, "folded": folded}

    def _call(self, block, op, i, ref, g, live=(), donate=False, opdef=None, scalar_ref=None):
        """(Python source of the call computing ``op``, whether it returns the first output alone)."""
        if opdef is None:
            opdef = get_op(op.type)
        if opdef.alias is not None:
            alias = opdef.alias(block, op)
            if alias is not None:  # the op's declared no-op case: the input itself, no call
                return ref(alias), False
        args = []
        inputs = op.inputs
        for j, slot in enumerate(opdef.input_slots):
            ns = inputs.get(slot)
            if ns is None:
                args.append("None")
            elif opdef.is_variadic_input(j):
                args.append("[" + ", ".join(ref(n) for n in ns) + "]")
            else:
                if len(ns) != 1:
                    raise ValueError(f"op '{op.type}' slot {slot} takes one variable, got {ns}")
                args.append(ref(ns[0]))
        kname = f"_k{i}_" + _identifier(op.type)
        if opdef.build_kernel is not None:
            g[kname] = opdef.build_kernel(op, self)
            return f"{kname}({', '.join(args)})", False
        if opdef.kernel is None:
            raise NotImplementedError(f"op '{op.type}' has no kernel and cannot run")
        expr = expression(block, op, ref, scalar_ref or self._scalar_ref(ref, g), g, kname)
        if expr is not None:
            return expr, False
        fast = select_kernel(block, op, live, donate)
        if fast is np.dot and len(args) == 2 and enabled("dot_method"):
            # ``x.dot(y)``: the same C function as ``np.dot(x, y)`` (PyArray_MatrixProduct2, values bit
            # for bit) without ``np.dot``'s __array_function__ dispatcher (~1.2k instructions a call).
            # The chosen kernel stays a global of the plan, naming what the line runs.
            g[kname] = fast
            return f"{args[0]}.dot({args[1]})", False
        if getattr(fast, "expr", None) is not None and len(args) == 2:
            # a kernel that is one numpy call on views of its operands (``x.mT``): that call in the line
            g[kname] = fast.kernel
            return fast.expr.format(k=kname, x=args[0], y=args[1]), False
        if fast is not None:  # ranks known statically: numpy directly, checks and attrs resolved now
            g[kname] = fast
            return f"{kname}({', '.join(args)})", getattr(fast, "first_only", False)
        g[kname] = self._plain_kernel(block, op, opdef)
        for k, v in effective_attrs(opdef, op).items():
            if _is_literal(v) and _keyword_ok(k):
                args.append(f"{k}={v!r}")
            else:
                aname = f"_a{i}_{len(g)}"
                g[aname] = {k: v}
                args.append(f"**{aname}")
        return f"{kname}({', '.join(args)})", False

    @staticmethod
    def _plain_kernel(block, op, opdef):
        """The op's kernel; for a ``float16_in_float32`` op none of whose inputs is float16 (static
        dtypes), the kernel it wraps (runtime/fp16_compute.py): the wrapper would call just that."""
        kernel = opdef.kernel
        if not opdef.float16_in_float32 or not enabled("plain_kernels"):
            return kernel
        for n in op.input_arg_names:
            v = block._find_var(n)
            if v is None or str(v.dtype) == "float16":
                return kernel
        return kernel.__wrapped__

    @staticmethod
    def _targets(op, tgt, first_only=False, opdef=None):
        if opdef is None:
            opdef = get_op(op.type)
        parts = []
        outputs = op.outputs
        for j, slot in enumerate(opdef.output_slots[:1] if first_only else opdef.output_slots):
            ns = outputs.get(slot)
            if ns is None:
                parts.append("_")
            elif opdef.is_variadic_output(j):
                parts.append("[" + ", ".join(tgt(n) for n in ns) + "]")
            else:
                parts.append(tgt(ns[0]))
        return ", ".join(parts)
