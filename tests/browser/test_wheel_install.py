"""The wheel, as a pip user gets it: built from this checkout, installed into a fresh venv whose PATH has no node
(and no compiler), then `kernelviz build` and `kernelviz serve` from a folder that is not a checkout, and the
Flash Attention 2 page in Chromium with its math and its figure.

Kept cheap: the wheel is built without build isolation and installed with --no-index --no-deps; the fresh venv
finds its third-party dependencies (numpy, mini-racer, ...) in this venv's site-packages through a .pth file, after
its own site-packages, so `kernelviz` itself comes from the wheel (asserted). Measured on the 2-core CI machine:
about 15 s to build the wheel, 5 s to install it, 10 s to build the site.
"""

import re
import shutil
import site
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def sh(command, **options):
    done = subprocess.run(command, capture_output=True, text=True, **options)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """(venv folder, env, cwd): kernelviz installed from a wheel of this checkout; PATH is the venv's bin/ alone."""
    if not (ROOT / "web" / "dist" / "main.js").is_file():
        pytest.fail("web/dist is not built: the wheel carries it (make setup)")
    tmp = tmp_path_factory.mktemp("wheel")
    started = time.perf_counter()
    sh([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", tmp / "dist", ROOT])
    [wheel] = (tmp / "dist").glob("kernelviz-*.whl")
    built = time.perf_counter()
    venv = tmp / "venv"
    sh([sys.executable, "-m", "venv", "--without-pip", venv])
    python = venv / "bin" / "python"
    sh([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-index", "--no-deps", wheel])
    [packages] = (venv / "lib").glob("python3*/site-packages")
    (packages / "zz-deps-from-dev-venv.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    print(
        f"wheel {wheel.stat().st_size / 1e6:.1f} MB built in {built - started:.1f} s, "
        f"installed in {time.perf_counter() - built:.1f} s"
    )
    env = {"PATH": str(venv / "bin"), "HOME": str(tmp), "LANG": "C.UTF-8"}
    assert shutil.which("node", path=env["PATH"]) is None and shutil.which("g++", path=env["PATH"]) is None
    cwd = tmp / "elsewhere"
    cwd.mkdir()
    return venv, env, cwd


def kernelviz(fresh, *args, check=True):
    venv, env, cwd = fresh
    done = subprocess.run([venv / "bin" / "kernelviz", *args], capture_output=True, text=True, env=env, cwd=cwd)
    if check:
        assert done.returncode == 0, f"kernelviz {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done


def test_the_wheel_is_what_runs_and_carries_the_sources_verify_needs(fresh):
    venv, env, cwd = fresh
    code = "import kernelviz, kernelviz.site.locations as l; print(kernelviz.__file__); print(l.installed())"
    where, installed = sh([venv / "bin" / "python", "-c", code], env=env, cwd=cwd).stdout.split()
    assert Path(where).is_relative_to(venv) and installed == "True"
    package = Path(where).parent
    for name in ("cuda/cpu/harness.cpp", "cuda/cpu/shim.h", "cuda/fa2.cu", "site/static/favicon.svg"):
        assert (package / name).is_file(), name
    assert sorted(p.name for p in (package / "bundled" / "pages").glob("*.md")) == sorted(
        p.name for p in (ROOT / "pages").glob("*.md")
    )


def test_bare_kernelviz_prints_help(fresh):
    done = kernelviz(fresh)
    assert "usage: kernelviz" in done.stdout and "serve" in done.stdout and "build" in done.stdout


def test_verify_without_a_compiler_says_what_is_missing(fresh):
    done = kernelviz(fresh, "verify", "--backend", "cpu", check=False)
    assert done.returncode != 0
    assert "g++" in done.stdout + done.stderr and "Traceback" not in done.stderr


def test_build_writes_the_whole_textbook_with_no_node(fresh):
    venv, env, cwd = fresh
    kernelviz(fresh, "build", "--strict", "--out", "site")
    site_dir = cwd / "site"
    for slug in ("index", "overview", "online-softmax", "flash-attention-1", "flash-attention-2", "flash-decoding"):
        assert (site_dir / f"{slug}.html").is_file(), slug
    assert (site_dir / "assets" / "pyodide" / "pyodide.asm.wasm").is_file()
    assert not (site_dir / "assets" / "build-time").exists()
    assert '<math display="block"' in (site_dir / "flash-attention-2.html").read_text(encoding="utf-8")


def test_build_of_a_readers_own_pages(fresh):
    venv, env, cwd = fresh
    mine = cwd / "mine"
    mine.mkdir()
    (mine / "index.md").write_text("---\ntitle: Mine\n---\n\nThe mean is $\\bar x = \\frac{1}{n}\\sum_i x_i$.\n")
    kernelviz(fresh, "build", "--strict", "--pages", "mine", "--out", "my-site")
    assert "<math" in (cwd / "my-site" / "index.html").read_text(encoding="utf-8")
    missing = kernelviz(fresh, "build", "--pages", "nowhere", "--out", "x", check=False)
    assert missing.returncode != 0 and str(cwd / "nowhere") in missing.stderr


def test_serve_serves_flash_attention_2_with_math_and_figure(fresh, page, outside_requests):
    venv, env, cwd = fresh
    server = subprocess.Popen(
        [venv / "bin" / "kernelviz", "serve", "--port", "0", "--out", "served"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=cwd,
    )
    try:
        said = []
        for line in server.stdout:
            said.append(line)
            found = re.search(r"at (http://127\.0\.0\.1:\d+)/", line)
            if found:
                break
        else:
            pytest.fail("kernelviz serve ended without serving:\n" + "".join(said))
        page.goto(f"{found.group(1)}/flash-attention-2.html", wait_until="load")
        page.wait_for_selector("#kv-figure svg:not([data-prerendered])", timeout=15_000)
        assert page.locator("#kv-text math").count() > 10
        assert page.locator("#kv-figure svg rect").count() > 0
        assert outside_requests(page) == []
        assert page.errors == []
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_verify_compile_without_a_host_compiler_says_so(fresh):
    venv, env, cwd = fresh
    done = kernelviz(fresh, "verify", "--compile", "--no-run", check=False)
    said = done.stdout + done.stderr
    assert done.returncode != 0 and "Traceback" not in said
    assert "nvcc is not installed" in said or "gcc, on PATH" in said  # whichever is missing first
