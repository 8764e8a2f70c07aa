"""Which instantiations of a template `__global__` kernel a file makes.

A kernel template is analysed for the argument lists the file itself instantiates it with:
explicit instantiations of the kernel, launch sites `k<T, N><<<...>>>(...)`, launch sites
inside launcher templates that are themselves instantiated (explicitly, through macros, or
through generated headers), with `if constexpr (std::is_same_v<...>)` dispatch resolved.
Rather than re-implement C++ template semantics, the front end asks clang: a second parse
inserts into each kernel template's body a `static_assert` that fails in every
instantiation, and clang's "in instantiation of function template specialization
'k<float, 64>' requested here" notes name each instantiation with its complete argument
list and the chain of places that requested it. The inserted text has no newline, so lines
are unchanged; columns after it on the same line are shifted back.

`--entry 'name<args>'` names one instantiation directly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from clang.cindex import Cursor, CursorKind, TranslationUnit

from ptorewrite.diagnostics import Location, PtoError

PROBE_TAG = "ptorewrite-instantiation-probe"
_NOTE = re.compile(r"in instantiation of function template specialization '(.*)' requested here")


@dataclass(frozen=True)
class Instantiation:
    """One argument list of a kernel template."""

    name: str  # the template's name
    args: str  # template arguments as clang prints them: "float, 64, 64"
    loc: Location | None  # where the file requests it (a launch or an explicit instantiation)
    via: tuple[tuple[str, Location | None], ...] = ()  # outer requests: (specialization, where)
    origin: str = "file"  # "file" or "--entry"
    # Every request of this argument list (the first is `loc`, `via`): each launch site and launcher
    # instantiation that reaches it, which may pass different run-time values.
    requests: tuple[tuple[Location | None, tuple[tuple[str, Location | None], ...]], ...] = ()
    # The run-time values the file's launches pass to the kernel's scalar parameters: one sorted
    # (name, value) tuple per distinct launch (see `launch_values`).
    launches: tuple[tuple[tuple[str, int], ...], ...] = ()

    @property
    def display(self) -> str:
        return f"{self.name}<{self.args}>"


@dataclass
class Probe:
    """Texts of the files with probes inserted, and where (to map locations back)."""

    texts: dict[str, str] = field(default_factory=dict)
    # file -> [(line, column of the insertion, length)]
    inserted: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)
    templates: list[Cursor] = field(default_factory=list)

    def original(self, file: str, line: int, col: int) -> Location:
        shift = 0
        for ins_line, ins_col, length in self.inserted.get(file, ()):  # ascending
            if line == ins_line and col >= ins_col + shift + length:
                shift += length
        return Location(file, line, col - shift)


def _always_false(template: Cursor) -> str | None:
    """A condition that is false, and dependent on the template's first usable parameter."""
    for p in template.get_children():
        pack = any(t.spelling == "..." for t in p.get_tokens())
        if p.kind == CursorKind.TEMPLATE_TYPE_PARAMETER and p.spelling:
            return f"sizeof...({p.spelling}) + 1 == 0" if pack else f"!__is_same({p.spelling}, {p.spelling})"
        if p.kind == CursorKind.TEMPLATE_NON_TYPE_PARAMETER and p.spelling:
            return f"sizeof...({p.spelling}) + 1 == 0" if pack else f"!(({p.spelling}) == ({p.spelling}))"
    return None


def build_probe(templates: list[Cursor], text_of: dict[str, str]) -> Probe:
    """Insert a failing static_assert at the start of each template kernel's body.

    `text_of` maps a file name to the text it was parsed with (launch syntax blanked)."""
    probe = Probe()
    edits: dict[str, list[tuple[int, str, int, int]]] = {}
    for i, t in enumerate(templates):
        body = next((c for c in t.get_children() if c.kind == CursorKind.COMPOUND_STMT), None)
        cond = _always_false(t)
        if body is None or cond is None or t.location.file is None:
            continue
        fname = t.location.file.name
        ins = f"static_assert({cond}, \"{PROBE_TAG}:{i}\");"
        start = body.extent.start
        edits.setdefault(fname, []).append((start.offset + 1, ins, start.line, start.column + 1))
        probe.templates.append(t)
    for fname, items in edits.items():
        text = text_of.get(fname)
        if text is None:
            text = Path(fname).read_bytes().decode("latin-1")
        for offset, ins, line, col in sorted(items, reverse=True):
            text = text[:offset] + ins + text[offset:]
        probe.texts[fname] = text
        probe.inserted[fname] = sorted((line, col, len(ins)) for _, ins, line, col in items)
    return probe


def read_probe(tu: TranslationUnit, probe: Probe) -> dict[int, list[Instantiation]]:
    """Instantiations per probed template (by index in `probe.templates`), in the order clang made them."""
    found: dict[int, list[Instantiation]] = {}
    seen: dict[tuple[int, str], int] = {}  # -> position in found[index]
    for d in tu.diagnostics:
        m = re.search(PROBE_TAG + r":(\d+)", d.spelling)
        if not m:
            continue
        index = int(m.group(1))
        chain = []
        for note in d.children:
            nm = _NOTE.search(note.spelling)
            if not nm:
                continue
            loc = None
            if note.location.file is not None:
                loc = probe.original(note.location.file.name, note.location.line, note.location.column)
            chain.append((nm.group(1), loc))
        if not chain:
            continue
        spec, loc = chain[0]
        name, args = split_specialization(spec)
        key = (index, args)
        request = (loc, tuple(chain[1:]))
        at = seen.get(key)
        if at is not None:
            old = found[index][at]
            if request not in old.requests:
                found[index][at] = replace(old, requests=old.requests + (request,))
            continue
        seen[key] = len(found.setdefault(index, []))
        found[index].append(Instantiation(name, args, loc, tuple(chain[1:]), requests=(request,)))
    return found


def split_specialization(spec: str) -> tuple[str, str]:
    """`ns::k<float, 64>` -> ("k", "float, 64")."""
    lt = spec.find("<")
    if lt < 0 or not spec.endswith(">"):
        return spec.rsplit("::", 1)[-1], ""
    return spec[:lt].rsplit("::", 1)[-1].strip(), spec[lt + 1:-1].strip()


def parse_entry(entry: str) -> tuple[str, str | None]:
    """`--entry NAME` or `--entry 'NAME<ARGS>'` -> (NAME, ARGS or None)."""
    text = entry.strip()
    lt = text.find("<")
    if lt < 0:
        return text, None
    if not text.endswith(">"):
        raise PtoError(f"--entry '{entry}': expected NAME or NAME<ARGS>")
    return text[:lt].strip(), text[lt + 1:-1].strip()


def same_arguments(a: str, b: str) -> bool:
    """Argument lists equal up to spacing (`float,64` and `float, 64`)."""
    return re.sub(r"\s+", "", a) == re.sub(r"\s+", "", b)
