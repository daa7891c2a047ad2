"""Registry rows (see op_cases.py) for the Paddle 2.x functions ported models call that came later:
attention, padding and shuffling layers' functions, small math functions and losses. The references
are plain numpy, written from Paddle's formulas (checked against Paddle 3.3 outside the suite)."""
import numpy as np

from op_cases import F, case


def _sdpa(q, k, v, mask):
    q, k, v = (t.transpose(0, 2, 1, 3) for t in (q, k, v))
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1]) + mask
    w = np.exp(s - s.max(-1, keepdims=True))
    return ((w / w.sum(-1, keepdims=True)) @ v).transpose(0, 2, 1, 3)


COMPOSITES_COMPAT = {
    "scaled_dot_product_attention": case(F(2, 3, 2, 4), F(2, 5, 2, 4), F(2, 5, 2, 4), F(3, 5), ref=_sdpa),
}
