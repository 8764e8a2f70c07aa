"""Flash attention on a2a3: ptorewrite's rewrite of pto-isa's AUTO kernel against pto-isa's hand-written one.

    python benchmarks/fa_a2a3_vs_hand.py --pto-isa-root /path/to/pto-isa

writes benchmarks/fa_a2a3_vs_hand.md (`-o` elsewhere). Run by hand; not part of the test suite.

The AUTO kernel is kernels/automode/a2a3/flash_atten/fa_performance_kernel.cpp, the hand-written
one kernels/manual/common/flash_atten/fa_performance_kernel.cpp, each built as
benchmarks/pto_isa_corpus.py builds it (its functions give the flags: the folder's generated
instantiations, the AUTO file's case list expanded through the corpus's own macro). For each size
(S0 = 128, head dimension 128, S1 = 1024, 2048 and 8192) the instantiation of each file with those
template arguments is chosen from `ptorewrite kernels` (the hand-written file's copy without its
intermediate check, as the AUTO file has none); `auto2manual --entry` rewrites the AUTO one, and
`simulate --entry` times the rewrite and the hand-written kernel as clusters (the cube core and
both vector cores at once, block 0) on ptorewrite's timing model. Where the rewrite stops, the
report gives the located error that stopped it instead of figures.

Where the cycles go: for each size the rewrite and the hand-written kernel are timed again in
this process by benchmarks/sync_bound.py, which gives two lower bounds on the same trace (ideal
sync: every same-core flag replaced by exactly the data dependences it orders, unlimited event
ids, the kernel's memory plan kept; true dependences only: reads after writes alone, as if no
buffer were ever reused) and the waits on the critical path that held their pipe the longest
(each wait's own idle time of its pipe: waits on different pipes overlap, so they do not add up).

The calibration section times the hand-written kernel at S1 = 1024 again fully serialized
(`simulate --serialize`) and sets both figures against the whole-kernel reference of pto-isa's
cycle-level model given with the calibration data (REFERENCE below).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pto_isa_corpus import Run, Runner, flags_for
from sync_bound import Bounds, timed
from sync_bound import measure as measure_bounds

from ptorewrite.diagnostics import PtoError

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "fa_a2a3_vs_hand.md"
# pto-isa's cycle-level model ("perf-sim") on a hand-written flash attention of S0 x head x S1, one
# core: the whole-kernel reference of the calibration data (/work/shared/calibration/README.md).
REFERENCE = {(128, 128, 1024): 39_003}
OP_ERRORS = ROOT / "benchmarks" / "timing_calibration.md"
AUTO = "kernels/automode/a2a3/flash_atten/fa_performance_kernel.cpp"
AUTO_FOLDER = "kernels/automode/a2a3/flash_atten"
HAND = "kernels/manual/common/flash_atten/fa_performance_kernel.cpp"
S0, HEAD = 128, 128
SIZES = (1024, 2048, 8192)

KERNEL_LINE = re.compile(r": (?P<name>\w+)<(?P<args>[^>]*)> \[(?P<core>\w+)\]")
TOTAL = re.compile(r"^cluster of kernel .*\((?P<mode>[^)]*)\): (?P<cycles>[\d,]+) cycles", re.MULTILINE)
ENDS = re.compile(r"each core's last step ends at (?P<ends>.*)$", re.MULTILINE)
END = re.compile(r"(\w+) (\d{1,3}(?:,\d{3})*)\b")
BUSY = re.compile(r"^\s+(?P<core>\w+)\.(?P<pipe>\w+)\s+(?P<cycles>[\d,]+)\s+(?P<pct>[\d.]+)%\s+\((?P<ops>\d+) ops\)",
                  re.MULTILINE)
ERROR_ROW = re.compile(r"^\| (?P<op>\w+) \| (?P<shape>\d+ x \d+) \| (?P<dtype>\w+) \| (?P<pipe>\w+) \|[^|]*\| "
                       r"(?P<measured>\d+) \| (?P<model>\d+) \| (?P<err>[+-][\d.]+) \|", re.MULTILINE)
DRAINED = re.compile(r"^(\s*)(TPOP<|TALLOC<)", re.MULTILINE)
UF_ON = re.compile(r"^#define UF_ENABLE 1\b", re.MULTILINE)
CRITICAL_OPS = re.compile(r"\b(T[A-Z0-9_]+)(?: x\d+)?")
# Where the waiting went: read by hand from the tables this script writes (the bounds and the
# critical-path waits of each size) and from the rewrites' lines; re-read it when the figures move.
ANALYSIS = """\
## Where the waiting went (read by hand from the tables below, at ptorewrite 7df418d)

At 8158bab the rewrite took 24,260 cycles at S1 = 1024 (1.240x) and 41,956 at 2048 (1.284x),
with the same busy time per pipe as the hand-written kernel. Its ideal-sync bound at 1024 was
already 19,354 (0.989x): the whole gap was synchronization, in three places, each fixed in the
planner:

1. The vector cores' softmax loop (`compute_p` in the prologue loop): the V -> MTE2 release of
   `qkVecTile` and the MTE3 -> V release of `x_exp_1d` had one event id for both lanes of the
   double-buffered tiles, so each TPOP waited for the previous lane's softmax (9,727 cycles held
   at that wait on vec0's critical path; eight 554-cycle loads exposed). The TPOP loads through
   a strip whose declaration did not name the tile, so that end had no lane (strips now alias
   their tile), and the flags inside `compute_p` could not name the lane (the lane of a nested
   MultiBuffered loop whose inner loop runs a multiple of the buffer count is now the inner step,
   which the helper gets as `row_slice`).
2. The cube's PV epilogue loop: the MTE1 -> MTE2 release of `vMatTile` / `pMatTile`, moved to the
   call because only that copy needs it, kept one id there (now one per lane at the call).
3. `compute_pv`'s MTE2 -> MTE1 flag inside the helper: one id for the reason in 1 (now
   `sub_tile_id % 2`).

4. `compute_gu` in the epilogue loop (after 14a5376): it is passed `ctx.iter + num_tiles_s1 -
   qkPreloadNum`, and the lane of the double-buffered `pvVecTile` had no name inside it (only a
   parameter holding a plain variable named one), so its MTE2 -> V and V -> MTE2 flags had one id
   and the last PV loads alternated with their updates (306 cycles over the ideal-sync bound). A
   parameter holding a variable plus a constant now names it (`tile_id % 2` at S1 = 1024, where
   the constant is 0; `(tile_id - 4) % 2` where it is 4).

S1 = 1024 now takes 19,483 cycles (0.995x), 194 over its ideal-sync bound. The matmul helper's
L0A / L0B tiles alternate two copies chosen by a counter the helper keeps (a function static
stepped each time the declaration runs, named in the TASSIGN and in the M <-> MTE1 ids), as the
hand-written kernel's ping-pong does, so a call's extract overlaps the previous call's matmul
(19,549 before). What is left on the critical path are the L0C unit-flag waits on `qkAccTile`;
the hand-written kernel also keeps one QK and one PV accumulator (L0C holds exactly two 64 KiB
tiles), so that is not a difference of layout.

At S1 = 2048 the MultiStaged main loop runs: three call sites of `compute_qk` / `compute_pv`
(prologue, main loop, epilogue). At 930d879 the rewrite took 37,688 cycles (1.154x): the
MTE1 -> MTE2 flags had taken one id per lane (the copies of one text share their ids, chained
across the loops that run one after another), the matmul helper's L0A / L0B tiles two counted
copies, and the main loop's `kMatTile` and `pMatTile` (declared once before the loop, written
first on every path of each iteration) two copies each. Three changes in the placement of the
vector cores' flags took it to 34,914 (1.069x):

1. The main loop's single `pvVecTile` lies over `qkVecTile`'s lane 0 (UB is full: 163 of 184
   KiB). The flag that frees those bytes for `compute_gu`'s PV load was set after the whole
   softmax lane loop (9,216 cycles held over four iterations); it is now set in the lane loop's
   step 0, the last step that reads lane 0 (`if (ctx.iter == 0) set_flag(...)`), so the load
   overlaps lane 1's softmax (35,468).
2. The reload of `runningOTile` in `compute_gu` at tile 0 (its bytes were the prologue's
   `x_expT`) waited before the main loop and held the first iteration's softmax loads (2,454
   cycles); its wait is now in the first iteration, beside the `if` whose other branch loads on
   the same pipe (37,538 from 37,688 alone).
3. The main loop's first loads into `qkVecTile`'s two lanes waited, with one id, for the
   prologue's last reader of either lane (2,304 cycles); in its first iteration each lane now
   waits on the id of its own lane that the prologue's softmax loop left pending (34,914).

`vMatTile` now keeps two copies as well (its helper copies' flags, primed before one block,
chain their per-lane ids instead of each call writing its own and MTE1 -> MTE2 running out of
ids), with no change in cycles or in either bound: the cube waits only at the start (the first
score tile's load, extract, matmul and store, true dependences).

That left, at 34,914 cycles, the V -> MTE2 wait before the main loop's lane loop (3,698 cycles
x3): the next tile's lane 0 load went into the bytes `compute_gu` had just read, a dependence of
the memory plan (ideal-sync bound 32,905, 1.007x). The hand-written kernel steps one ping-pong
index over the softmax slices and the update, so the update takes the lane the last slice did
not use and the next slice the other one. The rewrite now does the same: the lane loop's
`qkVecTile` copies and the `pvVecTile` after them take their copies from one counter
(`qkVecTileCopy`, transform/shared_region.py), whose per-copy flags free each copy for its next
load. Inside `compute_p`, which the lane body calls, the counter has no name, so the flags within
one lane (the strip's TPOP before the softmax) take the lane's own index (`row_slice % 2`); with
one id there the plan had carried a one-id credit from lane to lane and the counter was undone.
That took S1 = 2048 to 33,838 cycles (1.036x; ideal-sync bound 32,307) and 8192 to 115,726
(1.010x, against 114,555). benchmarks/sync_ablation.py then timed the rewrite with each wait site
alone replaced by the dependences it orders: at 2048 the most was `compute_gu`'s wait for its PV
load (986 cycles), placed before `if (tile_id < num_tiles - 1) pto_macro_fa_gu(...) else
pto_macro_fa_gu_last(...)`, although both macros first rescale `runningOTile`, which the load
does not touch. Two changes in the planner took the rest:

5. A forward flag's wait goes inside the helper and the branch that hold its consumer, right
   before the consumer, when work of its pipe comes first there; with consumers in both branches
   each branch gets a flag, both on one id after the load (written as one set). The wait is now
   right before each macro's TADD, and the rescale runs while the PV load is in flight.
6. Credits are judged on the whole plan: the `x_expT` credit (MTE3 -> V, set and waited between
   the prologue and the main loop) held the vector pipe until the prologue's last `x_expT` store,
   and was kept only because it also ordered `runningOTile`'s pop at tile 0 onto those bytes. With
   every helper copy's lines in place the reuse it guarded is safe without it, so it is replaced
   by a flag of that dependence's own (MTE3 -> MTE2, waited at tile 0 only); the cube's
   `aMatTile` / `bMatTile` credits go with nothing in their place.

S1 = 1024 now takes 19,201 cycles (0.981x), 2048 32,582 (0.997x) and 8192 114,470 (0.999x), each
verified equal to the AUTO kernel with no race and no flag problem. At 2048 the synchronization
is 275 cycles over the ideal-sync bound (32,307, 0.989x); what holds a pipe longest now is the
final `TSTORE` of the output waiting for the last update (3,902 x2, a true dependence), the first
softmax's strip load (3,617, the cube's first score tile arriving) and the cube's first L0C
unit-flag waits (1,913 x2). At 8192 it is still the lane loop's per-copy V -> MTE2 wait (12,236
cycles x14 and 11,362 x13 held): each load waits for the copy's previous reader, and what the
ablation finds left there is a few cycles per step (its set comes after the softmax's last small
add, inside a helper that cannot name the copy counter). Rewritten as a whole file (every size in
one text), the kernel runs the same 19,201, 32,582 and 114,470 cycles (32,587 and 114,475 from 51111fa to
84d364d, before the cube's P load stopped waiting for the QK store), since 51111fa made
the one counter in a loop several kernels share too, its declaration written once outside their
`if constexpr` branches (19,201, 33,663 and 128,463 just before; 19,483, 34,914 and 129,714 at
fcd4d18).
"""


def _int(text: str) -> int:
    return int(text.replace(",", ""))


def entry_for(kernels_stdout: str, s0: int, head: int, s1: int, skip: tuple[str, ...] = ()) -> str | None:
    """The first kernel `ptorewrite kernels` lists whose first three template arguments are
    (s0, head, s1) and whose other arguments name none of `skip` at the position given
    (`skip`: (position, text) pairs written "8=true"), as an --entry value."""
    for m in KERNEL_LINE.finditer(kernels_stdout):
        args = [a.strip() for a in m.group("args").split(",")]
        if len(args) < 3 or args[:3] != [str(s0), str(head), str(s1)]:
            continue
        if any(int(k) < len(args) and args[int(k)] == v for k, v in (s.split("=", 1) for s in skip)):
            continue
        return f"{m.group('name')}<{', '.join(args)}>"
    return None


@dataclass
class Timing:
    cycles: int
    mode: str  # "manual, a2a3, pipelined" etc.
    ends: dict[str, int] = field(default_factory=dict)  # core -> the cycle its last step ends
    busy: dict[str, tuple[int, int]] = field(default_factory=dict)  # "core.PIPE" -> (busy cycles, ops)
    critical_ops: list[str] = field(default_factory=list)  # instructions named on the critical path


def parse_simulate(stdout: str) -> Timing | None:
    """The figures of a cluster `simulate` run, or None when it printed none."""
    m = TOTAL.search(stdout)
    if m is None:
        return None
    t = Timing(_int(m.group("cycles")), m.group("mode"))
    e = ENDS.search(stdout)
    if e is not None:
        for core, value in END.findall(e.group("ends")):
            t.ends[core] = _int(value)
    for b in BUSY.finditer(stdout):
        t.busy[f"{b.group('core')}.{b.group('pipe')}"] = (_int(b.group("cycles")), int(b.group("ops")))
    path = stdout.split("critical path", 1)[1] if "critical path" in stdout else ""
    for line in path.splitlines():
        if "] " in line and " ops: " in line or re.search(r"\] \S+ T[A-Z]", line):
            body = line.split("] ", 1)[1].split("  @", 1)[0]
            for op in CRITICAL_OPS.findall(body.split(" ", 1)[1] if " " in body else body):
                if op not in t.critical_ops:
                    t.critical_ops.append(op)
    return t


def with_drains(text: str) -> str:
    """The kernel with its pipes drained (pipe_barrier(PIPE_ALL)) before each statement that waits
    for another core (TPOP: the data, TALLOC: a free slot), on the statement's own line."""
    return DRAINED.sub(r"\1pipe_barrier(PIPE_ALL); \2", text)


def without_unit_flags(text: str) -> str:
    """The kernel built with UF_ENABLE 0: its own M <-> FIX flags instead of the L0C unit flags."""
    return UF_ON.sub("#define UF_ENABLE 0", text)


# Variants of the hand-written kernel timed for the calibration section: (what changes, the edit).
VARIANTS = (
    ("its pipes drained before each cross-core wait (pipe_barrier(PIPE_ALL) before each TPOP and TALLOC)",
     with_drains),
    ("UF_ENABLE 0 (M <-> FIX flags of its own instead of the L0C unit flags)", without_unit_flags),
)


def op_errors(table: str, ops: list[str]) -> list[tuple[str, str, str, str, int, int, float]]:
    """The rows of benchmarks/timing_calibration.md (model vs the calibration table, per
    instruction and shape) for the instructions named."""
    return [(m.group("op"), m.group("shape"), m.group("dtype"), m.group("pipe"), int(m.group("measured")),
             int(m.group("model")), float(m.group("err"))) for m in ERROR_ROW.finditer(table) if m.group("op") in ops]


@dataclass
class Size:
    s1: int
    auto_entry: str | None = None
    hand_entry: str | None = None
    stopped: str = ""  # the located error that stopped the rewrite (or why nothing ran)
    ours: Timing | None = None
    hand: Timing | None = None
    commands: list[str] = field(default_factory=list)
    ours_bounds: Bounds | str | None = None  # where the cycles go (sync_bound), or why not measured
    hand_bounds: Bounds | str | None = None


def first_error(run: Run) -> str:
    if run.rc is None:
        return f"timed out after {run.seconds:.0f} s"
    return run.first_diagnostic or next((ln for ln in run.stderr.splitlines() if ln.strip()), f"exit {run.rc}")


def measure(runner: Runner, s1: int, auto_kernels: str, hand_kernels: str, auto_flags, hand_flags, out: Path) -> Size:
    size = Size(s1)
    size.auto_entry = entry_for(auto_kernels, S0, HEAD, s1)
    size.hand_entry = entry_for(hand_kernels, S0, HEAD, s1, skip=("8=true",))
    if size.hand_entry is not None:
        run = runner.run(["simulate", *hand_flags, "--entry", size.hand_entry, str(runner.pto / HAND)])
        size.commands.append(run.command)
        size.hand = parse_simulate(run.stdout) if run.rc == 0 else None
    if size.auto_entry is None:
        size.stopped = f"the AUTO file has no instantiation runTFA<{S0}, {HEAD}, {s1}, ...> in this build"
        return size
    manual = out / f"fa_auto_s1_{s1}.manual.cpp"
    run = runner.run(["auto2manual", *auto_flags, "--entry", size.auto_entry, str(runner.pto / AUTO), "-o", str(manual)])
    size.commands.append(run.command)
    if run.rc != 0:
        size.stopped = first_error(run)
        return size
    # The rewrite includes the kernel folder's headers by quotes: the folder goes on -I.
    run = runner.run(["simulate", *auto_flags, "-I", str(runner.pto / AUTO_FOLDER), "--entry", size.auto_entry,
                      str(manual)])
    size.commands.append(run.command)
    size.ours = parse_simulate(run.stdout) if run.rc == 0 else None
    if size.ours is None:
        size.stopped = first_error(run)
        return size
    size.ours_bounds = _bounds([*auto_flags, "-I", str(runner.pto / AUTO_FOLDER), "--entry", size.auto_entry,
                                str(manual)])
    if size.hand_entry is not None:
        size.hand_bounds = _bounds([*hand_flags, "--entry", size.hand_entry, str(runner.pto / HAND)])
    return size


def _bounds(argv: list[str]) -> Bounds | str:
    try:
        return measure_bounds(*timed(argv))
    except (PtoError, SystemExit) as e:  # a figure not measured is reported, not fatal
        return f"not measured: {e}"


def _attribution(s: Size) -> list[str]:
    """Where the rewrite's cycles go, against the hand-written kernel's."""
    ours, hand = s.ours_bounds, s.hand_bounds
    if not isinstance(ours, Bounds):
        return [f"Where the cycles go: {ours}.", ""] if ours else []
    lines = ["Where the cycles go (benchmarks/sync_bound.py: lower bounds on each kernel's own trace):", "",
             "| kernel | timed | ideal-sync bound | true-dependence bound |", "|---|---:|---:|---:|",
             f"| rewrite | {ours.total:,} | {ours.ideal:,} | {ours.true_deps:,} |"]
    if isinstance(hand, Bounds):
        lines.append(f"| hand-written | {hand.total:,} | {hand.ideal:,} | {hand.true_deps:,} |")
    lines.append("")
    sync, plan = ours.total - ours.ideal, ours.ideal - ours.true_deps
    ref = s.hand.cycles if s.hand else None
    text = (f"The rewrite's synchronization costs {sync:,} cycles over its ideal-sync bound" if sync >= 0 else
            f"The rewrite runs {-sync:,} cycles under its ideal-sync bound, which is a model of the same trace and not "
            "a strict floor (it orders every pair of overlapping accesses in the timed run's issue order, across "
            "cores too)")
    text += f"; its memory plan (buffers reused, tiles not multi-buffered) {plan:,} over the true-dependence bound." 
    if ref:
        text += (f" The ideal-sync bound is {ours.ideal / ref:.3f}x the hand-written kernel and the true-dependence "
                 f"bound {ours.true_deps / ref:.3f}x: " +
                 ("the program order of the AUTO kernel is not the limit; what is left is ours."
                  if ours.ideal <= ref else "even perfect synchronization of this memory plan stays above the "
                  "hand-written kernel."))
    lines += [text, ""]
    if ours.critical_waits:
        lines += [("The rewrite's waits on its critical path that held their pipe the longest (cycles the pipe was "
                   "free and the wait issued, summed over the times it ran; lines of the rewrite). Waits on "
                   "different pipes and cores hold them at the same time, so these figures overlap: they do not "
                   "add up, and their sum can exceed the cycles over the ideal-sync bound:"), "",
                  "| wait | cycles held (overlapping, not additive) | times |", "|---|---:|---:|"]
        lines += [f"| `{w}` | {c:,} | {n} |" for w, c, n in ours.critical_waits[:8]]
        lines.append("")
    return lines


def _pct(a: int, b: int) -> str:
    return f"{a / b:.3f}x" if b else "-"


def render(sizes: list[Size], calibration: dict, pto_commit: str, ours_commit: str, pto: str) -> str:
    lines = [
        "# Flash attention on a2a3: the AUTO kernel's rewrite against pto-isa's hand-written kernel",
        "",
        (f"pto-isa commit `{pto_commit}`, ptorewrite commit `{ours_commit}`. Regenerate (by hand, not in the test suite): "
        "`python benchmarks/fa_a2a3_vs_hand.py --pto-isa-root /path/to/pto-isa`."),
        "",
        __doc__.split("\n\n", 3)[3].strip(),
        "",
        "## Cycles (ptorewrite's timing model, cluster, block 0)",
        "",
        "| S0 x head x S1 | hand-written | rewrite of the AUTO kernel | rewrite / hand-written |",
        "|---|---:|---:|---:|",
    ]
    for s in sizes:
        hand = f"{s.hand.cycles:,}" if s.hand else "-"
        ours = f"{s.ours.cycles:,}" if s.ours else "not rewritten"
        ratio = _pct(s.ours.cycles, s.hand.cycles) if s.ours and s.hand else "-"
        lines.append(f"| {S0} x {HEAD} x {s.s1} | {hand} | {ours} | {ratio} |")
    lines.append("")
    lines.append(ANALYSIS)
    for s in sizes:
        lines.append(f"### S1 = {s.s1}")
        lines.append("")
        lines.append(f"Entries: AUTO `{s.auto_entry or '-'}`, hand-written `{s.hand_entry or '-'}`.")
        lines.append("")
        if s.stopped:
            lines.append("The rewrite stops here, so there is nothing of ours to time:")
            lines.append("")
            lines.append("    " + s.stopped.replace(pto + "/", ""))
            lines.append("")
        timings = [(n, t) for n, t in (("hand-written", s.hand), ("rewrite", s.ours)) if t is not None]
        if timings:
            pipes = sorted({p for _, t in timings for p in t.busy}, key=_pipe_order)
            lines.append("Busy cycles per core and pipe (ops), and the cycle each core's last step ends:")
            lines.append("")
            lines.append("| pipe | " + " | ".join(n for n, _ in timings) + " |")
            lines.append("|---|" + "---:|" * len(timings))
            for p in pipes:
                cells = [f"{t.busy[p][0]:,} ({t.busy[p][1]})" if p in t.busy else "-" for _, t in timings]
                lines.append(f"| {p} | " + " | ".join(cells) + " |")
            cores = sorted({c for _, t in timings for c in t.ends})
            for c in cores:
                lines.append(f"| {c} ends at | " + " | ".join(f"{t.ends.get(c, 0):,}" for _, t in timings) + " |")
            lines.append("")
        lines += _attribution(s)
        lines.append("Commands: " + "; ".join(f"`{c.replace(pto, '$PTO')}`" for c in s.commands))
        lines.append("")
    lines += _calibration_section(calibration)
    return "\n".join(lines).rstrip() + "\n"


def _pipe_order(p: str) -> tuple:
    core, pipe = p.split(".")
    return (core != "cube", core, ["MTE2", "MTE1", "M", "FIX", "V", "MTE3", "S"].index(pipe)
            if pipe in ("MTE2", "MTE1", "M", "FIX", "V", "MTE3", "S") else 9)


def _calibration_section(c: dict) -> list[str]:
    ref, piped, serial = c.get("reference"), c.get("pipelined"), c.get("serialized")
    lines = ["## Calibration gap: the hand-written kernel on our model and on pto-isa's", ""]
    if not (ref and piped and serial):
        return lines + ["Not measured (a figure is missing: reference, pipelined or serialized run).", ""]

    def pipes(core: str) -> str:
        busy = sorted(((k, v) for k, v in piped.busy.items() if k.startswith(core + ".")), key=lambda kv: _pipe_order(kv[0]))
        return ", ".join(f"{k.split('.')[1]} {v[0]:,}" for k, v in busy)

    cube = sum(v[0] for k, v in piped.busy.items() if k.startswith("cube."))
    vec = sum(v[0] for k, v in piped.busy.items() if k.startswith("vec0."))
    cube_end = piped.ends.get("cube", 0)
    lines += [
        (f"pto-isa's cycle-level model gives {ref:,} cycles for a hand-written flash attention at {S0} x {HEAD} x "
         "1024 (the calibration data's whole-kernel reference, \"one core\"). Ours, for pto-isa's hand-written a2a3 "
         "kernel at that size:"),
        "",
        "| run of the hand-written kernel | cycles | / reference |",
        "|---|---:|---:|",
        f"| pipelined (`simulate`) | {piped.cycles:,} | {piped.cycles / ref:.2f} |",
        f"| fully serialized (`simulate --serialize`) | {serial.cycles:,} | {serial.cycles / ref:.2f} |",
    ]
    for label, t in c.get("variants", []):
        cell = f"{t.cycles:,} | {t.cycles / ref:.2f}" if isinstance(t, Timing) else f"- ({t}) | -"
        lines.append(f"| pipelined, {label} | {cell} |")
    lines += [
        "",
        (f"Busy cycles on our model: the cube core {cube:,} ({pipes('cube')}), each vector core {vec:,} "
         f"({pipes('vec0')}). One instruction after another, the cube core's work alone is {cube / ref:.0%} of the "
         f"reference; pipelined, our model ends it at cycle {cube_end:,} ({cube / max(cube_end, 1):.2f} of its pipes "
         "busy at once on average)."),
        "",
    ]
    rows = c.get("op_rows", [])
    if rows:
        worst = max(rows, key=lambda r: abs(r[6]))
        lines += [
            (f"Per instruction the model agrees with the calibration table: benchmarks/timing_calibration.md has "
             f"{len(rows)} rows for the {len({r[0] for r in rows})} instructions on this kernel's critical path, the "
             f"largest error {worst[6]:+.1f}% ({worst[0]} {worst[1]} {worst[2]}). The calibration data says no "
             "instruction's cost is wrong, so the cost table is unchanged."),
            "",
        ]
    lines += [
        ("Where the model is optimistic is therefore how much of the work overlaps, not what an instruction "
         f"costs: the reference lies {(ref - serial.cycles) / ref:.0%} above our fully serialized figure and "
         f"{ref / piped.cycles:.2f}x above our pipelined one: pto-isa's model charges this kernel about what ours "
         "charges it with no overlap at all. The calibration data has no per-pipe or "
         "per-instruction breakdown of that run (only the op table and whole-kernel totals), so which overlap it "
         f"refuses cannot be read from it. {_variant_sentence(c.get('variants', []), ref, piped.cycles)} Other "
         "candidates: the GM FIFO round trips (a fixpipe store to GM read back by the vector cores' MTE2: two independent transfers "
         "here, sharing nothing), the three cores' MTE2 loads sharing GM bandwidth (independent here), and "
         "whatever \"one core\" means for a kernel that runs on a cube core and two vector cores. The GEMM "
         "references, one core type and none of these, match within 4% (benchmarks/gemm_calibration.md)."),
        "",
    ]
    return lines


def _variant_sentence(variants, ref: int, piped: int) -> str:
    """How much of the gap between our pipelined figure and the reference each variant closes."""
    gap = ref - piped
    parts = [f"{label.split(' (')[0]} closes {(t.cycles - piped) / gap:.0%} of the gap ({t.cycles - piped:+,} cycles)"
             for label, t in variants if isinstance(t, Timing)] if gap > 0 else []
    return ("Of the variants, " + "; ".join(parts) + ".") if parts else ""


def variant_timing(runner: Runner, edit, flags: list[str], entry: str, where: Path) -> Timing | str:
    """`simulate` of the hand-written kernel edited by `edit`, in a copy of its folder; a reason
    instead when the edit changes nothing or the run fails."""
    folder = runner.pto / Path(HAND).parent
    shutil.copytree(folder, where)
    kernel = where / Path(HAND).name
    text = kernel.read_text()
    edited = edit(text)
    if edited == text:
        return "the edit does not apply to this kernel"
    kernel.write_text(edited)
    run = runner.run(["simulate", *flags, "--entry", entry, str(kernel)])
    return parse_simulate(run.stdout) if run.rc == 0 else first_error(run)


def kernels_of(runner: Runner, flags: list[str], path: str) -> str:
    return runner.run(["kernels", *flags, str(runner.pto / path)]).stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pto-isa-root", required=True, type=Path, help="a pto-isa checkout")
    ap.add_argument("-o", "--output", type=Path, default=OUT, help=f"the report (default {OUT.relative_to(ROOT)})")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per command (default 1800)")
    args = ap.parse_args()
    pto = args.pto_isa_root.resolve()
    pto_commit = subprocess.run(["git", "-C", str(pto), "rev-parse", "HEAD"], check=False, capture_output=True,
                                text=True).stdout.strip() or "unknown"
    ours_commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], check=False,
                                 capture_output=True, text=True).stdout.strip() or "unknown"
    with tempfile.TemporaryDirectory(prefix="fa_a2a3_vs_hand_") as tmp:
        runner = Runner(pto, args.timeout, Path(tmp))
        auto_flags = flags_for(AUTO, runner, AUTO_FOLDER)
        hand_flags = flags_for(HAND, runner, None)
        auto_kernels = kernels_of(runner, auto_flags, AUTO)
        hand_kernels = kernels_of(runner, hand_flags, HAND)
        sizes = []
        for s1 in SIZES:
            sizes.append(measure(runner, s1, auto_kernels, hand_kernels, auto_flags, hand_flags, Path(tmp)))
            print(f"S1 = {s1}: hand {sizes[-1].hand and sizes[-1].hand.cycles}, ours "
                  f"{sizes[-1].ours and sizes[-1].ours.cycles} {sizes[-1].stopped}", file=sys.stderr, flush=True)
        calibration: dict = {"reference": REFERENCE.get((S0, HEAD, 1024))}
        first = next((s for s in sizes if s.s1 == 1024), None)
        if first is not None and first.hand is not None:
            calibration["pipelined"] = first.hand
            run = runner.run(["simulate", "--serialize", *hand_flags, "--entry", first.hand_entry, str(pto / HAND)])
            calibration["serialized"] = parse_simulate(run.stdout) if run.rc == 0 else None
            calibration["variants"] = [(label, variant_timing(runner, edit, hand_flags, first.hand_entry, Path(tmp) / f"v{k}"))
                                       for k, (label, edit) in enumerate(VARIANTS)]
            if OP_ERRORS.is_file():
                calibration["op_rows"] = op_errors(OP_ERRORS.read_text(), first.hand.critical_ops)
    args.output.write_text(render(sizes, calibration, pto_commit, ours_commit, str(pto)))
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
