"""`kernelviz bench [NAME ...] [-- ARGS]`: run the benchmarks in the checkout's bench/ folder (all of them by
default); ARGS after ``--`` are passed to each benchmark run, e.g. ``kernelviz bench attention -- --N 1024``."""

import subprocess
import sys
from pathlib import Path

HELP = "run the benchmarks under bench/ (each prints ratios against a baseline from the same run)"
BENCH = Path(__file__).resolve().parents[2] / "bench"


def add_arguments(parser):
    parser.add_argument("names", nargs="*", metavar="NAME", help="benchmarks to run, e.g. attention site gpu")
    parser.epilog = "Options after -- go to each benchmark: kernelviz bench attention -- --N 1024 --d 64"


PASSTHROUGH = True  # cli.py hands what follows -- to main as args.passthrough


def main(args):
    if not BENCH.is_dir():
        print(f"kernelviz bench: no bench/ folder at {BENCH}; benchmarks run from a checkout", file=sys.stderr)
        return 2
    available = sorted(p.stem for p in BENCH.glob("*.py"))
    unknown = [n for n in args.names if n not in available]
    if unknown:
        print(
            f"kernelviz bench: unknown benchmark {', '.join(unknown)}; there are {', '.join(available)}",
            file=sys.stderr,
        )
        return 2
    passthrough = args.passthrough
    status = 0
    for name in args.names or available:
        print(f"== bench/{name}.py {' '.join(passthrough)}".rstrip(), flush=True)
        status |= subprocess.run([sys.executable, str(BENCH / f"{name}.py"), *passthrough], check=False).returncode
    return status
