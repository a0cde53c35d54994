"""`kernelviz run A.py [B.py ...]`: run editor files in order, as a page runs its editors, and print the Scene."""

import json
import sys
from pathlib import Path

HELP = "run Python files as a page's editors, in order, and print or write the Scene JSON"


def add_arguments(parser):
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE", help="editor sources, run in order")
    parser.add_argument("--out", type=Path, help="write the Scene here instead of printing it")


def main(args):
    from kernelviz.runner import Source, run

    sources = []
    for path in args.files:
        try:
            sources.append(Source(path.read_text(), str(path)))
        except OSError as e:
            print(f"kernelviz run: cannot read {path}: {e.strerror}", file=sys.stderr)
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
        args.out.write_text(text + "\n")
        sys.stdout.write(result.stdout)
    else:
        sys.stderr.write(result.stdout)  # keep stdout for the Scene alone
        print(text)
    return 0
