"""How a call's arguments bind to the converted function's parameters, before its signature is taken.

``f(a, b)``, ``f(a, b=b)`` and ``f(b=b, a=a)`` are one call to Python; the Program's inputs follow the
parameters' order, defaults filled in, however the call spells them (as Paddle's
``unified_args_and_kwargs``), and an ``input_spec`` longer than the parameters is refused.
"""
import inspect


def check_spec_count(fn, input_spec, bound):
    """ValueError when ``input_spec`` has more entries than ``fn`` takes positional arguments (``bound``:
    its first parameter is the instance): the extra specs would describe no argument. Paddle refuses
    such a spec too."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return
    n = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params) - (1 if bound else 0)
    if len(input_spec) > n:
        raise ValueError(f"{getattr(fn, '__qualname__', fn)}: input_spec has {len(input_spec)} entries but the "
                         f"function takes {n} positional argument(s); give one InputSpec per argument")


class SpecArgumentsError(TypeError, ValueError):
    """InputSpecs (and values) that do not bind to the function's parameters: Python says TypeError
    for such a call, Paddle's ``get_concrete_program`` ValueError; both catch this."""


def with_defaults(fn, bound, args, kwargs):
    """``(args, kwargs)`` with every parameter given: positional ones in order, defaults filled in, so
    ``f(spec, spec)`` and ``f(spec, spec, 1, 2)`` with defaults ``c=1, d=2`` key one Program (Paddle
    unifies them the same way). Unchanged when ``fn`` takes ``*args``/``**kw``; SpecArgumentsError when they
    do not bind.
    ``bound``: ``fn`` is a method whose first parameter the caller does not pass."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return args, kwargs
    params = list(sig.parameters.values())[1 if bound else 0:]
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return args, kwargs
    try:
        ba = sig.replace(parameters=params).bind(*args, **kwargs)
    except TypeError as exc:
        raise SpecArgumentsError(f"{getattr(fn, '__qualname__', fn)}: the arguments given (InputSpecs or values) "
                                 f"do not fit its parameters: {exc}") from None
    ba.apply_defaults()
    return tuple(ba.args), dict(ba.kwargs)


def keywords_in_order(fn, bound, args, kwargs):
    """``(args, kwargs)`` of a call with the keywords that name positional parameters moved into
    ``args``, in the parameter order (defaults filled in between), as Paddle's
    ``unified_args_and_kwargs`` does: the Program's inputs follow the signature however the call
    spells them. (Built from ``f(ids=a, mask=b)``, its inputs came in the keywords' sorted order, and
    ``dy2st.save`` without an input_spec gave each input another one's shape and dtype.) Defaults
    are filled in only up to the last parameter a keyword names, so ``f(a, b)`` and ``f(b=b, a=a)``
    share a Program. Unchanged when the call does not bind: calling the function raises Python's
    TypeError then."""
    try:
        params = list(inspect.signature(fn).parameters.values())[1 if bound else 0:]
    except (TypeError, ValueError):
        return args, kwargs
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return args, kwargs
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    rest = positional[len(args):]
    named = [i for i, p in enumerate(rest) if p.name in kwargs]
    if not named or any(p.kind is p.POSITIONAL_ONLY for p in rest[:named[-1] + 1]):
        return args, kwargs
    out, left = list(args), dict(kwargs)
    for p in rest[:named[-1] + 1]:
        if p.name in left:
            out.append(left.pop(p.name))
        elif p.default is not p.empty:
            out.append(p.default)
        else:
            return args, kwargs  # a required argument is missing: the call raises as eagerly
    return tuple(out), left
