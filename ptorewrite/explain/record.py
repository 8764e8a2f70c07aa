"""The explanation record of a rewrite: every inserted line, and for every planned sync the
dependences it orders, as JSON following `schema/explain.schema.json`.

What a sync orders is measured, not recalled from how the planner came to place it: the sync
is taken out of the final plan and the dependences that happens-before on the planner's
bounded trace then leaves unordered are the ones it is there for (the same test the planner
uses to drop flags others imply). A dependence no single sync is needed for is a candidate
sync found redundant; the record names a smallest set of inserted syncs that orders it
without one (found by dropping syncs while it stays ordered), or none when program order on
one pipe or the kernel's own structure already does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path

from ptorewrite.analysis import ir
from ptorewrite.analysis.deps import DynDep, Edge, barrier_between, static_edges
from ptorewrite.analysis.expr import cpp_text
from ptorewrite.analysis.gm_pairs import classify
from ptorewrite.analysis.hb import same_pipe_ordered
from ptorewrite.arch import ArchProfile
from ptorewrite.transform.edits import Insertion
from ptorewrite.transform.sync_check import BarrierCover, PlanTrace
from ptorewrite.transform.sync_emit import emit
from ptorewrite.transform.sync_model import PlannedSync, root_tiles

SCHEMA_NAME = "ptorewrite-explain"
SCHEMA_VERSION = 1
SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "explain.schema.json"
MAX_RANGES = 8  # byte ranges listed per dependence (the count of all is given too)
MAX_INSTANCES = 256  # dependence instances read for tiles and byte ranges
MAX_CHAIN_EDGES = 400  # redundant candidates whose implying chain is searched (the rest are listed)

# Insertion.order of each line sync_emit writes -> its role.
ROLES = {0: "wait", 1: "barrier", 2: "set", 3: "prime", 4: "drain"}
_KINDS = (("set_flag", "set_flag"), ("wait_flag", "wait_flag"), ("pipe_barrier", "pipe_barrier"),
          ("TASSIGN", "tassign"))
_CALL = re.compile(r"^\s*(\w+)\s*(?:<[^;]*?>)?\s*\((.*)\)\s*;")


def load_schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def to_json(record: dict) -> bytes:
    return (json.dumps(record, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


# ---------------------------------------------------------------- inserted lines


class OutputLines:
    """Which lines of the rewrite are inserted, and where each input line went."""

    def __init__(self, original: bytes, text: bytes):
        self.original = original.decode("latin-1")
        self.lines = text.decode("latin-1").splitlines()
        a = self.original.splitlines()
        self.moved: dict[int, int] = {}  # input line -> output line (1-based)
        self.inserted: list[int] = []
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, self.lines, autojunk=False).get_opcodes():
            if tag == "equal":
                for k in range(i2 - i1):
                    self.moved[i1 + k + 1] = j1 + k + 1
            elif tag in ("insert", "replace"):
                self.inserted.extend(range(j1 + 1, j2 + 1))
        self._known = sorted(self.moved)

    def input_line(self, offset: int) -> int:
        return self.original.count("\n", 0, offset) + 1

    def output_line(self, line: int) -> int | None:
        """The output line of input line `line` (None: that line was changed)."""
        return self.moved.get(line)

    def _estimate(self, line: int) -> int:
        got = self.moved.get(line)
        if got is not None:
            return got
        before = [k for k in self._known if k <= line]
        return self.moved[before[-1]] + (line - before[-1]) if before else line

    def find(self, ins: Insertion) -> int | None:
        """The output line holding inserted statement `ins` (the nearest one on its side of the
        statement it was inserted next to)."""
        want = ins.code + ins.terminator
        found = [j for j in self.inserted if self.lines[j - 1].strip().startswith(want)]
        if not found:
            return None
        before = ins.where == "before"
        at = self._estimate(self.input_line(ins.start if before else max(ins.start, ins.end - 1)))
        return min(found, key=lambda j: ((j >= at) if before else (j <= at), abs(j - at)))


# ---------------------------------------------------------------- parts of a record


def _loc(loc: ir.SourceRange, lines: OutputLines, main: str) -> dict:
    out = {"file": loc.file, "line": loc.line, "column": loc.col}
    out["output_line"] = lines.output_line(loc.line) if loc.file == main else None
    return out


def _site(instr: ir.Instr, lines: OutputLines, main: str) -> dict:
    site = {"op": instr.op, "pipe": instr.pipe, **_loc(instr.loc, lines, main)}
    # Innermost call site first, as a compiler's "inlined from" notes read.
    site["inlined_from"] = [_loc(v, lines, main) for v in reversed(instr.via)]
    return site


def _loop(loop: ir.For | None, lines: OutputLines, main: str) -> dict | None:
    if loop is None:
        return None
    return {"variable": loop.cpp_var or loop.var, "kind": loop.kind, **_loc(loop.loc, lines, main)}


def _overlaps(edge: Edge) -> tuple[list[str], list[dict], int]:
    """Tiles (producer operand, consumer operand) and the first overlapping byte range of each
    instance read."""
    tiles: dict[str, None] = {}
    ranges: dict[tuple[str, int, int], None] = {}
    want = {"raw": (True, False), "war": (False, True), "waw": (True, True)}
    for d in edge.instances[:MAX_INSTANCES]:
        w_src, w_dst = want.get(d.kind, (True, False))
        for a in getattr(d.src, "accesses", ()):
            if a.write != w_src:
                continue
            for b in getattr(d.dst, "accesses", ()):
                if b.write != w_dst:
                    continue
                got = a.footprint.overlap(b.footprint)
                if got is None:
                    continue
                tiles.setdefault(a.what, None)
                tiles.setdefault(b.what, None)
                ranges.setdefault((a.footprint.space, int(got[0]), int(got[1])), None)
    listed = [{"space": s, "start": lo, "end": hi} for s, lo, hi in list(ranges)[:MAX_RANGES]]
    return list(tiles), listed, len(ranges)


def _dependence(edge: Edge, lines: OutputLines, main: str) -> dict:
    tiles, ranges, count = _overlaps(edge)
    return {
        "hazard": edge.kind.upper(),
        "hazards": [k.upper() for k in ("raw", "war", "waw") if k in edge.kinds],
        "operand": edge.what,
        "space": edge.space,
        "tiles": tiles,
        "byte_ranges": ranges,
        "byte_range_count": count,
        "producer": _site(edge.src, lines, main),
        "consumer": _site(edge.dst, lines, main),
        "carried_by": _loop(edge.carrier, lines, main),
    }


def _form(s: PlannedSync) -> str:
    if s.kind == "barrier":
        return "full-barrier" if s.src == "ALL" else "barrier"
    if s.ahead is not None:
        return "ahead"
    return "buffer-free" if s.prime_at is not None else "forward"


def _event_arg(code: str) -> str | None:
    m = _CALL.match(code + ";")
    if not m:
        return None
    args = [a.strip() for a in m.group(2).split(",", 2)]
    return args[2] if len(args) == 3 else None


def _line_kind(text: str) -> str:
    m = _CALL.match(text)
    name = m.group(1) if m else ""
    for call, kind in _KINDS:
        if name == call:
            return kind
    return "other"


# ---------------------------------------------------------------- what each sync is for


@dataclass
class _Checker:
    """Ordering of the cross-pipe and same-pipe dependences under a set of syncs, as the
    planner's final check computes it."""

    pt: PlanTrace
    # PlanTrace caches per edge by id(): edges made here must outlive it, or a new edge could
    # take a dead one's id and its cached instances.
    alive: list[Edge] = field(default_factory=list)

    def unordered(self, syncs: list[PlannedSync], edges: Iterable[Edge] | None = None) -> list[Edge]:
        if edges is not None:
            edges = list(edges)
            self.alive.extend(edges)
        order = self.pt.order(syncs, check_flags=False)
        cross = self.pt.cross if edges is None else [e for e in edges if e.cross_pipe]
        same = self.pt.same if edges is None else [e for e in edges if not e.cross_pipe]
        left = self.pt.unordered(order, cross)
        if same:
            cover = BarrierCover(self.pt, order)
            for s in syncs:
                if s.kind == "barrier":
                    cover.add(s)
            left += [e for e in same if cover.covers(e) is None]
        return left

    def flag_problems(self, syncs: list[PlannedSync]) -> list[str]:
        order = self.pt.order(syncs, check_flags=True)
        return sorted({f"{p.kind} on {p.key[0]} -> {p.key[1]}" for p in order.flag_problems})

    def chain(self, syncs: list[PlannedSync], e: Edge) -> list[PlannedSync]:
        """A smallest set of `syncs` (by dropping, latest first) that still orders `e`."""
        kept = list(syncs)
        for s in reversed(syncs):
            trial = [x for x in kept if x is not s]
            if not self.unordered(trial, [e]):
                kept = trial
        return kept


def _conflict(x, y) -> tuple[str, str, str] | None:
    """(hazard, space, consumer operand) of two trace ops that touch a common byte, one writing."""
    for a in x.accesses:
        for b in y.accesses:
            if not (a.write or b.write) or a.footprint.overlap(b.footprint) is None:
                continue
            if barrier_between(x, a, y, y.barrier_inside and not b.early):
                continue  # ordered by the barrier inside one of them, as in `deps`
            kind = "waw" if a.write and b.write else "raw" if a.write else "war"
            return kind, a.footprint.space, b.what
    return None


def implied_dependences(pt: PlanTrace, left: list[Edge]) -> list[Edge]:
    """Dependences of the producers and consumers of `left` that the analysis leaves out because
    an ordered chain implies them (a write through an alias after a read that another pipe's
    write conflicts with): when a sync goes, they are unordered too, and a race checker names
    them. Pairs of trace ops touching a common byte, one writing (a write in between does not
    hide them: it is only a shield when ordered, and then happens-before orders the pair too)."""
    srcs = {id(e.src) for e in left}
    dsts = {id(e.dst) for e in left}
    ops = sorted(pt.trace.ops, key=lambda o: o.pos)
    pairs: dict[tuple[int, int], DynDep] = {}
    for i, op in enumerate(ops):
        later = ops[i + 1:] if id(op.stmt) in srcs else ()
        earlier = ops[:i] if id(op.stmt) in dsts else ()
        for x, y in [(op, y) for y in later] + [(x, op) for x in earlier]:
            if (x.pos, y.pos) in pairs:
                continue
            got = _conflict(x, y)
            if got is not None:
                pairs[(x.pos, y.pos)] = DynDep(x, y, got[0], got[1], got[2])
    found = list(pairs.values())
    edges = static_edges(found, pt.kernel)
    known = {(e.src.uid, e.dst.uid) for e in left}
    out = []
    for e in edges:
        if (e.src.uid, e.dst.uid) in known:
            continue
        known.add((e.src.uid, e.dst.uid))
        if not e.cross_pipe:
            same_tile = bool(root_tiles(e.src) & root_tiles(e.dst))
            if all(same_pipe_ordered(pt.arch, e.src.pipe, k, e.src.op, e.dst.op, same_tile) for k in e.kinds):
                continue
        out.append(e)
    return out


def _edge_key(e: Edge) -> tuple:
    return (e.src.uid, e.dst.uid, id(e.carrier) if e.carrier is not None else None)


def explain_kernel(kernel: ir.Kernel, result, arch: ArchProfile, lines: OutputLines, next_id: list[int]) -> dict:
    main = kernel.file
    out: dict = {"name": kernel.name, "core": kernel.core, "syncs": [], "redundant": [], "placements": []}
    for p in result.plan.placements:
        out["placements"].append({"tile": p.name, "buffer": p.buffer, "bytes": p.nbytes,
                                  "addresses": list(p.addresses)})
    plan = result.syncs
    if plan is None:
        out["planned"] = False
        return out
    out["planned"] = True
    pt = PlanTrace(kernel, arch, result.plan.address, classify(kernel), plan.extra)
    check = _Checker(pt)
    syncs = plan.syncs
    needed_by: dict[tuple, list[str]] = {}
    ids: dict[int, str] = {}
    for s in syncs:
        ids[id(s)] = f"s{next_id[0]}"
        next_id[0] += 1
    for s in syncs:
        rest = [x for x in syncs if x is not s]
        left = check.unordered(rest)
        for e in left:
            needed_by.setdefault(_edge_key(e), []).append(ids[id(s)])
        implied = check.unordered(rest, implied_dependences(pt, left)) if left else []
        ins = emit(kernel, [s], main, check_copies=False)
        placed = [{"line": lines.find(i), "role": ROLES.get(i.order, "other"), "text": i.code + i.terminator}
                  for i in ins]
        codes = {ROLES.get(i.order): i.code for i in ins}
        entry = {
            "id": ids[id(s)],
            "kind": s.kind,
            "form": _form(s),
            "pipes": [s.src] if s.kind == "barrier" else [s.src, s.dst],
            "reason": s.reason,
            "lines": placed,
            "orders": [{**_dependence(e, lines, main), "direct": True} for e in left]
            + [{**_dependence(e, lines, main), "direct": False} for e in implied],
            "flag_protocol": [] if left else check.flag_problems(rest),
        }
        if s.kind == "flag":
            entry["event"] = {
                "base": s.event, "slots": s.slots,
                "slot": _unparen(cpp_text(s.slot, _names(kernel))) if s.slot is not None else None,
                "wait_slot": _unparen(cpp_text(s.wait_slot, _names(kernel))) if s.wait_slot is not None else None,
                "set": _event_arg(codes.get("set", "")), "wait": _event_arg(codes.get("wait", "")),
            }
            entry["carried_by"] = _loop(s.reverse_loop or s.ahead, lines, main)
        out["syncs"].append(entry)
    candidates = [e for e in pt.cross + pt.same if _edge_key(e) not in needed_by]
    for n, e in enumerate(candidates):
        dep = _dependence(e, lines, main)
        item = {"candidate": _candidate(e, lines, main), "dependence": dep}
        if n < MAX_CHAIN_EDGES:
            chain = check.chain(syncs, e)
            item["implied_by"] = [ids[id(s)] for s in chain]
            item["how"] = _how(e, chain, ids)
        else:
            item["implied_by"] = None
            item["how"] = "not searched (too many candidates)"
        out["redundant"].append(item)
    return out


def _unparen(text: str) -> str:
    return text[1:-1] if text.startswith("(") and text.endswith(")") else text


def _names(kernel: ir.Kernel) -> dict[str, str]:
    return {s.var: s.cpp_var for s in ir.walk(kernel.body) if isinstance(s, ir.For) and s.cpp_var}


def _candidate(e: Edge, lines: OutputLines, main: str) -> dict:
    if e.cross_pipe:
        return {"kind": "flag", "pipes": [e.src.pipe, e.dst.pipe],
                "set_after": _loc(e.src.loc, lines, main), "wait_before": _loc(e.dst.loc, lines, main)}
    return {"kind": "barrier", "pipes": [e.src.pipe], "set_after": None, "wait_before": _loc(e.dst.loc, lines, main)}


def _how(e: Edge, chain: list[PlannedSync], ids: dict[int, str]) -> str:
    if not chain:
        return ("ordered without any inserted sync (program order and the kernel's structure)")
    parts = [f"{ids[id(s)]} ({s.src} -> {s.dst})" if s.kind == "flag" else f"{ids[id(s)]} (pipe_barrier {s.src})"
             for s in chain]
    return "implied by " + ", ".join(parts)


def explain_rewrite(kernels: list[ir.Kernel], rewritten, arch: ArchProfile, options, original: bytes, path: str,
                    output: str | None = None, in_place: bool = False) -> dict:
    """The record of one file's rewrite (every kernel or instantiation in it)."""
    lines = OutputLines(original, rewritten.text)
    next_id = [0]
    per_kernel = [explain_kernel(k, r, arch, lines, next_id) for k, r in zip(kernels, rewritten.results)]
    by_line: dict[int, list[str]] = {}
    for k in per_kernel:
        for s in k["syncs"]:
            for ln in s["lines"]:
                if ln["line"] is not None:
                    by_line.setdefault(ln["line"], []).append(s["id"])
    inserted = []
    for j in lines.inserted:
        text = lines.lines[j - 1]
        code, _, reason = text.strip().partition("//")
        inserted.append({"line": j, "text": text.strip(), "kind": _line_kind(code.strip()),
                         "reason": reason.strip() or None, "syncs": sorted(set(by_line.get(j, ())))})
    return {
        "schema": SCHEMA_NAME,
        "version": SCHEMA_VERSION,
        "input": path,
        "output": path if in_place else output,
        "arch": arch.name,
        "conservative": bool(getattr(options, "conservative", False)),
        "inserted_lines": inserted,
        "kernels": per_kernel,
    }
