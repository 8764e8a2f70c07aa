"""Invariants every memory plan must satisfy, checked from first principles (shared by the memplan tests)."""

from __future__ import annotations

from itertools import combinations

from ptorewrite.analysis.expr import try_eval
from ptorewrite.arch import TILE_TYPE_BUFFER
from ptorewrite.transform.memplan import MemoryPlan


def slot_ranges(p) -> list[tuple[int, int]]:
    return [(a, a + p.nbytes) for a in p.addresses]


def overlap(r, s) -> bool:
    return r[0] < s[1] and s[0] < r[1]


def simultaneously_live(plan: MemoryPlan, p, q) -> bool:
    lts = plan.liveness.lifetimes
    return any(lts.get(a) is not None and lts.get(b) is not None and lts[a].overlaps(lts[b])
               for a in p.members for b in q.members)


def check_plan(plan: MemoryPlan) -> None:
    kernel, prof = plan.kernel, plan.profile
    placed = {m for p in plan.placements for m in p.members}
    # Every tile that owns bytes is placed; aliases are not.
    assert placed == {t for t in kernel.tiles if t.alias is None}
    assert set(plan.aliases) == {t for t in kernel.tiles if t.alias is not None}
    for p in plan.placements:
        buf = prof.buffers[p.buffer]
        assert p.buffer == TILE_TYPE_BUFFER[p.tile.tile_type]
        assert len(p.addresses) == p.tile.slots
        for a in p.addresses:
            assert a % buf.alignment == 0, (p.label, hex(a))
            assert 0 <= a and a + p.nbytes <= buf.alloc_limit, (p.label, hex(a), buf.alloc_limit)
        # Slots of one array never overlap.
        for r, s in combinations(slot_ranges(p), 2):
            assert not overlap(r, s), p.label
        # Planned (not user-fixed) arrays are one block of equal stride.
        if not p.fixed_slots:
            assert all(a == p.addresses[0] + i * p.stride for i, a in enumerate(p.addresses))
        for lo, hi in plan.reserved.get(p.buffer, ()):
            assert all(not overlap(r, (lo, hi)) for r in slot_ranges(p)), (p.label, "reserved")
    # Simultaneously live tiles of one buffer never share a byte; the graph says the same.
    for p, q in combinations(plan.placements, 2):
        if p.buffer != q.buffer:
            continue
        live = simultaneously_live(plan, p, q)
        edge = any(plan.graph.has_edge(a, b) for a in p.members for b in q.members)
        assert live == edge, (p.label, q.label)
        if live:
            for r in slot_ranges(p):
                for s in slot_ranges(q):
                    assert not overlap(r, s), (p.label, q.label, r, s)
    # Aliases sit at their root's slot plus the TRESHAPE/TSUBVIEW offset.
    for a in plan.aliases.values():
        root = plan.placement(a.root)
        off = try_eval(a.offset_bytes, {})
        for slot in a.slots(plan):
            env = {}
            if a.index is not None and not a.index.is_const:
                var = min(a.index.free_vars())
                env = {var: slot}  # indices of the form `i % N` name slot `slot` at i = slot
                assert try_eval(a.index, env) == slot
            if off is not None:
                assert a.address(plan, env) == root.addresses[slot] + off
    # Peak and high-water figures are consistent with the placements.
    for name, use in plan.buffers.items():
        mine = [p for p in plan.placements if p.buffer == name]
        assert use.used == max(p.end for p in mine)
        assert use.peak_live <= use.limit


def addresses(plan: MemoryPlan) -> list[tuple[str, tuple[int, ...]]]:
    return [(p.tile.name, p.addresses) for p in plan.placements]
