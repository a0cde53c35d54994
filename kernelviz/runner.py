"""Run a page's editors: in order, in one namespace with `pie` bound, from a cleared scene.

The seed pages call ``pie.`` without importing it, and their second editor uses what the first defined, so the
editors share one namespace. The same runner serves the site builder, the tests, the CLI and the browser (Pyodide
runs this file unchanged), so it imports nothing but the standard library, pie and figlib.

    result = run([Source(helpers), Source(kernel)], sizes={"N": 12})
    result.sizes   # the sizes the kernel drew at (figlib.sizes), {} when it asked for none
    result.tied    # those whose default is another size, {"N_kv": "N"} (figlib.sizes(N=8, N_kv="N"))
    result.scene   # the Scene dict, or None when an editor failed
    result.error   # None, or where it failed: editor index, line in the editor, line in its file, traceback

What the editors print is kept up to ``OUTPUT_LIMIT`` characters a stream, then a note says how much was cut (a page
that prints a gigabyte must not take the reader's tab, nor the builder's memory). The runner sets no time or memory
limit itself: the browser's worker is stopped from the page, and the builder runs it in a child (site.isolated).
"""

import builtins
import contextlib
import io
import linecache
import traceback
from dataclasses import asdict, dataclass, field

from kernelviz import pie
from kernelviz.figlib import sizing as _sizes


@dataclass
class Source:
    """One editor's code. `name` is shown in errors (a file path, or 'editor 2'); `first_line` is the line of
    its file where the code starts, so errors can point into a page file."""

    code: str
    name: str = ""
    first_line: int = 1


@dataclass
class RunError:
    editor: int  # index of the failing editor, from 0
    name: str
    line: int | None  # line within the editor, from 1; None when the error has no line in user code
    file_line: int | None  # the same line in the editor's file
    kind: str  # the exception's type, e.g. 'NameError'
    message: str
    traceback: str  # trimmed to the user's code

    def __str__(self):
        where = self.name if self.file_line is None else f"{self.name}:{self.file_line}"
        return f"{where}: {self.kind}: {self.message}"


@dataclass
class RunResult:
    scene: dict | None
    stdout: str = ""
    stderr: str = ""
    error: RunError | None = None
    outputs: list = field(default_factory=list)  # stdout of each editor that ran, in order
    sizes: dict = field(default_factory=dict)  # the sizes the kernel asked for (figlib.sizes), with their values
    tied: dict = field(default_factory=dict)  # those whose default is another size, {N_kv: "N"} (figlib.sizes)

    @property
    def ok(self):
        return self.error is None

    def to_dict(self):
        return asdict(self)


OUTPUT_LIMIT = 200_000  # characters kept of what the editors print (each stream): more would take a page down


class _Capture(io.TextIOBase):
    """A text stream that keeps the first `limit` characters written to it and counts the rest, so an editor that
    prints a gigabyte costs neither the memory nor the page that would show it. `cut(since)` is what was kept since
    position `since` (a `tell()`), with a note of how much was cut after it."""

    def __init__(self, limit=OUTPUT_LIMIT):
        self.limit, self.kept, self.cut_chars = limit, [], 0
        self.size = 0

    def writable(self):
        return True

    def write(self, text):
        text = str(text)
        room = max(self.limit - self.size, 0)
        if len(text) > room:
            self.cut_chars += len(text) - room
            text = text[:room]
        if text:
            self.kept.append(text)
            self.size += len(text)
        return len(text)

    def tell(self):
        return self.size, self.cut_chars

    def cut(self, since=(0, 0)):
        kept, cut = since
        text = "".join(self.kept)[kept:]
        if self.cut_chars > cut:
            text += f"\n… [output cut: {self.cut_chars - cut:,} more characters not shown]\n"
        return text

    def getvalue(self):
        return self.cut()


def _filenames(sources):
    """A distinct filename per editor, for tracebacks: its name where it has one."""
    names = []
    for i, source in enumerate(sources):
        name = source.name or f"editor {i + 1}"
        names.append(name if name not in names else f"{name} ({i + 1})")
    return names


def _locate(exc, filenames):
    """(editor index, line) of the innermost frame of `exc` in user code, and the trimmed traceback."""
    if isinstance(exc, SyntaxError) and exc.filename in filenames:
        detail = "".join(traceback.format_exception_only(type(exc), exc))
        return filenames.index(exc.filename), exc.lineno, detail
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename in filenames]
    lines = traceback.format_list(frames) + traceback.format_exception_only(type(exc), exc)
    trimmed = "Traceback (most recent call last):\n" + "".join(lines)
    if not frames:
        return None, None, trimmed
    return filenames.index(frames[-1].filename), frames[-1].lineno, trimmed


def run(sources, sizes=None, *, interrupts=True, on_editor=None):
    """Run `sources` (Source objects or plain strings) in order; stop at the first error. Returns a RunResult.
    `sizes` (a dict name -> int, optional) overrides the defaults of the kernel's ``figlib.sizes(...)`` call; a bad
    size is an error of that call, at its line. A KeyboardInterrupt propagates when `interrupts` (the browser's Stop
    button raises one); with False it is an error like any other (the builder's child process, where only the
    editors can raise one). `on_editor(i)`, when given, is called as editor i starts (the builder's child says so,
    so that a process that dies names the editor it died in)."""
    sources = [s if isinstance(s, Source) else Source(s) for s in sources]
    _sizes.give(sizes)
    filenames = _filenames(sources)
    namespace = {"__name__": "__main__", "__builtins__": builtins, "pie": pie}
    stdout, stderr, outputs = _Capture(), _Capture(), []
    pie.clear()
    for i, (source, filename) in enumerate(zip(sources, filenames, strict=True)):
        lines = source.code.splitlines(keepends=True)
        linecache.cache[filename] = (len(source.code), None, lines, filename)
        before = stdout.tell()
        if on_editor is not None:
            on_editor(i)
        try:
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                exec(compile(source.code, filename, "exec"), namespace)
        except BaseException as exc:  # noqa: BLE001 - the reader's code may raise anything, SystemExit included
            if isinstance(exc, KeyboardInterrupt) and interrupts:
                raise
            outputs.append(stdout.cut(before))
            editor, line, trimmed = _locate(exc, filenames)
            editor = i if editor is None else editor
            failed = sources[editor]
            name = filenames[editor]
            file_line = None if line is None else failed.first_line + line - 1
            message = exc.msg if isinstance(exc, SyntaxError) else str(exc)
            if isinstance(exc, NameError) and getattr(exc, "name", None) in pie.__all__:  # rectangle(...) for pie's
                message += f" (it is pie's: write pie.{exc.name}(...))"
            error = RunError(editor, name, line, file_line, type(exc).__name__, message, trimmed)
            return RunResult(None, stdout.getvalue(), stderr.getvalue(), error, outputs, _sizes.used(), _sizes.tied())
        outputs.append(stdout.cut(before))
    return RunResult(pie.scene(), stdout.getvalue(), stderr.getvalue(), None, outputs, _sizes.used(), _sizes.tied())
