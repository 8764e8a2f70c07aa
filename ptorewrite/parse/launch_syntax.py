"""Host launches `kernel<<<blockDim, l2ctrl, stream>>>(args)`: make them plain C++ for libclang.

The triple-angle launch configuration is bisheng (CCE) syntax; clang parses it only in CUDA
mode, whose semantic rules (host/device attributes, `__global__` return types, built-in
variables) do not fit Ascend kernels. So the front end parses ordinary C++ and, before
parsing, replaces each launch configuration `<<<...>>>` by spaces: `k<T, N><<<n, nullptr, s>>>(a)`
becomes `k<T, N>         ...   (a)`, an ordinary call whose template arguments clang still
checks and instantiates. Every other byte is kept, and newlines inside a configuration stay,
so every offset, line and column libclang reports is the one in the user's file.

Recognised: `<<<` outside comments, string and character literals (also in `#define` bodies,
for launch macros), not after the keyword `operator` (`operator<<<T>` names a specialization of
`operator<<`). The configuration ends at the first `>>>` outside parentheses, brackets and
braces, so a `>>>` that closes nested template arguments inside the configuration must be
written inside parentheses (`<<<(n<A<B<1>>>()), ...>>>`); a template-id closing with `>>>`
before the launch (`k<A<B<1>>><<<...>>>`) is outside the configuration and unaffected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_OPEN = "<<<"
_CLOSE = ">>>"


@dataclass(frozen=True)
class LaunchConfig:
    start: int  # offset of the first '<'
    end: int  # offset just past the last '>'


def skip_literal(text: str, i: int) -> int:
    """`i` at a quote: the offset just past the literal (raw strings included)."""
    q = text[i]
    if q == '"' and i > 0 and text[i - 1] == "R":
        m = re.match(r'R"([^()\\ \t\n]{0,16})\(', text[i - 1:])
        if m:
            close = text.find(")" + m.group(1) + '"', i)
            return len(text) if close < 0 else close + len(m.group(1)) + 2
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == q or c == "\n":
            return j + 1
        j += 1
    return j


def skip_comment(text: str, i: int) -> int:
    """`i` at '/': past the comment starting there, or `i` if none does."""
    if text.startswith("//", i):
        j = text.find("\n", i)
        while j > 0 and text[j - 1] == "\\":  # a line comment continued with backslash-newline
            j = text.find("\n", j + 1)
        return len(text) if j < 0 else j
    if text.startswith("/*", i):
        j = text.find("*/", i + 2)
        return len(text) if j < 0 else j + 2
    return i


def find_launch_configs(text: str) -> list[LaunchConfig]:
    """Every `<<<...>>>` launch configuration in `text`."""
    out: list[LaunchConfig] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/":
            j = skip_comment(text, i)
            if j != i:
                i = j
                continue
        elif c in "\"'":
            if c == "'" and _is_digit_separator(text, i):
                i += 1
                continue
            i = skip_literal(text, i)
            continue
        elif c == "<" and text.startswith(_OPEN, i) and not _after_operator(text, i):
            end = _config_end(text, i + len(_OPEN))
            if end is not None:
                out.append(LaunchConfig(i, end))
                i = end
                continue
        i += 1
    return out


def _is_digit_separator(text: str, i: int) -> bool:
    """The quote in `1'000` (not the one in `u8'a'`)."""
    j = i - 1
    while j >= 0 and (text[j].isalnum() or text[j] in "'._"):
        j -= 1
    return text[j + 1:i][:1].isdigit() and i + 1 < len(text) and text[i + 1].isalnum()


def _after_operator(text: str, i: int) -> bool:
    return re.search(r"\boperator\s*$", text[max(0, i - 40):i]) is not None


def _config_end(text: str, i: int) -> int | None:
    depth, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/":
            j = skip_comment(text, i)
            if j != i:
                i = j
                continue
        elif c in "\"'":
            i = skip_literal(text, i)
            continue
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return None
        elif c == ";" and depth == 0:
            return None
        elif c == ">" and depth == 0 and text.startswith(_CLOSE, i):
            return i + len(_CLOSE)
        i += 1
    return None


def blank_launch_configs(text: str) -> tuple[str, list[LaunchConfig]]:
    """`text` with every launch configuration replaced by spaces (newlines kept)."""
    configs = find_launch_configs(text)
    if not configs:
        return text, []
    parts, pos = [], 0
    for cfg in configs:
        parts.append(text[pos:cfg.start])
        parts.append("".join(ch if ch in "\r\n" else " " for ch in text[cfg.start:cfg.end]))
        pos = cfg.end
    parts.append(text[pos:])
    return "".join(parts), configs
