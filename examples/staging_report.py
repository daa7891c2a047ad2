"""A function mixing tensor-dependent and Python-valued control flow.

    dy2st convert examples/staging_report.py --explain
    dy2st convert examples/staging_report.py --program
"""
import runtime as rt
import dy2st


@dy2st.to_static(input_spec=[dy2st.InputSpec([None, 4], "float32", "x"), dy2st.InputSpec([], "int64", "n")])
def model(x, n, flag=True):
    if x.mean() > 0:
        y = x * 2
        z = x
    else:
        y = x - 1
    i = 0
    while i < n:
        y = y + 1
        i += 1
    for k in range(3):
        y = y + k
    if flag and x.shape[1] == 4:
        y = rt.tanh(y)
    assert y.sum() > -1e9, "sanity"
    w = y if y.mean() > 0 else -y
    if not flag:
        w = w + z
    return w
