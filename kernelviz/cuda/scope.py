"""Where the names of a .cu file are declared, and which lines a region needs around it to read on its own.

A lexical reading of the C++ the kernels of this folder are written in (one statement or block header per line,
`//` comments, no macros in the code but KV_DYNAMIC_SMEM), not a compiler. Preprocessor lines are not read
(``#ifdef KVSHIM``: what the CPU shim runs in place of inline PTX), nor names qualified by a namespace
(``kvshim::mma``, ``std::memcpy``: declared elsewhere), but for ``#include "FILE"`` of a header beside the kernels,
which declares that header's functions (`header_names`: mma_sm80.h's mma_m16n8k16, ...):

- `uses(code)`: the names a piece of code uses, less C++ keywords and CUDA's builtins (BUILTINS);
- `declares(line)`: the names a line declares (`int a = 0, b;`, `__shared__ float Qi[Br][D], Oi[Br][D];`,
  `for (int j = 0; ...)`, template and function parameters);
- `Source(text)`: a file's lines with their blocks, so that `visible(name, line)` finds the declaration in scope
  at a line, and `context(first, last)` the lines to show with the region [first, last]: the headers of the blocks
  around it, the declarations of every name it uses (and of the names those use), and the closing braces.
"""

import re
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

KEYWORDS = frozenset(
    re.findall(
        r"\S+",
        "auto bool break case char const constexpr continue default do double else false float for if inline int long "
        "return short signed sizeof static struct template true typename unsigned void while __global__ __device__ "
        "__host__ __shared__ __forceinline__ __restrict__ asm volatile nullptr static_cast reinterpret_cast "
        "static_assert extern __align__ __grid_constant__",
    )
)
BUILTINS = frozenset(
    re.findall(
        r"\S+",
        "threadIdx blockIdx blockDim gridDim __syncthreads expf exp fmaxf fminf logf log sqrtf rsqrtf min max INFINITY "
        "__int_as_float atomicAdd __syncwarp __shfl_xor_sync exp2f __cvta_generic_to_shared uint4 make_uint4 "
        "u8 u64 TensorMap CUtensorMap KV_DYNAMIC_SMEM",
    )
)
# (u8, u64, TensorMap, CUtensorMap: the types fa3.cu names with `using` and a struct, for TMA and mbarriers;
# KV_DYNAMIC_SMEM(T, name, ALIGN): the one macro a kernel's code calls, which declares `name`, its dynamic shared
# memory)
_DYNAMIC_SMEM = re.compile(r"\bKV_DYNAMIC_SMEM\([^,()]*,\s*([A-Za-z_]\w*)\s*,[^()]*\)")
TYPES = (
    r"(?:const\s+)?(?:unsigned\s+|signed\s+|long\s+)*"
    r"(?:int|float|bool|long|double|char|void|auto|short|unsigned|u8|u64|TensorMap|CUtensorMap)\b"
)
_TYPE = re.compile(rf"(?<![\w.]){TYPES}\s*\**\s*(?:\(\s*&\s*)?(?=[A-Za-z_])")  # (&a)[4]: a reference to an array
_NAME = re.compile(r"[A-Za-z_]\w*")
_COMMENT = re.compile(r"//.*")
_STRING = re.compile(r'"(?:\\.|[^"\\])*"')
_MEMBER = re.compile(r"(?:\.|->)\s*[A-Za-z_]\w*|\b[A-Za-z_]\w*::[A-Za-z_]\w*")  # a.b, a->b, and ns::name
_PREPROCESSOR = re.compile(r"^\s*#")
_ATTRIBUTE = re.compile(r"\b__(?:launch_bounds|align)__\s*\([^)]*\)")  # __launch_bounds__(128), __align__(16)
_NUMBER = re.compile(r"\b\d[\w.]*")


def code(line):
    """`line` without its comment and string literals; nothing of a preprocessor line."""
    return "" if _PREPROCESSOR.match(line) else _ATTRIBUTE.sub("", _COMMENT.sub("", _STRING.sub('""', line)))


def uses(text):
    """The names `text` uses, in order of first use: identifiers that are not keywords, builtins or members."""
    found = {}
    for line in text.splitlines():
        bare = _NUMBER.sub(" ", _MEMBER.sub(" ", code(line)))
        for name in _NAME.findall(bare):
            if name not in KEYWORDS and name not in BUILTINS:
                found.setdefault(name, None)
    return list(found)


_INCLUDE = re.compile(r'^\s*#\s*include\s+"([\w.]+)"')
FOLDER = Path(__file__).parent  # the kernels' folder, where the headers they include (mma_sm80.h) sit


@cache
def header_names(filename):
    """The names header `filename` of FOLDER declares at its top level (its functions: mma_sm80.h's mma_m16n8k16,
    ...), which a kernel's ``#include "FILE"`` line declares for it; () for a file that is not there."""
    path = FOLDER / filename
    if not path.is_file():
        return ()
    names = []
    for line in Source(path.read_text()).lines:
        if not line.blocks and line.paren == 0 and not code(line.text).lstrip().startswith("template"):
            names += declares(line.text)[:1]  # a function's name, not its parameters
    return tuple(names)


def declares(line):
    """The names `line` declares, in order (see the module docstring); an ``#include "FILE"`` of a header beside
    the kernels declares the names it does (header_names)."""
    if m := _INCLUDE.match(line):
        return list(header_names(m.group(1)))
    text = code(line)
    names = _DYNAMIC_SMEM.findall(text)
    for m in _TYPE.finditer(text):
        pos = m.end()
        while (d := _NAME.match(text, pos)) and d.group() not in KEYWORDS:
            names.append(d.group())
            pos = _skip_declarator(text, d.end())
            if pos >= len(text) or text[pos] != ",":
                break
            rest = text[pos + 1 :].lstrip()
            if re.match(TYPES, rest) or rest.startswith("template"):
                break  # the next parameter has its own type: _TYPE finds it
            pos = len(text) - len(rest)
            while pos < len(text) and text[pos] == "*":
                pos += 1
    return list(dict.fromkeys(names))


def _skip_declarator(text, pos):
    """The position of the `,`, `;`, `)` or `{` that ends the declarator starting before `pos` (brackets and an
    initializer skipped, braces and all: ``m[2] = {-INFINITY, -INFINITY}, l[2]``), or len(text)."""
    depth, initializer = 0, False
    while pos < len(text):
        ch = text[pos]
        initializer = initializer or (ch == "=" and depth == 0)
        if ch in "([" or (initializer and ch == "{"):
            depth += 1
        elif ch in ")]" or (initializer and ch == "}"):
            if depth == 0:
                return pos
            depth -= 1
        elif ch in ",;{>" and depth == 0:
            return pos
        pos += 1
    return pos


@dataclass(frozen=True)
class Line:
    number: int  # from 1
    text: str
    blocks: tuple  # the lines (numbers) whose `{` opened the blocks this line is in, outermost first
    opens: tuple  # the blocks this line opens (their `{` is on this line)
    paren: int  # parentheses open at the start of the line (> 0: it continues the statement above)
    paren_end: int  # ... and at its end


class Source:
    """A .cu file's lines, with the blocks each is in; see the module docstring."""

    def __init__(self, text, skip=lambda line: False):
        """`skip(line)`: whether a line is not part of the code to show (the region markers), though counted."""
        self.lines, self.skip = [], skip
        stack, paren = [], 0
        for n, raw in enumerate(text.splitlines(), 1):
            bare, opened = code(raw), []
            start, start_paren = tuple(stack), paren
            for ch in bare:
                if ch == "{":
                    stack.append(n)
                    opened.append(n)
                elif ch == "}" and stack:
                    stack.pop()
                elif ch == "(":
                    paren += 1
                elif ch == ")":
                    paren = max(0, paren - 1)
            self.lines.append(Line(n, raw, start, tuple(opened), start_paren, paren))

    def line(self, n):
        return self.lines[n - 1]

    @cached_property
    def declarations(self):
        """{name: [line numbers that declare it]}."""
        found = {}
        for line in self.lines:
            for name in declares(line.text):
                found.setdefault(name, []).append(line.number)
        return found

    def statement(self, n):
        """The line numbers of the statement (or block header) line n is part of: a line that starts inside
        parentheses continues the one above, and a `template <...>` line goes with the header below it."""
        first = last = n
        while first > 1 and self.line(first).paren > 0:
            first -= 1
        while last < len(self.lines) and self.line(last).paren_end > 0:
            last += 1
        if first > 1 and code(self.line(first - 1).text).lstrip().startswith("template"):
            first -= 1
        return list(range(first, last + 1))

    def scope(self, n):
        """The blocks a declaration on line n is visible in: a `for (...) {` header's own block too (a `for`
        without a brace: none beyond its own line)."""
        line = self.line(n)
        if re.match(r"\s*for\s*\(", code(line.text)):  # without a brace, the loop is its only statement
            return (*line.blocks, line.opens[0] if line.opens else -n)
        return line.blocks

    def visible(self, name, at):
        """The line of the declaration of `name` in scope at line `at` (the last one up to it), or None."""
        blocks = self.line(at).blocks
        for n in reversed(self.declarations.get(name, [])):
            scope = self.scope(n)
            if n == at or (n < at and blocks[: len(scope)] == scope):
                return n
        return None

    def context(self, first, last):
        """The line numbers to show with lines [first, last]: theirs, the headers of the blocks around them, the
        declarations of the names they use and of the names those lines use in turn, and the lines that close
        the blocks; sorted."""
        shown = {n for n in range(first, last + 1) if not self.skip(self.line(n).text)}
        for opener in self.line(first).blocks:
            shown.update(self.statement(opener))
        todo = sorted(shown)
        while todo:
            n = todo.pop()
            for name in uses(self.line(n).text):
                at = self.visible(name, n)
                if at is not None and at not in shown:
                    new = [x for x in self.statement(at) if x not in shown]
                    shown.update(new)
                    todo.extend(new)
                    for opener in self.line(at).blocks:  # a declaration inside a block shows its header
                        more = [x for x in self.statement(opener) if x not in shown]
                        shown.update(more)
                        todo.extend(more)
        for n in sorted(shown):
            for opener in self.line(n).blocks:
                shown.add(self.closing(opener))
        return sorted(shown)

    def closing(self, opener):
        """The line of the `}` that closes the block opened on line `opener`."""
        for line in self.lines[opener:]:
            if opener not in line.blocks:
                return line.number - 1
        return len(self.lines)
