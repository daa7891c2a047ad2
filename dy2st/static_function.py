"""``StaticFunction``: what ``@to_static`` returns.

One Program per input signature, built by running the converted function once
with feed Variables in place of tensors; every later call with the same
signature runs the cached Program (through ``PartialProgram``, so training
works too).  Methods bind per instance; a Layer's ``training`` flag is part of
the signature, so ``train()``/``eval()`` switch dropout/batch-norm behaviour.
"""
import ast
import inspect
import textwrap
import warnings
import weakref

import runtime as rt
from runtime.dispatch import to_variable
from runtime.framework import Program, Variable, origin_provider, program_guard, static_mode_guard
from runtime.static import InputSpec
from runtime.static.backends import check_backend

from . import config, staging
from .error import UserOrigin, current_origin, format_location, show_internals, to_user_error
from .pyct.undefined import RETURN_NO_VALUE, UndefinedVar
from .transform import transform_function
from .convert_call import is_not_to_static
from .function_spec import cache_key, check_against_spec, flatten, specs_to_placeholders, unflatten
from .partial_program import PartialProgram


def _reraise(exc, phase):
    new = to_user_error(exc, phase)
    if new is exc:
        if getattr(exc, "_dy2st_mapped", False) and not show_internals():
            raise exc.with_traceback(None) from None  # already points at the user's line
        raise exc
    if show_internals():
        raise new from exc
    raise new.with_traceback(None) from None


class ConcreteProgram:
    """A traced Program with its feeds, outputs and the function it came from."""

    def __init__(self, main_program, startup_program, inputs, outputs, out_skeleton, function):
        self.main_program = main_program
        self.startup_program = startup_program
        self.inputs = inputs
        self.outputs = outputs
        self.out_skeleton = out_skeleton
        self.function = function
        self.backend = "numpy"  # the StaticFunction's backend for inference runs
        self._partial = None

    @property
    def parameters(self):
        return list(self.main_program.bound_tensors.values())

    @property
    def partial_program(self):
        if self._partial is None:
            what = getattr(self.function, "__qualname__", "the function")
            self._partial = PartialProgram(self.main_program, self.inputs, self.outputs, self.backend, what)
        return self._partial

    def __repr__(self):
        return (f"<ConcreteProgram inputs={[v.name for v in self.inputs]} "
                f"outputs={[v.name for v in self.outputs]}>")


class ProgramCache:
    """Signature -> ConcreteProgram; ``len()`` counts the Programs built."""

    def __init__(self):
        self._programs = {}

    def __len__(self):
        return len(self._programs)

    def __contains__(self, key):
        return key in self._programs

    def __getitem__(self, key):
        return self._programs[key]

    def __setitem__(self, key, value):
        self._programs[key] = value

    def concrete_programs(self):
        return list(self._programs.values())

    def last(self):
        if not self._programs:
            raise RuntimeError("no Program has been built yet: call the function or get_concrete_program() first")
        return next(reversed(self._programs.values()))

    def clear(self):
        self._programs.clear()


def _return_origin(fn, name):
    """The user's last ``return`` mentioning ``name`` (else the ``def`` line), as a UserOrigin."""
    fn = inspect.unwrap(fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    line = code.co_firstlineno
    try:
        lines, first = inspect.getsourcelines(fn)
        tree = ast.parse(textwrap.dedent("".join(lines)))
        hits = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Return) and n.value is not None
                and any(isinstance(m, ast.Name) and m.id == name for m in ast.walk(n.value))]
        if hits:
            line = first + max(hits) - 1
    except (OSError, TypeError, SyntaxError):
        pass
    return UserOrigin(code.co_filename, line, "", fn.__qualname__)


def _where(fn):
    code = getattr(fn, "__code__", None)
    return f" ({code.co_filename}:{code.co_firstlineno})" if code is not None else ""


def _signature_text(inputs):
    return "(" + ", ".join(f"{v.name}: {v.dtype}{list(v.shape)}" for v in inputs) + ")"


def _skeleton_text(skeleton):
    """The non-tensor parts of a call's arguments (they select the Program), for the log."""
    kind = skeleton[0]
    if kind == "T":
        return "<tensor>"
    if kind in ("list", "tuple"):
        inner = ", ".join(_skeleton_text(s) for s in skeleton[1])
        return f"[{inner}]" if kind == "list" else f"({inner}{',' if len(skeleton[1]) == 1 else ''})"
    if kind == "dict":
        return "{" + ", ".join(f"{k!r}: {_skeleton_text(s)}" for k, s in skeleton[1]) + "}"
    return repr(skeleton[2])


def _flatten_outputs(obj, out_vars, fn=None):
    if isinstance(obj, UndefinedVar) and obj is not RETURN_NO_VALUE:
        origin = _return_origin(fn, obj.var_name)
        where = f"\n\n  In user code, while building the Program:\n{format_location(origin)}" if origin else ""
        err = NameError(f"{getattr(fn, '__name__', 'the function')} returns '{obj.var_name}', which is not "
                        "defined on every path (it is assigned only in some branches of a tensor-dependent "
                        f"`if` or in a loop that may not run){where}")
        err._dy2st_mapped = True
        err.user_origin = origin
        raise err
    if isinstance(obj, Variable):
        out_vars.append(obj)
        return ("T", len(out_vars) - 1)
    if isinstance(obj, rt.Tensor):
        out_vars.append(to_variable(obj))
        return ("T", len(out_vars) - 1)
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, tuple(_flatten_outputs(v, out_vars, fn) for v in obj))
    if isinstance(obj, dict):
        return ("dict", tuple((k, _flatten_outputs(v, out_vars, fn)) for k, v in obj.items()))
    return ("V", type(obj).__name__, obj)


class StaticFunction:
    def __init__(self, function, input_spec=None, full_graph=True, instance=None, backend="numpy", **kwargs):
        if isinstance(function, StaticFunction):
            function = function.dygraph_function
        self.dygraph_function = function
        self._input_spec = list(input_spec) if input_spec is not None else None
        self._full_graph = full_graph
        self._instance = instance
        self._backend = check_backend(backend)
        self.program_cache = ProgramCache()
        self._fast_cache = {}
        self._converted = None
        self._bound = weakref.WeakKeyDictionary()
        self._fell_back = False
        self.__name__ = getattr(function, "__name__", "function")
        self.__doc__ = getattr(function, "__doc__", None)
        self.__wrapped__ = function

    # -- descriptor: methods bind per instance -----------------------------------
    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        bound = self._bound.get(instance)
        if bound is None:
            bound = StaticFunction(self.dygraph_function, self._input_spec, self._full_graph, instance=instance,
                                   backend=self._backend)
            self._bound[instance] = bound
        return bound

    # -- conversion ----------------------------------------------------------
    @property
    def converted(self):
        if self._converted is None:
            fn = self.dygraph_function
            where = _where(fn)
            config.log(1, f"converting {self._qualname()}{where}")
            self._converted = transform_function(fn)
            config.log(1, f"converted {self._qualname()}: {len(self._converted.pass_names) - 1} passes, "
                          f"generated code in {self._converted.filename}")
            config.log_code(self._qualname(), self._converted.passes)
        return self._converted

    def _qualname(self):
        return getattr(self.dygraph_function, "__qualname__", self.__name__)

    @property
    def code(self):
        return self.converted.source

    def rollback(self):
        """The original Python function (bound to the instance for methods)."""
        fn = self.dygraph_function
        if self._instance is not None:
            if getattr(self._instance, "forward", None) is self:
                try:
                    del self._instance.__dict__["forward"]
                except KeyError:
                    pass
            return fn.__get__(self._instance)
        return fn

    # -- calls ---------------------------------------------------------------
    def _args_with_self(self, args):
        return args if self._instance is None else (self._instance,) + tuple(args)

    def __call__(self, *args, **kwargs):
        if not config.to_static_enabled() or is_not_to_static(self.dygraph_function) or self._fell_back:
            if config.verbosity() >= 2:
                why = ("enable_to_static(False)" if not config.to_static_enabled() else
                       "not_to_static" if is_not_to_static(self.dygraph_function) else
                       "it could not be converted (full_graph=False)")
                config.log(2, f"running {self._qualname()} eagerly: {why}")
            return self.dygraph_function(*self._args_with_self(args), **kwargs)
        if not rt.in_dynamic_mode():
            # Called while another Program is being built: inline the converted code.
            return self.converted.fn(*self._args_with_self(args), **kwargs)
        try:
            concrete, tensors = self._concrete_for_call(args, kwargs)
        except Exception as exc:  # noqa: BLE001  (full_graph=False: any build failure falls back)
            if self._full_graph:
                _reraise(exc, "while building the Program")
            reason = str(exc).splitlines()[0] if str(exc) else ""
            warnings.warn(f"dy2st: {self.__name__} could not be converted ({type(exc).__name__}: {reason}); "
                          "running it eagerly (full_graph=False)", stacklevel=2)
            config.log(1, f"falling back to eager for {self._qualname()}: {type(exc).__name__}: {reason}")
            self._fell_back = True
            return self.dygraph_function(*self._args_with_self(args), **kwargs)
        try:
            outs = concrete.partial_program(tensors)
        except Exception as exc:  # noqa: BLE001  (mapped to the user's line, same type)
            _reraise(exc, "while running the Program")
        return unflatten(concrete.out_skeleton, outs)

    def _training(self):
        inst = self._instance
        return bool(getattr(inst, "training", False)) if inst is not None else None

    def _concrete_for_call(self, args, kwargs):
        # Fast path for the common call (only tensors, positional): a cheap key
        # into the same ConcreteProgram the full signature selected before.
        fast = None
        if not kwargs and all(type(a) is rt.Tensor for a in args):
            fast = (tuple((a._value.dtype, a._value.shape) for a in args), self._training())
            hit = self._fast_cache.get(fast)
            if hit is not None:
                if config.verbosity() >= 2:
                    config.log(2, f"cache hit for {self._qualname()}: {_signature_text(hit.inputs)}")
                return hit, list(args)
        key, skeleton, metas, tensors = self._call_signature(args, kwargs)
        if key not in self.program_cache:
            config.log(2, f"cache miss for {self._qualname()} ({len(self.program_cache)} Program(s) cached)")
            self.program_cache[key] = self._trace(skeleton, metas, skeleton_text=_skeleton_text(skeleton))
        elif config.verbosity() >= 2:
            config.log(2, f"cache hit for {self._qualname()}: {_signature_text(self.program_cache[key].inputs)}")
        concrete = self.program_cache[key]
        if fast is not None:
            self._fast_cache[fast] = concrete
        return concrete, tensors

    def _call_signature(self, args, kwargs):
        """(cache key, argument skeleton, feed metas, tensors) of a call."""
        tensors = []
        skeleton = flatten((tuple(args), kwargs), tensors)
        if self._input_spec is not None:
            shapes = check_against_spec(tensors, self._input_spec, self.__name__)
            names = [s.name for s in self._input_spec if isinstance(s, InputSpec)]
        else:
            shapes = [t.shape for t in tensors]
            names = [None] * len(tensors)
        key = cache_key(skeleton, tensors, shapes, self._training())
        metas = [(n, s, t.dtype) for n, s, t in zip(names, shapes, tensors)]
        return key, skeleton, metas, tensors

    def _spec_signature(self, specs):
        """(cache key, argument skeleton, feed metas) of a list of InputSpecs."""
        skeleton_args, spec_list = specs_to_placeholders(specs)
        skeleton = ("tuple", (skeleton_args, ("dict", ())))
        metas = [(s.name, [(-1 if d is None else d) for d in s.shape], s.dtype) for s in spec_list]
        key = ("spec", skeleton, tuple((str(d), tuple(s)) for _, s, d in metas), self._training())
        return key, skeleton, metas

    def _specs_given(self, args, kwargs):
        if args and all(isinstance(a, InputSpec) for a in args) and not kwargs:
            return list(args)
        if not args and not kwargs and self._input_spec is not None:
            return self._input_spec
        return None

    def explain(self, *args, **kwargs):
        """The staging report for these arguments (or InputSpecs) as text.

        Lists each if/while/for/ternary/and/or/not/assert/print of the function
        with its line, whether it became a graph op or stayed Python and why, and
        the variables undefined on some path.  Traces a fresh Program; the cache
        is left as it was.
        """
        specs = self._specs_given(args, kwargs)
        if specs is not None:
            _, skeleton, metas = self._spec_signature(specs)
        else:
            _, skeleton, metas, _ = self._call_signature(args, kwargs)
        with staging.recording() as decisions:
            self._trace(skeleton, metas)
        return staging.format_report(self.dygraph_function, decisions, self._qualname())

    def get_concrete_program(self, *args, **kwargs):
        """The ConcreteProgram for these arguments (InputSpecs allowed), building it if needed."""
        specs = self._specs_given(args, kwargs)
        if specs is not None:
            return self._concrete_from_specs(specs)
        return self._concrete_for_call(args, kwargs)[0]

    def _concrete_from_specs(self, specs):
        key, skeleton, metas = self._spec_signature(specs)
        if key not in self.program_cache:
            config.log(2, f"cache miss for {self._qualname()} (from InputSpecs)")
            self.program_cache[key] = self._trace(skeleton, metas, skeleton_text="InputSpec")
        return self.program_cache[key]

    @property
    def concrete_program(self):
        return self.program_cache.last()

    @property
    def main_program(self):
        return self.concrete_program.main_program

    def _feed_names(self, metas):
        try:
            params = [p for p in inspect.signature(self.dygraph_function).parameters]
        except (TypeError, ValueError):
            params = []
        if self._instance is not None and params:
            params = params[1:]
        names, used = [], set()
        for i, (given, _, _) in enumerate(metas):
            name = given or (params[i] if i < len(params) else f"input_{i}")
            while name in used:
                name = f"{name}_{i}"
            used.add(name)
            names.append(name)
        return names

    def _trace(self, skeleton, metas, skeleton_text=""):
        main, startup = Program(), Program()
        fn = self.converted.fn
        feed_names = self._feed_names(metas)
        sig = ", ".join(f"{n}: {d}{list(s)}" for n, (_, s, d) in zip(feed_names, metas))
        mode = "" if self._instance is None else f", training={self._training()}"
        config.log(1, f"building a Program for {self._qualname()}({sig}{mode})"
                      + (f" [arguments: {skeleton_text}]" if skeleton_text else ""))
        with program_guard(main, startup), static_mode_guard(True), origin_provider(current_origin):
            feeds = [rt.static.data(name, shape, dtype)
                     for name, (_, shape, dtype) in zip(feed_names, metas)]
            args, kwargs = unflatten(skeleton, feeds)
            out = fn(*self._args_with_self(args), **kwargs)
            out_vars = []
            out_skeleton = _flatten_outputs(out, out_vars, self.dygraph_function)
        config.log(1, f"built a Program for {self.__name__}: {len(main.global_block().ops)} ops, "
                      f"{main.num_blocks} blocks")
        concrete = ConcreteProgram(main, startup, feeds, out_vars, out_skeleton, fn)
        concrete.backend = self._backend
        return concrete

    def __repr__(self):
        return f"<StaticFunction {self.__name__}: {len(self.program_cache)} Program(s)>"
