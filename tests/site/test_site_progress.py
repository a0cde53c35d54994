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
