"""CUDA blocks: a fence ```` ```cuda cite="fa2.cu#load_kv" step="KEY or LABEL" title="…" ```` with an empty body.
Its code is the cited region of ``kernelviz/cuda/FILE.cu``, shown with the lines it needs to read on its own (the
loops and function around it and the declarations of the names it uses, the lines between elided: regions.excerpt),
highlighted, collapsed under "CUDA implementation", with a link to its place on the whole kernel's page:

    <details class="kv-cuda" data-step="K" data-step-key="KEY" data-step-label="LABEL" data-cite="fa2.cu#load_kv"
             data-at='{"j":1}'
             [data-host='{"tiles_per_split":"((N + Bc - 1)/Bc + splits - 1)/splits"}']   (arguments the host derives)
             data-code='{"lines": [...], "region": [45, 52], "notes": [...]}'>   (what the block shows: cuda-code.js)
      <summary>CUDA implementation</summary> [<p class="kv-cuda-title">…</p>]
      <p class="kv-cuda-where"><a href="fa2.cu.html#load_kv">fa2.cu, lines 45–52</a> in the whole kernel</p>
      <pre class="kv-code kv-cuda-code">the lines as plain text, with the step's values</pre>
    </details>

The kernel's lines are in the page once, whatever the blocks that show them (`source_data`: highlighted tokens, with
their links, site.cuda_code.tokens). When the reader opens a block, the browser renders its <pre> from them
(web/src/page/cuda-blocks.js): highlighted, numbered and linked lines, the context lines kv-context, the region's
kv-region; until then, in print and without JavaScript, the <pre> holds the same lines as text, written by that same
code run at build time (site.cuda_render).

`step` (optional) names the figure step the code belongs to: the first step with that `key`, else with that
`label`. When the step has loop indices (step_at.indices), the code starts with ``// this step: i = 0, j = 1`` and
the declarations they fix carry their values (``col0 = 1*Bc = 4``, with the sizes the page's figure was drawn at).
`title` (optional) is shown above the code. A missing file, region or step is a warning naming the page and line.
Every file cited is recorded in ``context.cited`` ({file: [(page, region, step, step index or None)]}) for the
whole-kernel pages (site.kernel_pages).
"""

import json

from markdown_it.common.utils import escapeHtml

from ...cuda import kernels, regions
from .. import cuda_code, cuda_render, step_at
from ..tokens import walk
from . import fence_info, steps

LINES = "kv_cuda_lines"  # page.env: {file: {line numbers its CUDA blocks show}}


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
            token.meta["html"] = _render(page, token.meta["cuda"], token.content, line, context)


def find_step(page, name):
    """(index, step dict) of the first step of `page`'s figure whose key is `name`, else whose label is; or None."""
    for node in (page.scene or {}).get("nodes", []):
        if node.get("kind") == "step_list":
            for field in ("key", "label"):
                for k, step in enumerate(node["steps"]):
                    if step.get(field) == name:
                        return k, step
            return None
    return None


def _render(page, attrs, body, line, context):
    diagnostics = context.diagnostics
    cite = attrs.get("cite")
    unknown = sorted(set(attrs) - {"cite", "step", "title"})
    if unknown:
        diagnostics.warn(page.file, line, f"cuda block: unknown attributes {unknown} (it takes cite, step and title)")
    if body.strip():
        diagnostics.warn(page.file, line, "cuda block: the body is ignored; the code is the region `cite` names")
    excerpt, missing = None, None
    if not cite:
        missing = 'the cuda block has no cite="FILE.cu#REGION"'
    else:
        try:
            excerpt = regions.excerpt(cite)
        except regions.RegionError as e:
            missing = f"cuda block cites {cite}: {e}"
    if missing:
        diagnostics.warn(page.file, line, missing)
        return f'<details class="kv-cuda"><summary>CUDA implementation</summary><pre class="kv-code kv-missing">' \
               f"{escapeHtml(missing)}</pre></details>\n"  # fmt: skip
    found = find_step(page, attrs["step"]) if "step" in attrs else None
    context.cited.setdefault(excerpt.filename, []).append((page, excerpt.name, attrs.get("step"), found and found[0]))
    if "step" in attrs and found is None:
        steps.index(page, attrs["step"], line, diagnostics)  # warns, naming the labels it was close to
    data, at = "", {}
    if found is not None:
        k, step = found
        data += f' data-step="{k}"'
        if step.get("key"):
            data += f' data-step-key="{escapeHtml(step["key"])}"'
            if step.get("label"):
                data += f' data-step-label="{escapeHtml(step["label"])}"'
        at = step_at.indices(step)
    data += f' data-cite="{escapeHtml(cite)}"'
    kernel = next((k for k, f in kernels.FILES.items() if f == excerpt.filename), None)
    host = kernels.host_formulas(kernel) if at else {}
    if at:
        data += f" data-at='{_json(at)}'"
    if host:
        data += f" data-host='{_json(host)}'"
    src = excerpt.source
    block = {
        "lines": shown(excerpt),
        "region": [excerpt.first, excerpt.last],
        "notes": step_at.notes(src, excerpt.numbers, at),
    }
    data += f" data-code='{_json(block)}'"
    page.env.setdefault(LINES, {}).setdefault(excerpt.filename, set()).update(excerpt.numbers)
    file = {
        "page": cuda_code.page_of(excerpt.filename),
        "lines": cuda_code.tokens(src, excerpt.filename, excerpt.numbers),
    }
    text = cuda_render.texts([{**block, "at": at, "host": host}], file, _sizes(page), context.web_dist)[0]
    return _details(excerpt, attrs.get("title"), data, text)


def _json(value):
    """`value` as JSON for an attribute in single quotes: its double quotes as they are (a note's expression has
    many), `&`, `'`, `<` and `>` escaped."""
    text = json.dumps(value, separators=(",", ":"))
    return text.replace("&", "&amp;").replace("'", "&#39;").replace("<", "&lt;").replace(">", "&gt;")


def _sizes(page):
    """The sizes the page's figure was drawn at ({} when its kernel asked for none)."""
    return dict(getattr(page.run, "sizes", None) or {})


def shown(excerpt):
    """The lines an excerpt shows, in order, with a 0 wherever lines are left out (other than region markers)."""
    out, prev, src = [], None, excerpt.source
    for n in excerpt.numbers:
        if prev is not None and any(not src.skip(src.line(m).text) for m in range(prev + 1, n)):
            out.append(0)
        out.append(n)
        prev = n
    return out


def source_data(page):
    """What the page's CUDA blocks are rendered from in the browser (web/src/page/cuda-blocks.js): the sizes its
    figure was drawn at and the lines its blocks show of each kernel, as tokens (cuda_code.tokens), once each:
    ``{"sizes": {...}, "files": {"fa2.cu": {"page": "fa2.cu.html", "lines": {...}}}}``; None without CUDA blocks."""
    cited = page.env.get(LINES)
    if not cited:
        return None
    files = {}
    for filename, numbers in sorted(cited.items()):
        lines = cuda_code.tokens(regions.source(filename), filename, sorted(numbers))
        files[filename] = {"page": cuda_code.page_of(filename), "lines": lines}
    return {"sizes": _sizes(page), "files": files}


def _details(excerpt, title, data, text):
    first, last = excerpt.first, excerpt.last
    href = f"{cuda_code.page_of(excerpt.filename)}#{excerpt.name}"
    where = (
        f'<p class="kv-cuda-where"><a href="{escapeHtml(href)}">{escapeHtml(excerpt.filename)}, lines {first}–{last}'
        f"</a> in the whole kernel</p>"
    )
    heading = f'<p class="kv-cuda-title">{escapeHtml(title)}</p>' if title else ""
    return (
        f'<details class="kv-cuda"{data}><summary>CUDA implementation</summary>{heading}{where}'
        f'<pre class="kv-code kv-cuda-code">{escapeHtml(text)}</pre></details>\n'
    )
