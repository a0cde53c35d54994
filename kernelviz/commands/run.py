"""`kernelviz run A.py [B.py ...]`: run editor files in order, as a page runs its editors, and print the Scene."""

import json
import sys
from pathlib import Path

from .checks import UsageError, output_file, read_utf8

HELP = "run Python files as a page's editors, in order, and print or write the Scene JSON"


def add_arguments(parser):
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE", help="editor sources, run in order")
    parser.add_argument("--out", type=output_file, help="write the Scene here instead of printing it")


def main(args):
    from kernelviz.runner import Source, run

    try:
        sources = [Source(read_utf8(path), str(path)) for path in args.files]
    except UsageError as e:
        print(f"kernelviz run: {e}", file=sys.stderr)
        return 2
    result = run(sources)
    sys.stderr.write(result.stderr)
    if not result.ok:
        sys.stdout.write(result.stdout)
        print(result.error.traceback.rstrip(), file=sys.stderr)
        print(result.error, file=sys.stderr)
        return 1
    text = json.dumps(result.scene, indent=1, allow_nan=False)
    if args.out:
        try:
            args.out.write_text(text + "\n")
        except OSError as e:
            print(f"kernelviz run: cannot write {args.out}: {e.strerror}", file=sys.stderr)
            return 2
        sys.stdout.write(result.stdout)
    else:
        sys.stderr.write(result.stdout)  # keep stdout for the Scene alone
        print(text)
    return 0
