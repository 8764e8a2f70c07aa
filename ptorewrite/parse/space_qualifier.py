"""bisheng's bracketed execution space qualifier `[aicore]`: make it plain C++ for libclang.

bisheng (CCE) accepts `[aicore] void f()` and `__global__ [aicore] void k()` with the meaning
of `__aicore__`: the function runs on the device. clang reads a `[` at the start of a
declaration as a structured binding and stops. Before parsing, the front end replaces each
such qualifier by spaces, in the kernel file and in the user's headers it includes, keeping
every offset, line and column; nothing else in a function depends on the qualifier.

A `[aicore]` is taken for the qualifier where bisheng sees the start of a declaration: at the
start of the text, after `;`, `{`, `}` or the `>` closing a template parameter list, after a
declaration specifier (`__global__`, `inline`, `static`, ...), after a preprocessor directive
line, and as (the start of) the body of a `#define` (`#define AICORE [aicore]`). Elsewhere
(after a name, `)` or `]` it is a subscript, after `(`, `,` or `=` a lambda capturing a variable
`aicore`) it is left alone. Comments and string literals are skipped.
"""

from __future__ import annotations

import re

from ptorewrite.parse.launch_syntax import skip_comment, skip_literal

_QUALIFIER = re.compile(r"\[\s*aicore\s*\]")
_SPECIFIERS = frozenset({
    "__global__", "__aicore__", "inline", "__inline__", "static", "extern", "constexpr", "friend",
    "virtual", "explicit", "consteval", "__forceinline__",
})
_DEFINE_HEAD = re.compile(r"#\s*define\s+[A-Za-z_]\w*(\([^)]*\))?\s*$")


def find_space_qualifiers(text: str) -> list[tuple[int, int]]:
    """(start, end) of every `[aicore]` qualifier in `text`."""
    out: list[tuple[int, int]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/":
            j = skip_comment(text, i)
            if j != i:
                i = j
                continue
        elif c == '"' or (c == "'" and not _digit_separator(text, i)):
            i = skip_literal(text, i)
            continue
        elif c == "[":
            m = _QUALIFIER.match(text, i)
            if m and _at_declaration_start(text, i):
                out.append((i, m.end()))
                i = m.end()
                continue
        i += 1
    return out


def blank_space_qualifiers(text: str) -> str:
    """`text` with every `[aicore]` qualifier replaced by spaces."""
    spans = find_space_qualifiers(text)
    if not spans:
        return text
    parts, pos = [], 0
    for start, end in spans:
        parts.append(text[pos:start])
        parts.append(" " * (end - start))
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


def has_space_qualifier(text: str) -> bool:
    return "aicore" in text and bool(find_space_qualifiers(text))


def _digit_separator(text: str, i: int) -> bool:
    return 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isalnum()


def _at_declaration_start(text: str, i: int) -> bool:
    line_start = text.rfind("\n", 0, i) + 1
    head = text[line_start:i]
    if _DEFINE_HEAD.match(head.lstrip()):
        return True
    j = _previous_significant(text, i)
    if j < 0:
        return True
    c = text[j]
    if c in ";{}>":
        return True
    if head.strip() == "" and _is_directive_line(text, j):
        return True
    if c.isalnum() or c == "_":
        k = j
        while k >= 0 and (text[k].isalnum() or text[k] == "_"):
            k -= 1
        return text[k + 1:j + 1] in _SPECIFIERS
    return False


def _previous_significant(text: str, i: int) -> int:
    """The offset of the last character before `i` that is neither white space nor in a comment."""
    j = i - 1
    while j >= 0:
        if text[j].isspace():
            j -= 1
            continue
        if text[j] == "/" and j > 0 and text[j - 1] == "*":  # the end of a block comment
            start = text.rfind("/*", 0, j - 1)
            if start >= 0:
                j = start - 1
                continue
        line_start = text.rfind("\n", 0, j) + 1
        comment = _line_comment_start(text, line_start, j)
        if comment is not None:
            j = comment - 1
            continue
        return j
    return -1


def _line_comment_start(text: str, line_start: int, j: int) -> int | None:
    """The offset of a `//` comment on the line from `line_start` that covers `j`, if any."""
    k = line_start
    while k <= j:
        c = text[k]
        if c == '"' or (c == "'" and not _digit_separator(text, k)):
            k = skip_literal(text, k)
            continue
        if text.startswith("//", k):
            return k
        if text.startswith("/*", k):
            end = text.find("*/", k + 2)
            if end < 0 or end + 1 >= j:
                return None
            k = end + 2
            continue
        k += 1
    return None


def _is_directive_line(text: str, j: int) -> bool:
    line_start = text.rfind("\n", 0, j) + 1
    return text[line_start:j + 1].lstrip().startswith("#")
