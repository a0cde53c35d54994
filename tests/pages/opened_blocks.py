"""The CUDA blocks of a built page as a reader sees them opened: each block's <pre> rendered from its data and the
page's kernel source (#kv-cuda-source) by the browser's own code (web/src/page/cuda-code.js), run here in the
builder's V8 (kernelviz.site.cuda_render), at the sizes the page's figure was drawn at.

    blocks(page_html) -> [(attributes, inner HTML with the rendered <pre>)]
"""

import html
import json
import re

from kernelviz.site import cuda_render
from kernelviz.site.build import WEB_DIST

BLOCK = re.compile(r'<details class="kv-cuda"([^>]*)>(.*?)</details>', re.S)
ATTR = re.compile(r"""\s([\w-]+)=(?:"([^"]*)"|'([^']*)')""")
PRE = re.compile(r'(<pre class="kv-code kv-cuda-code">)(.*?)(</pre>)', re.S)
SOURCE = re.compile(r'<script type="application/json" id="kv-cuda-source">(.*?)</script>', re.S)


def blocks(page_html, web_dist=WEB_DIST):
    """[(attributes, inner HTML)] of the CUDA blocks of a page, each as opened (see the module docstring)."""
    found = SOURCE.search(page_html)
    source = json.loads(found.group(1)) if found else None
    out = []
    for m in BLOCK.finditer(page_html):
        attrs = {a.group(1): html.unescape(a.group(2) if a.group(2) is not None else a.group(3)) for a in
                 ATTR.finditer(m.group(1))}  # fmt: skip
        inner = m.group(2)
        if "data-code" in attrs:
            block = {**json.loads(attrs["data-code"]), "at": json.loads(attrs.get("data-at", "{}"))}
            block["host"] = json.loads(attrs.get("data-host", "{}"))
            file = source["files"][attrs["data-cite"].partition("#")[0]]
            opened = cuda_render.htmls([block], file, source["sizes"], web_dist)[0]
            pre = PRE.search(inner)
            inner = inner[: pre.start(2)] + opened + inner[pre.end(2) :]
        out.append((attrs, inner))
    return out
