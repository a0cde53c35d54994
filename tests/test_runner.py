"""The runner: editors in order, one namespace, pie bound, errors located at their editor and line."""

from kernelviz import pie
from kernelviz.runner import Source, run


def test_editors_share_one_namespace_with_pie_bound_and_a_cleared_scene():
    pie.point(9, 9)  # left over from before: the run starts from a cleared scene
    result = run(["W = 2\ndef box(x):\n    return pie.rectangle((x, 0), W, 1)\n", "box(1)\nbox(3)\nprint('two boxes')"])
    assert result.ok
    assert [n["kind"] for n in result.scene["nodes"]] == ["rectangle", "rectangle"]
    assert [n["corner"][0] for n in result.scene["nodes"]] == [1, 3]
    assert result.stdout == "two boxes\n" and result.outputs == ["", "two boxes\n"]


def test_each_run_starts_fresh():
    assert run(["x = 1"]).ok
    result = run(["print(x)"])
    assert result.error.kind == "NameError" and result.error.line == 1


def test_runtime_error_names_editor_and_line_and_trims_the_traceback():
    helpers = "def f(n):\n    return pie.rectangle((0, 0), n, 1)\n"
    kernel = "a = 1\nf('wide')\n"
    result = run([Source(helpers, "page.md", first_line=10), Source(kernel, "page.md#2", first_line=20)])
    err = result.error
    assert result.scene is None
    assert (err.editor, err.name, err.line, err.file_line, err.kind) == (0, "page.md", 2, 11, "TypeError")
    assert err.message == "pie.rectangle: w must be a number or a scalar node, got 'wide'"
    assert 'File "page.md#2", line 2' in err.traceback and 'File "page.md", line 2' in err.traceback
    assert "kernelviz/pie" not in err.traceback and "runner.py" not in err.traceback
    assert str(err) == "page.md:11: TypeError: pie.rectangle: w must be a number or a scalar node, got 'wide'"


def test_syntax_error_names_its_editor_and_line():
    result = run([Source("x = 1\n", "a"), Source("y = 2\nif y\n    pass\n", "b", first_line=5)])
    err = result.error
    assert (err.editor, err.line, err.file_line, err.kind) == (1, 2, 6, "SyntaxError")
    assert "expected ':'" in err.message


def test_output_before_an_error_is_kept():
    result = run(["print('a')", "print('b'); 1/0"])
    assert result.stdout == "a\nb\n" and result.outputs == ["a\n", "b\n"]
    assert result.error.kind == "ZeroDivisionError" and result.error.editor == 1


def test_system_exit_is_an_error_not_an_exit():
    result = run(["raise SystemExit(3)"])
    assert result.error.kind == "SystemExit"


def test_what_the_editors_print_is_kept_up_to_a_limit_with_a_note_of_what_was_cut():
    from kernelviz.runner import OUTPUT_LIMIT

    result = run(["for _ in range(100_000):\n    print('x' * 999)", "print('second')"])
    assert result.ok
    first, second = result.outputs
    assert first.startswith("x" * 999 + "\n") and len(first) < OUTPUT_LIMIT + 100
    assert first.endswith(f"… [output cut: {100_000 * 1000 - OUTPUT_LIMIT:,} more characters not shown]\n")
    assert second.startswith("\n… [output cut: 7 more characters")  # nothing more fits: said, not silently lost
    assert result.stdout.startswith(first[:OUTPUT_LIMIT]) and "output cut" in result.stdout
    small = run(["print('a')", "print('b')"])
    assert small.outputs == ["a\n", "b\n"] and small.stdout == "a\nb\n"
