"""``kernelviz build`` and ``kernelviz serve`` (dispatched here by kernelviz/cli.py)."""

import sys
from pathlib import Path

HELP = {
    "build": "build the static site from pages/*.md into site/ (a folder that needs nothing from outside it)",
    "serve": "build the site, serve it on 127.0.0.1 and rebuild when pages, CUDA files or the runtime change",
}


def add_arguments(parser, name):
    parser.add_argument("--pages", type=Path, default=Path("pages"), help="the page sources (default: pages)")
    parser.add_argument("--out", type=Path, default=Path("site"), help="where to write the site (default: site)")
    parser.add_argument("--web-dist", type=Path, default=None, help="the bundled runtime (default: web/dist)")
    parser.add_argument("--strict", action="store_true", help="fail on any warning")
    if name == "serve":
        parser.add_argument("--host", default="127.0.0.1", help="address to serve on (default: 127.0.0.1)")
        parser.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0 picks a free one)")


def main(args, name):
    from .build import WEB_DIST, build
    from .diagnostics import BuildError

    web_dist = args.web_dist or WEB_DIST
    if name == "serve":
        from .serve import serve

        options = {"strict": args.strict, "web_dist": web_dist}
        return serve(args.pages, args.out, host=args.host, port=args.port, log=_log, **options)
    try:
        build(args.pages, args.out, strict=args.strict, web_dist=web_dist, log=_log)
    except BuildError as e:
        print(f"kernelviz build: {e}", file=sys.stderr)
        return 1
    return 0


def _log(message):
    print(message, file=sys.stderr if message.startswith("warning:") else sys.stdout, flush=True)
