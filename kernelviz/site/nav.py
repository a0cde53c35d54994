"""The navigation: the planned pages in order, each a link when its page exists and "coming" when not.

Positions (front matter ``nav``): 0 the overview, then the kernel pages, numbered as the reader meets them.
A page with a position beyond the plan joins the nav under its title.
"""

from dataclasses import dataclass

PLANNED = (
    (0, "overview", "Overview"),
    (1, "online-softmax", "Online softmax"),
    (2, "flash-attention-1", "Flash Attention 1"),
    (3, "flash-attention-2", "Flash Attention 2"),
    (4, "flash-attention-2-tensor-cores", "Flash Attention 2 on tensor cores"),
    (5, "flash-attention-2-pipelined", "Flash Attention 2, pipelined"),
    (6, "flash-attention-3", "FlashAttention-3 on Hopper"),
    (7, "flash-attention-2-backward", "Flash Attention 2 backward"),
    (8, "flash-decoding", "Flash decoding"),
    (9, "paged-decoding", "Paged decoding"),
)


@dataclass(frozen=True)
class Entry:
    position: int
    slug: str
    label: str  # "Overview", "Flash Attention 2"
    href: str | None  # "flash-attention-2.html", or None while the page is coming

    @property
    def text(self):
        """The label as the nav shows it: kernel pages are numbered."""
        return self.label if self.position == 0 else f"{self.position}. {self.label}"


def entries(pages):
    """The nav Entries for `pages` (the parsed pages of the build), in position order."""
    by_position = {}
    for page in pages:
        position = page.meta.get("nav")
        if isinstance(position, int) and position not in by_position:
            by_position[position] = page
    out = []
    planned = {position: (slug, label) for position, slug, label in PLANNED}
    for position in sorted(set(planned) | set(by_position)):
        page = by_position.get(position)
        slug, label = planned.get(position, (page.slug if page else "", page.title if page else ""))
        out.append(Entry(position, page.slug if page else slug, label, page.output if page else None))
    return out


def by_slug(nav_entries):
    """{slug: Entry}, planned slugs included (a prerequisite naming a coming page shows it as coming)."""
    out = {slug: Entry(position, slug, label, None) for position, slug, label in PLANNED}
    out.update({e.slug: e for e in nav_entries})
    return out
