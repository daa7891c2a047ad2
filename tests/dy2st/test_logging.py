"""Conversion messages go through the standard logging module (logger "dy2st")."""
import logging

import dy2st
import runtime as rt


def doubled(x):
    if x.sum() > 0:
        x = x * 2.0
    return x


def test_conversion_messages_are_log_records_of_the_dy2st_logger(caplog):
    sf = dy2st.to_static(doubled)
    with caplog.at_level(logging.DEBUG, logger="dy2st"):
        sf(rt.ones([2]))
        sf(rt.ones([2]))
    records = [r for r in caplog.records if r.name == "dy2st"]
    assert any(r.levelno == logging.INFO and "building a Program for doubled" in r.getMessage() for r in records)
    assert not any("cache hit" in r.getMessage() for r in records)  # per-call messages need set_verbosity(2)


def test_set_verbosity_installs_and_removes_one_handler(capsys):
    logger = logging.getLogger("dy2st")
    before = list(logger.handlers)
    try:
        dy2st.set_verbosity(1)
        dy2st.set_verbosity(1)
        assert len(logger.handlers) == len(before) + 1
        dy2st.to_static(doubled)(rt.ones([3]))
        assert "[dy2st] building a Program for doubled" in capsys.readouterr().err
    finally:
        dy2st.set_verbosity(0)
    assert logger.handlers == before
    dy2st.to_static(doubled)(rt.ones([4]))
    assert capsys.readouterr().err == ""
