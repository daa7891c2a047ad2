"""Attribute names and writes that mean something else once the code leaves its class or eager mode.

Private names: Python mangles `self.__scale` to `self._Net__scale` inside `class Net`.
Generated code is compiled outside the class body, so the mangling is done here, by name.

`x.stop_gradient = True` on a traced value: a Program value has no mutable gradient flag
the backward pass could read later, so the name (attribute, item) is rebound to a value the gradient does
not flow through (a `stop_gradient` op), as eager autograd would treat it.

    h = self.__scale * x               h = self._Net__scale * x
    z.stop_gradient = True             z = _jst.SetStopGradient(z, True)
    self.h.stop_gradient = True        self.h = _jst.SetStopGradient(self.h, True)
    out[0].stop_gradient = True        out = _jst.SetStopGradientItem(out, 0, True)
"""
import gast

from dy2st.pyct import origin_info, templates, transformer


def _class_name(qualname):
    """The class a method was defined in, from its qualified name (None for plain functions)."""
    parts = [p for p in qualname.split(".") if p != "<locals>"]
    if len(parts) < 2:
        return None
    owner = qualname.split(".")[-2]
    return None if owner == "<locals>" else owner


def mangle(name, class_name):
    """Python's private-name mangling (`__x` -> `_Class__x`)."""
    if class_name is None or not name.startswith("__") or name.endswith("__") or "." in name:
        return name
    stripped = class_name.lstrip("_")
    return f"_{stripped}{name}" if stripped else name


class AttributesTransformer(transformer.Transformer):
    """Rewrites mangled private names and attribute writes (see the module docstring)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.class_name = _class_name(ctx.fn_name)

    def visit_Attribute(self, node):
        self.generic_visit(node)
        node.attr = mangle(node.attr, self.class_name)
        return node

    def visit_Name(self, node):
        node.id = mangle(node.id, self.class_name)
        return node

    def visit_Assign(self, node):
        self.generic_visit(node)
        target = node.targets[0] if len(node.targets) == 1 else None
        if not (isinstance(target, gast.Attribute) and target.attr == "stop_gradient"):
            return node
        owner = target.value
        if _simple_chain(owner) and not isinstance(owner, gast.Subscript):
            # `x.stop_gradient = v` / `self.h.stop_gradient = v`: rebind what names the value.
            new = templates.replace("x = _jst.SetStopGradient(x, value)", x=owner, value=node.value)
        elif isinstance(owner, gast.Subscript) and _simple_chain(owner.value) and _simple_key(owner.slice) \
                and not isinstance(owner.value, gast.Subscript):
            # `out[0].stop_gradient = v`: the container with that item cut (a new tuple for a tuple).
            new = templates.replace("c = _jst.SetStopGradientItem(c, k, value)", c=owner.value,
                                    k=owner.slice, value=node.value)
        else:
            return node
        return origin_info.copy_origin(node, new)


def _simple_chain(node):
    """A name or an attribute chain on one (`self.h`, `a.b.c`): reading it twice has no side effects."""
    while isinstance(node, gast.Attribute):
        node = node.value
    return isinstance(node, gast.Name)


def _simple_key(node):
    """A constant, a name or a negated constant used as an index."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        node = node.operand
    return isinstance(node, gast.Constant) or _simple_chain(node)


def needed(census, fn_name):
    """Whether the pass may change anything: a `stop_gradient` attribute, or (in a method) a name or
    attribute that mangles. Only `unsupported` runs before it, and changes nothing."""
    if "stop_gradient" in census.attributes:
        return True
    class_name = _class_name(fn_name)
    return class_name is not None and any(mangle(n, class_name) != n for n in census.names | census.attributes)


def transform(node, ctx):
    """Apply the attributes pass to ``node``."""
    return AttributesTransformer(ctx).visit(node)
