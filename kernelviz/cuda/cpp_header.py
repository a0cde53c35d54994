"""The C++ headers this package writes from Python tables (cpu/fragments.h from fragments.py, cpu/hopper_layouts.h
from hopper.py), in one format: a first line saying which command wrote the file from which module and what it holds,
``#pragma once``, then the parts; a table is an ``inline constexpr int`` array, one row of its first index a line."""


def array(name, rows):
    """``inline constexpr int NAME[a][b][c] = {...};`` of `rows`, a list (a) of lists (b) of tuples (c) of ints."""
    body = ",\n".join("    {" + ", ".join("{" + ", ".join(map(str, e)) + "}" for e in row) + "}" for row in rows)
    dims = f"[{len(rows)}][{len(rows[0])}][{len(rows[0][0])}]"
    return f"inline constexpr int {name}{dims} = {{\n{body}\n}};\n"


def header(module, what, parts):
    """The text of the header `python -m kernelviz.cuda.MODULE` writes: `what` it holds, then `parts`, a blank line
    between each."""
    first = f"// Written by `python -m kernelviz.cuda.{module}` from {module}.py: {what}.\n"
    return "\n".join([first, "#pragma once\n", *parts])
