"""`kernelviz build` on the command line: exit status and where the warnings go."""

from kernelviz import cli


def test_build_writes_the_site_and_strict_fails_on_a_warning(tmp_path, fake_dist, capsys):
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "a.md").write_text("---\ntitle: A\n---\n[gone](gone.md)\n")
    args = ["build", "--pages", str(pages), "--out", str(tmp_path / "site"), "--web-dist", str(fake_dist)]
    assert cli.main(args) == 0
    out, err = capsys.readouterr()
    assert (tmp_path / "site" / "a.html").is_file() and "built 1 pages" in out
    assert "a.md:4: broken link 'gone.html'" in err
    assert cli.main([*args, "--strict"]) == 1
    assert "strict build failed: 1 warning" in capsys.readouterr().err


def test_build_without_the_runtime_says_what_to_run(tmp_path, capsys):
    (tmp_path / "pages").mkdir()
    args = ["build", "--pages", str(tmp_path / "pages"), "--out", str(tmp_path / "site")]
    assert cli.main([*args, "--web-dist", str(tmp_path / "nothing")]) == 1
    assert "make setup" in capsys.readouterr().err


def test_build_says_what_it_builds_at_once_and_each_stage_and_page_in_a_log(tmp_path, fake_dist, capsys):
    """Not on a terminal (capsys): the first line says the pages and where, before any work; then a line per stage,
    in order, the figures' saying that the editors take the time, and a line per page with editors as they finish
    (b.md has none); the built line last, on stdout."""
    from kernelviz.site.build import STAGES

    pages = tmp_path / "pages"
    pages.mkdir()
    for name, body in (("a", "```pie\npie.point(0, 0)\n```\n"), ("b", "Text.\n"), ("c", "```pie\nx = 1\n```\n")):
        (pages / f"{name}.md").write_text(f"---\ntitle: {name}\n---\n{body}")
    args = ["build", "--pages", str(pages), "--out", str(tmp_path / "site"), "--web-dist", str(fake_dist)]
    assert cli.main(args) == 0
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.startswith("kernelviz build:")]
    assert lines[0] == (
        f"kernelviz build: 3 pages from {pages} into {tmp_path / 'site'}; running the pages' editors takes most of "
        "the time (each page's within 60 s)"
    )
    stages = [
        line.split(" (")[0].removeprefix("kernelviz build: ") for line in lines[1:] if "its editors ran" not in line
    ]
    assert stages == list(STAGES)
    figures = lines.index("kernelviz build: figures (running each page's editors, side by side: most of the time)")
    assert lines[figures + 1 : figures + 3] == [
        f"kernelviz build: figures 1/2: {pages / 'a.md'}: its editors ran",
        f"kernelviz build: figures 2/2: {pages / 'c.md'}: its editors ran",
    ]
    assert out.startswith("built 3 pages")
