"""The info string of a fence: a language, then ``key="value"`` attributes.

    parse('cuda cite="fa2.cu#load_kv" step="block 0 · j = 0"') == ("cuda", {"cite": "fa2.cu#load_kv", "step": ...})

Values may be double- or single-quoted, or bare words. Anything else is reported in the third element. An
attribute given twice keeps its last value in ``parse``; ``repeated(info)`` names those, for a fence to warn.
``fences(tokens, language)`` finds a page's fences of one language, numbered (the figures drawn at build time).
"""

import re

from ..tokens import walk

_ATTR = re.compile(r"""\s*([A-Za-z_][\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"']+))""")


def fences(tokens, language):
    """(token, line, n) of each fence of `language` among `tokens` (walked as ``tokens.walk`` does), n from 1 in the
    page's order: an id for what the fence draws."""
    n = 0
    for token, line in walk(tokens):
        if token.type == "fence" and parse(token.info)[0] == language:
            n += 1
            yield token, line, n


def parse(info):
    """(language, {key: value}, leftover text or '') of a fence's info string."""
    lang, attrs, leftover, _ = _scan(info)
    return lang, attrs, leftover


def repeated(info):
    """{key: [values, in order]} of the attributes a fence's info string gives more than once."""
    return {key: values for key, values in _scan(info)[3].items() if len(values) > 1}


def _scan(info):
    """(language, {key: last value}, leftover, {key: [every value]})."""
    lang, _, rest = info.strip().partition(" ")
    attrs, pos, leftover, every = {}, 0, [], {}
    while pos < len(rest):
        m = _ATTR.match(rest, pos)
        if not m:
            nxt = rest.find(" ", pos + 1)
            nxt = len(rest) if nxt < 0 else nxt
            leftover.append(rest[pos:nxt].strip())
            pos = nxt
            continue
        attrs[m.group(1)] = next(g for g in m.groups()[1:] if g is not None)
        every.setdefault(m.group(1), []).append(attrs[m.group(1)])
        pos = m.end()
    return lang, attrs, " ".join(x for x in leftover if x), every
