"""`kernelviz run A.py [B.py ...]`: run editor files in order, as a page runs its editors, and print the Scene.

Each file runs with ``pie`` bound, as on a page: the drawing API is ``pie.point``, ``pie.rectangle``, ... A name of
that API used bare (``rectangle(...)``) fails with a NameError that says to write ``pie.rectangle`` (``runner``).
Editors that draw nothing still print their (empty) Scene, and say so on stderr: exit status 0, since they ran.
"""

import json
import sys
from pathlib import Path

from .checks import UsageError, output_file, read_utf8

HELP = "run Python files as a page's editors, in order, and print or write the Scene JSON"
EPILOG = """Each file runs with `pie` bound, as a page's editors do: draw with pie.point(...), pie.rectangle(...),
pie.text(...) (no import needed; a bare rectangle(...) is a NameError). What the files print goes to stderr, the Scene
to stdout (or --out). Exit status: 0 when every file ran (an empty Scene, nothing drawn, is said on stderr), 1 when one
raised (its file, line and error on stderr), 2 for a mistake in the arguments, 130 when interrupted (Ctrl-C)."""


def add_arguments(parser):
    parser.epilog = EPILOG
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
    if not result.scene.get("nodes"):
        names = ", ".join(str(path) for path in args.files)
        print(f"kernelviz run: {names} drew nothing (the Scene has no nodes): draw with pie.point(...), "
              "pie.rectangle(...), pie.text(...)", file=sys.stderr)  # fmt: skip
    return 0
