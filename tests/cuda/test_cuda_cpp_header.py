"""The one writer of the C++ headers generated from Python tables (cpu/fragments.h, cpu/hopper_layouts.h)."""

from kernelviz.cuda import cpp_header, fragments, hopper


def test_an_array_is_an_inline_constexpr_int_table_a_row_a_line():
    text = cpp_header.array("KV_T", [[(0, 1), (2, 3)], [(4, 5), (6, 7)]])
    assert text == "inline constexpr int KV_T[2][2][2] = {\n    {{0, 1}, {2, 3}},\n    {{4, 5}, {6, 7}}\n};\n"


def test_both_generated_headers_come_from_it_and_are_checked_in_as_written():
    for module, generator in (("fragments", fragments), ("hopper", hopper)):
        text = generator.header()
        first = f"// Written by `python -m kernelviz.cuda.{module}` from {module}.py: "
        assert text.startswith(first) and "\n\n#pragma once\n" in text, module
        assert generator.HEADER.read_text() == text, f"run: python -m kernelviz.cuda.{module}"
