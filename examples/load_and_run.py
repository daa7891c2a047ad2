"""Run a saved model in a fresh process, without the Python class that defined it.

    python examples/load_and_run.py PREFIX IN.npz OUT.npz

IN.npz holds the inputs of one or more calls as ``call{i}_arg{j}``; OUT.npz gets the outputs as
``call{i}_out{j}``.  Only ``runtime`` and ``dy2st`` are imported here.
"""
import sys

import numpy as np

import dy2st
import runtime as rt


def main(prefix, in_path, out_path):
    model = dy2st.load(prefix)
    model.eval()
    with np.load(in_path, allow_pickle=False) as data:
        calls = {}
        for key in data.files:
            i, j = (int(part[len(tag):]) for part, tag in zip(key.split("_"), ("call", "arg")))
            calls.setdefault(i, {})[j] = data[key]
    outs = {}
    for i, args in sorted(calls.items()):
        res = model(*[rt.to_tensor(args[j]) for j in sorted(args)])
        res = res if isinstance(res, (list, tuple)) else [res]
        for j, r in enumerate(res):
            outs[f"call{i}_out{j}"] = r.numpy()
    np.savez(out_path, **outs)
    print(f"ran {len(calls)} calls of {prefix}")


if __name__ == "__main__":
    main(*sys.argv[1:])
