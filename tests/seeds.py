"""Reading the seed pages' editors: the specification's Python, exactly as a reader would paste it."""

import re

EDITOR_STARTS = (re.compile(r"^# Drawing helpers"), re.compile(r"^# The (split )?kernel"))
EDITOR_END = re.compile(r"^Run the two editors")


def seed_editors(text):
    """The two editors of a seed page: the drawing helpers, and the kernel(s) that use them."""
    lines = text.splitlines(keepends=True)
    first = next(n for n, line in enumerate(lines) if EDITOR_STARTS[0].match(line))
    second = next(n for n, line in enumerate(lines) if n > first and EDITOR_STARTS[1].match(line))
    end = next(n for n, line in enumerate(lines) if n > second and EDITOR_END.match(line))
    return "".join(lines[first:second]), "".join(lines[second:end]).rstrip() + "\n"
