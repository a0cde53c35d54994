"""Code highlighting with Pygments, class-based (the colors are in static/site.css under ``.kv-code``)."""

import functools
import re

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import CudaLexer, PythonLexer, get_lexer_by_name
from pygments.util import ClassNotFound

_FORMATTER = HtmlFormatter(nowrap=True)
_WHITESPACE = re.compile(r'<span class="w">(\s*)</span>')  # whitespace needs no color


@functools.lru_cache(maxsize=512)  # kernelviz serve rebuilds pages whose code did not change
def _html(code, lexer_class):
    lexer = lexer_class(stripnl=False)
    return _WHITESPACE.sub(r"\1", highlight(code, lexer, _FORMATTER)).removesuffix("\n")


def python(code):
    """`code` as highlighted HTML spans (no wrapper), line for line."""
    return _html(code, PythonLexer)


def cuda(code):
    return _html(code, CudaLexer)


def by_name(code, language):
    """`code` highlighted as `language` (a Pygments name: python, c, bash, ...), or None when Pygments has none."""
    try:
        lexer_class = type(get_lexer_by_name(language))
    except ClassNotFound:
        return None
    return _html(code, lexer_class)
