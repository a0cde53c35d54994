"""The loop indices of a figure step, and what they make of the code a CUDA block shows: the seed pages' ``// i = 0,
j = 1`` above a block and ``1*Bc`` in it, computed from the step, never typed per block.

A step's indices are its ``at`` ({"i": 0, "j": 1}, figure contract A). A step without one (a page drawn before its
figure recorded indices) gets them from its label: ``i = K``, ``j = K`` and ``s = K``, and ``block K`` (i),
``split K`` (s), ``tile K`` (i), the pages' own words for the index of the kernel's grid or loop.

`notes(source, numbers, at)` reads the declarations on the lines shown: a name the step fixes gets ``i = 0``; a
name declared from an expression over the step's indices (``int col0 = j*Bc;``) gets that expression with the
indices put in, ``col0 = 1*Bc``; so, in turn, may a declaration over those (``col0 = n_start + 1*Bc``, with
``n_start = 0*S`` above it). Their values depend on the sizes the figure shows, which the reader may change: the
browser computes them (web/src/page/cuda-code.js, with the C arithmetic of c-expr.js), and the builder runs that
same code (site.cuda_render): ``col0 = 1*Bc = 4``.
"""

import re

from ..cuda.scope import code, declares

_PAIR = re.compile(r"\b([ijs])\s*=\s*(\d+)\b")  # the pages' loop indices (not "l = 0", a value)
_WORDS = {"block": "i", "split": "s", "tile": "i"}
_WORD = re.compile(rf"\b({'|'.join(_WORDS)})\s+(\d+)\b")
_ASSIGN = re.compile(r"\b([A-Za-z_]\w*)\s*=(?!=)")


def indices(step):
    """{name: int} of a step (a Scene step dict): its `at`, else what its label says (see the module docstring)."""
    if isinstance(step.get("at"), dict):
        return dict(step["at"])
    label = step.get("label", "")
    found = {_WORDS[m.group(1)]: int(m.group(2)) for m in _WORD.finditer(label)}
    found.update({m.group(1): int(m.group(2)) for m in _PAIR.finditer(label)})
    return found


def notes(source, numbers, at):
    """The declarations on the lines `numbers` of `source` (a scope.Source) that the step with indices `at` may give
    a value, in order, as the browser takes them (web/src/page/cuda-code.js, blockNotes):

    - ``[n, name]``: line n declares an index of the step (``for (int j = 0; ...)``: ``j = 1``);
    - ``[n, name, expr, over]``: line n declares `name` = `expr` (the indices put in: ``1*Bc``) over the names
      `over` of an index or of a declaration noted above it. Which of these are noted, and their values, depend on
      the sizes: a note when one of `over` was noted, and when its value is known or `over` names an index."""
    out, candidates = [], set(at)
    for n in numbers:
        text = code(source.line(n).text)
        inits = initializers(text)
        for name in declares(text):
            if name in at:
                out.append([n, name])
            elif name in inits:
                over = [x for x in dict.fromkeys(re.findall(r"[A-Za-z_]\w*", inits[name])) if x in candidates]
                if over:
                    out.append([n, name, substitute(inits[name], at), over])
                    candidates.add(name)
    return out


def initializers(text):
    """{name: expression} of the ``name = expression`` of a line of code, each up to its `,` `;` or `)`."""
    found = {}
    for m in _ASSIGN.finditer(text):
        depth, end = 0, m.end()
        while end < len(text) and not (depth == 0 and text[end] in ",;)"):
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        found.setdefault(m.group(1), text[m.end() : end].strip())
    return found


def substitute(expr, values):
    """`expr` with each name of `values` replaced by its value: ``j*Bc`` -> ``1*Bc``."""
    return re.sub(r"[A-Za-z_]\w*", lambda m: str(values.get(m.group(), m.group())), expr)
