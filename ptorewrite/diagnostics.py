"""Located diagnostics in the `file:line:col: severity: message` form compilers use."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TextIO


@dataclass(frozen=True)
class Location:
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # "error", "warning", "note"
    message: str
    loc: Location | None = None
    notes: tuple[Diagnostic, ...] = ()

    def format(self) -> str:
        head = f"{self.loc}: " if self.loc else "ptorewrite: "
        lines = [f"{head}{self.severity}: {self.message}"]
        lines += [n.format() for n in self.notes]
        return "\n".join(lines)


class PtoError(Exception):
    """Bad input: reported as located errors, exit status 2, nothing written."""

    def __init__(self, message: str, loc=None, notes: tuple[Diagnostic, ...] = ()):
        super().__init__(message)
        self.diagnostics = [Diagnostic("error", message, to_location(loc), notes)]

    @classmethod
    def many(cls, diagnostics: list[Diagnostic]) -> PtoError:
        err = cls(diagnostics[0].message)
        err.diagnostics = list(diagnostics)
        return err

    def format(self) -> str:
        return "\n".join(d.format() for d in self.diagnostics)


def to_location(loc) -> Location | None:
    """Accept a Location, an IR SourceRange, or anything with file/line/col."""
    if loc is None or isinstance(loc, Location):
        return loc
    return Location(str(loc.file), loc.line, loc.col)


@dataclass
class Reporter:
    """Collects warnings so that a stage can continue and the CLI prints them once."""

    diagnostics: list[Diagnostic] = field(default_factory=list)

    def warn(self, message: str, loc=None, notes: tuple[Diagnostic, ...] = ()) -> None:
        d = Diagnostic("warning", message, to_location(loc), notes)
        if d not in self.diagnostics:
            self.diagnostics.append(d)

    def note(self, message: str, loc=None) -> None:
        self.diagnostics.append(Diagnostic("note", message, to_location(loc)))

    def print(self, stream: TextIO | None = None) -> None:
        stream = stream or sys.stderr  # looked up per call: sys.stderr may be replaced (tests, tools)
        for d in self.diagnostics:
            print(d.format(), file=stream)

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]
