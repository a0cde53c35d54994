"""The `kernelviz` command. Each sub-command lives in its own module, imported when it runs:
that module has ``HELP``, ``add_arguments(parser)`` and ``main(args) -> exit status``."""

import argparse
import importlib
import sys

COMMANDS = {
    "serve": "kernelviz.site.commands",
    "build": "kernelviz.site.commands",
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
        help_text = module.HELP[name] if isinstance(module.HELP, dict) else module.HELP
        p = sub.add_parser(name, help=help_text, description=help_text)
        add = module.add_arguments
        add(p, name) if isinstance(module.HELP, dict) else add(p)
    return top


def main(argv=None):
    args = parser().parse_args(argv)
    module = _module(args.command)
    status = module.main(args) if not isinstance(module.HELP, dict) else module.main(args, args.command)
    return status or 0


if __name__ == "__main__":
    sys.exit(main())
