"""Lines a rewrite inserts into the user's own headers.

A kernel that inlines a helper from a header of the user's (beside the kernel, or in a -I
folder) may need synchronization inside that helper. Those lines go into the header. Each
kernel of the file is planned on its own; a header statement gets the union of the lines the
kernels that run it need. Kernels that run it but disagree get one `if constexpr` branch per
distinct set of lines when the statement is in a helper template whose instantiations they
run differ in its value parameters (`if constexpr (INIT == true)`, as a kernel template's body
is split on the kernel's); where they run the same instantiation (or differ only in types) the
lines cannot be told apart, a located error."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ptorewrite.analysis import ir
from ptorewrite.diagnostics import PtoError
from ptorewrite.transform.edits import Insertion, edit_headers
from ptorewrite.transform.sync_model import Tree


class LinesDiffer(PtoError):
    """Two kernels of one file need different lines at a statement both run, and no `if constexpr`
    can give each its own: a located error, naming the two (`kernels`) and the statement (file,
    start, end)."""

    def __init__(self, message: str, loc, kernels: tuple[ir.Kernel, ir.Kernel], statement: tuple[str, int, int],
                 notes=()):
        super().__init__(message, loc, notes)
        self.kernels = kernels
        self.statement = statement


def header_statements(kernel: ir.Kernel) -> set[tuple[str, int, int]]:
    """(file, start, end) of the header statements the kernel runs."""
    out = set()
    for s in ir.walk(kernel.body):
        loc = getattr(s, "loc", None)
        if loc is not None and loc.file != kernel.file:
            out.add((loc.file, loc.offset, loc.end_offset))
    return out


def rewritten_headers(kernels: Sequence[ir.Kernel], per_kernel: Sequence[Sequence[Insertion]]) -> dict[str, bytes]:
    """Every header of the user's that gets lines, rewritten, by path."""
    main = kernels[0].file
    wanted: list[dict[tuple[str, int, int, str], list[Insertion]]] = []
    for items in per_kernel:
        places: dict[tuple[str, int, int, str], list[Insertion]] = {}
        for ins in items:
            if ins.in_file(main) != main:
                places.setdefault((ins.file, ins.start, ins.end, ins.where), []).append(ins)
        wanted.append(places)
    covered = [header_statements(k) for k in kernels]
    merged: list[Insertion] = []
    for place in sorted({p for w in wanted for p in w}):
        runs = [j for j, k in enumerate(kernels) if place[:3] in covered[j] or place in wanted[j]]
        codes = {j: sorted(f"{i.order}:{i.code}" for i in wanted[j].get(place, [])) for j in runs}
        first = next(j for j in runs if place in wanted[j])
        other = next((j for j in runs if codes[j] != codes[first]), None)
        if other is None:
            merged += wanted[first][place]
            continue
        split = split_on_helper_template(place, [kernels[j] for j in runs], [wanted[j].get(place, []) for j in runs])
        if split is not None:
            merged += split
            continue
        ins = wanted[first][place][0]
        raise LinesDiffer(f"this statement of the header {place[0]} is run by '{kernels[first].name}' and "
                       f"'{kernels[other].name}', which need different synchronization next to it "
                       f"({'; '.join(i.code for i in wanted[first][place]) or 'none'} / "
                       f"{'; '.join(i.code for i in wanted[other].get(place, [])) or 'none'}) in the same "
                       "instantiation of the helper around it (or one whose template arguments cannot be told "
                       "apart with `if constexpr`); give each kernel its own helper", _range(kernels[first], ins),
                          (kernels[first], kernels[other]), place[:3])
    return edit_headers(kernels, merged) if merged else {}


def _instances(kernel: ir.Kernel, place: tuple[str, int, int, str]) -> set[ir.TemplateInstance] | None:
    """The instantiations of the innermost helper template around the header statement at
    `place` that the kernel runs it in; None when some copy of it is in no helper template."""
    tree = Tree.of(kernel)
    out: set[ir.TemplateInstance] = set()
    for s in ir.walk(kernel.body):
        loc = getattr(s, "loc", None)
        if loc is None or (loc.file, loc.offset, loc.end_offset) != place[:3]:
            continue
        helper = next((a for a in tree.chain(s)[1:] if isinstance(a, ir.Block) and a.inlined), None)
        inst = helper.instance if helper is not None else None
        if inst is None or not inst.body[0] < place[1] < inst.body[1]:
            return None
        out.add(inst)
    return out or None


def split_on_helper_template(place: tuple[str, int, int, str], kernels: list[ir.Kernel],
           wanted: list[list[Insertion]]) -> list[Insertion] | None:
    """`if constexpr` branches at a header statement that give each instantiation of the helper
    template around it its own lines, or None where that cannot be written: a kernel runs the
    statement outside any helper template, two kernels need different lines in the same
    instantiation, or the instantiations differ only in arguments `if constexpr` cannot test."""
    lines: dict[ir.TemplateInstance, tuple[str, ...]] = {}
    items: dict[tuple[str, ...], list[Insertion]] = {}
    for k, w in zip(kernels, wanted):
        insts = _instances(k, place)
        if insts is None:
            return None
        key = tuple(sorted(f"{i.order}:{i.code}" for i in w))
        items.setdefault(key, w)
        for inst in insts:
            if lines.setdefault(inst, key) != key:
                return None
    return constexpr_branches(place, lines, items)


def constexpr_branches(place: tuple[str, int, int, str], lines: dict[ir.TemplateInstance, tuple[str, ...]],
                       items: dict[tuple[str, ...], list[Insertion]]) -> list[Insertion] | None:
    """One `if constexpr` branch per distinct set of lines (`items`, by key) at a statement of a
    helper template run in several instantiations (`lines`: each one's key), on the value
    parameters the lines depend on; None where the instantiations are of different templates or
    differ only in arguments `if constexpr` cannot test."""
    insts = list(lines)
    if len({(i.template, i.params, i.body) for i in insts}) != 1:
        return None
    params = insts[0].params
    differ = [n for n in range(len(params)) if len({i.args[n] for i in insts}) > 1]
    if not differ or any(params[n][0] != "value" or any(not i.args[n] for i in insts) for n in differ):
        return None

    def separates(ns: list[int]) -> bool:
        seen: dict[tuple[str, ...], tuple[str, ...]] = {}
        return all(seen.setdefault(tuple(i.args[n] for n in ns), lines[i]) == lines[i] for i in insts)

    for n in list(differ):  # test only the parameters the lines depend on
        if len(differ) > 1 and separates([m for m in differ if m != n]):
            differ.remove(n)

    def condition(inst: ir.TemplateInstance) -> str:
        return " && ".join(f"{params[n][1]} == {inst.args[n]}" for n in differ)

    groups: dict[tuple[str, ...], list[str]] = {}
    for inst in sorted(insts, key=lambda i: i.args):
        conds = groups.setdefault(lines[inst], [])
        if condition(inst) not in conds:
            conds.append(condition(inst))
    file, start, end, where = place
    out: list[Insertion] = []
    branches = [(conds, items[key]) for key, conds in groups.items() if items[key]]
    for n, (conds, mine) in enumerate(branches):
        cond = conds[0] if len(conds) == 1 else " || ".join(f"({c})" for c in conds)
        head = f"if constexpr ({cond}) {{" if n == 0 else f"}} else if constexpr ({cond}) {{"
        out.append(Insertion(start, end, where, head, "", terminator="", file=file))
        out += [replace(i, order=0, depth=1) for i in sorted(mine, key=lambda i: i.order)]
    out.append(Insertion(start, end, where, "}", "per instantiation of " + insts[0].template, terminator="",
                         file=file))
    return out


def _range(kernel: ir.Kernel, ins: Insertion) -> ir.SourceRange | None:
    for s in ir.walk(kernel.body):
        loc = getattr(s, "loc", None)
        if loc is not None and (loc.file, loc.offset, loc.end_offset) == (ins.file, ins.start, ins.end):
            return loc
    return None
