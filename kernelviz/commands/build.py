"""``kernelviz build``: the static site from pages/*.md."""

import sys
from pathlib import Path

HELP = "build the static site from pages/*.md into site/ (a folder that needs nothing from outside it)"


def add_arguments(parser):
    parser.add_argument("--pages", type=Path, default=Path("pages"), help="the page sources (default: pages)")
    parser.add_argument("--out", type=Path, default=Path("site"), help="where to write the site (default: site)")
    parser.add_argument("--web-dist", type=Path, default=None, help="the bundled runtime (default: web/dist)")
    parser.add_argument("--strict", action="store_true", help="fail on any warning")


def main(args):
    from kernelviz.site.build import WEB_DIST, build
    from kernelviz.site.diagnostics import BuildError

    try:
        build(args.pages, args.out, strict=args.strict, web_dist=args.web_dist or WEB_DIST, log=log)
    except BuildError as e:
        print(f"kernelviz build: {e}", file=sys.stderr)
        return 1
    return 0


def log(message):
    """Print a builder message: warnings to stderr, the rest to stdout."""
    print(message, file=sys.stderr if message.startswith("warning:") else sys.stdout, flush=True)
