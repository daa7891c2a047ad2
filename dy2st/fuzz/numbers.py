"""Grammar feature ``numbers``: Python numbers that tensor loops and branches carry, as user code
keeps counters, flags and running values.

- a list of loop counters and flags appended in a tensor loop, read back by index, ``pop``,
  ``sum``/``max`` and a ``for`` (`idx[-1] / 3` divides truly, `flags[0] + flags[1]` counts);
- a tuple or dict of a Python int, float and bool rebound in a tensor loop or on both sides of a
  tensor ``if`` (their items keep Python's arithmetic);
- a running maximum or sum started from the int 0 and set on one path of a tensor ``if`` inside a
  tensor loop (the int becomes a float tensor there, as eagerly);
- shifts, floor division, modulo and comparisons of a carried counter.

Every form keeps ``x``/``y`` float32 [B, 4] and folds the numbers back into one of them.
"""


def _loop(g, t):
    """The head of a tensor loop: over the int64 argument, or over the rows of a tensor."""
    i = g.fresh("i")
    if not g.helper and g.r.random() < 0.6:
        return i, f"for {i} in range(n):"
    return i, f"for {i} in range({t}.shape[0]):" if g.r.random() < 0.5 else f"for _ in {t}:"


def numbers(g, depth, scope, always):
    """``numbers``: Python ints, floats and bools in lists, tuples and dicts carried by tensor loops."""
    r, t, c = g.r, g.tv(), g.c
    k = g.fresh("k")
    i, head = _loop(g, t)
    counter = i if head.startswith(f"for {i} ") else k
    form = r.randrange(5)
    if form == 0:  # counters and flags appended, read back every way
        idx, fl = g.fresh("idx"), g.fresh("fl")
        return [f"{idx} = [1]", f"{fl} = [False]", f"{k} = 0", head, f"    {k} += 1",
                f"    {idx}.append({counter} * 2 + 1)", f"    {fl}.append({k} % 2 == 0)",
                f"{t} = {t} * ({idx}[-1] / 7 + sum({idx}) / 50 + max({idx}) / 30) * {c(0.2, 0.5)}",
                f"{t} = {t} + (sum({fl}) / 3 + ({fl}[0] + {fl}[-1])) * {c(-0.3, 0.3)} + {idx}.pop() / 11"]
    if form == 1:  # a tuple of numbers rebound in the loop
        st = g.fresh("st")
        return [f"{st} = (0, {c(0.1, 0.5)}, False)", head,
                f"    {st} = ({st}[0] + 1, {st}[1] * {c(1.0, 1.3)}, {st}[0] > 1)",
                f"{t} = {t} * ({st}[0] / 3 + {st}[1]) * {c(0.2, 0.5)} + ({st}[2] + {st}[2]) * {c(-0.3, 0.3)}"]
    if form == 2:  # a dict of numbers on both sides of a tensor condition
        d = g.fresh("d")
        cond, _ = g.cond(scope)
        return [f"{d} = {{'n': 1, 'acc': {c(0.1, 0.5)}, 'seen': False}}", f"if {cond}:",
                f"    {d} = {{'n': {d}['n'] + 2, 'acc': {d}['acc'] * 3, 'seen': True}}", "else:",
                f"    {d} = {{'n': {d}['n'] + 1, 'acc': {d}['acc'] * 7, 'seen': {d}['n'] > 0}}",
                f"{t} = {t} * ({d}['n'] / 3 + {d}['acc']) * {c(0.2, 0.4)} + ({d}['seen'] + {d}['seen']) * {c(-0.3, 0.3)}"]
    if form == 3:  # a running max / sum from the int 0, set on one path
        best, row = g.fresh("best"), g.fresh("row")
        pick = r.choice([f"{best} = {row}.mean()", f"{best} = {best} + {row}.mean() * {c(0.2, 0.5)}"])
        return [f"{best} = 0", f"for {row} in {t}:", f"    if {row}.mean() > {best}:", f"        {pick}",
                f"{t} = {t} + {best} * {c(-0.5, 0.5)}"]
    # a counter's shifts, floor division, modulo and comparisons
    return [f"{k} = {r.choice([-7, 1, 5])}", head, f"    {k} = {k} * 2 + 1",
            f"{t} = {t} * ((({k} >> 1) % 5 + ({k} << 1) // 7) / 9 + ({k} > 3) * {c(0.1, 0.3)}) * {c(0.2, 0.4)}"]


FORMS = {"numbers": numbers}
