"""One cluster of cores run as one trace: the cube core and its two vector cores.

A kernel whose cores signal each other with `set_intra_block` / `wait_intra_block` is one program
for a whole cluster: the same source is compiled once per core type, and the vector code runs on
both vector cores (subblocks 0 and 1, told apart by `get_subblockid()`). Each core is unrolled on
its own, with its subblock's values, and the steps are put side by side in one trace whose queues
are the pipes of every core (`vec1.MTE3`). `pipes.check` then runs them together: flags between
the pipes of one core stay within that core, and a cross-core wait takes the signal of the other
core's matching set (see `pipes.semaphore`).

Buffers: UB belongs to a vector core, every other on-chip buffer (L1, L0A/B/C, bias, scaling) to
the cube core, and GM is shared. An access a core makes to a buffer of another core (a vector core
moving a tile into L1, the cube core writing a result into UB) lands in that core's buffer. An a5
accumulator-to-vector move (TMOV / TEXTRACT / TINSERT from an Acc tile) writes the first vector
core's UB, or the second's with `AccToVecMode::SingleModeVec1`; the dual modes split the tile
between both, and the whole tile is counted on each (conservative: it can only add races), as is
any other cube-core access to UB.
"""

from __future__ import annotations

from dataclasses import replace

from ptorewrite.analysis import ir
from ptorewrite.analysis.execution import Access, Trace, located, unroll
from ptorewrite.arch import ArchProfile

VECTOR_CORES = 2
VECTOR_BUFFERS = frozenset({"UB"})
CORE_VALUES = ("subblock_idx", "subblock_num")  # the run-time values each core of the cluster gets


def cores_of(kernels: dict[str, ir.Kernel]) -> list[tuple[str, ir.Kernel, int]]:
    """(core name, its kernel, subblock id) for every core of the cluster that runs code."""
    out = []
    if "cube" in kernels:
        out.append(("cube", kernels["cube"], 0))
    if "vec" in kernels:
        out += [(f"vec{k}", kernels["vec"], k) for k in range(VECTOR_CORES)]
    return out


def _vector_cores_reached(step) -> tuple[int, ...]:
    """The vector cores whose UB a cube-core instruction reaches: an accumulator-to-vector move
    writes the first one unless its AccToVecMode names the second, and the dual modes split the
    tile between both (counted whole on each: conservative). Anything else: both (conservative)."""
    if step.kind == "op" and step.stmt.op == "copy_cbuf_to_ubuf":
        # Its third argument names the vector core (0 or 1); another value, or one not known: both.
        chosen = [a.value.const_value() for a in step.stmt.args if a.kind == "scalar"]
        return (chosen[0],) if chosen and chosen[0] in range(VECTOR_CORES) else tuple(range(VECTOR_CORES))
    modes = [t.split("::", 1)[1] for t in getattr(step.stmt, "template_args", ()) if t.startswith("AccToVecMode::")]
    tiles = {a.value.tile.tile_type for a in step.stmt.tile_args} if step.kind == "op" else set()
    if "Acc" not in tiles:
        return tuple(range(VECTOR_CORES))
    mode = modes[0] if modes else "SingleModeVec0"
    return {"SingleModeVec0": (0,), "SingleModeVec1": (1,)}.get(mode, tuple(range(VECTOR_CORES)))


def _spaces(space: str, core: str, step=None) -> tuple[str, ...]:
    """The cluster-wide names of the buffer `space` as `core` reaches it (in `step`)."""
    if space.startswith("GM:"):
        return (space,)
    if space in VECTOR_BUFFERS:
        if core.startswith("vec"):
            return (f"{core}:{space}",)
        reached = _vector_cores_reached(step) if step is not None else range(VECTOR_CORES)
        return tuple(f"vec{k}:{space}" for k in reached)
    return (f"cube:{space}",)


def cluster_trace(kernels: dict[str, ir.Kernel], arch: ArchProfile, values: dict, max_instances,
                  placement_findings: list | None = None, require_semantics: bool = False) -> Trace:
    """The steps of every core of the cluster in one trace (each core's steps in its issue order);
    with `require_semantics` every instruction must have data semantics (a run of `verify`)."""
    steps = []
    first: Trace | None = None
    buffer_size: dict[str, int] = {}
    gm_extent: dict[str, int] = {}
    gm_dtype: dict[str, str] = {}
    statements = 0
    names = []
    core_statements: dict[str, int] = {}
    for core, kernel, sub in cores_of(kernels):
        mine = {**values, **dict(zip(CORE_VALUES, (sub, VECTOR_CORES)))}
        t = unroll(kernel, arch, mine, max_instances=max_instances, require_semantics=require_semantics,
                   placement_findings=placement_findings, cross_core=True)
        first = first or t
        names.append(core)
        offset = len(steps)
        for s in t.steps:
            s.index += offset
            s.core = core
            if s.accesses:
                s.accesses = tuple(Access(replace(a.footprint, space=name), a.write, a.what, a.early)
                                   for a in s.accesses for name in _spaces(a.footprint.space, core, s))
            steps.append(s)
        statements += t.statements
        core_statements[core] = t.statements
        for name, size in t.buffer_size.items():
            for full in _spaces(name, core):
                buffer_size[full] = max(buffer_size.get(full, 0), size)
        for name, size in t.gm_extent.items():
            gm_extent[name] = max(gm_extent.get(name, 0), size)
        for name, dtype in t.gm_dtype.items():
            gm_dtype.setdefault(name, dtype)
    assert first is not None
    return Trace(first.kernel, arch, steps, statements, buffer_size, gm_extent, gm_dtype, dict(values),
                 cores=tuple(names), core_statements=core_statements)


DUAL_SPLITS = {"DualModeSplitM": 0, "DualModeSplitN": 1}  # the axis a dual mode splits the tile along


def dual_split(step) -> int | None:
    """For the cube core's accumulator move into both vector cores' UB in a dual AccToVecMode: the
    axis it splits along (0: rows, the first half to the first vector core; 1: columns)."""
    if step.core != "cube" or step.kind != "op" or _vector_cores_reached(step) != tuple(range(VECTOR_CORES)):
        return None
    modes = [t.split("::", 1)[1] for t in getattr(step.stmt, "template_args", ()) if t.startswith("AccToVecMode::")]
    return DUAL_SPLITS.get(modes[0]) if modes else None


def space_of(buffer: str, step, vector_core: int | None = None) -> str:
    """The cluster-wide name of the on-chip buffer an operand of `step` lives in, for the data run
    (`vector_core`: the half of a dual-mode move being run, see `dual_split`). Another access of the
    cube core to UB that reaches both vector cores is refused at its line (`check` counts it whole
    on each)."""
    if vector_core is not None and buffer in VECTOR_BUFFERS:
        return f"vec{vector_core}:{buffer}"
    names = _spaces(buffer, step.core, step)
    if len(names) != 1:
        raise located(f"{step.name} writes both vector cores' UB without a dual AccToVecMode that says how its "
                      "tile is split (or with a mode not known); the emulator's data run does not model that "
                      "(`check` counts the whole tile on each)", step.stmt)
    return names[0]


def program_order(trace: Trace, matches: dict[int, int]) -> tuple[list[int], list[int]]:
    """The steps of a cluster's trace with each core in program order and the cross-core flags
    real: a core runs its steps one after another and stops at a cross-core wait until the matched
    set of the other core has run (an AUTO kernel: what the compiler keeps in order within a core is
    program order). Returns (order, stuck): stuck holds the first step of every core that can never
    go on (a wait never satisfied, or a cycle of waits across the cores)."""
    by_core: dict[str, list[int]] = {c: [] for c in trace.cores}
    for s in trace.steps:
        by_core[s.core].append(s.index)
    head = dict.fromkeys(by_core, 0)
    done = [False] * len(trace.steps)
    order: list[int] = []
    progress = True
    while progress:
        progress = False
        for core, mine in by_core.items():
            while head[core] < len(mine):
                i = mine[head[core]]
                if trace.steps[i].kind == "xwait":
                    m = matches.get(i)
                    if m is None or not done[m]:
                        break
                done[i] = True
                order.append(i)
                head[core] += 1
                progress = True
    stuck = [mine[head[c]] for c, mine in by_core.items() if head[c] < len(mine)]
    return order, stuck
