"""`match` -> an `if`/`elif` chain, before any pass that handles jumps or branches.

The other passes know `if`, `for`, `while`, `with` and `try`; a `return`, `break` or `continue`
inside a `case` would otherwise be left as it is (a `return` inside a converted loop or after an
earlier early return is then lost, silently), and a tensor-dependent `if` inside a case would be
analysed without the case's control flow. As an `if` chain, every later pass sees ordinary code.

Each pattern is tested by a small function holding a one-case `match` with that pattern, so
Python's own pattern semantics apply (sequences, mappings, classes, `|`, `as`, value patterns);
it returns the tuple of the names the pattern captures, or None when it does not match:

    match cmd:                          match_subject_0 = cmd
        case [op, arg] if arg > 0:      def match_case_0(match_subject_1):
            body0                           match_found_0 = None
        case _:                             match match_subject_1:
            body1                               case [op, arg]:
                                                    match_found_0 = (op, arg)
                                            return match_found_0
                                        match_captures_0 = match_case_0(match_subject_0)
                                        if match_captures_0 is not None:
                                            op, arg = match_captures_0
                                        if match_captures_0 is not None and arg > 0:
                                            body0
                                        else:
                                            body1

The subject is evaluated once; the guard runs only after its pattern matched (the `and`
short-circuits), with the captured names bound, as in Python.
"""
import gast

from dy2st.pyct import naming, origin_info, templates, transformer
from dy2st.pyct.nodes import walk


def _captures(pattern):
    """The names ``pattern`` binds, in order of first appearance."""
    names = []
    for n in walk(pattern):
        found = None
        if isinstance(n, (gast.MatchAs, gast.MatchStar)):
            found = n.name
        elif isinstance(n, gast.MatchMapping):
            found = n.rest
        if found is not None and found not in names:
            names.append(found)
    return names


def _value_test(pattern, subject):
    """`subject == v` for a value pattern (`|` of them: an `or`), `subject is v` for None/True/False,
    `isinstance(subject, C)` for a bare `C()`: Python's own test, written out so a tensor subject
    gives a tensor condition (or the eager answer); else None."""
    if isinstance(pattern, gast.MatchValue):
        return templates.replace_as_expression("subject == value", subject=subject, value=pattern.value)
    if isinstance(pattern, gast.MatchSingleton):
        return templates.replace_as_expression("subject is value", subject=subject,
                                               value=gast.Constant(value=pattern.value, kind=None))
    if isinstance(pattern, gast.MatchClass) and not pattern.patterns and not pattern.kwd_patterns:
        # `case int():` -> isinstance, which sees a traced tensor as the Tensor (or int) it is eagerly
        return templates.replace_as_expression("_jst.IsInstance(subject, cls)", subject=subject, cls=pattern.cls)
    if isinstance(pattern, gast.MatchOr):
        tests = [_value_test(p, subject) for p in pattern.patterns]
        if all(t is not None for t in tests):
            return gast.BoolOp(op=gast.Or(), values=tests)
    return None


def _wildcard(pattern):
    """`case _:`: matches anything and binds nothing."""
    return isinstance(pattern, gast.MatchAs) and pattern.pattern is None and pattern.name is None


class MatchTransformer(transformer.Transformer):
    """Turns ``match`` statements into ``if`` chains (see the module docstring)."""

    def visit_Match(self, node):
        self.generic_visit(node)  # nested matches (in case bodies) first
        subject = self.ctx.namer.new("match_subject")
        out = templates.replace("subject = value", subject=subject, value=node.subject)
        return origin_info.copy_origin(node, out + self._chain(node, node.cases, subject))

    def _chain(self, node, cases, subject):
        if not cases:
            return []
        case, rest = cases[0], cases[1:]
        otherwise = self._chain(node, rest, subject)
        if _wildcard(case.pattern):
            if case.guard is None:
                return list(case.body)  # irrefutable: later cases are unreachable
            return [gast.If(test=case.guard, body=list(case.body), orelse=otherwise)]
        test = _value_test(case.pattern, subject)
        if test is not None:  # binds nothing: no function needed
            if case.guard is not None:
                test = gast.BoolOp(op=gast.And(), values=[test, case.guard])
            return origin_info.copy_origin(node, [gast.If(test=test, body=list(case.body), orelse=otherwise)])
        fn_name = self.ctx.namer.new("match_case", naming.MATCH_CASE)
        param = self.ctx.namer.new("match_subject")
        found = self.ctx.namer.new("match_found")
        captured = self.ctx.namer.new("match_captures")
        names = _captures(case.pattern)
        values = gast.Tuple(elts=[templates.name(n) for n in names], ctx=gast.Load())
        one_case = gast.Match(subject=templates.name(param), cases=[gast.match_case(
            pattern=case.pattern, guard=None,
            body=templates.replace("found = values", found=found, values=values))])
        body = (templates.replace("found = None", found=found) + [one_case]
                + templates.replace("return found", found=found))
        stmts = [templates.function_def(fn_name, [param], body)]
        argument = templates.name(subject)
        if any(isinstance(n, gast.MatchClass) for n in walk(case.pattern)):
            argument = templates.helper_call("MatchClassSubject", [argument])
        stmts += templates.replace("captured = fn(subject)", captured=captured, fn=fn_name, subject=argument)
        if names:
            targets = gast.Tuple(elts=[templates.name(n, gast.Store()) for n in names], ctx=gast.Store())
            stmts += templates.replace("if captured is not None:\n    targets = captured", captured=captured,
                                       targets=targets)
        test = templates.replace_as_expression("captured is not None", captured=captured)
        if case.guard is not None:
            test = gast.BoolOp(op=gast.And(), values=[test, case.guard])
        stmts.append(gast.If(test=test, body=list(case.body), orelse=otherwise))
        return origin_info.copy_origin(node, stmts)


def needed(census):
    """Whether there is a `match` (the passes before this one make none)."""
    return census.has(gast.Match)


def transform(node, ctx):
    """Apply the match pass to ``node``."""
    return MatchTransformer(ctx).visit(node)
