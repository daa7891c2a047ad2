"""set_verbosity / set_code_level take their levels as Paddle's do (test_logging_utils.py): an int,
or None for the environment variable's level; a str or float level, or a non-bool
also_to_stdout, is a TypeError (a str was converted and None crashed inside int())."""
import pytest

import dy2st
from dy2st.frontend import config


def test_levels_are_checked_and_none_reads_the_environment(monkeypatch):
    try:
        for bad in ("3", 3.3):
            with pytest.raises(TypeError, match="level must be an int"):
                dy2st.set_verbosity(bad)
            with pytest.raises(TypeError, match="level must be an int"):
                dy2st.set_code_level(bad)
        with pytest.raises(TypeError, match="also_to_stdout must be a bool"):
            dy2st.set_verbosity(also_to_stdout=1)
        monkeypatch.setenv("DY2ST_VERBOSITY", "2")
        monkeypatch.setenv("DY2ST_CODE_LEVEL", "3")
        dy2st.set_verbosity(None)
        dy2st.set_code_level(None)
        assert (config.verbosity(), config.code_level()) == (2, 3)
        dy2st.set_code_level(9, also_to_stdout=True)
        assert config.code_level() == 9
    finally:
        dy2st.set_verbosity(0)
        dy2st.set_code_level(-1)
