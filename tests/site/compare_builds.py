"""Build the site of a git revision and of the working tree, and compare them file by file.

    .venv/bin/python -m tests.site.compare_builds REV [--keep DIR] [--all]

A refactoring that promises "behaviour unchanged" promises this: every page and every prerendered scene of the
site built from the working tree is byte-identical to the one built from REV (``main``, say). Each side is copied
into a temporary folder (REV by ``git archive``; the working tree as git sees it: tracked files as they are on
disk, and untracked files git does not ignore), its runtime bundled there (``node build.mjs``, with this tree's
``web/node_modules``), and its site built there by its own ``kernelviz`` (``PYTHONPATH`` set to that copy) with an
empty scene cache of its own (``KERNELVIZ_CACHE``), so neither build sees the other's code or scenes. Then every
file of the two sites is compared.

The files fall in three kinds: pages (``*.html``), scenes (``scenes/**``) and assets (``assets/**``: the bundled
runtime and the Python the editors run, which do change when their sources do). The command lists every file that
differs or is on one side only, and exits 1 when a page or a scene differs (with ``--all``: any file), else 0.
"""

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("pages", "scenes", "assets", "other")


def kind(name):
    """The kind of a site file, by its path relative to the site: pages, scenes, assets or other."""
    if name.startswith("assets/"):
        return "assets"
    if name.startswith("scenes/"):
        return "scenes"
    if name.endswith(".html"):
        return "pages"
    return "other"


def files(site):
    """The paths of the files under `site`, relative to it, with '/' separators."""
    return {p.relative_to(site).as_posix() for p in Path(site).rglob("*") if p.is_file()}


def compare(before, after):
    """{kind: [(path, how)]} of the files that differ between the sites `before` and `after`; `how` is
    'differs', 'only before' or 'only after'. Kinds with no difference are absent."""
    a, b = files(before), files(after)
    found = {}
    for name in sorted(a | b):
        if name not in b:
            how = "only before"
        elif name not in a:
            how = "only after"
        elif filecmp.cmp(Path(before) / name, Path(after) / name, shallow=False):
            continue
        else:
            how = "differs"
        found.setdefault(kind(name), []).append((name, how))
    return found


def report(found, counts):
    """The lines that say what differs, by kind, with how many files of each kind were compared."""
    lines = []
    for k in KINDS:
        differing = found.get(k, [])
        lines.append(f"{k}: {counts.get(k, 0)} files, {len(differing)} differ")
        lines += [f"  {how:<11}  {name}" for name, how in differing]
    return lines


def copy_revision(rev, into):
    """The tree of git revision `rev` written into the folder `into`."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=ROOT, check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)


def copy_worktree(into):
    """The working tree as git sees it (tracked files on disk, untracked files not ignored) copied into `into`."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_symlink() or not source.is_file():  # deleted, or a link to a shared folder (node_modules)
            continue
        (into / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, into / name)


def build(tree, log):
    """Bundle `tree`'s runtime and build its site into tree/site with its own kernelviz; returns the site folder."""
    modules = (ROOT / "web" / "node_modules").resolve()
    (tree / "web" / "node_modules").symlink_to(modules, target_is_directory=True)
    subprocess.run(["node", "build.mjs"], cwd=tree / "web", check=True, capture_output=True)
    env = {**os.environ, "PYTHONPATH": str(tree), "KERNELVIZ_CACHE": str(tree / ".cache")}  # no scene from a cache
    site = tree / "site"
    command = [sys.executable, "-m", "kernelviz.cli", "build", "--pages", "pages", "--out", str(site)]
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"the build of {tree.name} failed:\n{done.stdout}{done.stderr}")
    log(f"{tree.name}: {done.stdout.strip().splitlines()[-1]}")
    return site


def compare_builds(rev, workdir, log=print):
    """Build `rev` and the working tree under `workdir`; returns (found, counts) as ``compare`` and the number of
    files of each kind in the working tree's site."""
    before, after = Path(workdir) / "before", Path(workdir) / "after"
    copy_revision(rev, before)
    after.mkdir(parents=True)
    copy_worktree(after)
    sites = [build(before, log), build(after, log)]
    counts = {}
    for name in files(sites[1]):
        counts[kind(name)] = counts.get(kind(name), 0) + 1
    return compare(*sites), counts


def main(argv=None):
    parser = argparse.ArgumentParser(prog="compare_builds", description=__doc__.split("\n\n")[0])
    parser.add_argument("rev", help="the git revision to compare the working tree with (main, HEAD~3, a hash)")
    parser.add_argument("--keep", metavar="DIR", help="build in DIR (which must not exist) and keep it")
    parser.add_argument("--all", action="store_true", help="fail on any differing file, assets included")
    args = parser.parse_args(argv)
    if args.keep:
        workdir = Path(args.keep)
        found, counts = compare_builds(args.rev, workdir)
    else:
        with tempfile.TemporaryDirectory(prefix="compare-builds-") as workdir:
            found, counts = compare_builds(args.rev, workdir)
    print("\n".join(report(found, counts)))
    failing = [k for k in found if args.all or k in ("pages", "scenes")]
    print("byte-identical" if not failing else f"differs: {', '.join(failing)}")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
