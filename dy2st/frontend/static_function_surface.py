"""``StaticFunctionSurface``: the Programs a ``StaticFunction`` shows the user (Paddle's surface
besides calling): ``concrete_program``, ``main_program``, ``inputs``/``outputs``,
``get_concrete_program``, the staging report (``explain``), ``class_instance`` and
``get_traced_count``.

``StaticFunction`` inherits it; the methods read its state (``_instance``, ``program_cache``...)
and the signature and trace methods of ``Tracing``. Kept apart from ``static_function.py``,
which holds the binding, the modes and the per-call path.
"""
from runtime.framework import Program

from ..tools import staging
from .program_cache import ConcreteProgram, ConcreteProgramPair


class StaticFunctionSurface:
    """The Program accessors of ``StaticFunction`` (a base class of it, not used alone)."""

    @property
    def inputs(self) -> list:
        """The feed Variables of the current ``concrete_program``."""
        return self.concrete_program.inputs

    @property
    def outputs(self) -> list:
        """The output Variables of the current ``concrete_program``."""
        return self.concrete_program.outputs

    @property
    def class_instance(self) -> object:
        """The Layer (or object) whose method this is, None for a plain function (Paddle's name)."""
        return self._instance

    def get_traced_count(self) -> int:
        """How many Programs this function has traced (retraces after a failed guard included)."""
        return self._traced_count

    # -- the Programs and the staging report -----------------------------------------
    def explain(self, *args, **kwargs) -> str:
        """The staging report for these arguments (or InputSpecs) as text.

        Lists each if/while/for/ternary/and/or/not/assert/print of the function
        with its line, whether it became a graph op or stayed Python and why, and
        the variables undefined on some path; then what the cached Program for
        these arguments is guarded on and, if a guard no longer holds, which.
        Traces a fresh Program; the cache is left as it was.
        """
        given = self._specs_given(args, kwargs)
        if given is not None:
            key, skeleton, metas = self._spec_signature(*given)
        else:
            key, skeleton, metas, _ = self._call_signature(args, kwargs)
        with staging.recording() as decisions:
            fresh = self._trace(skeleton, metas, count=False)
        report = staging.format_report(self.dygraph_function, decisions, self._qualname())
        return report + "\n" + staging.guard_report(self.program_cache, key, fresh, self._last_retrace)

    def get_concrete_program(self, *args, **kwargs) -> ConcreteProgramPair:
        """The ConcreteProgram for these arguments (InputSpecs allowed, mixed with Python values),
        read through as Paddle's ``(concrete_program, partial_program_layer)`` pair."""
        return self._get_concrete(args, kwargs).as_pair()

    def _get_concrete(self, args, kwargs) -> ConcreteProgram:
        given = self._specs_given(args, kwargs)
        if given is not None:
            return self._concrete_from_specs(*given)
        return self._concrete_for_call(args, kwargs)[0]

    @property
    def concrete_program(self) -> ConcreteProgram:
        """The Program of the declared ``input_spec`` if there is one, else the one used last."""
        if self._input_spec is not None:
            return self._concrete_from_specs(tuple(self._input_spec), {})
        if not len(self.program_cache):
            # Paddle's ValueError: no input_spec and no call yet, so no Program to show
            raise ValueError(f"{self.__name__}: no Program has been built yet and no input_spec was given: "
                             "call the function, or pass input_spec, or use get_concrete_program(...)")
        return self.program_cache.last()

    @property
    def main_program(self) -> Program:
        """The Program of ``concrete_program`` (the input_spec's, else the most recent call's)."""
        return self.concrete_program.main_program
