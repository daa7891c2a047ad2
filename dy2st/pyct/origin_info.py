"""Where each node came from in user code, and where each generated line maps back to.

`resolve(tree, parsed)` stamps an `OriginInfo` on every node of a freshly parsed function.
Passes copy it onto the nodes they create (`copy_origin`), and the rest count with the nearest
annotated ancestor's (code generation reads them so; `inherit_origins` writes them on a tree),
so every generated line maps to the user statement it was made from. After code generation the loader records a line map per generated file;
`origin_of(generated_filename, generated_lineno)` answers "which user line is this?" for the
error-mapping code.
"""
import ast
import collections
import linecache

from dy2st.pyct import anno
from dy2st.pyct.nodes import _NODE_FIELDS, children, node_fields, walk

OriginInfo = collections.namedtuple(
    "OriginInfo", ["filename", "lineno", "col_offset", "source_line", "function_name"])

_AST = ast.AST

# generated filename -> {generated line number -> OriginInfo}
_LINE_MAPS = {}


def resolve(tree, filename, source, first_lineno, function_name, walked=None):
    """Annotate every node carrying a line number with its user-code origin.

    ``walked``: ``walk(tree)``, when the caller has it already."""
    lines = source.splitlines()  # once: a function has far more nodes than lines
    infos = {}  # (line, column) -> OriginInfo: nodes starting at one place share one
    key, field = anno.Basic.ORIGIN, anno._ANNO_FIELD
    for node in walked if walked is not None else walk(tree):
        d = node.__dict__
        lineno = d.get("lineno")
        if lineno is None:
            continue
        col = d.get("col_offset") or 0
        info = infos.get((lineno, col))
        if info is None:
            idx = lineno - first_lineno
            text = lines[idx] if 0 <= idx < len(lines) else linecache.getline(filename, lineno).rstrip("\n")
            info = infos[lineno, col] = OriginInfo(filename, lineno, col, text, function_name)
        store = d.get(field)
        if store is None:
            d[field] = {key: info}
        else:
            store[key] = info


def copy_origin(src, dst_nodes, covered=None):
    """Give generated nodes (and their children lacking one) the origin of `src`.

    ``covered``: a dict {id: node} a pass keeps of the nodes earlier calls gave it, every node
    below which has an origin since (the pass must not put nodes lacking one under them
    later). Their subtrees are skipped rather than walked again, and the roots given here are
    added (with an origin to copy): a branch nested n deep is then walked once, not n times.
    """
    info = anno.getanno(src, anno.Basic.ORIGIN)
    if info is None:
        return dst_nodes
    nodes = dst_nodes if isinstance(dst_nodes, (list, tuple)) else [dst_nodes]
    key, field = anno.Basic.ORIGIN, anno._ANNO_FIELD
    # ``nodes.walk(nodes, covered)``, with each node annotated as it is reached rather than in
    # a second loop over the list the walk returns (every node gets the same ``info``, so the
    # order is immaterial): the passes call this on everything they generate.
    out = list(nodes)
    append, ast_type, fields_of = out.append, _AST, _NODE_FIELDS
    for node in out:
        if covered is not None and id(node) in covered:
            continue
        d = node.__dict__
        store = d.get(field)
        if store is None:
            d[field] = {key: info}
        elif key not in store:
            store[key] = info
        fields = fields_of.get(type(node))
        if fields is None:
            fields = node_fields(type(node))
        for name in fields:
            value = d.get(name)
            if isinstance(value, ast_type):
                append(value)
            elif type(value) is list:
                for v in value:
                    if isinstance(v, ast_type):
                        append(v)
    if covered is None:
        return dst_nodes
    for node in nodes:
        covered[id(node)] = node  # holding the node keeps its id from being reused
    return dst_nodes


def inherit_origins(tree):
    """Nodes without an origin take their closest annotated ancestor's."""
    key, field = anno.Basic.ORIGIN, anno._ANNO_FIELD
    stack = [(tree, None)]
    while stack:
        node, inherited = stack.pop()
        store = node.__dict__.get(field)
        own = store.get(key) if store else None
        if own is None and inherited is not None:
            if store is None:
                node.__dict__[field] = {key: inherited}
            else:
                store[key] = inherited
            own = inherited
        stack.extend([(child, own) for child in children(node)])


def register_line_map(generated_filename, line_map):
    """Record, for generated file ``generated_filename``, which user line each generated line came from."""
    _LINE_MAPS[generated_filename] = dict(line_map)


def forget(generated_filename):
    """Drop a generated file's line map and ``linecache`` entry (its function was collected)."""
    _LINE_MAPS.pop(generated_filename, None)
    linecache.cache.pop(generated_filename, None)


def origin_of(generated_filename, generated_lineno):
    """The user-code OriginInfo of a line of generated code, or None if unknown."""
    return _LINE_MAPS.get(generated_filename, {}).get(generated_lineno)


def line_map(generated_filename):
    """All known {generated line: OriginInfo} for a generated file (a copy)."""
    return dict(_LINE_MAPS.get(generated_filename, {}))


def is_generated(filename):
    """Whether ``filename`` is code dy2st generated."""
    return filename in _LINE_MAPS


def innermost_origin(frame):
    """The OriginInfo of the innermost generated-code line running at or above `frame`, or None."""
    maps = _LINE_MAPS
    while frame is not None:
        # The file first: a frame's f_lineno is computed from its bytecode offset on each read,
        # and every op appended while tracing asks this across the runtime's frames above it.
        lines = maps.get(frame.f_code.co_filename)
        if lines is not None:
            info = lines.get(frame.f_lineno)
            if info is not None:
                return info
        frame = frame.f_back
    return None
