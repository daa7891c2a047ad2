"""``rt.nn.ParameterList``: Paddle's ``paddle.nn.ParameterList``, a list of Parameters that a
Layer holds as one attribute (its items are the layer's parameters, named "0", "1", ...)."""
from collections.abc import Iterable

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
