"""``kernelviz serve``: build the site, serve it, and rebuild it when its sources change."""

import sys

from . import build
from .checks import port

HELP = "build the site, serve it on 127.0.0.1 and rebuild when pages, CUDA files or the runtime change"


def add_arguments(parser):
    build.add_arguments(parser)
    parser.add_argument("--host", default="127.0.0.1", help="address to serve on (default: 127.0.0.1)")
    parser.add_argument("--port", type=port, default=8000, help="port (default: 8000; 0 picks a free one)")


def main(args):
    from kernelviz.site.build import WEB_DIST
    from kernelviz.site.serve import serve

    if mistake := build.check(args):
        print(f"kernelviz serve: {mistake}", file=sys.stderr)
        return 2
    web_dist = args.web_dist or WEB_DIST
    try:
        return serve(
            args.pages,
            args.out,
            host=args.host,
            port=args.port,
            log=build.log,
            strict=args.strict,
            web_dist=web_dist,
            limits=build.limits(args),
            progress=True,
        )
    except OSError as e:
        print(f"kernelviz serve: {build.os_error(e)}", file=sys.stderr)
        return 2
