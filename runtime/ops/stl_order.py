"""The index order Paddle's CPU kernels give tied values: they sort (value, index) pairs comparing
values only with libstdc++'s ``std::sort`` (argsort, mode), ``std::partial_sort`` or
``std::nth_element`` (topk, kthvalue), which leave ties in an order of their own (not index
order). These are those algorithms step by step (GCC's introsort, heap select and introselect), on
one row of ``(value, index)`` pairs, so the indices match Paddle's on ties.

Python loops: a row is handed here only when it holds ties (or an order nothing else fixes); a row
of distinct values has one answer, which numpy's sort gives (see ``sort.py``).
"""
import numpy as np

_THRESHOLD = 16  # libstdc++'s _S_threshold: insertion sort below it


def less_for(descending):
    """Paddle's comparator on values: nan is the largest (first descending, last ascending)."""
    if descending:
        return lambda a, b: (a != a and b == b) or a > b
    return lambda a, b: (a == a and b != b) or a < b


def _lg(n):
    return n.bit_length() - 1


def _move_median_to_first(v, result, a, b, c, less):
    if less(v[a][0], v[b][0]):
        if less(v[b][0], v[c][0]):
            m = b
        elif less(v[a][0], v[c][0]):
            m = c
        else:
            m = a
    elif less(v[a][0], v[c][0]):
        m = a
    elif less(v[b][0], v[c][0]):
        m = c
    else:
        m = b
    v[result], v[m] = v[m], v[result]


def _unguarded_partition(v, first, last, pivot, less):
    p = v[pivot][0]
    while True:
        while less(v[first][0], p):
            first += 1
        last -= 1
        while less(p, v[last][0]):
            last -= 1
        if not first < last:
            return first
        v[first], v[last] = v[last], v[first]
        first += 1


def _partition_pivot(v, first, last, less):
    mid = first + (last - first) // 2
    _move_median_to_first(v, first, first + 1, mid, last - 1, less)
    return _unguarded_partition(v, first + 1, last, first, less)


def _push_heap(v, first, hole, top, value, less):
    parent = (hole - 1) // 2
    while hole > top and less(v[first + parent][0], value[0]):
        v[first + hole] = v[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    v[first + hole] = value


def _adjust_heap(v, first, hole, length, value, less):
    top = second = hole
    while second < (length - 1) // 2:
        second = 2 * (second + 1)
        if less(v[first + second][0], v[first + second - 1][0]):
            second -= 1
        v[first + hole] = v[first + second]
        hole = second
    if length % 2 == 0 and second == (length - 2) // 2:
        second = 2 * (second + 1)
        v[first + hole] = v[first + second - 1]
        hole = second - 1
    _push_heap(v, first, hole, top, value, less)


def _make_heap(v, first, last, less):
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(v, first, parent, length, v[first + parent], less)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(v, first, last, result, less):
    value = v[result]
    v[result] = v[first]
    _adjust_heap(v, first, 0, last - first, value, less)


def _heap_select(v, first, middle, last, less):
    _make_heap(v, first, middle, less)
    for i in range(middle, last):
        if less(v[i][0], v[first][0]):
            _pop_heap(v, first, middle, i, less)


def _sort_heap(v, first, last, less):
    while last - first > 1:
        last -= 1
        _pop_heap(v, first, last, last, less)


def partial_sort(v, first, middle, last, less):
    """``std::partial_sort``: the smallest ``middle - first`` (by ``less``) sorted at the front."""
    _heap_select(v, first, middle, last, less)
    _sort_heap(v, first, middle, less)


def _linear_insert(v, last, less):
    value = v[last]
    nxt = last - 1
    while less(value[0], v[nxt][0]):
        v[last] = v[nxt]
        last = nxt
        nxt -= 1
    v[last] = value


def _insertion_sort(v, first, last, less):
    if first == last:
        return
    for i in range(first + 1, last):
        if less(v[i][0], v[first][0]):
            value = v[i]
            v[first + 1:i + 1] = v[first:i]
            v[first] = value
        else:
            _linear_insert(v, i, less)


def _introsort_loop(v, first, last, depth, less):
    while last - first > _THRESHOLD:
        if depth == 0:
            partial_sort(v, first, last, last, less)
            return
        depth -= 1
        cut = _partition_pivot(v, first, last, less)
        _introsort_loop(v, cut, last, depth, less)
        last = cut


def sort(v, first, last, less):
    """``std::sort`` of ``v[first:last]``."""
    if last - first < 2:
        return
    _introsort_loop(v, first, last, _lg(last - first) * 2, less)
    if last - first > _THRESHOLD:
        _insertion_sort(v, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):
            _linear_insert(v, i, less)
    else:
        _insertion_sort(v, first, last, less)


def nth_element(v, first, nth, last, less):
    """``std::nth_element``: ``v[nth]`` is the element a full sort would put there."""
    if first == last or nth == last:
        return
    depth = _lg(last - first) * 2
    while last - first > 3:
        if depth == 0:
            _heap_select(v, first, nth + 1, last, less)
            v[first], v[nth] = v[nth], v[first]
            return
        depth -= 1
        cut = _partition_pivot(v, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(v, first, last, less)


def pairs(row):
    """The (value, index) pairs of a 1-D row, as Python numbers (nan stays nan)."""
    return list(zip(row.tolist(), range(len(row))))


def has_ties(rows):
    """Per row of a 2-D array: whether two values are equal (or two are nan, which the comparator
    cannot order either), so that the order among them is the algorithm's own."""
    if rows.shape[1] < 2:
        return [False] * rows.shape[0]
    s = rows.copy()
    s.sort(axis=1)
    same = s[:, 1:] == s[:, :-1]
    if s.dtype.kind in "fc":
        same |= (s[:, 1:] != s[:, 1:]) & (s[:, :-1] != s[:, :-1])
    return same.any(axis=1).tolist()


def rows_of(x, axis):
    """``x`` with ``axis`` moved last, as a 2-D array of rows (and the moved shape)."""
    m = np.moveaxis(x, axis, -1)
    return m.reshape(-1, m.shape[-1]), m.shape


def replace_rows(idx, axis, pick, fn):
    """``idx`` (indices along ``axis``) with the rows ``pick`` says replaced by ``fn(r)`` (a list)."""
    rows, moved = rows_of(idx, axis)
    rows = rows.copy()
    for r, take in enumerate(pick):
        if take:
            rows[r] = fn(r)
    return np.moveaxis(rows.reshape(moved), -1, axis)


def argsort_row(row, descending):
    """Paddle's argsort (``std::sort``) of one row."""
    v = pairs(row)
    sort(v, 0, len(v), less_for(descending))
    return [i for _, i in v]


def topk_row(row, k, largest, sorted_):  # noqa: D401
    """Paddle's topk indices of one row: ``std::partial_sort`` for a small k, else ``nth_element``
    (and ``std::sort`` of the first k - 1 when ``sorted_``)."""
    v, less, n = pairs(row), less_for(largest), len(row)
    if k * 64 < n:
        partial_sort(v, 0, k, n, less)
    elif k > 0:
        nth_element(v, 0, k - 1, n, less)
        if sorted_:
            sort(v, 0, k - 1, less)
    return [i for _, i in v[:k]]


def kth_row(row, k):
    """Paddle's kthvalue index of one row (as ``topk_row`` for the smallest, without the sort)."""
    v, less, n = pairs(row), less_for(False), len(row)
    if k * 64 < n:
        partial_sort(v, 0, k, n, less)
    else:
        nth_element(v, 0, k - 1, n, less)
    return v[k - 1][1]


def mode_row(row):
    """Paddle's mode of one row: ``std::sort``, then the last pair of the first longest run."""
    v = pairs(row)
    sort(v, 0, len(v), less_for(False))
    best = cur = 0
    found = v[0]
    for i in range(len(v)):
        cur += 1
        if i == len(v) - 1 or v[i + 1][0] != v[i][0]:
            if cur > best:
                best, found = cur, v[i]
            cur = 0
    return found
