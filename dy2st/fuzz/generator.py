"""The grammar of random programs: a seeded ``random.Random`` writes a module.

The module holds ``helper(a)`` and either ``main(x, n, flag=True)`` or a Layer ``Net`` whose
``forward(self, x, n, flag=True)`` has the same kind of body (x: float32 [B, 4] with B varying
between calls, n: an int64 0-d tensor, flag: a Python bool), each at most depth 3 and about 15
statements:

- updates ``x = x * c + d``, ``y = rt.tanh(y) * c + x * d``, ``y = y + i * c`` (loop counter),
  ``y = y * c + row`` (row of a tensor), ``y = y + helper(x) * c``, ternaries ``a if cond else b``;
- ``if``/``elif``/``else`` on tensor conditions (``x.mean() > c``, ``row.sum() > c``, ``i % 2 == 0``
  with a tensor counter, ``and``/``or``/``not`` of those) or Python ones (``flag``, a Python loop
  counter), mixed too;
- ``while <tensor cond> and k < m:`` with ``k += 1`` first in the body (always bounded);
- ``for i in range(3)``, ``for i in range(n)``, ``for row in x``, ``for j, row in enumerate(x)``;
  block-local temporaries;
- ``break`` / ``continue`` under tensor or Python conditions inside those loops, and early
  ``return`` inside branches and (nested) loops.

Optional features (``FEATURES``) add: ``dtypes`` (bool masks, int32 values, the int64 argument
mixed into float code), ``layer`` (the Layer form: ``self.fc``, ``self.drop``, and with
``batchnorm`` ``self.bn``, run in train and eval mode), ``containers`` (lists and dicts appended to
on both sides of a condition, items replaced under one, grown or rewritten in Python and tensor
loops), ``no_grad`` (``with rt.no_grad():`` regions, their values mixed into differentiated ones),
``attr_writes`` (a buffer advanced by ``forward``: ``self.steps = self.steps + 1.0``), and
``attr_tensors`` (a detached tensor attribute ``self.last`` written in ``forward`` and read again,
also on later calls); ``idioms``/``calls`` and the forms of ``loops`` and ``values`` are described
there.  ``generate(seed)`` without features gives the programs the test suite has
always run (the same seeds give the same programs).

Every ``return`` of a function returns the same structure (one tensor, or a pair).  Constants
carry three decimals plus an odd offset and inputs are random normal draws, so no condition sits
on an exact tie.
"""
import random

from . import flows, idioms, layers, loops, numbers, ops, scopes, signatures, values

# Features whose constructs pass on this tree; ``attr_tensors`` is known to fail today (a detached
# tensor a converted forward writes into the Layer comes back with stop_gradient=False, so a later
# call's backward refuses it as changed in place) and is only generated when asked for.
DEFAULT_FEATURES = frozenset({"dtypes", "layer", "batchnorm", "containers", "no_grad", "attr_writes"})
# ``idioms`` and ``calls`` (``dy2st.fuzz.idioms``): constructs of other authors' programs; the
# forms of ``dy2st.fuzz.loops`` and ``dy2st.fuzz.values`` (nested loops, lists and dicts written in
# loops and branches, int tensors, run-time dims, in-place writes in branches, rt.grad inside), of
# ``dy2st.fuzz.ops`` (tensor operations in branches and loops, steps and int-tensor indices) and of
# ``dy2st.fuzz.scopes`` (nested functions and lambdas, nonlocal, globals, kept conditions, casts)
# and of ``dy2st.fuzz.layers`` (sub-layers in LayerList/Sequential/LayerDict, in branches and loops),
# ``dy2st.fuzz.numbers`` (Python numbers tensor loops carry), ``dy2st.fuzz.flows`` (loop ``else``,
# returns two loops deep, augmented writes in loops, print/assert in tensor code) and
# ``dy2st.fuzz.signatures`` (``*args``/``**kwargs`` calls, comprehensions, Python logic on dims).
EXTRA = dict(loops.FORMS, **values.FORMS, **ops.FORMS, **scopes.FORMS, **layers.FORMS, **numbers.FORMS,
             **flows.FORMS, **signatures.FORMS)
FEATURES = DEFAULT_FEATURES | {"attr_tensors", "idioms", "calls"} | set(EXTRA)


class _Gen:
    def __init__(self, rng, helper=False, features=frozenset(), layer=False, shapes=None):
        self.r = rng
        self.helper = helper
        self.features = features
        self.layer = layer and not helper
        self.budget = 6 if helper else 15
        self.arity = 1 if helper else rng.choice([1, 1, 2])
        self.tvars = ["a", "b"] if helper else ["x", "y"]
        self.counter = 0
        self.tensor_cf = False     # a tensor-dependent construct that is always traced
        self.py_jump = False       # a Python-conditioned jump seen: later constructs may be skipped
        self.no_grad = False       # a `with rt.no_grad():` region written
        # shared by the module's functions (tensors pass between them): ``loose`` once a form wrote a
        # reshape whose column count is a tensor in the saved model (unknown when the Program is
        # built), ``columns`` once a form needed that count (see ``needs_columns``)
        self.shapes = {"loose": False, "columns": False} if shapes is None else shapes

    # -- small pieces --------------------------------------------------------------
    def c(self, lo=-1.0, hi=1.0):
        return f"{round(self.r.uniform(lo, hi), 3) + 0.0007:.4f}"

    def tv(self):
        return self.r.choice(self.tvars)

    def fresh(self, base):
        self.counter += 1
        return f"{base}{self.counter}"

    def tensor_atom(self, scope):
        r = self.r
        opts = [lambda: f"{self.tv()}.mean() > {self.c(-0.6, 0.6)}",
                lambda: f"{self.tv()}.sum() < {self.c(-4, 4)}",
                lambda: f"{self.tv()}.max() > {self.c(0.5, 2.0)}"]
        rows = [v for v, kind in scope["loopvars"] if kind == "row"]
        if rows:
            opts.append(lambda: f"{r.choice(rows)}.sum() > {self.c(-2, 2)}")
        tcount = [v for v, kind in scope["loopvars"] if kind == "tensor_int"]
        if tcount:
            opts.append(lambda: f"{r.choice(tcount)} % 2 == 0")
        return r.choice(opts)()

    def py_atom(self, scope):
        opts = ["flag", "not flag"] if not self.helper else []
        pyints = [v for v, kind in scope["loopvars"] if kind == "py_int"]
        opts += [f"{v} % 2 == 0" for v in pyints]
        return self.r.choice(opts) if opts else None

    def cond(self, scope):
        """(source, always tensor-dependent?): a condition mixing a Python operand may be
        decided at trace time (`not flag or ...`), so it counts as Python here."""
        r = self.r
        py = self.py_atom(scope)
        kind = r.random()
        if py is not None and kind < 0.3:
            return py, False
        t = self.tensor_atom(scope)
        if kind < 0.6:
            return t, True
        form = r.randrange(4)
        pure = py is None or r.random() < 0.5
        other = self.tensor_atom(scope) if pure else py
        if form == 0:
            return f"{t} and {other}", pure
        if form == 1:
            return f"{other} or {t}", pure
        if form == 2:
            return f"not {t}", True
        return f"({t}) and not ({other})", pure

    def expr(self, scope):
        r = self.r
        a, b = self.tv(), self.tv()
        opts = [lambda: f"{a} * {self.c(0.5, 1.05)} + {self.c()}",
                lambda: f"rt.tanh({a}) * {self.c(0.5, 1.5)} + {b} * {self.c(-0.5, 0.5)}",
                lambda: f"{a} - {b}.mean() * {self.c(-0.3, 0.3)}",
                lambda: f"{a} * rt.tanh({b}.sum()) * {self.c(0.5, 1.0)} + {self.c()}"]
        for v, kind in scope["loopvars"]:
            if kind in ("py_int", "tensor_int", "counter"):
                opts.append(lambda v=v: f"{a} + {v} * {self.c(-0.3, 0.3)}")
            else:
                opts.append(lambda v=v: f"{a} * {self.c(0.5, 1.0)} + {v} * {self.c(-0.5, 0.5)}")
        if not self.helper:
            opts.append(lambda: f"{a} + helper({b}) * {self.c(-0.5, 0.5)}")
        if self.layer:
            opts.append(lambda: f"self.fc({a}) * {self.c(0.3, 0.8)} + {b} * {self.c(0.2, 0.5)}")
            opts.append(lambda: f"self.drop({a}) * {self.c(0.5, 1.0)}")
            if "batchnorm" in self.features:
                opts.append(lambda: f"self.bn({a}) * {self.c(0.2, 0.6)} + {b} * {self.c(0.5, 0.9)}")
        return r.choice(opts)()

    def ret_expr(self):
        if self.arity == 1:
            return self.r.choice([f"{self.tvars[1]} * {self.c()} + {self.tvars[0]}",
                                  f"{self.tv()}", f"rt.tanh({self.tv()}) + {self.c()}"])
        return f"{self.tvars[1]} * {self.c()}, {self.tvars[0]} + {self.c()}"

    def loose_columns(self):
        """Called by a form about to write a reshape whose column count is a tensor when saved with an
        unknown batch dim: True when it must give its result 4 known columns again (``.reshape([-1,
        4])``), as an ``rt.unbind(.., axis=1)`` written elsewhere needs them to know its output count
        when the Program is built (refused there otherwise, rightly; see ``needs_columns``)."""
        if self.shapes["columns"]:
            return True
        self.shapes["loose"] = True
        return False

    def needs_columns(self):
        """Called by a form about to split columns into as many values as there are (an unbind, a
        comprehension over them) or to read their count as a Python int: True when it must reshape
        to 4 columns first (a reshape leaving them unknown in the saved model is written elsewhere)."""
        self.shapes["columns"] = True
        return self.shapes["loose"]

    # -- statements ----------------------------------------------------------------
    def block(self, depth, scope, always, min_len=1):
        lines = []
        n = self.r.randint(min_len, 3)
        for _ in range(n):
            if self.budget <= 0 and lines:
                break
            stmt, ends = self.stmt(depth, scope, always)
            lines += stmt
            if ends:
                break
        return lines or ["pass"]

    def stmt(self, depth, scope, always):
        """(lines, ends the block?)"""
        self.budget -= 1
        r = self.r
        choices = ["assign", "assign", "ternary"]
        if depth < 3 and self.budget > 0:
            choices += ["if", "if", "while", "for"]
        if scope["in_loop"]:
            choices += ["break", "continue"]
        if depth > 0:
            choices += ["return"]
        extra = [k for k in ("dtypes", "containers", "no_grad", "attr_writes", "idioms", "calls", *EXTRA)
                 if k in self.features and (k != "attr_writes" or self.layer)]
        # the idioms/calls/EXTRA forms are many: when asked for, they get a larger share of statements
        if extra and r.random() < (0.4 if ({"idioms", "calls"} | set(EXTRA)) & self.features else 0.25):
            return self.feature_stmt(r.choice(extra), depth, scope, always)
        kind = r.choice(choices)
        t = self.tv()
        if kind == "assign":
            form = r.random()
            if form < 0.1:
                a, b = self.tvars
                return [f"{a}, {b} = {b}, {a} * {self.c(0.5, 1.0)}"], False
            if form < 0.2:
                return [f"{t} += {self.tv()} * {self.c(-0.5, 0.5)}"], False
            if form < 0.25:
                return [f"{t} *= {self.c(0.5, 1.05)}"], False
            if form < 0.35:  # a temporary that lives only in this block
                tmp = self.fresh("t")
                return [f"{tmp} = {self.expr(scope)}", f"{t} = {tmp} * {self.c(0.3, 0.9)} + {t} * {self.c(0.1, 0.5)}"], False
            return [f"{t} = {self.expr(scope)}"], False
        if kind == "ternary":
            c, tensor = self.cond(scope)
            if tensor and always and not self.py_jump:
                self.tensor_cf = True
            return [f"{t} = {self.expr(scope)} if {c} else {self.expr(scope)}"], False
        if kind in ("break", "continue", "return"):
            if r.random() < 0.25 and kind != "return":
                if not always:
                    # under a condition decided at trace time (`if flag or ...:`), it skips what
                    # follows in the loop for that flag value: later constructs may go untraced
                    self.py_jump = True
                return [kind], True
            c, tensor = self.cond(scope)
            if not tensor:
                self.py_jump = True
            what = kind if kind != "return" else f"return {self.ret_expr()}"
            return [f"if {c}:", f"    {what}"], False
        if kind == "if":
            c, tensor = self.cond(scope)
            inner = always and tensor
            if tensor and always and not self.py_jump:
                self.tensor_cf = True
            lines = [f"if {c}:"] + _indent(self.block(depth + 1, scope, inner))
            if r.random() < 0.3:
                c2, _ = self.cond(scope)
                lines += [f"elif {c2}:"] + _indent(self.block(depth + 1, scope, False))
            if r.random() < 0.6:
                lines += ["else:"] + _indent(self.block(depth + 1, scope, inner))
            if r.random() < 0.15 and depth > 0:
                # an unconditional return closing the block after a compound statement: when a Python
                # condition (or a Python loop that always runs) reaches it, later constructs are never
                # traced for that value, so they no longer count as always traced
                lines += [f"return {self.ret_expr()}"]
                self.py_jump = True
                return lines, True
            return lines, False
        if kind == "while":
            k = self.fresh("k")
            if r.random() < 0.25:
                head = f"while {k} < {r.randint(1, 3)}:"
            else:
                head = f"while {self.tensor_atom(scope)} and {k} < {r.randint(1, 4)}:"
                if always and not self.py_jump:
                    self.tensor_cf = True
            body_scope = dict(scope, in_loop=True, loopvars=scope["loopvars"] + [(k, "counter")])
            body = [f"{k} += 1"] + self.block(depth + 1, body_scope, always)
            return [f"{k} = 0", head] + _indent(body), False
        # for
        which = r.choice(["range3", "rangen", "row"] if not self.helper else ["range3", "row"])
        if which == "range3":
            v = self.fresh("i")
            head, lv = f"for {v} in range({r.randint(1, 3)}):", (v, "py_int")
        elif which == "rangen":
            v = self.fresh("i")
            head, lv = f"for {v} in range(n):", (v, "tensor_int")
            if always and not self.py_jump:
                self.tensor_cf = True
        elif r.random() < 0.3:
            v, j = self.fresh("row"), self.fresh("j")
            head = f"for {j}, {v} in enumerate({self.tv()}):"
            lv = (v, "row")
            if always and not self.py_jump:
                self.tensor_cf = True
            body_scope = dict(scope, in_loop=True, loopvars=scope["loopvars"] + [lv, (j, "tensor_int")])
            return [head] + _indent(self.block(depth + 1, body_scope, always)), False
        else:
            v = self.fresh("row")
            head, lv = f"for {v} in {self.tv()}:", (v, "row")
            if always and not self.py_jump:
                self.tensor_cf = True
        body_scope = dict(scope, in_loop=True, loopvars=scope["loopvars"] + [lv])
        return [head] + _indent(self.block(depth + 1, body_scope, always)), False

    def feature_stmt(self, kind, depth, scope, always):
        """Statements of the optional grammar features (see ``FEATURES``)."""
        r, t = self.r, self.tv()
        if kind in ("idioms", "calls"):
            return idioms.stmt(self, kind, depth, scope, always)
        if kind in EXTRA:
            return EXTRA[kind](self, depth, scope, always), False
        if kind == "dtypes":
            form = r.randrange(2 if self.helper else 3)  # the helper has no int64 argument
            if form == 0:  # a bool mask used as a float
                m = self.fresh("m")
                return [f"{m} = {self.tv()} > {self.c(-0.5, 0.5)}",
                        f"{t} = {t} + rt.cast({m}, 'float32') * {self.c(-0.5, 0.5)}"], False
            if form == 1:  # an int32 value computed from floats
                q = self.fresh("q")
                return [f"{q} = rt.cast({self.tv()} * 4.0, 'int32')",
                        f"{t} = {t} + rt.cast({q} % 3, 'float32') * {self.c(-0.3, 0.3)}"], False
            return [f"{t} = {t} + rt.cast(n + 1, 'float32') * {self.c(-0.2, 0.2)}"], False
        if kind == "containers":
            return self.container_stmt(depth, scope), False
        if kind == "no_grad":
            self.no_grad = True
            if r.random() < 0.5:
                return ["with rt.no_grad():", f"    {t} = {self.expr(scope)}"], False
            tmp = self.fresh("ng")  # a value without gradient mixed into one with
            return ["with rt.no_grad():", f"    {tmp} = {self.expr(scope)}",
                    f"{t} = {t} + {tmp} * {self.c(-0.5, 0.5)}"], False
        # attr_writes: a tensor buffer advanced on every call; with attr_tensors also a tensor
        # attribute written then read
        if "attr_tensors" not in self.features or r.random() < 0.5:
            return ["self.steps = self.steps + 1.0", f"{t} = {t} + self.steps * {self.c(-0.1, 0.1)}"], False
        # (one row, so it keeps its shape from call to call, whatever the batch size; detached, as
        # state kept across calls is: a gradient into the previous call's graph is another matter)
        return [f"self.last = (rt.tanh({t}).mean(axis=0, keepdim=True) * {self.c(0.5, 1.0)}).detach()",
                f"{t} = {t} + self.last * {self.c(0.1, 0.3)}"], False

    def container_stmt(self, depth, scope):
        """A list or dict written under a condition or in a loop, then read: forms whose length
        does not depend on a tensor (a list growing on one side of a tensor `if` has no static form)."""
        r, t, acc = self.r, self.tv(), self.fresh("acc")
        c, _ = self.cond(scope)
        form = r.randrange(5)
        if form == 0:  # appended on both sides
            return [f"{acc} = [{t}]", f"if {c}:", f"    {acc}.append({self.expr(scope)})", "else:",
                    f"    {acc}.append({self.expr(scope)})", f"{t} = {acc}[-1] * {self.c(0.5, 1.0)}"]
        if form == 1:  # an item replaced
            return [f"{acc} = [{t}, {self.tv()}]", f"if {c}:", f"    {acc}[{r.randrange(2)}] = {self.expr(scope)}",
                    f"{t} = {acc}[0] * {self.c(0.5, 1.0)} + {acc}[1] * {self.c(0.1, 0.4)}"]
        if form == 2:  # a dict key replaced
            return [f"{acc} = {{'v': {t}}}", f"if {c}:", f"    {acc}['v'] = {self.expr(scope)}", f"{t} = {acc}['v']"]
        i = self.fresh("i")
        head = f"for {i} in range({r.choice(['n', str(r.randint(1, 3))] if not self.helper else ['2'])}):"
        if form == 3:  # a list grown in a loop
            return [f"{acc} = [{t}]", head, f"    {acc}.append({acc}[-1] * {self.c(0.5, 1.0)} + {self.c(-0.3, 0.3)})",
                    f"{t} = {acc}[-1] + {t} * {self.c(0.1, 0.4)}"]
        # a dict value rewritten in a loop, under a condition
        return [f"{acc} = {{'v': {t}}}", head, f"    if {c}:", f"        {acc}['v'] = {acc}['v'] * {self.c(0.5, 1.0)}",
                f"    {t} = {t} * {self.c(0.5, 0.9)} + {acc}['v'] * {self.c(0.1, 0.3)}"]

    def function(self, name, params, prologue):
        scope = {"in_loop": False, "loopvars": []}
        body = list(prologue)
        while self.budget > 0:
            stmt, ends = self.stmt(0, scope, True)
            body += stmt
        body.append(f"return {self.ret_expr()}")
        return [f"def {name}({params}):"] + _indent(body)


def _indent(lines):
    return ["    " + ln for ln in lines]


def generate(seed, features=frozenset()):
    """(module source, meta) of program ``seed``; meta: ``tensor_cf`` (a tensor-dependent construct
    always traced), ``layer`` (the program is the Layer form), ``no_grad`` (it has a no_grad region),
    ``attrs`` (the Layer attributes it writes besides buffers), ``flag_key`` (it names ``stop_gradient``,
    so its Programs are keyed on the arguments' flags too), ``onnx`` (whether to export it: the gradient
    ops ``rt.grad`` puts in a Program have no ONNX mapping, and the exporter refuses them by name)."""
    features = frozenset(features)
    rng = random.Random(seed)
    if "no_grad" in features and seed % 2:
        # half the programs without: finite differences see through a no_grad region, so only
        # programs without one get that check
        features = features - {"no_grad"}
    shapes = {"loose": False, "columns": False}
    h = _Gen(rng, helper=True, features=features, shapes=shapes)
    helper = h.function("helper", "a", [f"b = a * {h.c(0.3, 0.8)} + {h.c()}"])
    layer = "layer" in features and rng.random() < 0.5
    m = _Gen(rng, features=features, layer=layer, shapes=shapes)
    params = "x, n, flag=True" if features else "x, n, flag"
    prelude = (idioms.PRELUDE + "\n\n" if features & {"idioms", "calls"} else "") + \
        (flows.PRELUDE + "\n\n" if "aug_targets" in features and not features & {"idioms", "calls"} else "") + \
        (scopes.PRELUDE + "\n\n" if "closures" in features else "") + \
        (signatures.PRELUDE + "\n\n" if "varargs" in features else "")
    if not layer:
        main = m.function("main", params, [f"y = x * {m.c(0.3, 0.8)} + {m.c()}"])
        src = "import runtime as rt\n\n\n" + prelude + "\n".join(helper) + "\n\n\n" + "\n".join(main) + "\n"
        return src, {"tensor_cf": m.tensor_cf, "layer": False, "no_grad": h.no_grad or m.no_grad,
                     "flag_key": "stop_gradient" in src,
                     "onnx": "rt.grad(" not in src}
    forward = m.function("forward", "self, " + params, [f"y = x * {m.c(0.3, 0.8)} + {m.c()}"])
    init = ["class Net(rt.nn.Layer):", "    def __init__(self):", "        super().__init__()",
            "        self.fc = rt.nn.Linear(4, 4)", f"        self.drop = rt.nn.Dropout({m.c(0.1, 0.5)})",
            "        self.bn = rt.nn.BatchNorm1D(4)", "        self.register_buffer('steps', rt.zeros([1]))",
            "        self.last = rt.zeros([1, 4])"] + (layers.INIT if "sublayers" in features else []) + [""]
    if "sublayers" in features:
        prelude += layers.PRELUDE + "\n\n"
    src = ("import runtime as rt\n\n\n" + prelude + "\n".join(helper) + "\n\n\n" + "\n".join(init) + "\n"
           + "\n".join(_indent(forward)) + "\n")
    return src, {"tensor_cf": m.tensor_cf, "layer": True, "no_grad": h.no_grad or m.no_grad, "attrs": ("last",),
                 "flag_key": "stop_gradient" in src, "onnx": "rt.grad(" not in src}
