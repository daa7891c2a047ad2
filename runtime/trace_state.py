"""What the calling thread is doing: building Programs (static mode) or running eagerly, and
where the ops it appends come from.

Both are ``contextvars``: each thread starts eager with no origin provider, so one thread
tracing a function never turns another thread's eager code into Program building.
"""
import contextlib
import contextvars


def context_setting(var, convert=None):
    """A property over the ContextVar ``var``: each thread (and asyncio task) reads and writes its own value."""
    def get(self):
        return var.get()

    def set_(self, value):
        var.set(value if convert is None else convert(value))
    return property(get, set_)


@contextlib.contextmanager
def holding(setting, attr, value):
    """``setting.attr = value`` for a ``with`` body, the old value back after it."""
    old = getattr(setting, attr)
    setattr(setting, attr, value)
    try:
        yield
    finally:
        setattr(setting, attr, old)


# Whether the calling thread builds Programs; ``STATIC_MODE.get()`` is ``not in_dynamic_mode()``
# without the two Python calls (for generated per-call code).
STATIC_MODE = contextvars.ContextVar("runtime_static_mode", default=False)


class _Mode:
    """``_mode.static``: whether the calling thread builds Programs."""

    static = context_setting(STATIC_MODE, bool)


_mode = _Mode()


def in_dynamic_mode():
    """True when the calling thread runs ops eagerly (the default)."""
    return not _mode.static


def enable_static():
    """Ops called from this thread append to the default main Program from now on."""
    _mode.static = True


def disable_static(place=None):
    """Ops called from this thread run eagerly again. ``place`` (Paddle's argument: the device of
    dynamic mode) can only be the CPU: None, ``"cpu"`` or a CPUPlace."""
    if place is not None and str(place).lower() not in ("cpu", "place(cpu)"):
        raise ValueError(f"disable_static: place {place!r} is not available; runtime computes on the CPU")
    _mode.static = False


def static_mode_guard(on=True):
    """Switch the mode for a ``with`` body (used while tracing a function)."""
    return holding(_mode, "static", on)


class _Origin:
    # A builder that knows where ops come from (the converter maps generated
    # code back to the user's file and line) installs a provider returning an
    # origin object for the op being appended; runtime never imports it.
    provider = context_setting(contextvars.ContextVar("runtime_origin_provider", default=None))


_origin = _Origin()


def origin_provider(fn):
    """Record ``fn()`` as ``op.origin`` of every op appended in the ``with`` body."""
    return holding(_origin, "provider", fn)


# Which sub-blocks (by index) a run executed: a training step asks, so that a parameter
# read only in branches or loop bodies that did not run gets no gradient (None, as eagerly).
_ran_blocks = contextvars.ContextVar("runtime_ran_blocks", default=None)


class BlockRecord:
    """Where the ``cond``/``while`` kernels of one recorded run note what they enter.

    ``into``: the set receiving notes now (the run's, or the current loop step's while a
    loop records its steps one by one); ``counting``: whether a loop that may pass a gradient
    records its steps now (not inside a loop that passes none: what it runs is never walked
    step by step)."""

    __slots__ = ("into", "counting", "_same")

    def __init__(self):
        self.into, self.counting, self._same = set(), True, {}

    def uncounted(self, fn, *args):
        """``fn(*args)`` (a loop no gradient passes) with no loop inside it recording its steps."""
        was, self.counting = self.counting, False
        try:
            return fn(*args)
        finally:
            self.counting = was

    def steps(self, run_step, pred):
        """Run ``pred = run_step()`` while ``pred`` holds, each step noting into a set of its own.
        Returns the steps as ``((record, repeats), ...)`` in order, consecutive equal records
        merged (``if i == 0: ... else: ...`` over 1000 steps is two pairs); equal records are
        one frozenset."""
        outer = self.into
        same, records, repeats = self._same, [], []
        try:
            while pred:
                self.into = step = set()
                pred = run_step()
                if records and step == records[-1]:
                    repeats[-1] += 1
                else:
                    step = frozenset(step)
                    records.append(same.setdefault(step, step))
                    repeats.append(1)
        finally:
            self.into = outer
        return tuple(zip(records, repeats))


def run_recording_blocks(fn, *args):
    """``(fn(*args), ran)``: ``ran`` holds the index of every ``cond`` branch and ``while`` body
    that ran in the calling thread during the call (outside loop steps recorded one by one),
    and for a loop whose steps are recorded ``(body idx, steps)``, ``steps`` as
    ``BlockRecord.steps`` returns them (each record a frozenset of the same form).  A plain
    call: this runs on every training step."""
    record = BlockRecord()
    token = _ran_blocks.set(record)
    try:
        return fn(*args), record.into
    finally:
        _ran_blocks.reset(token)


def block_record():
    """The calling thread's ``BlockRecord`` while a run records the blocks it enters, else None."""
    return _ran_blocks.get()


def note_ran(block_idx):
    """Called by the ``cond`` kernel: the sub-block ``block_idx`` runs now."""
    record = _ran_blocks.get()
    if record is not None:
        record.into.add(block_idx)


# How a converter marks a value read when its Program runs that eager code sees as a Python number
# (a scheduler's ``last_lr``, ``last_epoch``): {"float": mark, "int": mark}, filled by the converter
# (which knows how such values meet tensors); unmarked values when none is registered.
PYTHON_NUMBER_VIEWS = {}


def converting():
    """Whether a converter is tracing a function into a Program in this thread (static mode with
    an origin provider), as opposed to hand-built static code (``enable_static()``): Python state
    such calls change or read (``rt.seed``, a scheduler's rate) must then become ops of the Program."""
    return _mode.static and _origin.provider is not None


# Eager tensors whose values Python code took while a Program was built (`t.tolist()`,
# `np.asarray(t)`): the Program holds those values as constants, so a converter that records them
# (``recording_value_reads``) can guard them and rebuild when one changes.
_VALUE_READS = contextvars.ContextVar("runtime_value_reads", default=None)


def note_value_read(tensor):
    """Called by an eager tensor whose values Python code takes while a Program is built."""
    reads = _VALUE_READS.get()
    if reads is not None:
        reads.append(tensor)


@contextlib.contextmanager
def recording_value_reads():
    """Collect (into the yielded list) the eager tensors ``note_value_read`` is told about."""
    reads = []
    token = _VALUE_READS.set(reads)
    try:
        yield reads
    finally:
        _VALUE_READS.reset(token)


def refuse_flag_change(t, stop_gradient, how):
    """Refuse ``how`` (``p.trainable = False``, ``p.requires_grad_()``) changing the ``stop_gradient`` of
    the eager Tensor ``t`` while a function is converted: it would change once, while the Program is
    built, so the Program's gradients and update would follow the new flag from its first call on, also
    before the line that sets it.  (The converter handles ``t.stop_gradient = ...`` itself.)"""
    if converting() and bool(stop_gradient) != t.stop_gradient:
        raise TypeError(f"`{how}` on an eager tensor (a parameter, or a tensor made outside) inside a converted "
                        "function: the Program would apply the new flag from its first call on, also to the "
                        "backward and optimizer step before this line; freeze or unfreeze it outside the "
                        "converted function (between calls)")
