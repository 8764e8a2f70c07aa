"""Pipe timing: when each issued step starts and ends, total cycles and the critical path.

Event-driven over the trace (per-op cycles from :mod:`timing`):
* the scalar unit issues one statement per SCALAR_ISSUE_CYCLES (every PTO instruction, sync,
  TASSIGN, alias and scalar assignment; loop control is free) and never waits for a pipe,
  except at a wait_flag on PIPE_S, a scalar-unit op and pipe_barrier(PIPE_ALL);
* an op starts when its pipe is free (pipes run one op at a time, in queue order) and it has been
  issued; it occupies the pipe for its cycles;
* set_flag fires when every earlier op of its pipe has completed (+SET_FLAG_CYCLES);
  wait_flag holds its pipe until the matched set fired (+WAIT_FLAG_CYCLES);
* pipe_barrier(P) costs PIPE_BARRIER_CYCLES on P (P runs one op at a time, so it is drained);
  pipe_barrier(PIPE_ALL) waits for every pipe and stalls the scalar unit;
* serialized (``serial=True``): additionally every op waits for every earlier-issued op, the
  calibration README's "fully serialized" kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptorewrite.analysis.execution import GmOperand, Step, TileOperand, Trace
from ptorewrite.arch import TILE_TYPE_BUFFER as TILE_BUFFER
from ptorewrite.emulator import timing
from ptorewrite.emulator.pipes import PIPES, lanes, match_flags, queue_order


def cost_query(step: Step) -> timing.CostQuery:
    """Describe an op to the cycle model: destination shape, source type, buffers, matmul K."""
    tiles = [o for o in step.operands if isinstance(o, TileOperand)]
    gms = [o for o in step.operands if isinstance(o, GmOperand)]
    first = step.operands[0] if step.operands else None
    if step.pipe == "M":
        acc = tiles[0]
        left = next((t for t in tiles if t.decl.tile_type == "Left"), tiles[-2] if len(tiles) > 2 else acc)
        return timing.CostQuery(step.name, "M", acc.valid[0], acc.valid[1], acc.decl.dtype,
                                src_dtype=left.decl.dtype, k=left.valid[1], src_buffer="L0A", dst_buffer="L0C")
    if isinstance(first, GmOperand):  # TSTORE: shaped by the tile it stores
        t = tiles[0] if tiles else None
        rows, cols = t.valid if t else (first.rows, first.cols)
        return timing.CostQuery(step.name, step.pipe, rows, cols, t.decl.dtype if t else first.tensor.dtype,
                                src_buffer=TILE_BUFFER[t.decl.tile_type] if t else None, dst_buffer="GM")
    dst = tiles[0]
    srcs = tiles[1:]
    src = srcs[0] if srcs else None
    if gms and not srcs:  # TLOAD
        return timing.CostQuery(step.name, step.pipe, *dst.valid, dst.decl.dtype, src_buffer="GM",
                                dst_buffer=TILE_BUFFER[dst.decl.tile_type])
    kw = {}
    if src is not None:
        kw = {"src_dtype": src.decl.dtype, "src_buffer": TILE_BUFFER[src.decl.tile_type]}
        if src.valid != dst.valid:
            kw.update(src_rows=src.valid[0], src_cols=src.valid[1])
    return timing.CostQuery(step.name, step.pipe, *dst.valid, dst.decl.dtype,
                            dst_buffer=TILE_BUFFER[dst.decl.tile_type], **kw)


@dataclass
class Timed:
    start: int
    end: int
    cause: str  # what set the start: "issue", "pipe", "flag", "serial", "barrier"
    pred: int | None  # the step that caused it (None: the kernel start)


@dataclass
class Schedule:
    trace: Trace
    times: dict[int, Timed]  # step index -> timing (steps that never run are absent)
    total: int
    busy: dict[str, int]
    cycles: dict[int, int]  # op step -> its cycles
    matches: dict[int, int]
    stuck: list[int]
    serial: bool

    def core_end(self, core: str) -> int:
        """When the last step `core` issued ends (a cluster's trace)."""
        return max((t.end for i, t in self.times.items() if self.trace.steps[i].core == core), default=0)

    def critical_path(self) -> list[tuple[int, Timed]]:
        """The chain of steps, last first, that determines the end time."""
        if not self.times:
            return []
        i = max(self.times, key=lambda k: (self.times[k].end, -k))
        chain = []
        seen = set()
        while i is not None and i not in seen:
            seen.add(i)
            chain.append((i, self.times[i]))
            i = self.times[i].pred
        return chain


def simulate(trace: Trace, serial: bool = False, matches: dict[int, int] | None = None) -> Schedule:
    steps = trace.steps
    if matches is None:
        matches, _ = match_flags(trace)
    order, stuck = queue_order(trace, matches, serial=serial)
    per_stmt = timing.SCALAR_ISSUE_CYCLES
    arch = trace.arch.name

    # Issue: statement count times the issue cost, pushed back by the last scalar stall. In a
    # cluster every core has its own scalar unit and pipes ("vec1.MTE2"): they run at once.
    blocker: list[int | None] = []
    prev_op: list[int | None] = []
    last_block: dict[str, int] = {}
    last_op: dict[str, int] = {}
    for s in steps:
        blocker.append(last_block.get(s.core))
        prev_op.append(last_op.get(s.core))
        if s.pipe in ("S", "ALL"):
            last_block[s.core] = s.index
        if s.kind == "op":
            last_op[s.core] = s.index

    all_lanes = lanes(trace)
    cost_cache: dict[tuple, int] = {}
    cycles: dict[int, int] = {}
    free = {p: 0 for p in all_lanes}
    last_on: dict[str, int | None] = {p: None for p in all_lanes}
    times: dict[int, Timed] = {}
    busy = {p: 0 for p in all_lanes}

    def issue_time(i: int) -> tuple[int, int | None]:
        b = blocker[i]
        t = steps[i].seq * per_stmt
        if b is not None and b in times:
            tb = times[b].end + (steps[i].seq - steps[b].seq) * per_stmt
            if tb > t:
                return tb, b
        return t, b

    for i in order:
        s = steps[i]
        iss, iss_pred = issue_time(i)
        if s.pipe == "ALL":
            start, cause, pred = iss, "issue", iss_pred
            mine = [q for q in all_lanes if q.rsplit(".", 1)[0] == s.core] if s.core else PIPES
            for p in mine:
                if free[p] > start:
                    start, cause, pred = free[p], "pipe", last_on[p]
            end = start + timing.PIPE_BARRIER_CYCLES
            for p in mine:
                free[p], last_on[p] = end, i
            times[i] = Timed(start, end, cause, pred)
            continue
        p = s.lane
        start, cause, pred = iss, "issue", iss_pred
        if free[p] > start or (free[p] == start and last_on[p] is not None):
            start, cause, pred = free[p], "pipe", last_on[p]
        if s.kind == "op":
            if serial and prev_op[i] is not None:
                t_prev = times[prev_op[i]].end
                if t_prev > start:
                    start, cause, pred = t_prev, "serial", prev_op[i]
            key = _cost_key(s)
            c = cost_cache.get(key)
            if c is None:
                c = cost_cache[key] = timing.instruction_cycles(cost_query(s), arch)
            cycles[i] = c
            end = start + c
            busy[p] += c
            release = timing.STORE_SOURCE_RELEASE.get(s.pipe)
            if release is not None and s.name == "TSTORE":
                # The pipe frees (and later sets fire) once the source is read; GM drains after.
                freed = start + max(1, int(c * release))
                free[p], last_on[p] = freed, i
                times[i] = Timed(start, end, cause, pred)
                continue
        elif s.kind in ("set", "xset"):
            end = start + timing.SET_FLAG_CYCLES
        elif s.kind in ("wait", "xwait"):
            fire = times[matches[i]].end
            if fire > start:
                start, cause, pred = fire, "flag", matches[i]
            end = start + timing.WAIT_FLAG_CYCLES
        else:
            end = start + timing.PIPE_BARRIER_CYCLES
        free[p], last_on[p] = end, i
        times[i] = Timed(start, end, cause, pred)
    total = max((t.end for t in times.values()), default=0)
    total = max(total, max(trace.core_statements.values(), default=trace.statements) * per_stmt)
    return Schedule(trace, times, total, {p: c for p, c in busy.items() if c}, cycles, matches, stuck, serial)


def _cost_key(s: Step) -> tuple:
    parts = [s.name, s.pipe]
    for o in s.operands:
        if isinstance(o, TileOperand):
            parts.append((o.decl.tile_type, o.decl.dtype, o.valid))
        elif isinstance(o, GmOperand):
            parts.append(("gm", o.tensor.dtype, o.rows, o.cols))
    return tuple(parts)


# ------------------------------------------------------------------------------------ report


def _where(step: Step) -> str:
    return f"{step.loc.line}:{step.loc.col}" + "".join(f" via {v.line}" for v in reversed(step.via))


def format_report(sched: Schedule, path_limit: int = 40) -> str:
    trace = sched.trace
    steps = trace.steps
    clock = timing.CLOCK_HZ.get(trace.arch.name, 1.85e9)
    mode = "fully serialized" if sched.serial else "pipelined"
    ops = sum(1 for s in steps if s.kind == "op")
    syncs = len(steps) - ops
    lines = [
        (f"kernel {trace.kernel.name} ({trace.kernel.mode}, {trace.arch.name}, {mode}): "
         f"{sched.total:,} cycles = {sched.total / clock * 1e6:.2f} us at {clock / 1e9:.2f} GHz"),
        f"  {ops} instructions, {syncs} syncs, {trace.statements} scalar statements issued",
    ]
    if not timing.PROFILES[trace.arch.name].calibrated:
        lines.append(f"  note: the {trace.arch.name} timing tables are not calibrated (a2a3 figures reused)")
    if sched.stuck:
        lines.append(f"  WARNING: {len(sched.stuck)} pipe(s) never finish (deadlock); times cover what ran")
    if trace.cores:
        lines[0] = lines[0].replace(f"kernel {trace.kernel.name} (", f"cluster of kernel {trace.kernel.name} (", 1)
        lines.append(f"  cores run at once: {', '.join(trace.cores)}; each core's last step ends at " + ", ".join(
            f"{c} {sched.core_end(c):,}" for c in trace.cores))
    lines.append("busy cycles per pipe:")
    width = max([5, *(len(q) for q in sched.busy)])
    for p in lanes(trace):
        if p in sched.busy:
            b = sched.busy[p]
            n = sum(1 for i in sched.cycles if steps[i].lane == p)
            lines.append(f"  {p:<{width}} {b:>12,}  {100 * b / max(1, sched.total):5.1f}%  ({n} ops)")
    chain = list(reversed(sched.critical_path()))
    lines.append(f"critical path ({len(chain)} steps, earliest first; 'after' says what the step waited for):")
    # Runs of ops on one pipe that started as soon as the pipe was free become one line.
    groups: list[list] = []
    for i, t in chain:
        s = steps[i]
        if s.kind != "op" and t.cause == "pipe" and t.end == t.start:
            continue  # a sync that did not wait: not informative
        if groups and groups[-1][0] == s.lane and t.cause in ("pipe", "serial") and s.kind == "op" \
                and steps[groups[-1][1][-1][0]].kind == "op":
            groups[-1][1].append((i, t))
        else:
            groups.append([s.lane, [(i, t)]])
    half = path_limit // 2
    shown = groups if len(groups) <= path_limit else groups[:half] + [None] + groups[-half:]
    for g in shown:
        if g is None:
            lines.append(f"  ... {len(groups) - 2 * half} more ...")
            continue
        pipe, items = g
        i0, t0 = items[0]
        t1 = items[-1][1]
        s0 = steps[i0]
        after = {"issue": "issue", "pipe": "pipe free", "flag": "flag", "serial": "previous op"}[t0.cause]
        if t0.cause == "flag" and t0.pred is not None:
            after = f"flag set at {_where(steps[t0.pred])} ({steps[t0.pred].lane})"
        names: dict[str, int] = {}
        for i, _ in items:
            names[steps[i].name] = names.get(steps[i].name, 0) + 1
        what = ", ".join(f"{n} x{c}" if c > 1 else n for n, c in names.items())
        if len(items) > 1:
            what = f"{len(items)} ops: {what}"
        lines.append(f"  [{t0.start:>9,} .. {t1.end:>9,}] {pipe:<5} {what}  @{_where(s0)}  after {after}")
    return "\n".join(lines) + "\n"
