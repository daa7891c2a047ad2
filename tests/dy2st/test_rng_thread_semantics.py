"""Random draws from several threads: each seeding thread's stream is its own and repeatable;
unseeded threads share the process stream without corrupting it (runtime/random.py).

Dropout runs eagerly and inside a converted function, in two threads at once, and is compared
with the same calls made by one thread alone.
"""
import threading

import numpy as np

import dy2st
import runtime as rt
import runtime.nn.functional as F

STEPS = 30


def run_threads(targets):
    errors = []

    def wrap(fn):
        def run():
            try:
                fn()
            except BaseException as e:  # noqa: BLE001  (reported by the main thread)
                errors.append(e)
        return run

    threads = [threading.Thread(target=wrap(fn)) for fn in targets]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if errors:
        raise errors[0]


def dropout_sequence(seed, drop, steps=STEPS):
    """The masks `drop` draws in this thread after rt.seed(seed)."""
    rt.seed(seed)
    x = rt.ones([64], "float32")
    return [drop(x).numpy().copy() for _ in range(steps)]


def eager_drop(x):
    return F.dropout(x, 0.5, training=True)


static_drop = dy2st.to_static(eager_drop)


def test_each_seeding_thread_draws_its_own_repeatable_dropout_sequence():
    for drop in (eager_drop, static_drop):
        alone = {s: dropout_sequence(s, drop) for s in (1, 2)}
        got = {}
        run_threads([lambda s=s: got.__setitem__(s, dropout_sequence(s, drop)) for s in (1, 2)])
        for s in (1, 2):
            np.testing.assert_array_equal(np.stack(got[s]), np.stack(alone[s]))
        assert not np.array_equal(np.stack(got[1]), np.stack(got[2]))


def test_unseeded_threads_share_the_process_stream_without_corrupting_it():
    # Every draw is one of the seeded stream's own draws, none lost or repeated, whatever the
    # interleaving (numpy locks each draw).
    rt.seed(7)
    reference = [rt.rand([256]).numpy().tobytes() for _ in range(2 * STEPS)]
    rt.seed(7)
    drawn = []

    def draw():
        for _ in range(STEPS):
            drawn.append(rt.rand([256]).numpy().tobytes())

    run_threads([draw, draw])
    assert sorted(drawn) == sorted(reference)


def test_seeding_in_a_thread_does_not_move_another_seeded_thread():
    rt.seed(3)
    expected = [rt.rand([8]).numpy() for _ in range(4)]
    rt.seed(3)
    first = [rt.rand([8]).numpy() for _ in range(2)]
    run_threads([lambda: dropout_sequence(11, eager_drop, steps=5)])
    rest = [rt.rand([8]).numpy() for _ in range(2)]
    np.testing.assert_array_equal(np.stack(first + rest), np.stack(expected))
