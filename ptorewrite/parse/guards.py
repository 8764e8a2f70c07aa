"""What the preprocessor left out: kernels and code inside inactive `#if` branches.

Used to explain, with locations, why a file gave no kernel to analyse for the chosen
architecture and core type. libclang records the skipped ranges; the python bindings do not
expose them, so they are read through the C API directly.
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass

import clang.cindex as ci

from ptorewrite.parse.source import SourceFile


class _RangeList(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint), ("ranges", ctypes.POINTER(ci.SourceRange))]


def _skipped_ranges_api():
    lib = ci.conf.lib
    get = lib.clang_getAllSkippedRanges
    get.argtypes = [ci.TranslationUnit]
    get.restype = ctypes.POINTER(_RangeList)
    dispose = lib.clang_disposeSourceRangeList
    dispose.argtypes = [ctypes.POINTER(_RangeList)]
    dispose.restype = None
    return get, dispose


@dataclass(frozen=True)
class Skipped:
    file: str
    start_line: int  # the line of the directive that opened the inactive branch
    end_line: int  # the line of the directive that closed it


def skipped_ranges(tu: ci.TranslationUnit) -> list[Skipped]:
    get, dispose = _skipped_ranges_api()
    lst = get(tu)
    out = []
    try:
        for i in range(lst.contents.count):
            r = lst.contents.ranges[i]
            if r.start.file is not None:
                out.append(Skipped(r.start.file.name, r.start.line, r.end.line))
    finally:
        dispose(lst)
    return out


_COMMENT_OR_STRING = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.DOTALL)


def code_only(text: str) -> str:
    """`text` with comments and string literals blanked (offsets kept)."""
    return _COMMENT_OR_STRING.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


@dataclass(frozen=True)
class KernelMention:
    name: str
    line: int
    col: int


def global_functions(src: SourceFile) -> list[KernelMention]:
    """Every function declared `__global__` in the text, active or not."""
    code = code_only(src.text)
    out = []
    for m in re.finditer(r"\b__global__\b", code):
        paren = code.find("(", m.end())
        if paren < 0:
            continue
        head = code[m.end():paren]
        if ";" in head or "{" in head:
            continue
        names = re.findall(r"[A-Za-z_]\w*", head)
        if not names:
            continue
        name = names[-1]
        at = m.end() + head.rfind(name)
        line, col = src.line_col(at)
        out.append(KernelMention(name, line, col))
    return out


def directive(src: SourceFile, line: int) -> str:
    """The preprocessor directive on `line` (continuation lines joined), whitespace collapsed."""
    lines = src.text.split("\n")
    parts = []
    i = line - 1
    while 0 <= i < len(lines):
        text = lines[i].rstrip("\r")
        parts.append(text.rstrip("\\"))
        if not text.endswith("\\"):
            break
        i += 1
    text = " ".join(" ".join(parts).split())
    return re.sub(r"\s*//.*$", "", text)


def opening_if(src: SourceFile, line: int) -> int:
    """For an `#else`/`#elif` on `line`: the line of its `#if`; otherwise `line`."""
    lines = src.text.split("\n")
    if not re.match(r"\s*#\s*(else|elif)", lines[line - 1]):
        return line
    depth = 0
    for i in range(line - 2, -1, -1):
        t = lines[i]
        if re.match(r"\s*#\s*endif", t):
            depth += 1
        elif re.match(r"\s*#\s*if", t):
            if depth == 0:
                return i + 1
            depth -= 1
    return line


def describe_guard(src: SourceFile, skipped: Skipped) -> str:
    """`#if X` or `#else of #if X (line N)` for the directive that opened an inactive branch."""
    text = directive(src, skipped.start_line)
    opener = opening_if(src, skipped.start_line)
    if opener != skipped.start_line:
        return f"{text} (of {directive(src, opener)} at line {opener})"
    return text


def enclosing_skip(skips: list[Skipped], file: str, line: int) -> Skipped | None:
    inner = None
    for s in skips:
        if s.file == file and s.start_line < line < s.end_line and (inner is None or s.start_line > inner.start_line):
            inner = s
    return inner
