"""Peer engines on a workload's own weights and inputs: PyTorch, JAX and PaddlePaddle, each optional.

``make(name, workload, threads)`` -> (engines, notes).  An absent peer gives a
note ("PyTorch: not installed (...)") instead of an engine; a peer that fails to
build gives a note with its error.  Peers are for measuring only, never project
dependencies.  JAX and Paddle live in ``peers_jax.py`` / ``peers_paddle.py``.
"""
import os

import peers_jax
import peers_paddle
import workloads


def _torch(threads):
    try:
        import torch  # noqa: PLC0415
    except ImportError:
        return None
    if threads:
        torch.set_num_threads(threads)
    return torch


def _mlp(torch, wl):
    ws = [(torch.from_numpy(wl.weights[f"fcs.{i}.weight"]), torch.from_numpy(wl.weights[f"fcs.{i}.bias"]))
          for i in range(4)]
    x = torch.from_numpy(wl.inputs["x"])

    def run():
        with torch.no_grad():
            h = x
            for w, b in ws:
                h = torch.relu(torch.addmm(b, h, w))
            return [h.numpy()]
    return run


def _rnn(torch, wl):
    w = {k: torch.from_numpy(v) for k, v in wl.weights.items()}
    xs = torch.from_numpy(wl.inputs["xs"])
    n = torch.from_numpy(wl.inputs["n"])

    def run():
        with torch.no_grad():
            h = torch.zeros(xs.shape[1], xs.shape[2])
            i = torch.zeros(1, dtype=torch.int64)
            while bool(i < n):  # the same data-dependent loop, eagerly
                h = torch.tanh(h @ w["w.weight"] + (xs[int(i)] @ w["u.weight"] + w["u.bias"]))
                i = i + 1
            return [h.numpy()]
    return run


def _bert(torch, wl, h, layers):
    w = {k: torch.from_numpy(v) for k, v in wl.weights.items()}
    ids = torch.from_numpy(wl.inputs["ids"])
    heads = max(1, h // 64)
    d = h // heads
    F = torch.nn.functional

    def run():
        with torch.no_grad():
            x = F.layer_norm(w["tok.weight"][ids] + w["pos.weight"], (h,), w["ln.weight"], w["ln.bias"], 1e-12)
            b, s = ids.shape
            for i in range(layers):
                p = f"layers.{i}."
                qkv = torch.addmm(w[p + "qkv.bias"], x.reshape(-1, h), w[p + "qkv.weight"])
                qkv = qkv.reshape(b, s, 3, heads, d).permute(2, 0, 3, 1, 4)
                att = torch.softmax(qkv[0] @ qkv[1].transpose(-1, -2) * (d ** -0.5), -1)
                ctx = (att @ qkv[2]).permute(0, 2, 1, 3).reshape(b, s, h)
                x = F.layer_norm(x + ctx @ w[p + "proj.weight"] + w[p + "proj.bias"], (h,),
                                 w[p + "ln1.weight"], w[p + "ln1.bias"], 1e-12)
                f = F.gelu(x @ w[p + "fc1.weight"] + w[p + "fc1.bias"])
                x = F.layer_norm(x + f @ w[p + "fc2.weight"] + w[p + "fc2.bias"], (h,),
                                 w[p + "ln2.weight"], w[p + "ln2.bias"], 1e-12)
            return [x.numpy()]
    return run


def _train(torch, wl):
    # torch.nn.Linear keeps weight as [out, in]: transpose the shared [in, out] weights.
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    with torch.no_grad():
        for lin, name in ((model[0], "fc1"), (model[2], "fc2")):
            lin.weight.copy_(torch.from_numpy(wl.weights[f"{name}.weight"].T.copy()))
            lin.bias.copy_(torch.from_numpy(wl.weights[f"{name}.bias"]))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.from_numpy(wl.inputs["x"]), torch.from_numpy(wl.inputs["y"])

    def run():
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return [loss.detach().numpy()]
    return run


def _compiled(torch, name, build, notes):
    """``torch.compile`` of the same engines: the step function itself is compiled (inductor)."""
    try:
        fn = torch.compile(build[name]())
        if name != "train":
            fn()  # compile now: the first call takes the C++ build
        return {"torch.compile": fn}
    except Exception as e:  # noqa: BLE001  (no compiler or an unsupported graph: a note, not a crash)
        notes.append(f"torch.compile: failed ({type(e).__name__}: {str(e).splitlines()[0][:120]})")
        return {}


def make(name, wl, threads):
    """Peer engines for workload ``name`` and notes on the peers that are absent."""
    engines, notes = {}, []
    torch = _torch(threads)
    if torch is None:
        notes.append("PyTorch: not installed (pip install torch)")
    else:
        build = {"mlp": lambda: _mlp(torch, wl), "rnn": lambda: _rnn(torch, wl), "train": lambda: _train(torch, wl),
                 "tiny_bert": lambda: _bert(torch, wl, 64, 2), "small_bert": lambda: _bert(torch, wl, 256, 4)}
        engines["torch eager"] = build[name]()
        if os.environ.get("DY2ST_BENCH_TORCH_COMPILE") == "1":
            engines.update(_compiled(torch, name, build, notes))
        else:
            notes.append("torch.compile: skipped (its C++ build takes about a minute per workload here; "
                         "set DY2ST_BENCH_TORCH_COMPILE=1)")
    for label, mod, pip_name, args in (("JAX", peers_jax, "jax jaxlib", ()),
                                       ("PaddlePaddle", peers_paddle, "paddlepaddle", (workloads,))):
        lib = mod.load(threads)
        if lib is None:
            notes.append(f"{label}: not installed (pip install {pip_name})")
            continue
        try:
            built = mod.make(name, wl, lib, *args)
            for fn in built.values() if wl.inference else ():  # a training step would move the weights
                fn()  # converts / compiles now, so a failure is a note rather than a crash
            engines.update(built)
        except Exception as e:  # noqa: BLE001  (a peer that cannot run this model is reported, not fatal)
            notes.append(f"{label}: failed on this workload ({type(e).__name__}: {str(e).splitlines()[0][:120]})")
    return engines, notes
