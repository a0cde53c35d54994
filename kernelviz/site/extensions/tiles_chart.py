"""The tiles each block of query rows visits, drawn at build time from two runs of the page's trace: a fence

    ```tiles-per-block full="long" masked="long_causal"
    At N = {{ trace.long.N }}: ...          (the caption; {{ trace.EXPR }} placeholders are filled)
    ```

draws, for the named fa1 or fa2 runs of the front matter's ``trace`` (``extensions.trace``: their
``tiles_per_block.list``, read from the ledger), a bar per block: the unmasked run's tiles behind, the masked run's
in front, as inline SVG (``bars_svg``) with a legend, inside a <figure> whose <figcaption> is the fence's text. The
SVG's own text alternative (its <title> and <desc>) is written from the same numbers. A name that is not a run of
the trace, a run without tiles per block, two runs of different block counts, an unknown attribute or one given
twice is a warning at the fence's line (and no chart).
"""

from markdown_it.common.utils import escapeHtml

from .. import bars_svg
from . import fence_info, placeholders, trace

LANGUAGE = "tiles-per-block"
ROLES = (("full", "without the mask"), ("masked", "with the causal mask"))


def plugin(md):
    pass  # a plain fence; drawn in resolve, once the trace has run


def resolve(page, context):
    for token, line, n in fence_info.fences(page.tokens, LANGUAGE):
        token.meta["html"] = _figure(page, token, line, context, f"kv-bars-{n}")


def _figure(page, token, line, context, ident):
    _, attrs, leftover = fence_info.parse(token.info)
    if problem := _attribute_problem(attrs, leftover, fence_info.repeated(token.info)):
        context.diagnostics.warn(page.file, line, f"{LANGUAGE}: {problem}")
        return ""
    numbers = trace.numbers_of(page, context)
    runs = {}
    for role, _ in ROLES:
        name = attrs.get(role)
        run = numbers.get(name) if isinstance(numbers, dict) and name else None
        if not isinstance(run, dict) or "tiles_per_block" not in run:
            what = f"{role}={name!r} is not" if name else f"{role}=NAME names"
            context.diagnostics.warn(
                page.file, line, f"{LANGUAGE}: {what} an {_drawn()} run of the page's trace (trace: {{NAME: {{...}}}})"
            )
            return ""
        runs[role] = run["tiles_per_block"]
    full, masked = runs["full"], runs["masked"]
    if full["count"] != masked["count"]:
        context.diagnostics.warn(
            page.file, line, f"{LANGUAGE}: the runs have {full['count']} and {masked['count']} blocks; give both one N"
        )
        return ""
    series = [bars_svg.Series(role, label, runs[role]["list"]) for role, label in ROLES]
    svg = bars_svg.chart(
        series,
        ident=ident,
        title="K/V tiles each block of query rows visits, without and with the causal mask",
        desc=_description(full, masked),
        x_label="block i of query rows",
        y_label="K/V tiles visited",
    )
    caption = escapeHtml(placeholders.fill(token.content.strip(), page, line, context))
    return f'<figure class="kv-bars-figure">{svg}{bars_svg.legend(series)}<figcaption>{caption}</figcaption></figure>\n'


def _drawn():
    """The algorithms whose runs say their tiles per block (their records' per_block): 'fa1 or fa2'."""
    from kernelviz.attention.topics import REGISTRY

    return " or ".join(r.name for r in REGISTRY.values() if r.per_block is not None)


def _attribute_problem(attrs, leftover, repeated):
    """What is wrong with the fence's attributes (a sentence), or None: only full= and masked=, each once."""
    expected = " and ".join(f'{role}="NAME"' for role, _ in ROLES)
    unknown = sorted(set(attrs) - {role for role, _ in ROLES}) + ([leftover] if leftover else [])
    if unknown:
        return f"unknown attribute {', '.join(map(repr, unknown))}; expected {expected}"
    if repeated:
        key, values = next(iter(repeated.items()))
        given = ", then ".join(map(repr, values))
        return f"{key} is given {len(values)} times ({given}); give it once"
    return None


def _description(full, masked):
    """The chart in words, from its numbers."""
    n = full["count"]

    def tiles(v):
        return f"{v:,} tile{'' if v == 1 else 's'}"

    alike = full["min"] == full["max"]
    without = f"every block visits {tiles(full['max'])}" if alike else f"from {tiles(full['min'])} to {full['max']:,}"
    return (
        f"{n} blocks. Without the mask {without}, {full['total']:,} in all. With the mask block 0 visits "
        f"{tiles(masked['first'])} and block {n - 1} visits {tiles(masked['last'])}, {masked['total']:,} in all."
    )
