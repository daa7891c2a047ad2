"""Containers: ``Sequential`` (calls its layers in order) and ``LayerList`` (an indexable list)."""
import collections

from .layer import Layer


class Sequential(Layer):
    """``Sequential(l1, l2, ...)``, ``Sequential(('name', layer), ...)`` or ``Sequential(OrderedDict)``."""

    def __init__(self, *layers):
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
    def __init__(self, sublayers=None):
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
        self.add_sublayer(str(len(self._sub_layers)), sublayer)
        return self

    def extend(self, sublayers):
        for layer in sublayers:
            self.append(layer)
        return self

    def insert(self, index, sublayer):
        layers = list(self._sub_layers.values())
        layers.insert(index, sublayer)
        self._sub_layers.clear()
        for layer in layers:
            self.append(layer)
