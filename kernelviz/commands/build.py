"""``kernelviz build``: the static site from pages/*.md.

It says at once what it builds (how many pages, from where, into where) and that running the pages' editors takes
most of the time; then a bar of the stages (and of the pages whose editors ran) on a terminal, or where there is
none (a log, a pipe) a line per stage and per page, so that a build of minutes is never silent; and the built line
at the end."""

import sys
from pathlib import Path

HELP = "build the static site from the textbook's pages (or --pages DIR) into site/, a folder of static files"


def add_arguments(parser):
    from kernelviz.site.locations import PAGES

    parser.add_argument(
        "--pages", type=Path, default=PAGES, help=f"a folder of NAME.md pages (default: the textbook's, {PAGES})"
    )
    parser.add_argument("--out", type=Path, default=Path("site"), help="where to write the site (default: site)")
    parser.add_argument("--web-dist", type=Path, default=None, help="the bundled runtime (default: web/dist)")
    parser.add_argument("--strict", action="store_true", help="fail on any warning")
    parser.add_argument("--editor-seconds", type=_seconds, default=60.0, help="each page's editors' time limit (60)")
    parser.add_argument("--editor-memory-mb", type=_megabytes, default=4096, help="their memory limit (4096 MB)")


def _seconds(text):
    return _checked(text, float, "seconds")


def _megabytes(text):
    return _checked(text, int, "memory_mb")


def _checked(text, kind, field):
    """`text` as a value of isolated.Limits' `field`; a bad one is argparse's error (exit 2, with the range)."""
    import argparse

    from kernelviz.site.isolated import Limits

    try:
        value = kind(text)
        Limits(**{field: value})
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return value


def limits(args):
    """The editors' limits the arguments give."""
    from kernelviz.site.isolated import Limits

    return Limits(seconds=args.editor_seconds, memory_mb=args.editor_memory_mb)


def main(args):
    from kernelviz.site.build import WEB_DIST, build
    from kernelviz.site.diagnostics import BuildError

    if mistake := check(args):
        print(f"kernelviz build: {mistake}", file=sys.stderr)
        return 2
    try:
        _start(args)
        build(
            args.pages,
            args.out,
            strict=args.strict,
            web_dist=args.web_dist or WEB_DIST,
            log=log,
            limits=limits(args),
            progress=True,
            precompressed=True,  # NAME.gz beside each text asset, for static hosts (README: Publishing the site)
            on_stage=None if sys.stderr.isatty() else _stage_line,  # a terminal has the bar
            on_page=None if sys.stderr.isatty() else _page_line,
        )
    except BuildError as e:
        print(f"kernelviz build: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # a folder it cannot create or write (--out under /proc, read-only, ...)
        print(f"kernelviz build: {os_error(e)}", file=sys.stderr)
        return 2
    return 0


STAGE_WORDS = {"figures": "running each page's editors, side by side: most of the time"}


def _start(args):
    """The line a build starts with: what it builds, and how long it takes (none without pages: the build says)."""
    from kernelviz.site.diagnostics import BuildError
    from kernelviz.site.pages import collect

    try:
        n = len(collect(args.pages))
    except BuildError:
        return
    line = f"kernelviz build: {n} page{'' if n == 1 else 's'} from {args.pages} into {args.out}; running the pages' "
    line += f"editors takes most of the time (each page's within {args.editor_seconds:g} s)"
    print(line, file=sys.stderr, flush=True)


def _stage_line(name):
    words = STAGE_WORDS.get(name)
    print(f"kernelviz build: {name}" + (f" ({words})" if words else ""), file=sys.stderr, flush=True)


def _page_line(page, done, pages):
    print(f"kernelviz build: figures {done}/{pages}: {page.file}: its editors ran", file=sys.stderr, flush=True)


def os_error(e):
    """An OSError as one line naming the file, and what to check."""
    return f"{e.strerror or e}: {e.filename} (choose --pages and --out folders that can be read and written)"


def check(args):
    """What is wrong with the folders `args` names (build and serve share them), or None."""
    if not args.pages.is_dir():
        where = args.pages.resolve()
        return f"--pages {args.pages} is not a folder: name the folder of the *.md pages (looked for {where})"
    if args.out.exists() and not args.out.is_dir():
        return f"--out {args.out} is a file: name a folder to write the site into (default: site)"
    return None


def log(message):
    """Print a builder message: warnings to stderr, the rest to stdout."""
    print(message, file=sys.stderr if message.startswith("warning:") else sys.stdout, flush=True)
