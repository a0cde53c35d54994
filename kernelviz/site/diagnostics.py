"""Build warnings, each naming the page file and line, and the error that stops a build.

A warning is something a reader would see as a defect (an unknown step label, a missing CUDA region, a broken link,
math Temml cannot typeset, an editor that fails). ``kernelviz build`` prints them and writes the site anyway; under
``--strict`` any warning fails the build. A ``BuildError`` is a build that cannot go on (no runtime bundle, no node).
"""

from dataclasses import dataclass


class BuildError(Exception):
    """The build failed; the message says why and, for a strict build, lists every warning."""


@dataclass(frozen=True)
class BuildWarning:
    file: str
    line: int | None  # from 1; None when the problem has no line (e.g. a generated link)
    message: str

    def __str__(self):
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.message}"


class Diagnostics:
    """Collects warnings in the order they are found; ``log`` (e.g. print) is called with each as it comes."""

    def __init__(self, log=None):
        self.warnings = []
        self._log = log

    def warn(self, file, line, message):
        w = BuildWarning(str(file), line, message)
        if w not in self.warnings:
            self.warnings.append(w)
            if self._log:
                self._log(f"warning: {w}")
        return w

    def fail_if_strict(self, strict):
        """Raise BuildError listing every warning when `strict` and there are any."""
        if strict and self.warnings:
            lines = "\n".join(f"  {w}" for w in self.warnings)
            n = len(self.warnings)
            raise BuildError(f"strict build failed: {n} warning{'s' if n > 1 else ''}\n{lines}")
