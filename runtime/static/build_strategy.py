"""``rt.static.BuildStrategy``: Paddle's graph-build options, as ``to_static(build_strategy=...)`` takes them.

They choose which of Paddle's graph fusions and memory passes run, none of which changes a result;
Programs here are computed the same whichever are set, so the options are kept, type-checked and
otherwise unused. An option Paddle does not have is an AttributeError, as on Paddle's object.
"""

_OPTIONS = {
    "fuse_elewise_add_act_ops": False, "fuse_bn_act_ops": False, "fuse_bn_add_act_ops": True,
    "fuse_relu_depthwise_conv": False, "fuse_broadcast_ops": False, "fuse_all_optimizer_ops": False,
    "fuse_all_reduce_ops": False, "fuse_gemm_epilogue": False, "fused_attention": False,
    "fused_feedforward": False, "enable_addto": False, "enable_inplace": True, "memory_optimize": None,
    "enable_auto_fusion": False, "sync_batch_norm": False, "build_cinn_pass": False,
    "enable_sequential_execution": False, "remove_unnecessary_lock": True, "debug_graphviz_path": "",
    "reduce_strategy": 0, "gradient_scale_strategy": 0, "num_trainers": 1, "trainer_id": 0,
}


class BuildStrategy:
    """Paddle's ``paddle.static.BuildStrategy``: graph fusion and memory options (see the module docstring)."""

    __slots__ = tuple(_OPTIONS)

    def __init__(self):
        for name, value in _OPTIONS.items():
            setattr(self, name, value)

    def __repr__(self):
        changed = {n: getattr(self, n) for n in _OPTIONS if getattr(self, n) != _OPTIONS[n]}
        return f"BuildStrategy({', '.join(f'{k}={v!r}' for k, v in changed.items())})"
