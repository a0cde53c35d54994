"""The `kernelviz` command. Each sub-command lives in its own module, imported when it runs:
that module has ``HELP``, ``add_arguments(parser)`` and ``main(args) -> exit status``.

Bare ``kernelviz`` prints the help. ``kernelviz bench NAME -- ARGS`` hands ARGS to the benchmark (a module that
sets ``PASSTHROUGH = True`` gets what follows ``--`` as ``args.passthrough``). Output into a closed pipe
(``kernelviz run A.py | head``) ends the command quietly, as Unix tools do: status 141 (128 + SIGPIPE), no traceback;
so does Ctrl-C, in any command: status 130 (128 + SIGINT). ``python -m kernelviz`` is the same command.
"""

import argparse
import importlib
import os
import sys

COMMANDS = {
    "serve": "kernelviz.commands.serve",
    "build": "kernelviz.commands.build",
    "run": "kernelviz.commands.run",
    "trace": "kernelviz.commands.trace",
    "roofline": "kernelviz.commands.roofline",
    "verify": "kernelviz.commands.verify",
    "bench": "kernelviz.commands.bench",
}


def _module(name):
    return importlib.import_module(COMMANDS[name])


def parser():
    top = argparse.ArgumentParser(prog="kernelviz", description="An executable textbook of attention GPU kernels.")
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module = _module(name)
        module.add_arguments(sub.add_parser(name, help=module.HELP, description=module.HELP))
    return top


def main(argv=None):
    top = parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        try:
            if not argv:
                top.print_help()
                return 0
            args = _parse(top, argv)
            return _module(args.command).main(args) or 0
        finally:
            sys.stdout.flush()  # here, not at exit, so that a closed pipe is caught (after --help's SystemExit too)
    except BrokenPipeError:
        return _closed_pipe()
    except KeyboardInterrupt:  # Ctrl-C: stop quietly, on a line of its own, as a shell reports SIGINT
        print(file=sys.stderr)
        return 128 + 2


def _parse(top, argv):
    """Parse `argv`; what follows a ``--`` is ``args.passthrough``, for a command whose module says PASSTHROUGH."""
    passthrough = []
    if "--" in argv:
        cut = argv.index("--")
        argv, passthrough = argv[:cut], argv[cut + 1 :]
    args = top.parse_args(argv)
    if passthrough and not getattr(_module(args.command), "PASSTHROUGH", False):
        top.error(f"{args.command} takes nothing after --")
    args.passthrough = passthrough
    return args


def _closed_pipe():
    """The reader of our stdout went away: stop quietly. Point stdout at /dev/null so that the interpreter's final
    flush of what is still buffered cannot raise again, and exit as a process killed by SIGPIPE would."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 128 + 13


if __name__ == "__main__":
    sys.exit(main())
