"""A small bar chart as inline SVG, drawn at build time: readable without JavaScript, in either theme, at a phone's
width and a desktop's.

    chart([Series("full", "without the mask", [64, 64, ...]), Series("masked", "with the mask", [1, 2, ...])],
          ident="kv-bars-1", title="...", desc="...", x_label="block i of query rows", y_label="K/V tiles")

Every series has a bar per index, all on one axis from 0 to the largest value; a later series is drawn in front of
an earlier one (so a series that never exceeds the one behind it shows as the part of it that is used). Each bar is
``<rect class="kv-bar kv-bars-KEY" data-index="i" data-value="v">`` with a <title> saying both. The colours are the
stylesheet's (``.kv-bars-KEY`` in site-drawn.css, from the palette's custom properties), so the chart follows the theme.

The drawing stretches with its container and keeps its height: horizontal positions are percentages of the width,
vertical ones pixels, so the labels keep their size (the stylesheet's) at any width instead of scaling with it.
``legend(series)`` is the HTML list that names the series by their colours. The <svg> is ``role="img"``, labelled
by its <title> and described by its <desc>: its text alternative.
"""

from dataclasses import dataclass

from markdown_it.common.utils import escapeHtml

HEIGHT = 182  # px, the whole drawing
TOP, PLOT = 22, 118  # px: room for the axis's name above the plot; the plot's height
LEFT, RIGHT = 9.0, 98.5  # percent of the width: the plot, between the value labels and the right edge
GAP = 0.2  # of a slot, between two bars


@dataclass(frozen=True)
class Series:
    key: str  # letters, digits and dashes: the class kv-bars-KEY
    label: str  # what the legend says
    values: list  # one number per index, >= 0


def chart(series, *, ident, title, desc, x_label, y_label):
    """The <svg> markup (see the module docstring). Raises ValueError for no series, series of different lengths,
    an empty one, or a negative value."""
    n = _checked(series)
    top = max(max(s.values) for s in series) or 1
    slot = (RIGHT - LEFT) / n

    def y(v):
        return TOP + PLOT * (1 - v / top)

    parts = [
        f'<svg class="kv-bars" id="{ident}" role="img" width="100%" height="{HEIGHT}" '
        f'aria-labelledby="{ident}-title" aria-describedby="{ident}-desc">',
        f'<title id="{ident}-title">{escapeHtml(title)}</title><desc id="{ident}-desc">{escapeHtml(desc)}</desc>',
        f'<text class="kv-bars-axis" x="0" y="12">{escapeHtml(y_label)}</text>',
    ]
    for v in sorted({0, top / 2, top}):  # the gridlines and their values
        parts.append(
            f'<line class="kv-bars-grid" x1="{LEFT}%" x2="{RIGHT}%" y1="{y(v):.1f}" y2="{y(v):.1f}"/>'
            f'<text class="kv-bars-tick" x="{LEFT - 1.5}%" y="{y(v) + 4:.1f}" text-anchor="end">{_number(v)}</text>'
        )
    for s in series:
        parts.append(f'<g class="kv-bars-{s.key}">')
        for i, v in enumerate(s.values):
            parts.append(
                f'<rect class="kv-bar kv-bars-{s.key}" x="{LEFT + slot * (i + GAP / 2):.3f}%" y="{y(v):.2f}" '
                f'width="{slot * (1 - GAP):.3f}%" height="{PLOT * v / top:.2f}" data-index="{i}" data-value="{v}">'
                f"<title>{i}: {_number(v)} ({escapeHtml(s.label)})</title></rect>"
            )
        parts.append("</g>")
    base = TOP + PLOT
    for i in sorted({0, (n - 1) // 2, n - 1}):  # the first index, the middle one and the last
        x = LEFT + slot * (i + 0.5)
        parts.append(f'<text class="kv-bars-tick" x="{x:.3f}%" y="{base + 16}" text-anchor="middle">{i}</text>')
    parts.append(
        f'<text class="kv-bars-axis" x="{(LEFT + RIGHT) / 2}%" y="{base + 36}" text-anchor="middle">'
        f"{escapeHtml(x_label)}</text></svg>"
    )
    return "".join(parts)


def legend(series):
    """<ul class="kv-bars-legend"> naming each series beside a swatch of its colour."""
    items = "".join(
        f'<li><svg class="kv-bars-swatch" width="12" height="12" aria-hidden="true">'
        f'<rect class="kv-bars-{s.key}" width="12" height="12"/></svg>{escapeHtml(s.label)}</li>'
        for s in series
    )
    return f'<ul class="kv-bars-legend">{items}</ul>'


def _checked(series):
    if not series:
        raise ValueError("bar chart: expected at least one series")
    lengths = {len(s.values) for s in series}
    if len(lengths) != 1 or 0 in lengths:
        raise ValueError(f"bar chart: the series must have one value per index, all as many; got lengths {lengths}")
    for s in series:
        if any(v < 0 for v in s.values):
            raise ValueError(f"bar chart: series {s.key!r} has a negative value")
    return lengths.pop()


def _number(v):
    return f"{int(v):,}" if float(v).is_integer() else f"{v:.3g}"
