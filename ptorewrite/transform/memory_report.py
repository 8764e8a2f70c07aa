"""`--memory-report`: the memory plan as deterministic text.

Per buffer: bytes used and peak live bytes against the limit, whether tiles share bytes;
per tile: address range, size, lifetime (program positions and source lines). Aliases are
listed under their root with their offset.
"""

from __future__ import annotations

from ptorewrite.analysis import ir
from ptorewrite.transform.memplan import MemoryPlan, TilePlacement, fmt_bytes


def format_memory_report(kernel: ir.Kernel, plan: MemoryPlan, multibuffered=(), shared=()) -> str:
    lines = [f"memory plan for kernel {kernel.name} ({plan.profile.name}, {kernel.core} core)"]
    if multibuffered:
        lines.append("multi-buffering (tiles a loop writes):")
        lines += [d.line() for d in multibuffered]
    if shared:
        lines.append("shared regions (a lane loop's copies and a tile after it in each step):")
        lines += [r.line() for r in shared]
    for name, use in plan.buffers.items():
        reuse = "tiles share bytes" if use.reuse else "no reuse"
        lines.append(
            f"{name}: {fmt_bytes(use.used)} used, peak live {fmt_bytes(use.peak_live)}"
            f"{_peak_where(plan, use.peak_at)}, limit {fmt_bytes(use.limit)} "
            f"(capacity {fmt_bytes(use.capacity)}, align {use.alignment} B); {reuse}")
        for lo, hi in plan.reserved.get(name, ()):
            lines.append(f"  0x{lo:05x}-0x{hi - 1:05x}  {fmt_bytes(hi - lo):>9}  (reserved)")
        for p in use.placements:
            lines += _tile_lines(plan, p)
    if plan.reuses:
        lines.append("reuse:")
        for r in plan.reuses:
            extra = " (cross-pipe dependence inside a loop)" if r.cross_pipe else ""
            lines.append(f"  {r.buffer} 0x{r.start:x}-0x{r.end - 1:x}: {r.tile.label} after {r.other.label}{extra}")
    return "\n".join(lines) + "\n"


def _peak_where(plan: MemoryPlan, pos: int | None) -> str:
    if pos is None:
        return ""
    return f" at #{pos} (line {_line(plan, plan.liveness.stmts[pos])})"


def _line(plan: MemoryPlan, stmt: ir.Stmt) -> int:
    """The statement's line in the kernel file (its call site, if it was inlined from elsewhere)."""
    if stmt.loc.file == plan.kernel.file:
        return stmt.loc.line
    for site in reversed(getattr(stmt, "via", ())):
        if site.file == plan.kernel.file:
            return site.line
    return stmt.loc.line


def _lifetime(plan: MemoryPlan, p: TilePlacement) -> str:
    """Program-order interval(s) and source lines; one interval per inlining of a helper's tile."""
    lts = [lt for lt in (plan.lifetime(m) for m in p.members) if lt is not None]
    if not lts:
        return "never used"
    parts = []
    for lt in lts:
        first = _line(plan, plan.liveness.stmts[lt.start])
        last = _line(plan, plan.liveness.stmts[lt.end])
        lines = f"line {first}" if first == last else f"lines {first}-{last}" if first < last else \
            f"lines {first}..{last}"
        parts.append(f"#{lt.start}-#{lt.end} ({lines})")
    text = "live " + ", ".join(parts)
    loops = sorted({loop.loc.line for lt in lts for loop in lt.widened_over})
    if loops:
        text += f", across the loop{'s' if len(loops) > 1 else ''} at line {', '.join(map(str, loops))}"
    if len(p.members) > 1:
        text += f", one declaration for {len(p.members)} inlined calls"
    return text


def _tile_lines(plan: MemoryPlan, p: TilePlacement) -> list[str]:
    fixed = lambda s: "  (TASSIGN in input)" if s in p.fixed_slots else ""
    decl = f"decl line {p.tile.loc.line}"
    if len(p.addresses) == 1 and not p.tile.count:
        a = p.addresses[0]
        rows = [(f"  0x{a:05x}-0x{a + p.nbytes - 1:05x}  {fmt_bytes(p.nbytes):>9}  {p.name}  "
                 f"{decl}, {_lifetime(plan, p)}{fixed(0)}")]
    else:
        kind = "lane" if p.tile.per_lane else "slot"
        rows = [(f"  {p.label}: {len(p.addresses)} x {fmt_bytes(p.nbytes)}, stride 0x{p.stride:x}, "
                 f"{decl}, {_lifetime(plan, p)}")]
        for s, a in enumerate(p.addresses):
            rows.append(f"    0x{a:05x}-0x{a + p.nbytes - 1:05x}  {fmt_bytes(p.nbytes):>9}  "
                        f"{p.name}[{s}] ({kind} {s}){fixed(s)}")
    for alias in sorted((x for x in plan.aliases.values() if x.root in p.members),
                        key=lambda x: x.tile.loc.offset):
        where = f"{p.name}[{alias.index}]" if alias.index is not None else p.name
        rows.append(f"      alias {alias.tile.cpp_name}: {alias.tile.alias.kind} of {where} + "
                    f"{alias.offset_bytes} B, line {alias.tile.alias.loc.line}")
    return rows
