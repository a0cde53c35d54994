"""Argument types and file checks the sub-commands share. Each refuses a bad value with a sentence that names it and
says what would work: as an argparse ``type=``, it makes argparse print ``kernelviz CMD: error: argument --x: ...``
and exit 2, before anything runs; ``read_utf8`` raises UsageError, which a command prints and exits 2 on."""

import argparse
from pathlib import Path


class UsageError(Exception):
    """A mistake in what the user asked for (a file, a path, a size): printed as one line, exit status 2."""


def port(text):
    """A TCP port, 0 to 65535 (0: the system picks a free one)."""
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: use 0 to 65535 (0 picks a free port)")
    return value


def positive(text):
    """A whole number >= 1 (a size), written out or in scientific notation with a whole value ("1e9", "2.5e3");
    argparse says "invalid positive integer value: '0'" otherwise."""
    try:
        value = int(text)
    except ValueError:
        value = _whole(text)
    if value <= 0:
        raise ValueError(text)
    return value


def _whole(text):
    """`text` in scientific notation as the whole number it names exactly ("1e9"), or ValueError."""
    import decimal

    try:
        number = decimal.Decimal(text.strip())
    except decimal.InvalidOperation:
        raise ValueError(text) from None
    if not number.is_finite() or number != number.to_integral_value() or abs(number.adjusted()) > 100:
        raise ValueError(text)
    return int(number)


positive.__name__ = "positive integer"


def non_negative(text):
    """A whole number >= 0 (a seed, a count that may be zero)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number >= 0")
    return value


def output_file(text):
    """A file to write: not a folder, and in a folder that exists (the file itself may or may not exist)."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder: name a file to write, e.g. {path / 'out'}")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text}: the folder {path.parent} does not exist (create it)")
    return path


def read_utf8(path):
    """The text of the file at `path`. Raises UsageError naming the file when it cannot be read or is not UTF-8
    (with the line and column of the first byte that is not)."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise UsageError(
            f"{path}:{line}:{column}: not UTF-8 text (byte 0x{data[e.start]:02x}); save the file as UTF-8"
        ) from None
