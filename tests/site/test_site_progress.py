"""Progress (kernelviz.progress, tqdm): a build shows its stages on a terminal and nothing in a pipe or a log; a bar
whose work ends before DELAY seconds draws nothing through update()."""

import io

import pytest

from kernelviz import progress
from kernelviz.site.build import STAGES, build


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def one_page(tmp_path):
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "index.md").write_text("---\ntitle: One\n---\n\nThe sum $\\sum_i x_i$.\n")
    return pages


@pytest.mark.parametrize("stream, shown", [(Terminal(), True), (io.StringIO(), False)], ids=["terminal", "pipe"])
def test_a_build_shows_its_stages_only_on_a_terminal(monkeypatch, one_page, tmp_path, fake_dist, stream, shown):
    monkeypatch.setattr("sys.stderr", stream)
    build(one_page, tmp_path / "site", web_dist=fake_dist, log=None, progress=True, precompressed=True)  # as the CLI
    drawn = stream.getvalue()
    if not shown:
        assert drawn == ""
        return
    positions = [drawn.index(f", {name}]") for name in STAGES]
    assert positions == sorted(positions) and f"/{len(STAGES)} [" in drawn  # every stage, in order, of 8
    assert drawn.startswith("\rbuild:") and drawn.endswith("\r")  # cleared when done (leave=False)


def test_a_library_build_draws_nothing(monkeypatch, one_page, tmp_path, fake_dist):
    stream = Terminal()
    monkeypatch.setattr("sys.stderr", stream)
    build(one_page, tmp_path / "site", web_dist=fake_dist, log=None)
    assert stream.getvalue() == ""


def test_quick_work_draws_nothing_and_slow_work_does(monkeypatch):
    quick = Terminal()
    with progress.bar(total=3, desc="quick", file=quick) as b:
        b.update(3)
    assert "quick" not in quick.getvalue()
    monkeypatch.setattr(progress, "DELAY", 0.0)
    slow = Terminal()
    with progress.bar(total=3, desc="slow", file=slow) as b:
        b.update(3)
    assert "slow:" in slow.getvalue() and "3 [" in slow.getvalue()


def test_a_terminal_that_reports_no_size_still_gets_a_bar():
    """A pseudo-terminal of 0 x 0 (what some tools give the commands they run): tqdm alone draws nothing in 0
    columns and hides a bar past row 0, so `kernelviz trace` sat silent for 48 s; the bar takes WIDTH columns."""
    import os

    main, child = os.openpty()  # a fresh pty reports 0 columns and 0 rows
    try:
        assert os.get_terminal_size(child).columns == 0
        with open(child, "w", closefd=False) as stream, progress.bar(total=4, desc="work", file=stream, delay=0) as b:
            b.update(4)
            b.refresh()
        os.set_blocking(main, False)
        try:
            drawn = os.read(main, 65536).decode()
        except BlockingIOError:  # nothing was drawn
            drawn = ""
    finally:
        os.close(main)
        os.close(child)
    assert "work: 100%" in drawn and "4/4 [" in drawn
    line = max(drawn.replace("\n", "\r").split("\r"), key=len)
    assert len(line) <= progress.WIDTH


def test_the_bar_counts_the_pages_whose_editors_ran(monkeypatch, tmp_path, fake_dist):
    pages = tmp_path / "pages"
    pages.mkdir()
    for name in ("a", "b"):
        (pages / f"{name}.md").write_text(f"---\ntitle: {name}\n---\n```pie\npie.point(0, 0)\n```\n")
    stream = Terminal()
    monkeypatch.setattr("sys.stderr", stream)
    build(pages, tmp_path / "site", web_dist=fake_dist, log=None, progress=True)
    drawn = stream.getvalue()
    assert drawn.index(", figures 1/2 pages]") < drawn.index(", figures 2/2 pages]") < drawn.index(", resolve]")
