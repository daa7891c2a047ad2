"""Program's tools are methods of the class (not attached by an install step at import)."""
import runtime as rt
from runtime.framework import Program


def test_program_methods_are_defined_on_the_class():
    for name in ("clone", "to_dot", "render", "state_dict", "set_state_dict"):
        assert vars(Program)[name].__module__ == "runtime.framework", name


def test_clone_and_state_dict_through_the_methods():
    prog = Program()
    with rt.static.program_guard(prog), rt.framework.static_mode_guard(True):
        x = rt.static.data("x", [2], "float32")
        y = x * 2.0
    copy = prog.clone(for_test=True)
    assert [op.type for op in copy.global_block().ops] == [op.type for op in prog.global_block().ops]
    assert y.name in copy.global_block().vars
    assert "digraph Program" in prog.to_dot()
    assert prog.state_dict() == {}
