"""Source files by byte offset: libclang reports byte offsets, edits are made in bytes."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from pathlib import Path

from ptorewrite.analysis.ir import SourceRange


@dataclass
class SourceFile:
    path: str  # as shown in diagnostics
    data: bytes
    text: str = field(init=False)  # latin-1 view: one character per byte, so offsets agree
    _line_starts: list[int] = field(init=False, repr=False)

    def __post_init__(self):
        self.text = self.data.decode("latin-1")
        self._line_starts = [0] + [i + 1 for i, c in enumerate(self.text) if c == "\n"]

    @classmethod
    def read(cls, path: str | Path, shown_as: str | None = None) -> SourceFile:
        return cls(shown_as or str(path), Path(path).read_bytes())

    def line_col(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self._line_starts, offset) - 1
        return i + 1, offset - self._line_starts[i] + 1

    def range(self, start: int, end: int) -> SourceRange:
        line, col = self.line_col(start)
        eline, ecol = self.line_col(max(start, end))
        return SourceRange(self.path, line, col, eline, ecol, start, end)

    def line_start(self, offset: int) -> int:
        return self._line_starts[bisect.bisect_right(self._line_starts, offset) - 1]

    def line_end(self, offset: int) -> int:
        """Offset just past the newline that ends the line containing `offset`."""
        i = self.text.find("\n", offset)
        return len(self.text) if i < 0 else i + 1

    def indentation(self, offset: int) -> str:
        start = self.line_start(offset)
        line = self.text[start:self.line_end(offset)]
        return line[: len(line) - len(line.lstrip(" \t"))]
