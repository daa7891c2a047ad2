"""Indices among tied values: topk, kthvalue, argsort/sort and mode give PaddlePaddle 3.3's (its CPU
kernels' libstdc++ sort, partial_sort and nth_element orders, not index order), eagerly and in
converted code. Expected values were read from Paddle 3.3 on the same inputs."""
import numpy as np

import dy2st
import runtime as rt
from tests.hunt.eager_checks import same

X1 = np.array([1, 3, 3, 2, 3, 1, 2, 3], "float32")
X2 = np.array([[1, 3, 3, 2, 3, 1], [2, 2, 1, 1, 2, 2], [5, 5, 5, 5, 5, 5]], "float32")
PADDLE = {  # name -> (1-D answer, 2-D answer)
    "topk": ([4, 7, 2], [[2, 4, 1], [1, 5, 4], [3, 5, 4]]),
    "topk_small": ([5, 0, 3], [[5, 0, 3], [2, 3, 5], [3, 5, 4]]),
    "topk_unsorted": ([4, 7, 2], [[2, 4, 1], [1, 5, 4], [3, 5, 4]]),
    "kth2": (0, [0, 3, 5]),
    "kth3": (3, [3, 5, 4]),
    "argsort": ([0, 5, 3, 6, 1, 2, 4, 7], [[0, 5, 3, 1, 2, 4], [2, 3, 0, 1, 4, 5], [0, 1, 2, 3, 4, 5]]),
    "argsort_desc": ([1, 2, 4, 7, 3, 6, 0, 5], [[1, 2, 4, 3, 0, 5], [0, 1, 4, 5, 2, 3], [0, 1, 2, 3, 4, 5]]),
    "mode": (7, [4, 5, 5]),
}
AXIS0 = {"topk": [[2, 2, 2, 2, 2, 2], [1, 0, 0, 0, 0, 1]], "topk_small": [[0, 1, 1, 1, 1, 0], [1, 0, 0, 0, 0, 1]],
         "kth2": [1, 0, 0, 0, 0, 1], "argsort": [[0, 1, 1, 1, 1, 0], [1, 0, 0, 0, 0, 1], [2, 2, 2, 2, 2, 2]],
         "argsort_desc": [[2, 2, 2, 2, 2, 2], [1, 0, 0, 0, 0, 1], [0, 1, 1, 1, 1, 0]], "mode": [0, 1, 1, 1, 1, 0]}


def orders(x, axis=-1):
    return {"topk": rt.topk(x, 3 if axis == -1 else 2, axis=axis)[1],
            "topk_small": rt.topk(x, 3 if axis == -1 else 2, axis=axis, largest=False)[1],
            "topk_unsorted": rt.topk(x, 3, axis=axis, sorted=False)[1],
            "kth2": rt.kthvalue(x, 2, axis=axis)[1], "kth3": rt.kthvalue(x, 3, axis=axis)[1],
            "argsort": rt.argsort(x, axis=axis), "argsort_desc": rt.argsort(x, axis=axis, descending=True),
            "argsort_stable_desc": rt.argsort(x, axis=axis, descending=True, stable=True),
            "sort": rt.sort(x, axis=axis), "mode": rt.mode(x, axis=axis)[1]}


def test_tie_indices_are_paddles_eager_and_converted():
    sf = dy2st.to_static(orders)
    for k, x in enumerate((X1, X2)):
        for got in (orders(rt.to_tensor(x)), sf(rt.to_tensor(x))):
            for name, answers in PADDLE.items():
                assert got[name].numpy().tolist() == answers[k], name
            stable = np.argsort(-x, axis=-1, kind="stable")  # Paddle's stable=True: index order
            assert got["argsort_stable_desc"].numpy().tolist() == stable.tolist()
    for got in (orders(rt.to_tensor(X2), 0), sf(rt.to_tensor(X2), 0)):
        for name, answer in AXIS0.items():
            assert got[name].numpy().tolist() == answer, name


# Rows of 40 values in 0..3 (libstdc++'s introsort partitions past 16 elements): Paddle 3.3's answers.
BIG = np.random.default_rng(0).integers(0, 4, size=(3, 40)).astype("float32")
BIG_PADDLE = {
    "argsort0": [36, 5, 6, 7, 8, 34, 32, 31, 27, 23, 20, 39, 38, 37, 24, 3, 4, 12, 1, 2, 35, 10, 29, 15, 26, 13,
                 22, 18, 17, 16, 25, 14, 28, 30, 11, 21, 33, 9, 0, 19],
    "argsort_desc0": [25, 0, 28, 21, 33, 30, 9, 11, 19, 14, 13, 26, 22, 29, 18, 17, 16, 15, 12, 10, 35, 2, 1, 39,
                      37, 38, 24, 20, 4, 3, 27, 23, 8, 31, 32, 7, 34, 6, 36, 5],
    "topk": [[11, 33, 30, 9, 25], [18, 10, 13, 15, 24], [25, 8, 34, 32, 21]],
    "topk_small": [[31, 8, 34, 32, 7], [4, 25, 36, 3, 2], [17, 27, 23, 26, 16]],
    "kth7": [23, 16, 39], "mode": [16, 17, 7],
}


def big(x):
    return {"argsort0": rt.argsort(x)[0], "argsort_desc0": rt.argsort(x, descending=True)[0],
            "topk": rt.topk(x, 5)[1], "topk_small": rt.topk(x, 5, largest=False)[1],
            "kth7": rt.kthvalue(x, 7)[1], "mode": rt.mode(x)[1], "sorted": rt.sort(x, descending=True)}


def test_long_rows_follow_paddle_through_one_program():
    sf = dy2st.to_static(big)
    for got in (big(rt.to_tensor(BIG)), sf(rt.to_tensor(BIG))):
        for name, answer in BIG_PADDLE.items():
            assert got[name].numpy().tolist() == answer, name
    rng = np.random.default_rng(5)
    for _ in range(3):  # other tie-heavy values of the same shape: converted equals eager
        x = rt.to_tensor(rng.integers(0, 3, size=(3, 40)).astype("float32"))
        eager, converted = big(x), sf(x)
        same([eager[k] for k in sorted(eager)], [converted[k] for k in sorted(eager)])
    assert sf.get_traced_count() == 1
