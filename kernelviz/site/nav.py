"""The book's pages in reading order: the one list the nav, the home page's contents and the tests read.

``PLANNED`` is that list, ``(slug, label)`` a line. A page's place is its index in it: 0 is the overview, shown
unnumbered; the pages after it are numbered as the reader meets them. A planned page whose Markdown is not written
yet shows as "coming". Pages carry no number of their own: inserting a page is its ``pages/SLUG.md`` and one line
here. A page not in the list (the home page, a kernel's source page) is not in the nav.
"""

from dataclasses import dataclass

PLANNED = (
    ("overview", "Overview"),
    ("gpu-primer", "A GPU in one page"),
    ("online-softmax", "Online softmax"),
    ("flash-attention-1", "Flash Attention 1"),
    ("flash-attention-2", "Flash Attention 2"),
    ("flash-attention-2-tensor-cores", "Flash Attention 2 on tensor cores"),
    ("flash-attention-2-pipelined", "Flash Attention 2, pipelined"),
    ("flash-attention-3", "FlashAttention-3 on Hopper"),
    ("flash-attention-2-backward", "Flash Attention 2 backward"),
    ("flash-decoding", "Flash decoding"),
    ("paged-decoding", "Paged decoding"),
)
SLUGS = tuple(slug for slug, _ in PLANNED)


@dataclass(frozen=True)
class Entry:
    position: int
    slug: str
    label: str  # "Overview", "Flash Attention 2"
    href: str | None  # "flash-attention-2.html", or None while the page is coming

    @property
    def text(self):
        """The label as the nav shows it: the pages after the overview are numbered."""
        return self.label if self.position == 0 else f"{self.position}. {self.label}"


def entries(pages):
    """The nav Entries of the plan, in reading order; `pages` (the parsed pages of the build) say which exist."""
    written = {page.slug: page for page in pages}
    return [
        Entry(position, slug, label, written[slug].output if slug in written else None)
        for position, (slug, label) in enumerate(PLANNED)
    ]


def by_slug(nav_entries):
    """{slug: Entry} of `nav_entries` (a prerequisite naming a coming page shows it as coming)."""
    return {e.slug: e for e in nav_entries}
