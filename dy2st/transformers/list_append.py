"""Writes into a local list or tensor become visible assignments of its name.

`lst.append(x)` / `lst.extend(xs)` / `x = lst.pop()` inside a loop -> `lst = _jst.Append(lst, x)` / `lst = _jst.Extend(lst, xs)` /
`lst, x = _jst.Pop(lst)`, and `y[k] = v` anywhere -> `y = _jst.SetItem(y, k, v)` (`y[k] += v` ->
`y = _jst.SetItem(y, k, _jst.AugItem(y[k], '+=', v))`, a key with side effects bound to a name first), and a
statement calling an in-place Tensor method or function anywhere, `y.add_(v)` -> `y = _jst.Inplace(y, 'add_', v)`,
`F.relu_(y)` -> `y = _jst.InplaceCall(F.relu_, y)` (`z = y.add_(v)` also binds `z` to `y` after it);
on an item of a local container or an attribute of a local object, `acc[0].scale_(c)` ->
`_jst.Inplace(acc[0], 'scale_', c)`, `self.ema.add_(v)` -> `_jst.Inplace(self.ema, 'add_', v)`.

Writing the name back makes it a visible write, so the branch and loop passes carry it. For
a Python list or dict the helpers write in place and return the same object (aliasing
unchanged); inside a tensor loop a list is a tensor array (one tensor, dynamic first dim) and
`Append`/`Pop` return a new one; a symbolic tensor gets a `set_value` op and a new Variable.
Outside loops `append`/`pop` stay as written. Names the function does not bind (globals,
closure variables) are left alone: rebinding them would make them local.

    for i in range(n):                 for i in range(n):
        out.append(x[i])                   out = _jst.Append(out, x[i])
    y[0] = 0.0                         y = _jst.SetItem(y, 0, 0.0)
    y.clip_(0.0, 1.0)                  y = _jst.Inplace(y, 'clip_', 0.0, 1.0)
    rt.tensor.array_write(x, i, arr)   arr = _jst.ArrayWrite(x, i, arr)

Paddle's `array_write(x, i, array=arr)` changes the list `arr` in place, so it is a write of
`arr` like `arr.append(x)`, anywhere and whether or not its result is assigned (a write at a
tensor index makes the list one stacked tensor, which `if` and loops carry by name).
"""
import copy

import gast

from runtime.inplace import NAMES as INPLACE_METHODS
from runtime.inplace_api import FUNCTIONS as _TOP_LEVEL
from runtime.ops.nn_activation_inplace import FUNCTIONS as _ACTIVATIONS

import runtime.ops.tensor_array
from dy2st.pyct import origin_info, templates, transformer
from dy2st.transformers.call_trees import resolve
from dy2st.transformers.list_aliases import shared_lists
from dy2st.transformers.object_writes import function_locals

IN_PLACE_FUNCTIONS = frozenset(_TOP_LEVEL.values()) | _ACTIVATIONS


def _method_call(node, method, nargs):
    """`name.method(args)` with a Name receiver and `nargs` positional arguments (a range)."""
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
            and node.func.attr == method and isinstance(node.func.value, gast.Name)
            and len(node.args) in nargs and not node.keywords)


def _in_place_function(fn):
    """Whether ``fn`` is one of runtime's in-place functions (`F.relu_`, `rt.add_`)."""
    try:
        return fn in IN_PLACE_FUNCTIONS
    except TypeError:  # unhashable
        return False


def _item_of_local(node, local):
    """Whether ``node`` is an item or attribute of a local name's chain (`acc[0]`, `d['a'][1]`,
    `self.ema`, `box.v[0]`)."""
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        node = node.value
    return local(node)


def _key_expr(node):
    """A subscript's key as an expression: `1:3` -> `slice(1, 3, None)`."""
    if isinstance(node, gast.Slice):
        parts = [p if p is not None else gast.Constant(value=None, kind=None)
                 for p in (node.lower, node.upper, node.step)]
        return templates.replace_as_expression("slice(a, b, c)", a=parts[0], b=parts[1], c=parts[2])
    if isinstance(node, gast.Tuple):
        return gast.Tuple(elts=[_key_expr(e) for e in node.elts], ctx=gast.Load())
    return node


_AUG_SYMBOLS = {gast.Add: "+=", gast.Sub: "-=", gast.Mult: "*=", gast.MatMult: "@=", gast.Div: "/=",
                gast.FloorDiv: "//=", gast.Mod: "%=", gast.Pow: "**=", gast.LShift: "<<=", gast.RShift: ">>=",
                gast.BitOr: "|=", gast.BitXor: "^=", gast.BitAnd: "&="}
_EFFECTS = (gast.Call, gast.NamedExpr, gast.Await, gast.Yield, gast.YieldFrom)


def _may_have_effects(node):
    """Whether evaluating ``node`` twice could differ from once: it calls something or binds a name."""
    return any(isinstance(n, _EFFECTS) for n in gast.walk(node))


class ListAppendTransformer(transformer.Transformer):
    """Makes list writes in loops visible assignments (see the module docstring)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.loop_depth = 0
        self.local_names = set()
        self.shared = {}

    def _loop(self, node):
        self.loop_depth += 1
        node.body = self.visit_block(node.body)
        self.loop_depth -= 1
        node.orelse = self.visit_block(node.orelse)
        return node

    visit_For = _loop
    visit_While = _loop

    def visit_FunctionDef(self, node):
        saved, self.loop_depth = self.loop_depth, 0  # a nested def's body is not in the loop
        saved_names, self.local_names = self.local_names, function_locals(node)
        saved_shared, self.shared = self.shared, {}
        grown = {n.func.value.id for n in gast.walk(node)
                 if _method_call(n, "append", (1,)) or _method_call(n, "extend", (1,))
                 or _method_call(n, "insert", (2,)) or _method_call(n, "pop", (0, 1))}
        grown &= self.local_names
        if grown:  # lists a tensor loop may grow that something else may hold too (list_aliases)
            self.shared = shared_lists(node, self.ctx.namespace, self.ctx.namer, grown)
        node.body = self.visit_block(node.body)
        self.loop_depth, self.local_names, self.shared = saved, saved_names, saved_shared
        return node

    def _growth(self, template, name, **parts):
        """The statements of a list's growth (`template`), told how the list may be shared if it may."""
        new = templates.replace(template, lst=name, **parts)
        why = self.shared.get(name)
        if why is not None:
            call = new[0].value
            call = call.value if type(call) is gast.Subscript else call
            call.keywords.append(gast.keyword(arg="shared", value=gast.Constant(value=why, kind=None)))
        return new

    def _local(self, name_node):
        return isinstance(name_node, gast.Name) and name_node.id in self.local_names

    def _array_write(self, call, target=None):
        """Statements for `[target =] rt.tensor.array_write(x, i, arr)`, or None for another call.

        Eagerly the write changes the list `arr` in place, so every name holding it sees the item.
        A local `arr` is written back (and `target` bound to it too); an array held elsewhere
        (`self.arr`, a global) goes to `_jst.ArrayWriteInto`, which refuses a write it cannot make
        in place (at a tensor index) instead of leaving the holder's list unchanged."""
        if not (isinstance(call, gast.Call)
                and resolve(call.func, self.ctx.namespace) is runtime.ops.tensor_array.array_write):
            return None
        arr = call.args[2] if len(call.args) > 2 else next((k.value for k in call.keywords if k.arg == "array"), None)
        if arr is None:  # a new array: nothing else holds it
            return None
        if not self._local(arr):
            call.func = templates.replace_as_expression("_jst.ArrayWriteInto")
            return None
        call.func = templates.replace_as_expression("_jst.ArrayWrite")
        new = templates.replace("arr = call", arr=arr.id, call=call)
        if target is not None and not (isinstance(target, gast.Name) and target.id == arr.id):
            new += templates.replace("target = arr", target=target, arr=arr.id)
        return new

    def visit_Expr(self, node):
        call = node.value
        new = self._array_write(call)
        if new is not None:
            return origin_info.copy_origin(node, new)
        if self.loop_depth and _method_call(call, "append", (1,)) and self._local(call.func.value):
            new = self._growth("lst = _jst.Append(lst, item)", call.func.value.id, item=call.args[0])
            return origin_info.copy_origin(node, new)
        if self.loop_depth and _method_call(call, "extend", (1,)) and self._local(call.func.value):
            new = self._growth("lst = _jst.Extend(lst, items)", call.func.value.id, items=call.args[0])
            return origin_info.copy_origin(node, new)
        if self.loop_depth and _method_call(call, "insert", (2,)) and self._local(call.func.value):
            new = self._growth("lst = _jst.Insert(lst, args)", call.func.value.id, args=list(call.args))
            return origin_info.copy_origin(node, new)
        if self.loop_depth and _method_call(call, "pop", (0, 1)) and self._local(call.func.value):
            new = self._growth("lst = _jst.Pop(lst, args)[0]", call.func.value.id, args=list(call.args))
            return origin_info.copy_origin(node, new)
        new = self._in_place(call)
        if new is not None:
            return origin_info.copy_origin(node, new)
        return node

    def _in_place(self, call, target=None):
        """Statements for `[target =] x.add_(v)` or `[target =] F.relu_(x)` with a local `x`: `x`
        written back (and `target` bound to it, the object the call returns), else None."""
        if not isinstance(call, gast.Call):
            return None
        if (isinstance(call.func, gast.Attribute) and call.func.attr in INPLACE_METHODS
                and self._local(call.func.value)):
            obj = call.func.value.id
            new = templates.replace("obj = _jst.Inplace(obj, method, args)", obj=obj,
                                    method=gast.Constant(value=call.func.attr, kind=None), args=list(call.args))
        elif (isinstance(call.func, gast.Attribute) and call.func.attr in INPLACE_METHODS
              and _item_of_local(call.func.value, self._local)):
            # `acc[0].scale_(c)`, `self.ema.add_(v)`: no name to rebind, but `_jst.Inplace` records the
            # write into the item's (attribute's) tensor, which a branch or loop carries out to every
            # holder (aliasing.uncarried_writes) where the tensor method alone, called on a Variable
            # from outside the branch or loop, refused
            out = templates.replace_as_expression("_jst.Inplace(obj, method, args)", obj=call.func.value,
                                                  method=gast.Constant(value=call.func.attr, kind=None),
                                                  args=list(call.args))
            out.keywords = call.keywords
            if target is None:
                return [gast.Expr(value=out)]
            return templates.replace("target = out", target=target, out=out)
        elif call.args and self._local(call.args[0]) and _in_place_function(resolve(call.func, self.ctx.namespace)):
            obj = call.args[0].id
            new = templates.replace("obj = _jst.InplaceCall(fn, args)", obj=obj, fn=call.func, args=list(call.args))
        else:
            return None
        new[0].value.keywords = call.keywords
        if target is not None and not (isinstance(target, gast.Name) and target.id == obj):
            new += templates.replace("target = obj", target=target, obj=obj)
        return new

    def _bound(self, expr, base):
        """`base_<n> = expr` as this pass writes it (in a loop, `k = lst.pop()` is `_jst.Pop`), and
        a read of the new name: a key with side effects is evaluated once, in Python's order."""
        name = self.ctx.namer.new(base)
        stmt = self.visit_Assign(templates.replace("name = expr", name=name, expr=expr)[0])
        return (stmt if isinstance(stmt, list) else [stmt]), gast.Name(id=name, ctx=gast.Load(), annotation=None,
                                                                         type_comment=None)

    def _item_targets(self, targets):
        """Whether assignment ``targets`` hold an item of a local name inside a tuple or a chain."""
        return any(isinstance(n, gast.Subscript) and self._local(n.value)
                   for t in targets for n in gast.walk(t) if not isinstance(n, gast.Starred))

    def _split(self, node):
        """`y[0], y[1] = a, b` / `y[0] = z[0] = v` as Python runs them: the value (unpacked into
        fresh names), then each target assigned in order, each one as this pass writes it."""
        def name(n, ctx):
            return gast.Name(id=n, ctx=ctx, annotation=None, type_comment=None)
        if len(node.targets) > 1:
            held = [self.ctx.namer.new("value")]
            new = [gast.Assign(targets=[name(held[0], gast.Store())], value=node.value, type_comment=None)]
            pairs = [(t, held[0]) for t in node.targets]
        else:
            held = [self.ctx.namer.new("item") for _ in node.targets[0].elts]
            unpack = gast.Tuple(elts=[name(n, gast.Store()) for n in held], ctx=gast.Store())
            new = [gast.Assign(targets=[unpack], value=node.value, type_comment=None)]
            pairs = list(zip(node.targets[0].elts, held))
        for target, n in pairs:
            one = self.visit_Assign(gast.Assign(targets=[target], value=name(n, gast.Load()), type_comment=None))
            new += one if isinstance(one, list) else [one]
        return origin_info.copy_origin(node, new)

    def visit_Assign(self, node):
        value = node.value
        if len(node.targets) != 1 or isinstance(node.targets[0], (gast.Tuple, gast.List)):
            plain = len(node.targets) == 1 and any(isinstance(e, gast.Starred) for e in node.targets[0].elts)
            if not plain and self._item_targets(node.targets):
                return self._split(node)
            if len(node.targets) != 1:
                return node
        target = node.targets[0]
        new = self._array_write(value, target)
        if new is not None:
            return origin_info.copy_origin(node, new)
        if (self.loop_depth and isinstance(target, gast.Name) and _method_call(value, "pop", (0, 1))
                and self._local(value.func.value)):
            new = self._growth("lst, target = _jst.Pop(lst, args)", value.func.value.id, target=target.id,
                               args=list(value.args))
            return origin_info.copy_origin(node, new)
        if isinstance(target, gast.Subscript) and self._local(target.value):
            new, key = [], _key_expr(target.slice)
            if _may_have_effects(target.slice):
                # Python evaluates the value before the key (`y[ks.pop()] = f()`)
                new, value = self._bound(value, "value")
                more, key = self._bound(key, "key")
                new += more
            new += templates.replace("obj = _jst.SetItem(obj, key, value)", obj=target.value.id,
                                     key=key, value=value)
            return origin_info.copy_origin(node, new)
        new = self._in_place(value, target) if isinstance(target, gast.Name) else None
        if new is not None:
            return origin_info.copy_origin(node, new)
        return node

    def visit_AugAssign(self, node):
        target = node.target
        if isinstance(target, gast.Subscript) and self._local(target.value):
            # Python evaluates the key once (`y[idx.pop()] += v` pops one item): a key that may
            # have side effects is bound to a fresh name first, which both the read and the write use.
            new, key = [], _key_expr(copy.deepcopy(target.slice))
            read = copy.deepcopy(target)
            read.ctx = gast.Load()
            if _may_have_effects(target.slice):
                new, key = self._bound(key, "key")
                read.slice = copy.deepcopy(key)
            # `_jst.AugItem` applies Python's in-place operator to the item (a list item's `+=`
            # extends that list, seen through its other names), its plain one where it has none (tensors).
            new += templates.replace("obj = _jst.SetItem(obj, key, _jst.AugItem(read, op, value))",
                                     obj=target.value.id, key=key, read=read,
                                     op=gast.Constant(value=_AUG_SYMBOLS[type(node.op)], kind=None),
                                     value=node.value)
            return origin_info.copy_origin(node, new)
        return node


def transform(node, ctx):
    """Apply the list-writes pass to ``node``."""
    return ListAppendTransformer(ctx).visit(node)
