"""A mistake on the command line is one message on stderr and exit status 2, never a traceback: what was wrong
(the argument, the file and line) and what would work. (trace's own mistakes: tests/commands/test_commands_trace.py.)"""

from pathlib import Path

import pytest

from kernelviz.cli import main

LATIN1 = "x = 1\nname = 'caf\xe9'\n".encode("latin-1")


def refused(capsys, *argv):
    """The exit status and stderr of `kernelviz argv`, which must not raise anything but SystemExit."""
    try:
        status = main(list(map(str, argv)))
    except SystemExit as e:
        status = e.code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return status, err


def test_run_names_a_file_that_is_not_utf8(tmp_path, capsys):
    (tmp_path / "a.py").write_bytes(LATIN1)
    status, err = refused(capsys, "run", tmp_path / "a.py")
    assert status == 2 and f"{tmp_path / 'a.py'}:2:12: not UTF-8 text (byte 0xe9); save the file as UTF-8" in err


def test_run_refuses_an_out_that_is_a_folder_or_in_a_missing_folder(tmp_path, capsys):
    (tmp_path / "a.py").write_text("pie.point(1, 2)\n")
    status, err = refused(capsys, "run", tmp_path / "a.py", "--out", tmp_path)
    assert status == 2 and "argument --out:" in err and "is a folder: name a file" in err
    status, err = refused(capsys, "run", tmp_path / "a.py", "--out", tmp_path / "no" / "scene.json")
    assert status == 2 and f"the folder {tmp_path / 'no'} does not exist" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]


def test_build_names_a_page_that_is_not_utf8(tmp_path, capsys):
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "a.md").write_bytes(b"---\ntitle: A\n---\n\n" + LATIN1)
    status, err = refused(capsys, "build", "--pages", pages, "--out", tmp_path / "site")
    assert status == 1 and "a.md:6: not UTF-8 text (byte 0xe9)" in err


@pytest.mark.parametrize("command", ["build", "serve"])
def test_build_and_serve_refuse_folders_that_are_not_folders(tmp_path, capsys, command):
    (tmp_path / "pages").mkdir()
    (tmp_path / "file").write_text("")
    status, err = refused(capsys, command, "--pages", tmp_path / "pages", "--out", tmp_path / "file")
    assert status == 2 and f"--out {tmp_path / 'file'} is a file: name a folder" in err
    status, err = refused(capsys, command, "--pages", tmp_path / "nothing")
    assert status == 2 and "is not a folder: name the folder of the *.md pages" in err


@pytest.mark.parametrize("port", ["70000", "-1", "http"])
def test_serve_refuses_a_port_out_of_range_before_building(tmp_path, capsys, port):
    status, err = refused(capsys, "serve", "--pages", tmp_path, "--out", tmp_path / "site", "--port", port)
    assert status == 2 and f"argument --port: '{port}' is not a port: use 0 to 65535" in err
    assert not (tmp_path / "site").exists()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc, where no folder can be made")
def test_build_names_an_out_it_cannot_create(tmp_path, capsys):
    (tmp_path / "a.md").write_text("---\ntitle: A\n---\n\nHello.\n")
    status, err = refused(capsys, "build", "--pages", tmp_path, "--out", "/proc/kernelviz-nowhere/site")
    assert status == 2 and "kernelviz build: No such file or directory: /proc/kernelviz-nowhere" in err
