"""Grammar feature ``sublayers`` (with ``layer``): sub-layers held in ``LayerList``, ``Sequential`` and
``LayerDict`` containers, iterated and indexed in ``forward``, called in tensor branches and loops,
each ``Block`` holding a tensor condition of its own in its ``forward``; a buffer written in place
(``self.ema.add_(...)``) in tensor loops and branches.

In the function form (no Layer to hold them) a statement of this feature is a plain update.
"""

from dy2st.fuzz.grammar import other as _other

PRELUDE = '''class Block(rt.nn.Layer):
    def __init__(self, k):
        super().__init__()
        self.fc = rt.nn.Linear(4, 4)
        self.k = k

    def forward(self, v):
        h = self.fc(v)
        if h.mean() > 0.0007:
            h = rt.tanh(h) * self.k
        return h + v * 0.5
'''

INIT = ["        self.blocks = rt.nn.LayerList([Block(0.5), Block(0.75)])",
        "        self.seq = rt.nn.Sequential(rt.nn.Linear(4, 4), rt.nn.Tanh())",
        "        self.heads = rt.nn.LayerDict({'a': rt.nn.Linear(4, 4), 'b': Block(1.25)})",
        "        self.register_buffer('ema', rt.zeros([4]))"]


def sublayers(g, depth, scope, always):
    """``sublayers``: the sub-layer containers iterated, indexed and called under conditions and in loops."""
    r, t, c = g.r, g.tv(), g.c
    u = _other(g, t)
    if not g.layer:
        return [f"{t} = {g.expr(scope)}"]
    blk, i = g.fresh("blk"), g.fresh("i")
    form = r.randrange(8)
    if form == 7 and (depth or scope["in_loop"]):
        form = 0  # (see below)
    if form == 7:  # a buffer written in place (detached statistics), in a tensor loop or branch
        cond, _ = g.cond(scope)
        head = r.choice([f"for {i} in range(n):", f"if {cond}:", f"for {blk} in {u}:"])
        write = r.choice([f"self.ema.add_({t}.mean(axis=0).detach() * {c(0.1, 0.3)})", f"self.ema.scale_({c(0.5, 0.9)})",
                          f"self.ema.multiply_(rt.tanh({t}.max(axis=0)).detach() * 0.25 + 1.0)"])
        # Only at the top of forward, read back through a copy: a branch or loop whose results need a
        # gradient and that reads the buffer (to write it, too), then a write into it in place, is
        # refused by design (that branch's backward would read the new value, eager code the old one)
        return [head, f"    {write}", f"{t} = {t} + self.ema.clone() * {c(-0.3, 0.3)}"]
    if form == 0:  # every block in turn
        return [f"for {blk} in self.blocks:", f"    {t} = {blk}({t}) * {c(0.5, 1.0)} + {u} * {c(-0.3, 0.3)}"]
    if form == 1:  # blocks under a tensor condition, enumerate's counter mixed in
        cond, _ = g.cond(scope)
        return [f"for {i}, {blk} in enumerate(self.blocks):", f"    if {cond}:",
                f"        {t} = {blk}({t}) + {i} * {c(-0.2, 0.2)}", "    else:", f"        {t} = {t} * {c(0.5, 1.0)}"]
    if form == 2:  # a Sequential in a tensor loop
        return [f"for {i} in range(n):", f"    {t} = self.seq({t}) * {c(0.5, 1.0)} + {u} * {c(-0.3, 0.3)}"]
    if form == 3:  # a LayerDict item on each side of a condition
        cond, _ = g.cond(scope)
        return [f"if {cond}:", f"    {t} = self.heads['a']({t}) * {c(0.5, 1.0)}", "else:",
                f"    {t} = self.heads['b']({u}) + {t} * {c(0.1, 0.4)}"]
    if form == 4:  # the items of a LayerDict
        name = g.fresh("name")
        return [f"for {name}, {blk} in self.heads.items():", f"    {t} = {t} + {blk}({u}) * {c(-0.3, 0.3)}"]
    if form == 5:  # indexed, and counted
        return [f"{t} = self.blocks[-1](self.blocks[0]({t})) * {c(0.3, 0.6)} + len(self.blocks) * {c(-0.1, 0.1)}"]
    # a block in a while loop with a tensor condition, one picked by a Python counter in a Python loop
    # (not by the while loop's counter: a tensor there, and a LayerList has no item for a tensor)
    k = g.fresh("k")
    return [f"{k} = 0", f"while {t}.mean() < {c(0.0, 1.0)} and {k} < {r.randint(1, 3)}:", f"    {k} += 1",
            f"    {t} = self.blocks[0]({t}) + {c(0.1, 0.3)}", f"for {i} in range(3):",
            f"    {u} = self.blocks[{i} % 2]({u}) * {c(0.5, 1.0)}"]


FORMS = {"sublayers": sublayers}
