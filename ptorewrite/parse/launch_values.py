"""The values a file's launches pass to a kernel template's scalar parameters.

pto-isa's test kernels take run-time sizes as kernel arguments and launch them from launcher
templates: `runTAdd<half, 16, 64><<<1, nullptr, stream>>>(out, a, b, vRows, vCols)` inside
`template <..., int vRows, int vCols> void LaunchTAdd(...)`, which the file instantiates for
each size it tests. The values are constants of each launcher instantiation, so the file
itself says what every launch passes; `check` and `simulate` run the kernel with them when the
user gives none.

As for the instantiations themselves (`instantiations`), clang evaluates: a second parse
replaces the first scalar argument of launch K by an expression that takes the size of the
undefined class template `ptorewrite_launch_value<K, (A), (B), ...>` naming every scalar
argument, and clang's "implicit instantiation of undefined template
'ptorewrite_launch_value<3, 16, 64>'" errors, with their "in instantiation of function template
specialization 'LaunchTAdd<...>' requested here" notes, give the values of launch K in each
launcher instantiation. A launch with an argument that is not a constant expression there (a
launcher's own run-time parameter) gives no values: it leaves them to `--set`.
Only integer values are read (a floating-point argument is never a constant here).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from clang.cindex import Cursor, CursorKind, TranslationUnit

from ptorewrite.parse.instantiations import Instantiation

_TEMPLATE = "ptorewrite_launch_value"
_TYPE = "ptorewrite_launch_type"
_CONSTANT = "ptorewrite_launch_constant"
_DECLARATION = (f"template <int, typename...> struct {_TEMPLATE}; template <typename> struct {_TYPE} {{}}; "
                f"template <auto> struct {_CONSTANT} {{}};")
_PRINTED = re.compile(_TEMPLATE + r"<(\d+), (.*)>'")
_WRAPPED = re.compile(rf"(?:\w+::)*({_TYPE}|{_CONSTANT})<(.*)>")
_SUFFIX = re.compile(r"[LU]+$")
_NOTE = re.compile(r"in instantiation of function template specialization '(.*)' requested here")


@dataclass(frozen=True)
class LaunchSite:
    """A call of a kernel template: where it starts and the text of each scalar argument."""

    file: str
    line: int
    col: int
    arguments: tuple[tuple[str, int, int], ...]  # (parameter name, start offset, end offset)
    template_args: tuple[tuple[bool, str], ...]  # the kernel's template arguments as written: (is a type, text)


def scalar_parameters(template: Cursor, text: str) -> list[tuple[int, str]]:
    """(position, name) of the template kernel's parameters that are not pointers."""
    out = []
    params = [c for c in template.get_children() if c.kind == CursorKind.PARM_DECL]
    for i, p in enumerate(params):
        decl = text[p.extent.start.offset:p.location.offset]
        if "*" not in decl and "&" not in decl and p.spelling:
            out.append((i, p.spelling))
    return out


def launch_sites(tu: TranslationUnit, main: str, template: Cursor, text: str) -> list[LaunchSite]:
    """Every call of `template` in the main file that passes its scalar parameters."""
    scalars = scalar_parameters(template, text)
    if not scalars:
        return []
    sites = []
    for c in tu.cursor.walk_preorder():
        if c.kind != CursorKind.CALL_EXPR or c.location.file is None or c.location.file.name != main:
            continue
        children = list(c.get_children())
        if not children or not _names(children[0], template.spelling):
            continue
        args = children[1:]
        picked = tuple((name, args[i].extent.start.offset, args[i].extent.end.offset)
                       for i, name in scalars if i < len(args))
        if picked:
            written = _written_template_args(text[children[0].extent.start.offset:children[0].extent.end.offset])
            kinds = [k.kind == CursorKind.TEMPLATE_TYPE_PARAMETER for k in template.get_children()
                     if k.kind in _TEMPLATE_PARAMS]
            targs = tuple((kinds[i] if i < len(kinds) else False, a) for i, a in enumerate(written))
            sites.append(LaunchSite(main, c.extent.start.line, c.extent.start.column, picked, targs))
    return sites


_TEMPLATE_PARAMS = (CursorKind.TEMPLATE_TYPE_PARAMETER, CursorKind.TEMPLATE_NON_TYPE_PARAMETER,
                    CursorKind.TEMPLATE_TEMPLATE_PARAMETER)


def split_arguments(text: str) -> list[str]:
    """Template arguments at top level: commas inside <>, (), [] and {} do not split."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    last = text[start:].strip()
    return parts + [last] if last or parts else []


def _written_template_args(callee: str) -> list[str]:
    """`ns::k<T, N>` -> ["T", "N"]; [] without explicit arguments."""
    lt = callee.find("<")
    if lt < 0 or not callee.rstrip().endswith(">"):
        return []
    return split_arguments(callee[lt + 1:callee.rstrip().rfind(">")])


def _names(callee: Cursor, name: str) -> bool:
    """The callee expression refers to a function called `name`."""
    if callee.spelling == name:
        return True
    return any(k.kind in (CursorKind.OVERLOADED_DECL_REF, CursorKind.DECL_REF_EXPR) and k.spelling == name
               for k in callee.walk_preorder())


def probe_text(text: str, sites: list[LaunchSite]) -> str:
    """The main file's text with every launch probed: its first scalar argument `A` becomes
    `(sizeof(ptorewrite_launch_value<K, kernel template arguments..., (A), (B), ...>), (A))`,
    naming the kernel's template arguments (types wrapped in `ptorewrite_launch_type<>`, values
    in `ptorewrite_launch_constant<>`) and every scalar argument at once (clang reports one
    error per call and instantiation)."""
    edits = []
    for k, site in enumerate(sites):
        listed = [f"{_TYPE}<{a}>" if is_type else f"{_CONSTANT}<({a})>" for is_type, a in site.template_args]
        args = [text[start:end] for _, start, end in site.arguments]
        listed += [f"{_CONSTANT}<({a})>" for a in args]
        start, end = site.arguments[0][1], site.arguments[0][2]
        edits.append((start, end, f"(sizeof({_TEMPLATE}<{k}, {', '.join(listed)}>), ({args[0]}))"))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return _DECLARATION + "\n" + text  # locations of this parse are never read: a new first line is harmless


def read_values(tu: TranslationUnit, sites: list[LaunchSite]) -> dict[int, list[tuple[list[str], dict[str, int]]]]:
    """Site index -> [(the kernel's template arguments as clang prints them, {parameter: value})]
    for each instantiation of the code around the site, from the probe's errors."""
    out: dict[int, list[tuple[list[str], dict[str, int]]]] = {}
    for d in tu.diagnostics:
        if "undefined template" not in d.spelling and "incomplete type" not in d.spelling:
            continue
        m = _PRINTED.search(d.spelling)
        if not m:
            continue
        k = int(m.group(1))
        parts = split_arguments(m.group(2))
        if k >= len(sites) or len(parts) != len(sites[k].template_args) + len(sites[k].arguments):
            continue
        unwrapped = []
        for part in parts:
            w = _WRAPPED.fullmatch(part)
            if w is None:
                break
            unwrapped.append(w.group(2).strip())
        else:
            n = len(sites[k].template_args)
            try:
                values = {name: int(_SUFFIX.sub("", v)) for (name, _, _), v in zip(sites[k].arguments, unwrapped[n:])}
            except ValueError:
                continue  # not an integer
            entry = (unwrapped[:n], values)
            if entry not in out.setdefault(k, []):
                out[k].append(entry)
    return out


def launches_of(inst: Instantiation, sites: list[LaunchSite],
                values: dict[int, list[tuple[list[str], dict[str, int]]]]) -> tuple[tuple[tuple[str, int], ...], ...]:
    """The distinct value sets the file's launches of `inst` pass (each sorted by name): those of
    every launch whose template arguments, as the launching code's instantiation gives them,
    are `inst`'s (a launch may leave trailing defaulted arguments unwritten)."""
    mine = split_arguments(inst.args)
    out: list[tuple[tuple[str, int], ...]] = []
    for k, site in enumerate(sites):
        if Path(site.file) != Path(inst.loc.file if inst.loc else site.file):
            continue
        for targs, got in values.get(k, ()):
            if not got or len(targs) > len(mine) or any(_squash(a) != _squash(b) for a, b in zip(targs, mine)):
                continue
            key = tuple(sorted(got.items()))
            if key not in out:
                out.append(key)
    return tuple(out)


def plain_launches(indices: range, values: dict[int, list[tuple[list[str], dict[str, int]]]]
                   ) -> tuple[tuple[tuple[str, int], ...], ...]:
    """The distinct value sets the launches `indices` (all of one plain, non-template kernel)
    pass, each sorted by name."""
    out: list[tuple[tuple[str, int], ...]] = []
    for k in indices:
        for _, got in values.get(k, ()):
            key = tuple(sorted(got.items()))
            if got and key not in out:
                out.append(key)
    return tuple(out)


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)
