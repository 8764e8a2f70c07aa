"""Insert-only edits to the user's source, anchored to statements of the parsed tree.

Every stage that changes the kernel (memory planning, sync insertion) produces `Insertion`s: one
new statement placed before or after an existing statement, named by that statement's byte range
from the front end (never by a text line), with a short reason comment. `apply_insertions` makes
them all in one pass:

- before a statement that starts its line, the new lines go just above it (above any `#pragma`
  lines attached to it); after a statement that ends its line (up to a trailing comment), just
  below it. Both are indented like the statement.
- a statement that shares its line with other code (`for (...) { A; }`, `a; b;`) has the line
  broken at the statement's boundary. Only the whitespace there changes: every token of the user's
  text keeps its spelling and order.
- a statement that is the unbraced body of a `for`, `if` or `else` gets braces around it first, so
  that the new lines run exactly when it runs: `for (...) A;` with a barrier before `A` becomes
  `for (...) {` / barrier / `A;` / `}`.
- a new line may open or close a block of new lines (`if constexpr (...) {` / lines / `}`, given
  in that order at one statement): it has no `;`, and the lines inside are indented one level
  deeper (`Insertion.depth`) in the file's own indentation step.

The result is deterministic for a given set of insertions.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from ptorewrite.analysis import ir
from ptorewrite.parse.source import SourceFile


@dataclass(frozen=True)
class Insertion:
    start: int  # byte range [start, end) of the statement the new one goes next to
    end: int
    where: str  # "before" or "after" that statement
    code: str  # one statement, without indentation, ';' or newline
    reason: str  # short comment, e.g. "RAW aTile[slot]: MTE2 -> MTE1"
    order: int = 0  # tie-break among insertions at the same place (lower first)
    terminator: str = ";"  # "" for a line that opens or closes a block (`if constexpr (...) {`, `}`)
    depth: int = 0  # levels of indentation deeper than the statement (the lines inside such a block)
    file: str = ""  # the file the statement is in ("" or the kernel's: the kernel file; else a header of the user's)
    # The variable this line declares, if it is a declaration: written for every kernel of a file
    # that runs its statement (rewrite._merged), since another kernel's lines may not name it but
    # the kernels that do must see it outside their own `if constexpr` branches.
    declares: str = ""

    @classmethod
    def at(cls, loc: ir.SourceRange, where: str, code: str, reason: str, order: int = 0) -> Insertion:
        return cls(loc.offset, loc.end_offset, where, code, reason, order, file=loc.file)

    def in_file(self, kernel_file: str) -> str:
        """The file this line goes into."""
        return self.file or kernel_file

    @property
    def anchor(self) -> int:
        """The statement boundary the new statement goes next to."""
        return self.start if self.where == "before" else self.end

    def render(self) -> str:
        comment = f"  // {self.reason}" if self.reason else ""
        return f"{self.code}{self.terminator}{comment}"


def statement_blocks(kernel: ir.Kernel, file: str | None = None) -> list[tuple[int, int]]:
    """Byte ranges of the statement blocks of the kernel file (or of `file`, a header of the
    user's whose helpers it inlines): loop bodies, if/else branches, nested `{ ... }`,
    MultiBuffered bodies. A range that does not start with `{` is an unbraced body."""
    file = file or kernel.file
    out = set()
    for s in ir.walk(kernel.body):
        if isinstance(s, ir.Block) and s.loc is not None and not s.inlined and s.loc.file == file:
            out.add((s.loc.offset, s.loc.end_offset))
        elif isinstance(s, ir.If) and s.exit is not None and s.exit[0].file == file:
            out.add((s.exit[0].offset, s.exit[0].end_offset))  # the body of `if (c) return;`
    return sorted(out)


def edit_kernel(kernel: ir.Kernel, insertions: Sequence[Insertion]) -> bytes:
    """The kernel's source file with every insertion made."""
    return edit_kernels([kernel], insertions)


def edit_kernels(kernels: Sequence[ir.Kernel], insertions: Sequence[Insertion]) -> bytes:
    """The source file of several kernels of one file (entries, instantiations of a kernel
    template) with every insertion made; the statement blocks are those any of them runs."""
    main = kernels[0].file
    blocks = sorted({b for k in kernels for b in statement_blocks(k)})
    return apply_insertions(SourceFile(main, kernels[0].source), [i for i in insertions if i.in_file(main) == main],
                            blocks)


def edit_headers(kernels: Sequence[ir.Kernel], insertions: Sequence[Insertion]) -> dict[str, bytes]:
    """The user's headers that get lines (helpers the kernels inline from them), each with its
    insertions made, by path; the kernel file itself is not among them."""
    main = kernels[0].file
    out: dict[str, bytes] = {}
    for path in sorted({i.in_file(main) for i in insertions} - {main}):
        with open(path, "rb") as f:
            data = f.read()
        blocks = sorted({b for k in kernels for b in statement_blocks(k, path)})
        out[path] = apply_insertions(SourceFile(path, data), [i for i in insertions if i.file == path], blocks)
    return out


# ---------------------------------------------------------------- lexical facts about the source

# What can hide a brace: comments, string and character literals, and preprocessor lines (with
# their continuations).
_LEXEME = re.compile(
    r"//[^\n]*|/\*.*?(?:\*/|\Z)|\"(?:\\.|[^\"\\\n])*\"?|'(?:\\.|[^'\\\n])*'?|^[ \t]*#(?:\\\r?\n|[^\n])*|[{}]",
    re.DOTALL | re.MULTILINE)
_SPACE_OR_COMMENT = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)*", re.DOTALL)


@dataclass
class _Text:
    src: SourceFile

    @property
    def text(self) -> str:
        return self.src.text

    def line_start(self, pos: int) -> int:
        return self.src.line_start(pos)

    def line_end(self, pos: int) -> int:
        return self.src.line_end(pos)

    def indent(self, pos: int) -> str:
        return self.src.indentation(pos)

    def starts_line(self, pos: int) -> bool:
        return not self.text[self.line_start(pos):pos].strip(" \t")

    def newline(self, pos: int) -> str:
        """The line ending of the line at `pos` (the file's last one at its end)."""
        end = self.text.find("\n", pos)
        if end < 0:
            end = self.text.rfind("\n", 0, pos)
        return "\r\n" if end > 0 and self.text[end - 1] == "\r" else "\n"

    def rest_is_blank(self, pos: int) -> bool:
        """Only whitespace and comments that close on this line follow `pos` on its line."""
        text, i = self.text, pos
        end = self.line_end(pos)
        while i < end:
            if text[i] in " \t\r\n":
                i += 1
            elif text.startswith("//", i):
                return True
            elif text.startswith("/*", i):
                close = text.find("*/", i + 2, end)
                if close < 0:
                    return False
                i = close + 2
            else:
                return False
        return True

    def statement_end(self, start: int, end: int) -> int:
        """`end`, past the `;` that ends the statement when the front end's range stops before it
        (a loop or if whose unbraced body is an expression statement)."""
        if end <= start or self.text[end - 1] in ";}":
            return end
        m = _SPACE_OR_COMMENT.match(self.text, end)
        return m.end() + 1 if self.text.startswith(";", m.end()) else end

    def gap(self, pos: int, backwards: bool) -> tuple[int, int]:
        """The run of spaces and tabs that ends (backwards) or starts at `pos`."""
        text, a, b = self.text, pos, pos
        if backwards:
            while a > 0 and text[a - 1] in " \t":
                a -= 1
        else:
            while b < len(text) and text[b] in " \t":
                b += 1
        return a, b

    def pragma_top(self, line_start: int) -> int:
        """The first of the `#pragma` lines directly above a line (they belong to its statement)."""
        text = self.text
        while line_start > 0:
            prev = self.line_start(line_start - 1)
            if not text[prev:line_start].lstrip(" \t").startswith(("#pragma", "_Pragma")):
                break
            line_start = prev
        return line_start

    @cached_property
    def braces(self) -> tuple[dict[int, int], list[int], list[int | None]]:
        """The matching `{` of every `}`; and, to find the innermost `{` around a position, the
        positions where the nesting changes with the innermost open `{` from each on."""
        match: dict[int, int] = {}
        stack: list[int] = []
        points: list[int] = []
        inner: list[int | None] = []
        for m in _LEXEME.finditer(self.text):
            tok = m.group()
            if tok == "{":
                stack.append(m.start())
            elif tok == "}" and stack:
                match[m.start()] = stack.pop()
            else:
                continue
            points.append(m.end())
            inner.append(stack[-1] if stack else None)
        return match, points, inner

    def enclosing_brace(self, pos: int) -> int | None:
        _, points, inner = self.braces
        i = bisect.bisect_right(points, pos) - 1
        return inner[i] if i >= 0 else None

    @cached_property
    def unit(self) -> str:
        """One level of indentation as the file writes it (its most common step inwards)."""
        steps: Counter[str] = Counter()
        prev = None
        for line in self.text.splitlines():
            if not line.strip():
                continue
            ind = line[: len(line) - len(line.lstrip(" \t"))]
            if prev is not None and len(ind) > len(prev) and ind.startswith(prev):
                steps[ind[len(prev):]] += 1
            prev = ind
        return steps.most_common(1)[0][0] if steps else "    "

    def block_indent(self, opener: int, pos: int) -> str:
        """How the statements of the block opened at `opener` are indented: like its first line
        of code after the brace's line (`pos`'s own line when there is none before it)."""
        text, line = self.text, self.line_end(opener)
        while line < self.line_start(pos):
            code = text[line:self.line_end(line)].strip()
            if code and not code.startswith(("#", "}")):
                return self.indent(line)
            line = self.line_end(line)
        return self.indent(pos)

    def unit_after(self, indent: str) -> str:
        """One more level after `indent`: a tab where the line is indented with tabs."""
        return "\t" if indent.endswith("\t") else self.unit


# ---------------------------------------------------------------- unbraced bodies


@dataclass
class _Body:
    """An unbraced loop or branch body that gets braces."""

    start: int
    end: int
    header_end: int  # just past the `)` or `else` before the body; -1 when a comment is in between
    header_indent: str
    inner_indent: str  # indentation of the body's statement once braced


@dataclass
class _Blocks:
    """The statement blocks of the tree, nested, to find the innermost block around a statement."""

    spans: list[tuple[int, int]]
    parent: list[int] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)

    def __post_init__(self):
        self.spans.sort(key=lambda s: (s[0], -s[1]))
        self.starts = [s for s, _ in self.spans]
        stack: list[int] = []
        for i, (s, _) in enumerate(self.spans):
            while stack and self.spans[stack[-1]][1] <= s:
                stack.pop()
            self.parent.append(stack[-1] if stack else -1)
            stack.append(i)

    def innermost(self, start: int, end: int) -> int:
        """Index of the innermost block holding [start, end), or -1 (the function body)."""
        i = bisect.bisect_right(self.starts, start) - 1
        while i >= 0 and not (self.spans[i][0] <= start and end <= self.spans[i][1]):
            i = self.parent[i]
        return i


def _braced_bodies(t: _Text, blocks: _Blocks, anchors: Sequence[tuple[int, int]]) -> list[_Body]:
    """The unbraced bodies that an insertion goes into: they get braces."""
    text = t.text
    wanted = sorted({i for s, e in anchors if (i := blocks.innermost(s, e)) >= 0
                     and not text.startswith("{", blocks.spans[i][0])})
    out = []
    for i in wanted:
        start, end = blocks.spans[i]
        p = start - 1
        while p >= 0 and text[p] in " \t\r\n":
            p -= 1
        header_line = t.line_start(max(p, 0))
        before_else = text[p - 4:p - 3] if p >= 4 else ""
        kr = p >= 0 and (text[p] == ")" or (text.endswith("else", 0, p + 1) and
                                            not (before_else.isalnum() or before_else == "_")))
        if kr and "//" in text[header_line:p]:
            kr = False  # that `)` may be inside a line comment
        header_indent = t.indent(header_line)
        inner = t.indent(start) if t.starts_line(start) else header_indent + t.unit_after(header_indent)
        out.append(_Body(start, end, p + 1 if kr else -1, header_indent, inner))
    return out


# ---------------------------------------------------------------- placing the new text


@dataclass
class _Item:
    key: tuple
    kind: str  # "line", "open" (` {` at the end of a header), "close"
    text: str = ""
    indent: str = ""


@dataclass
class _Point:
    """Where new text goes: at a line start (whole lines), or in the whitespace [start, end)
    between two pieces of code on one line (the line is broken there)."""

    start: int
    end: int
    inline: bool
    items: list[_Item] = field(default_factory=list)


def apply_insertions(src: SourceFile, insertions: Sequence[Insertion], blocks: Sequence[tuple[int, int]]) -> bytes:
    """The source with every insertion made. `blocks`: the byte ranges of the statement blocks of
    the parsed tree (`statement_blocks`), which say which statements are unbraced bodies."""
    t = _Text(src)
    text = t.text
    spans = [(i.start, t.statement_end(i.start, i.end)) for i in insertions]
    tree = _Blocks([(s, t.statement_end(s, e)) for s, e in blocks])
    bodies = _braced_bodies(t, tree, spans)
    points: dict[int, _Point] = {}
    extra: dict[int, str] = {}  # ` {` after a header whose body starts the next line

    def stmt_indent(pos: int) -> str:
        """The indentation of a statement at `pos` once on a line of its own."""
        if t.starts_line(pos):
            return t.indent(pos)
        opener = t.enclosing_brace(pos)
        for b in bodies:
            if b.start <= pos < b.end and (opener is None or opener < b.start):
                return b.inner_indent if t.line_start(b.start) == t.line_start(pos) else t.indent(pos)
        if opener is None:
            return t.indent(pos)
        if t.line_start(opener) == t.line_start(pos):
            return t.indent(pos) + t.unit_after(t.indent(pos))
        return t.block_indent(opener, pos)

    def point_before(pos: int) -> _Point:
        if t.starts_line(pos):
            at = t.pragma_top(t.line_start(pos))
            return points.setdefault(at, _Point(at, at, False))
        a, b = t.gap(pos, backwards=True)
        return points.setdefault(a, _Point(a, b, True))

    def point_after(pos: int) -> _Point:
        if t.rest_is_blank(pos):
            at = t.line_end(pos)
            return points.setdefault(at, _Point(at, at, False))
        a, b = t.gap(pos, backwards=False)
        return points.setdefault(a, _Point(a, b, True))

    def line_indent(ins: Insertion, pos: int) -> str:
        """A new line's indentation: its statement's, `depth` steps deeper inside a new block."""
        indent = stmt_indent(pos)
        for _ in range(ins.depth):
            indent += t.unit_after(indent)
        return indent

    # At one point: first what ends there (innermost first: a statement's own lines, then the brace
    # closing the body it is), then what starts there (outermost first: an opening brace, then the
    # lines before the statement). Among one statement's lines, by `order`, then as given.
    for seq, (ins, (s, e)) in enumerate(zip(insertions, spans)):
        if ins.where == "before":
            point_before(s).items.append(_Item((1, -e, 1, ins.order, seq), "line", ins.render(), line_indent(ins, s)))
        elif ins.where == "after":
            point_after(e).items.append(_Item((0, -s, 0, ins.order, seq), "line", ins.render(), line_indent(ins, s)))
        else:
            raise ValueError(ins.where)
    for b in bodies:
        if b.header_end >= 0 and t.starts_line(b.start):
            extra[b.header_end] = " {"
        else:
            kind = "open" if b.header_end >= 0 else "line"
            point_before(b.start).items.append(_Item((1, -b.end, 0, 0, 0), kind, "{", b.header_indent))
        point_after(b.end).items.append(_Item((0, -b.start, 1, 0, 0), "close", "}", b.header_indent))

    edits = [(at, at, s) for at, s in extra.items()]
    for p in points.values():
        p.items.sort(key=lambda it: it.key)
        nl = t.newline(p.start)
        if not p.inline:
            edits.append((p.start, p.start, "".join(f"{it.indent}{it.text}{nl}" for it in p.items)))
            continue
        parts = [" {" if it.kind == "open" else f"{nl}{it.indent}{it.text}" for it in p.items]
        # What followed on the line continues on a line of its own, except `} else`.
        if p.items[-1].kind == "close" and text.startswith("else", p.end):
            parts.append(" ")
        elif text.startswith("}", p.end) and p.end in t.braces[0]:
            parts.append(nl + t.indent(t.braces[0][p.end]))
        else:
            parts.append(nl + stmt_indent(p.end))
        edits.append((p.start, p.end, "".join(parts)))
    if text and not text.endswith("\n"):
        # Lines after the last line of a file without a final newline start on a line of their own.
        edits = [(a, b, t.newline(a) + s if a == len(text) else s) for a, b, s in edits]
    edits.sort(key=lambda e: (e[0], e[1]))
    out: list[str] = []
    pos = 0
    for a, b, s in edits:
        out.append(text[pos:a])
        out.append(s)
        pos = b
    out.append(text[pos:])
    return "".join(out).encode("latin-1")
