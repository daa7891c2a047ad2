"""Small helpers every grammar module of the generator shares."""


def other(g, t):
    """The tensor variable that is not ``t`` (each program has two: ``x``/``y``, or ``a``/``b`` in its helper)."""
    return g.tvars[1] if t == g.tvars[0] else g.tvars[0]


def claim(g, always):
    """Note a tensor-dependent construct: when it is always traced (no Python jump before it may skip
    it), the program is known to hold one (``tensor_cf``)."""
    if always and not g.py_jump:
        g.tensor_cf = True
