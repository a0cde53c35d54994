"""Code highlighting with Pygments, class-based (the colors are in static/site-code.css under ``.kv-code``).

Python and the other languages of plain fences are written lean: a token whose class site-code.css gives no colour
(names, punctuation, operators: most of a program) is plain text, not a span, so the same look costs half the bytes
(an editor's first paint, the library's page). CUDA keeps every span: its names are linked (cuda_code.py).
"""

import functools
import re
from pathlib import Path

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import CudaLexer, PythonLexer, get_lexer_by_name
from pygments.util import ClassNotFound

_FORMATTER = HtmlFormatter(nowrap=True)
_WHITESPACE = re.compile(r'<span class="w">(\s*)</span>')  # whitespace needs no color
_TOKEN = re.compile(r'<span class="([\w-]+)">([^<]*)</span>')
# the token classes site-code.css colours (``.kv-code .k, .kv-code .kd, ... { color: ... }``)
_CODE_CSS = (Path(__file__).parent / "static" / "site-code.css").read_text("utf-8")
COLOURED = frozenset(re.findall(r"\.kv-code \.([a-z0-9]+)(?=[\s,{])", _CODE_CSS))


@functools.lru_cache(maxsize=512)  # kernelviz serve rebuilds pages whose code did not change
def _html(code, lexer_class):
    lexer = lexer_class(stripnl=False)
    return _WHITESPACE.sub(r"\1", highlight(code, lexer, _FORMATTER)).removesuffix("\n")


def _lean(html):
    """`html` with each token span of a class site-code.css does not colour replaced by its text."""
    return _TOKEN.sub(lambda m: m.group(0) if m.group(1) in COLOURED else m.group(2), html)


def python(code):
    """`code` as highlighted HTML spans (no wrapper), line for line; lean (see the module docstring)."""
    return _lean(_html(code, PythonLexer))


def cuda(code):
    return _html(code, CudaLexer)


def by_name(code, language):
    """`code` highlighted as `language` (a Pygments name: python, c, bash, ...), lean, or None when Pygments has
    none."""
    try:
        lexer_class = type(get_lexer_by_name(language))
    except ClassNotFound:
        return None
    return _lean(_html(code, lexer_class))
