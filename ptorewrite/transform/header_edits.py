"""Lines a rewrite inserts into the user's own headers.

A kernel that inlines a helper from a header of the user's (beside the kernel, or in a -I
folder) may need synchronization inside that helper. Those lines go into the header. Each
kernel of the file is planned on its own; a header statement gets the union of the lines the
kernels that run it need, and kernels that run it but disagree are a located error (one
source text cannot hold two sets of lines; a kernel template's body is split per
instantiation with `if constexpr`, which a helper shared by different kernels has no
argument for)."""

from __future__ import annotations

from collections.abc import Sequence

from ptorewrite.analysis import ir
from ptorewrite.diagnostics import PtoError
from ptorewrite.transform.edits import Insertion, edit_headers


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
        if other is not None:
            ins = wanted[first][place][0]
            raise PtoError(f"this statement of the header {place[0]} is run by '{kernels[first].name}' and "
                           f"'{kernels[other].name}', which need different synchronization next to it "
                           f"({'; '.join(i.code for i in wanted[first][place]) or 'none'} / "
                           f"{'; '.join(i.code for i in wanted[other].get(place, [])) or 'none'}); give each "
                           "kernel its own helper", _range(kernels[first], ins))
        merged += wanted[first][place]
    return edit_headers(kernels, merged) if merged else {}


def _range(kernel: ir.Kernel, ins: Insertion) -> ir.SourceRange | None:
    for s in ir.walk(kernel.body):
        loc = getattr(s, "loc", None)
        if loc is not None and (loc.file, loc.offset, loc.end_offset) == (ins.file, ins.start, ins.end):
            return loc
    return None
