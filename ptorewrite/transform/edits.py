"""Insert-only edits to the user's source, applied in one pass.

Every stage that changes the kernel (memory planning, sync insertion) produces
`Insertion`s: whole lines placed before or after an existing source line, indented like
it, each with a short reason comment. The user's own lines keep their bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptorewrite.parse.source import SourceFile


@dataclass(frozen=True)
class Insertion:
    anchor: int  # byte offset inside the line the new line goes next to
    where: str  # "before" or "after" that line
    code: str  # one statement, without indentation or newline
    reason: str  # short comment, e.g. "RAW aTile[slot]: MTE2 -> MTE1"
    order: int = 0  # tie-break among insertions at the same place (lower first)
    indent: str | None = None  # override the anchor line's indentation
    terminator: str = ";"  # "" for a line that opens or closes a block (`if constexpr (...) {`)

    def render(self, indent: str) -> str:
        comment = f"  // {self.reason}" if self.reason else ""
        return f"{self.indent if self.indent is not None else indent}{self.code}{self.terminator}{comment}\n"


def apply_insertions(src: SourceFile, insertions: list[Insertion]) -> bytes:
    """The source with every insertion made; deterministic for a given set of insertions."""
    points: dict[int, list[tuple[int, int, str]]] = {}
    for seq, ins in enumerate(insertions):
        if ins.where == "before":
            at = src.line_start(ins.anchor)
        elif ins.where == "after":
            at = src.line_end(ins.anchor)
        else:
            raise ValueError(ins.where)
        line = ins.render(src.indentation(ins.anchor))
        # Where the line after one statement is also the line before the next, the lines that
        # finish the first statement (e.g. a set after a producer) come before the lines that
        # prepare the second (e.g. a wait before a consumer).
        points.setdefault(at, []).append((ins.where == "before", ins.order, seq, line))
    text = src.text
    if text and not text.endswith("\n") and len(text) in points:
        text += "\n"
    out: list[str] = []
    pos = 0
    for at in sorted(points):
        out.append(text[pos:at])
        out.extend(item[-1] for item in sorted(points[at]))
        pos = at
    out.append(text[pos:])
    return "".join(out).encode("latin-1")
