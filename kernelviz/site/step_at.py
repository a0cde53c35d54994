"""The loop indices of a figure step, and what they make of the code a CUDA block shows: the seed pages' ``// i = 0,
j = 1`` above a block and ``1*Bc`` in it, computed from the step, never typed per block.

A step's indices are its ``at`` ({"i": 0, "j": 1}, figure contract A). A step without one (a page drawn before its
figure recorded indices) gets them from its label: ``i = K``, ``j = K`` and ``s = K``, and ``block K`` (i),
``split K`` (s), ``tile K`` (i), the pages' own words for the index of the kernel's grid or loop.

`notes(source, numbers, at, sizes)` reads the declarations on the lines shown: a name the step fixes gets
``i = 0``; a name declared from an expression over the step's indices (``int col0 = j*Bc;``) gets that expression
with the indices put in, and its value when the sizes (figure contract D: N, Br, Bc, ...) give every name in it:
``col0 = 1*Bc = 4``; so, in turn, does a declaration over those (``col0 = n_start + 1*Bc = 4``, with
``n_start = 0*S = 0`` above it). Expressions are the kernels' integer arithmetic: + - * / % (C's division of
non-negative numbers), parentheses, min and max.
"""

import ast
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


def banner(at):
    """The comment line above a block bound to a step with indices `at`: ``// this step: i = 0, j = 1``."""
    return "// this step: " + ", ".join(f"{k} = {v}" for k, v in at.items()) if at else ""


def notes(source, numbers, at, sizes):
    """{line number: [(name, expression with the indices put in, value or None), ...]} for the lines `numbers` of
    `source` (a scope.Source) that declare a name the step fixes or an expression over its indices."""
    out, known, noted = {}, {**sizes, **at}, set(at)
    for n in numbers:
        text = code(source.line(n).text)
        inits = initializers(text)
        for name in declares(text):
            if name in at:
                out.setdefault(n, []).append((name, str(at[name]), at[name]))
            elif name in inits and (over := set(re.findall(r"[A-Za-z_]\w*", inits[name]))) & noted:
                value = evaluate(inits[name], known)
                if value is None and not over & set(at):
                    continue  # over noted names only: worth a note when it has a value
                out.setdefault(n, []).append((name, substitute(inits[name], at), value))
                noted.add(name)
                if value is not None:
                    known[name] = value
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


def evaluate(expr, values):
    """The integer value of the C expression `expr` with names from `values`, or None when a name is unknown or
    the expression is outside the arithmetic the module docstring lists."""
    try:
        tree = ast.parse(expr.replace("/", "//"), mode="eval").body
        return _eval(tree, values)
    except (SyntaxError, KeyError, ValueError, ZeroDivisionError):
        return None


_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b}
_OPS.update({ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b})


def _eval(node, values):
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        return int(values[node.id])
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, values)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        a, b = _eval(node.left, values), _eval(node.right, values)
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and (a < 0 or b <= 0):
            raise ValueError("C's division of negative numbers is not floor division")
        return _OPS[type(node.op)](a, b)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("min", "max"):
        args = [_eval(a, values) for a in node.args]
        return (min if node.func.id == "min" else max)(args)
    raise ValueError(f"not integer arithmetic: {ast.dump(node)}")
