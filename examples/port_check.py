"""The checks every ported model in ``examples/`` goes through (used by cnn_port, rnn_port, bert_port).

1. Train a few steps twice from the same weights, eagerly and with ``dy2st.to_static``: the
   losses must be equal step by step.
2. Save the converted model with ``InputSpec([None, ...])`` specs (one Program for every size).
3. Load it in a fresh process (``load_and_run.py``, which never imports the model's class) and
   run it at two batch sizes: the outputs must equal the eager model's.
"""
import os
import subprocess
import sys

import numpy as np

import dy2st
import runtime as rt

HERE = os.path.dirname(os.path.abspath(__file__))


def train_both(make_model, batches, loss_fn, input_spec, lr=0.01):
    """Train an eager copy and a ``to_static`` copy of ``make_model()`` on ``batches``
    (lists of Tensors: the inputs, then the label); returns (eager, static, losses)."""
    eager = make_model()
    static = make_model()
    static.set_state_dict(eager.state_dict())
    static = dy2st.to_static(static, input_spec=input_spec)
    losses = []
    for model in (eager, static):
        rt.seed(1234)  # the same dropout masks in both runs
        model.train()
        opt = rt.optimizer.Adam(learning_rate=lr, parameters=model.parameters())
        run = []
        for *inputs, label in batches:
            loss = loss_fn(model(*inputs), label)
            loss.backward()
            opt.step()
            opt.clear_grad()
            run.append(float(loss))
        losses.append(run)
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-6, atol=0,
                               err_msg="to_static training losses differ from eager")
    traced = len(static.forward.program_cache)
    if traced != 1:
        raise AssertionError(f"training traced {traced} Programs; one should serve every batch size")
    return eager, static, losses[0]


def check_saved_model(eager, static, prefix, input_spec, calls):
    """Save ``static``; load it in a fresh process; compare it with ``eager`` on each call's inputs."""
    eager.eval()
    static.eval()
    dy2st.save(static, prefix, input_spec=input_spec)
    in_path, out_path = prefix + ".inputs.npz", prefix + ".outputs.npz"
    np.savez(in_path, **{f"call{i}_arg{j}": np.asarray(a) for i, args in enumerate(calls)
                         for j, a in enumerate(args)})
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in [os.path.dirname(HERE),
                                                                   os.environ.get("PYTHONPATH")] if p))
    res = subprocess.run([sys.executable, os.path.join(HERE, "load_and_run.py"), prefix, in_path, out_path],
                         capture_output=True, text=True, env=env, timeout=120)
    if res.returncode != 0:
        raise RuntimeError(f"loading {prefix} in a fresh process failed:\n{res.stderr}")
    with np.load(out_path, allow_pickle=False) as got:
        for i, args in enumerate(calls):
            want = eager(*[rt.to_tensor(a) for a in args])
            want = want if isinstance(want, (list, tuple)) else [want]
            for j, w in enumerate(want):
                np.testing.assert_allclose(got[f"call{i}_out{j}"], w.numpy(), rtol=1e-5, atol=1e-6,
                                           err_msg=f"{prefix}: call {i} output {j}")
    return [tuple(np.shape(a) for a in args) for args in calls]
