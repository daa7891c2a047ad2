"""What ``Program.clone(for_test=False)``, ``Program.to_dot()`` and ``Program.render()`` run."""
from ..framework import Block, Operator, Program, Variable


def copy_var(block, v, name=None):
    """A copy of Variable ``v`` declared in ``block`` (under ``name`` when given)."""
    nv = block.create_var(name=name or v.name, shape=v.shape, dtype=v.dtype, persistable=v.persistable,
                          stop_gradient=v.stop_gradient, is_data=v.is_data, kind=v.kind)
    nv.trainable = v.trainable
    return nv


def copy_vars_into(block, variables):
    """``copy_var(block, v)`` for each of ``variables`` (distinct names) into ``block``, which
    declares none of them yet (a block just made): no name can clash, so there is nothing to check
    and the table is filled directly (clones and recomputed branches copy thousands of vars)."""
    table = block.vars
    put = dict.__setitem__
    for v in variables:
        nv = Variable(block, v.name, v._shape, v._dtype, v.persistable, v.stop_gradient, v.is_data, v.kind)
        nv.trainable = v.trainable
        put(table, v.name, nv)
    table.declared.update(table)


def append_copy(block, op, attrs, names=None):
    """``block.append_op(op.type, op.inputs, op.outputs, attrs).origin = op.origin`` without
    its copies of the copies: the slot lists are copied once, ``attrs`` (a dict the caller made
    for the new op) is kept, and the origin provider is not asked (its answer was overwritten).
    ``names``: a renaming of the variables in the slots (``inline``'s copy into another Program)."""
    if names is None:
        nop = Operator._owning(block, op.type, {k: list(v) for k, v in op.inputs.items()},
                               {k: list(v) for k, v in op.outputs.items()}, attrs)
    else:
        nop = Operator._owning(block, op.type, {k: [names.get(n, n) for n in v] for k, v in op.inputs.items()},
                               {k: [names.get(n, n) for n in v] for k, v in op.outputs.items()}, attrs)
    nop.origin = op.origin
    block.ops.append(nop)
    block.program._version += 1
    return nop


# attrs that switch an op between training and inference behaviour
_TEST_ATTRS = {"is_test": True, "training": False}


def clone(program, for_test=False):
    """A deep copy of the IR (blocks, vars, ops); bound eager tensors stay shared by reference.

    ``for_test=True`` turns training-only behaviour off in ops that have such an
    attr (``is_test``/``training``: dropout, batch_norm).
    """
    new = Program()
    new.blocks = []
    for b in program.blocks:
        nb = Block(new, b.idx, b.parent_idx)
        new.blocks.append(nb)
        copy_vars_into(nb, b.vars.values())
    for b, nb in zip(program.blocks, new.blocks):
        for op in b.ops:
            attrs = {}
            for k, v in op.attrs.items():
                if isinstance(v, Block):
                    v = new.blocks[v.idx]
                elif isinstance(v, list):
                    v = list(v)
                if for_test and k in _TEST_ATTRS:
                    v = _TEST_ATTRS[k]
                attrs[k] = v
            append_copy(nb, op, attrs)
    new._names = dict(program._names)
    new.bound_tensors = dict(program.bound_tensors)
    new.random_seed = program.random_seed
    # Same names as the original: Python code run while the clone is extended (a PyLayer's backward)
    # may still hold the original's Variables, which name the clone's
    new.clone_of = program
    hooks = program.__dict__.get("_grad_hooks")
    if hooks:  # Variable.register_hook functions, by name: the clone's backward applies them too
        new._grad_hooks = hooks
    new._current = 0
    return new


def _q(s):
    """A DOT string literal; a newline in ``s`` becomes a line break in the rendered label."""
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(program):
    """Graphviz source: ops as boxes, vars as ellipses, each sub-block a cluster."""
    lines = ["digraph Program {", "  rankdir=TB;", "  node [fontname=Helvetica fontsize=10];"]
    var_nodes = {}

    def var_node(block, name):
        key = (block.idx, name)
        if key not in var_nodes:
            v = block._find_var(name)
            nid = f"v{block.idx}_{len(var_nodes)}"
            label = name if v is None else (f"{name}\n{v.dtype}{list(v.shape)}" if v.kind == "tensor" else name)
            shape = "ellipse" if v is None or not v.persistable else "doubleoctagon"
            var_nodes[key] = nid
            lines.append(f"    {nid} [label={_q(label)} shape={shape}];")
        return var_nodes[key]

    def emit(block, indent):
        for i, op in enumerate(block.ops):
            oid = f"op{block.idx}_{i}"
            lines.append(f"{indent}{oid} [label={_q(op.type)} shape=box style=filled fillcolor=lightgrey];")
            for slot, names in op.inputs.items():
                for n in names:
                    lines.append(f"{indent}{var_node(block, n)} -> {oid} [label={_q(slot)}];")
            for slot, names in op.outputs.items():
                for n in names:
                    lines.append(f"{indent}{oid} -> {var_node(block, n)};")
            for key, sub in op.attrs.items():
                if isinstance(sub, Block):
                    lines.append(f"{indent}subgraph cluster_{block.idx}_{i}_{key} {{")
                    lines.append(f"{indent}  label={_q(f'{op.type}.{key} (block {sub.idx})')}; style=dashed;")
                    emit(sub, indent + "  ")
                    lines.append(f"{indent}}}")
                    if sub.ops:
                        lines.append(f"{indent}{oid} -> op{sub.idx}_0 [style=dotted lhead=cluster_{block.idx}_{i}_{key}];")

    emit(program.global_block(), "  ")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(program, fmt="svg"):
    """The Program drawn by Graphviz as bytes (``fmt`` "svg" or "png").

    Needs the ``graphviz`` Python package and its ``dot`` program; raises ImportError or
    RuntimeError saying which is missing.
    """
    try:
        import graphviz
    except ImportError:
        raise ImportError("drawing a Program needs the graphviz package and its dot program: "
                          "pip install graphviz, and apt-get install graphviz (or your system's package)") from None
    try:
        return graphviz.Source(to_dot(program)).pipe(format=fmt)
    except graphviz.ExecutableNotFound:
        raise RuntimeError("the graphviz package is installed but its 'dot' program is not on PATH: "
                           "apt-get install graphviz (or your system's package)") from None


def _repr_svg_(program):
    # Notebooks draw the Program when Graphviz is there; otherwise they show the text listing.
    try:
        return render(program, "svg").decode("utf-8")
    except (ImportError, RuntimeError):
        return None


