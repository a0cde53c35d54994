"""CUDA blocks: a fence ```` ```cuda cite="fa2.cu#load_kv" step="block 0 · j = 0 · load K0, V0" title="…" ```` with
an empty body. Its code is the cited region of ``kernelviz/cuda/FILE.cu`` (``kernelviz.cuda.regions``), highlighted,
collapsed under "CUDA implementation":

    <details class="kv-cuda" data-step="K" data-cite="fa2.cu#load_kv"><summary>CUDA implementation</summary>
    <pre class="kv-code">…</pre></details>

`step` (optional) is the label of the figure step the code belongs to (resolved like ``[step: …]`` bullets); `title`
(optional) is shown above the code. A missing file or region is a warning naming the page and line.
"""

from markdown_it.common.utils import escapeHtml

from ...cuda import regions
from .. import highlight
from ..tokens import walk
from . import fence_info, steps


def plugin(md):
    md.core.ruler.push("kv_cuda", _mark)


def _mark(state):
    for token in state.tokens:
        if token.type == "fence":
            lang, attrs, leftover = fence_info.parse(token.info)
            if lang == "cuda":
                token.meta["cuda"] = attrs


def resolve(page, context):
    for token, line in walk(page.tokens):
        if token.type == "fence" and "cuda" in token.meta:
            token.meta["html"] = _render(page, token.meta["cuda"], token.content, line, context.diagnostics)


def _render(page, attrs, body, line, diagnostics):
    cite = attrs.get("cite")
    unknown = sorted(set(attrs) - {"cite", "step", "title"})
    if unknown:
        diagnostics.warn(page.file, line, f"cuda block: unknown attributes {unknown} (it takes cite, step and title)")
    if body.strip():
        diagnostics.warn(page.file, line, "cuda block: the body is ignored; the code is the region `cite` names")
    code, missing = "", None
    if not cite:
        missing = 'the cuda block has no cite="FILE.cu#REGION"'
    else:
        try:
            code = regions.region(cite)
        except regions.RegionError as e:
            missing = f"cuda block cites {cite}: {e}"
    if missing:
        diagnostics.warn(page.file, line, missing)
    step = steps.index(page, attrs["step"], line, diagnostics) if "step" in attrs else None
    data = "" if step is None else f' data-step="{step}"'
    data += f' data-cite="{escapeHtml(cite)}"' if cite else ""
    title = f'<p class="kv-cuda-title">{escapeHtml(attrs["title"])}</p>' if attrs.get("title") else ""
    pre = (
        f'<pre class="kv-code kv-missing">{escapeHtml(missing)}</pre>'
        if missing
        else f'<pre class="kv-code">{highlight.cuda(code)}</pre>'
    )
    return f'<details class="kv-cuda"{data}><summary>CUDA implementation</summary>{title}{pre}</details>\n'
