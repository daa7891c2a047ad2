"""``rt.nn.ParameterList`` and ``rt.nn.ParameterDict``: Paddle's list and dict of Parameters that a
Layer holds as one attribute (the items are the layer's parameters, named "0", "1", ... or by their keys)."""
from collections.abc import Iterable, Mapping

from ..tensor import Parameter
from .layer import Layer


class ParameterList(Layer):
    """A list of ``Parameter``s registered with the layer that holds it.

    ``parameters`` is an iterable of Parameters (e.g. from ``create_parameter``). Supports
    ``len``, iteration, indexing (negative too), item assignment and ``append``.
    """

    def __init__(self, parameters: Iterable[Parameter] | None = None) -> None:
        super().__init__()
        for p in parameters or []:
            self.append(p)

    def _index(self, idx):
        n = len(self._parameters)
        if not isinstance(idx, int) or not -n <= idx < n:
            raise IndexError(f"ParameterList index {idx!r} out of range for length {n}")
        return idx % n

    def __getitem__(self, idx):
        return self._parameters[str(self._index(idx))]

    def __setitem__(self, idx, param):
        self.add_parameter(str(self._index(idx)), param)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(list(self._parameters.values()))

    def append(self, parameter):
        """Add ``parameter`` at the end; returns the list."""
        if not isinstance(parameter, Parameter):
            raise TypeError(f"ParameterList holds Parameters, got {type(parameter).__name__}")
        self.add_parameter(str(len(self._parameters)), parameter)
        return self


class ParameterDict(Layer):
    """A dict of ``Parameter``s registered with the layer that holds it (Paddle's ``paddle.nn.ParameterDict``).

    ``parameters``: a mapping of names to Parameters or an iterable of (name, Parameter) pairs. Supports
    ``len``, iteration over the names, ``d[name]``, ``d[name] = p`` (a new name goes last, an existing
    one keeps its place), ``in``, ``update``, ``keys``, ``values`` and ``items``.
    """

    def __init__(self, parameters: Mapping[str, Parameter] | Iterable[tuple[str, Parameter]] | None = None) -> None:
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, param):
        if not isinstance(param, Parameter):
            raise TypeError(f"ParameterDict holds Parameters, got {type(param).__name__} for key {key!r}")
        if key in self._parameters:
            self._parameters[key] = param  # in place: iteration order stays Paddle's
        else:
            self.add_parameter(key, param)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(list(self._parameters))

    def __contains__(self, key):
        return key in self._parameters

    def keys(self):
        """The parameter names, in order."""
        return self._parameters.keys()

    def values(self):
        """The Parameters, in order."""
        return self._parameters.values()

    def items(self):
        """(name, Parameter) pairs, in order."""
        return self._parameters.items()

    def update(self, parameters):
        """Add (or replace) the parameters of a mapping or of an iterable of (name, Parameter) pairs."""
        if not isinstance(parameters, Iterable):
            raise TypeError(f"ParameterDict.update takes a mapping or (name, Parameter) pairs, got "
                            f"{type(parameters).__name__}")
        pairs = parameters.items() if isinstance(parameters, (Mapping, ParameterDict)) else parameters
        for i, kv in enumerate(pairs):
            if len(kv) != 2:
                raise ValueError(f"The length of the {i}'s element in parameters is {len(kv)}, which must be 2.")
            self[kv[0]] = kv[1]
