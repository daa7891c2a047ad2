"""Containers: ``Sequential`` (calls its layers in order), ``LayerList`` (an indexable list) and
``LayerDict`` (an ordered dict)."""
import collections

from .layer import Layer
from collections.abc import Iterable, Mapping


class Sequential(Layer):
    """``Sequential(l1, l2, ...)``, ``Sequential(('name', layer), ...)`` or ``Sequential(OrderedDict)``."""

    def __init__(self, *layers: Layer | tuple[str, Layer]) -> None:
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], (dict, collections.OrderedDict)):
            layers = tuple(layers[0].items())
        for i, item in enumerate(layers):
            if isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str):
                self.add_sublayer(item[0], item[1])
            else:
                self.add_sublayer(str(i), item)

    def __getitem__(self, idx):
        layers = list(self._sub_layers.values())
        if isinstance(idx, slice):
            return Sequential(*layers[idx])
        if isinstance(idx, str):
            return self._sub_layers[idx]
        return layers[idx]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def forward(self, x):
        for layer in self._sub_layers.values():
            x = layer(x)
        return x


class LayerList(Layer):
    """A list of sublayers, registered under "0", "1", ... so their parameters are found. Paddle: ``nn.LayerList``."""

    def __init__(self, sublayers: Iterable[Layer] | None = None) -> None:
        super().__init__()
        for layer in sublayers or []:
            self.append(layer)

    def _index(self, idx):
        n = len(self._sub_layers)
        if not -n <= idx < n:
            raise IndexError(f"LayerList index {idx} out of range for length {n}")
        return idx % n

    def __getitem__(self, idx):
        layers = list(self._sub_layers.values())
        if isinstance(idx, slice):
            return LayerList(layers[idx])
        return layers[self._index(idx)]

    def __setitem__(self, idx, layer):
        self.add_sublayer(str(self._index(idx)), layer)

    def __delitem__(self, idx):
        layers = list(self._sub_layers.values())
        del layers[self._index(idx) if isinstance(idx, int) else idx]
        self._sub_layers.clear()
        for layer in layers:
            self.append(layer)

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, sublayer):
        """Add ``sublayer`` at the end; returns self."""
        self.add_sublayer(str(len(self._sub_layers)), sublayer)
        return self

    def extend(self, sublayers):
        """Append each layer of ``sublayers``; returns self."""
        for layer in sublayers:
            self.append(layer)
        return self

    def insert(self, index, sublayer):
        """Insert ``sublayer`` before position ``index`` (sublayers are renumbered)."""
        layers = list(self._sub_layers.values())
        layers.insert(index, sublayer)
        self._sub_layers.clear()
        for layer in layers:
            self.append(layer)


class LayerDict(Layer):
    """An ordered dict of sublayers (Paddle's ``LayerDict``): ``d['fc']``, ``d['fc'] = layer``,
    ``del d['fc']``, ``len``, ``in``, iteration over keys, ``keys/values/items``, ``pop``,
    ``clear`` and ``update`` (from a dict, a LayerDict, or ``(key, layer)`` pairs)."""

    def __init__(self, sublayers: Mapping[str, Layer] | Iterable[tuple[str, Layer]] | None = None) -> None:
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key):
        return self._sub_layers[key]

    def __setitem__(self, key, sublayer):
        self.add_sublayer(key, sublayer)

    def __delitem__(self, key):
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key):
        return key in self._sub_layers

    def clear(self):
        """Remove every sublayer."""
        self._sub_layers.clear()

    def pop(self, key):
        """Remove and return the sublayer under ``key``."""
        return self._sub_layers.pop(key)

    def keys(self):
        """The sublayer names."""
        return self._sub_layers.keys()

    def items(self):
        """(name, sublayer) pairs."""
        return self._sub_layers.items()

    def values(self):
        """The sublayers."""
        return self._sub_layers.values()

    def update(self, sublayers):
        """Add layers from a mapping (in its order) or an iterable of ``(key, layer)`` pairs."""
        if isinstance(sublayers, (dict, LayerDict)):
            pairs = list(sublayers.items())
        else:
            pairs = []
            for i, item in enumerate(sublayers):
                if not (isinstance(item, (list, tuple)) and len(item) == 2):
                    raise ValueError(f"LayerDict.update: element #{i} should be a (key, layer) pair, got {item!r}")
                pairs.append(tuple(item))
        for key, layer in pairs:
            self.add_sublayer(key, layer)
