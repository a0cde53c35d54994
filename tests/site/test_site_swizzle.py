"""The swizzle fence: its picture puts each 16-byte chunk where the XOR rule (worked here by hand, not by swizzle.py)
puts it, and its sentence counts the wavefronts of one ldmatrix phase from shared memory's banks, computed here from
the byte addresses; a fence it cannot draw is a warning at its line."""

import re

import pytest

CELL = re.compile(r'<g class="[^"]*" transform="[^"]*" data-row="(\d+)" data-col="(\d+)" data-lane="\d+" '
                  r'data-i="(\d+)">')  # fmt: skip


def fence(layout, d=64):
    return f'```swizzle layout="{layout}" d="{d}"\nRows of {layout}.\n```'


@pytest.fixture(scope="module")
def built(tmp_path_factory, fake_dist):
    from kernelviz.site.build import build

    pages = tmp_path_factory.mktemp("pages")
    (pages / "f.md").write_text(f"---\ntitle: F\n---\n\n{fence('naive')}\n\n{fence('swizzled', 128)}\n")
    out = pages.parent / "site"
    build(pages, out, strict=True, web_dist=fake_dist, log=None)
    return (out / "f.html").read_text()


def by_hand_wavefronts(row_bytes):
    """Wavefronts reading chunk 0 of rows 0..7 whose chunk 0 sits at `row_bytes(r)`: the most distinct 4-byte words
    one of the 32 banks holds among the 8 x 4 words read."""
    words = {}
    for r in range(8):
        for w in range(4):
            word = row_bytes(r) // 4 + w
            words.setdefault(word % 32, set()).add(word)
    return max(len(v) for v in words.values())


def test_cells_follow_the_xor_rule_and_the_sentence_counts_banks(built):
    figures = re.findall(r'<figure class="kv-frag-figure">.*?</figure>', built, re.S)
    assert len(figures) == 2
    naive, swizzled = ({(int(r), int(c)): int(i) for r, c, i in CELL.findall(f)} for f in figures)
    assert naive == {(r, c): c for r in range(8) for c in range(8)}
    assert swizzled == {(r, c ^ (r % 8)): c for r in range(8) for c in range(16)}  # logical c at physical c ^ r
    plain = by_hand_wavefronts(lambda r: r * 128)  # d = 64: rows of 128 bytes, all from bank 0
    xor = by_hand_wavefronts(lambda r: r * 256 + (0 ^ r) * 16)  # d = 128 swizzled: chunk 0 of row r at r
    padded = by_hand_wavefronts(lambda r: r * 144)  # d = 64 padded by 8 elements
    assert (plain, xor, padded) == (8, 1, 1)
    assert f"takes {plain} wavefronts" in figures[0]
    assert "takes 1 wavefront (" in figures[1] and f"naive {plain}" in figures[1] and f"padded {padded}" in figures[1]


@pytest.mark.parametrize(
    ("info", "message"),
    [('layout="padded"', "layout='padded' is not one of"), ('layout="naive" d="48"', "d='48' must be a multiple")],
)
def test_a_picture_that_cannot_be_drawn_is_a_warning_at_its_fence(build_site, line, info, message):
    source = f"---\ntitle: F\n---\nBefore.\n\n```swizzle {info}\nCaption.\n```\n"
    result, out = build_site({"f.md": source})
    (w,) = result.warnings
    assert w.file.endswith("f.md") and w.line == line(source, "```swizzle") and message in w.message, w
