"""The book's GPU table in the pages: ``kernelviz/roofline/gpus.json`` read, never retyped.

    {{ gpu.h100.sms }}               one figure of one GPU in prose: 132 (its title: the vendor's words and document)
    {{ gpu.h100.shared_kib_per_sm }} 228
    {{ gpus }}                       alone in a paragraph: the whole table, a row a GPU, each figure titled with its
                                     source

A figure prints in the unit the table's column says (SMs, KiB, TB/s, TFLOP/s), at most 3 significant digits. An
unknown GPU or figure is a warning at its line naming the known ones.
"""

from markdown_it.common.utils import escapeHtml

from ...roofline import FIGURES, GPUS

COLUMNS = {  # figure -> (column head, scale to the printed unit)
    "sms": ("SMs", 1),
    "shared_kib_per_sm": ("shared memory per SM (KiB)", 1),
    "hbm_bytes_per_s": ("HBM bandwidth (TB/s)", 1e-12),
    "tensor_flops_per_s": ("fp16 tensor cores, dense (TFLOP/s)", 1e-12),
    "fp32_flops_per_s": ("fp32 (TFLOP/s)", 1e-12),
}
assert set(COLUMNS) == set(FIGURES), "a figure of gpus.json without its column here"


def number(gpu, figure):
    """`figure` of `gpu` in its column's unit, 3 significant digits at most, no trailing zeros: '3.35', '989'."""
    x = getattr(gpu, figure) * COLUMNS[figure][1]
    text = f"{x:.3g}" if x < 1000 else f"{round(x):d}"
    return text


def _source(gpu, figure):
    cited = gpu.sources[figure]
    return f"{cited['as_printed']}: {cited['title']}"


def value(page, expr, line, context):
    """The text of ``gpu.KEY.FIGURE``, or None with a warning at `line`."""
    _, *path = expr.split(".")
    if len(path) != 2 or path[0] not in GPUS or path[1] not in COLUMNS:
        context.diagnostics.warn(
            page.file,
            line,
            f"{{{{ {expr} }}}}: expected gpu.GPU.FIGURE with GPU one of {', '.join(GPUS)} and FIGURE one of"
            f" {', '.join(COLUMNS)} (kernelviz/roofline/gpus.json)",
        )
        return None
    return number(GPUS[path[0]], path[1])


def section(page, context, line):
    """The GPU table as HTML: a row a GPU, a column a figure, each cell titled with where it comes from."""
    head = "".join(f'<th scope="col">{escapeHtml(text)}</th>' for text, _ in COLUMNS.values())
    rows = []
    for gpu in GPUS.values():
        cells = "".join(f'<td title="{escapeHtml(_source(gpu, f))}">{number(gpu, f)}</td>' for f in COLUMNS)
        rows.append(f'<tr><th scope="row">{escapeHtml(gpu.name)}</th>{cells}</tr>')
    return (
        '<table class="kv-gpus"><caption>The GPUs of this book, from its GPU table '
        "(each figure's source in its tooltip and in the roofline sections)</caption>"
        f'<thead><tr><th scope="col">GPU</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>\n'
    )
