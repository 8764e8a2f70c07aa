"""Reading declarations from source text and cursors: template parameters, parameter defaults
and kinds, parenthesised and separated pieces of a header."""

from __future__ import annotations

from collections.abc import Iterable

from clang.cindex import Cursor, CursorKind

from ptorewrite.parse import cparse as cp
from ptorewrite.parse.source import SourceFile
from ptorewrite.parse.values import LoweringError


def enum_names(top: Iterable[Cursor]) -> frozenset[str]:
    """Names of the enumerations declared at namespace scope anywhere in the translation unit
    (`top`: its top-level cursors)."""
    names = set()
    todo = list(top)
    while todo:
        c = todo.pop()
        if c.kind == CursorKind.ENUM_DECL and c.spelling:
            names.add(c.spelling)
        elif c.kind in (CursorKind.NAMESPACE, CursorKind.LINKAGE_SPEC, CursorKind.UNEXPOSED_DECL):
            todo.extend(c.get_children())
    return frozenset(names)


def enum_values(top: Iterable[Cursor]) -> dict[str, int]:
    """The value of every enumerator declared at namespace scope, by `Enum::Member` (the way the
    front end spells an enumerator it reads)."""
    values: dict[str, int] = {}
    todo = list(top)
    while todo:
        c = todo.pop()
        if c.kind == CursorKind.ENUM_DECL and c.spelling:
            for k in c.get_children():
                if k.kind == CursorKind.ENUM_CONSTANT_DECL:
                    values[f"{c.spelling}::{k.spelling}"] = k.enum_value
        elif c.kind in (CursorKind.NAMESPACE, CursorKind.LINKAGE_SPEC, CursorKind.UNEXPOSED_DECL):
            todo.extend(c.get_children())
    return values


def template_params(cursor: Cursor, src: SourceFile) -> list[tuple[str, str, tuple[str, int] | None]]:
    """(kind, name, default text and offset) of a template's parameters, in order."""
    out = []
    for c in cursor.get_children():
        if c.kind in (CursorKind.TEMPLATE_TYPE_PARAMETER, CursorKind.TEMPLATE_NON_TYPE_PARAMETER,
                      CursorKind.TEMPLATE_TEMPLATE_PARAMETER):
            text = src.text[c.extent.start.offset:c.extent.end.offset]
            default = None
            if c.spelling and "=" in text:
                name_end = c.location.offset - c.extent.start.offset + len(c.spelling)
                eq = text.find("=", name_end)
                if eq >= 0:
                    default = (text[eq + 1:], c.extent.start.offset + eq + 1)
            kind = "type" if c.kind == CursorKind.TEMPLATE_TYPE_PARAMETER else "value"
            out.append((kind, c.spelling, default))
    return out


def param_default(p: Cursor, src: SourceFile) -> tuple[str, int] | None:
    text = src.text[p.extent.start.offset:p.extent.end.offset]
    name_end = p.location.offset - p.extent.start.offset + len(p.spelling)
    eq = text.find("=", name_end)
    return (text[eq + 1:], p.extent.start.offset + eq + 1) if eq >= 0 else None


def is_mutable_reference(param: Cursor, src: SourceFile) -> bool:
    """`T &x` or `T *&p` (not `const T &x`, not `T &&x`)."""
    words = cp.tokenize(src.text[param.extent.start.offset:param.location.offset])
    texts = [t.text for t in words]
    return bool(texts) and texts[-1] == "&" and "const" not in texts


def param_count_fits(fn: Cursor, nargs: int) -> bool:
    params = [c for c in fn.get_children() if c.kind == CursorKind.PARM_DECL]
    if nargs > len(params):
        return False
    required = 0
    for p in params:
        text = " ".join(t.spelling for t in p.get_tokens())
        if "=" not in text:
            required += 1
    return nargs >= required


def matching_paren(text: str, open_at: int) -> int:
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise LoweringError("unbalanced parentheses")


def split_top_level(text: str, sep: str) -> list[tuple[str, int]]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append((text[start:i], start))
            start = i + 1
    parts.append((text[start:], start))
    return parts
