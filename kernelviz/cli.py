"""The `kernelviz` command. Each sub-command lives in its own module, imported when it runs:
that module has ``HELP``, ``add_arguments(parser)`` and ``main(args) -> exit status``."""

import argparse
import importlib
import sys

COMMANDS = {
    "serve": "kernelviz.commands.serve",
    "build": "kernelviz.commands.build",
    "run": "kernelviz.commands.run",
    "trace": "kernelviz.attention.cli",
    "verify": "kernelviz.cuda.cli",
    "bench": "kernelviz.commands.bench",
}


def _module(name):
    return importlib.import_module(COMMANDS[name])


def parser():
    top = argparse.ArgumentParser(prog="kernelviz", description="An executable textbook of attention GPU kernels.")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        module = _module(name)
        module.add_arguments(sub.add_parser(name, help=module.HELP, description=module.HELP))
    return top


def main(argv=None):
    args = parser().parse_args(argv)
    return _module(args.command).main(args) or 0


if __name__ == "__main__":
    sys.exit(main())
