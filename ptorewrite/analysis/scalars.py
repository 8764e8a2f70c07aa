"""Which runtime values steer the kernel, and which only feed data.

A runtime value (a scalar argument, the block index) *steers* when it reaches control flow (loop
bounds, branch conditions), an address (tile indices, GM offsets, shapes and strides, valid
shapes, alias offsets, TASSIGN addresses, event ids) or the window of a TEXTRACT/TINSERT; the
execution trace, and so every race, flag and timing question, depends on it. The bytes a raw
intrinsic touches (`copy_gm_to_ubuf(..., nBurst, lenBurst, ...)`) do not steer: not given, they
count as every byte the region can reach (see execution.Machine.raw_inputs). Nor does a value
the scalar unit reads from a buffer element (`ub[i]`) where it only places a GM window
(`table + ub[i] * D`): `check` then counts the window as its whole GM argument
(execution.Machine.gm_inputs); `simulate` and `verify` still need it. A value that only
reaches instructions' scalar data operands (`TMULS(y, y, scale)`) changes the numbers computed,
never the trace: `check` and `simulate` do not need it, and `verify` can draw it at random.
"""

from __future__ import annotations

from collections.abc import Iterator

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Expr
from ptorewrite.analysis.instructions import window_position, with_fp_forms

# Instructions whose scalar operands place a window (spec §2: TEXTRACT r, c).
WINDOW_SCALAR_OPS = with_fp_forms("TEXTRACT", "TINSERT")


def _windowed(s: ir.Instr) -> bool:
    """The scalars place a window: not in the two-window TEXTRACT(dst0, dst1, src, ...), whose
    source is read whole."""
    return sum(a.kind == "tile" and a.value.tile.tile_type != "Scaling" for a in s.args) == 2


def _steering_exprs(s: ir.Stmt) -> Iterator[Expr]:
    def ref_index(ref: ir.TileRef):
        if ref.index is not None:
            yield ref.index

    if isinstance(s, ir.Instr):
        for a in s.args:
            if a.kind == "tile":
                yield from ref_index(a.value)
            elif a.kind == "gm":  # (its offset: see gm_offset_steering)
                g = a.value.tensor
                yield from g.shape
                yield from g.stride
        if s.op in WINDOW_SCALAR_OPS and _windowed(s):
            yield from window_position([a.value for a in s.args if a.kind == "scalar"])
    elif isinstance(s, ir.For) and ir.read_only_loop(s) is None:
        yield from s.control_exprs()  # (a loop that only reads and assigns: as a data-branch if)
    elif isinstance(s, ir.If) and ir.data_branch_vars(s) is None:
        yield s.cond  # (an if that only assigns makes its condition an input of those variables)
    elif isinstance(s, ir.AliasDef):
        yield s.offset_bytes
        yield from ref_index(s.dst)
        yield from ref_index(s.src)
    elif isinstance(s, ir.TileAssign):
        yield s.address
        yield from ref_index(s.ref)
    elif isinstance(s, ir.Sync) and s.event is not None:
        yield s.event
    elif isinstance(s, ir.CrossSync):
        yield s.sem


def steering_values(kernel: ir.Kernel, skip: frozenset[int] = frozenset()) -> set[str]:
    """The runtime values that control flow or addresses depend on (directly, or through
    assignments to locals that do). `skip`: ids of ifs whose conditions are left out."""
    steering: set[str] = set()
    for t in kernel.tiles:
        for e in (t.valid_rows, t.valid_cols):
            if e is not None:
                steering |= e.free_vars()
    assigns: dict[str, set[str]] = {}
    reach_only = set(kernel.element_values)
    for s in ir.walk(kernel.body):
        if id(s) in skip:
            continue
        for e in _steering_exprs(s):
            steering |= e.free_vars()
        if isinstance(s, ir.Instr):
            for a in s.args:
                if a.kind == "gm":
                    steering |= a.value.tensor.offset_bytes.free_vars() - reach_only
        if isinstance(s, ir.Assign):
            assigns.setdefault(s.var, set()).update(s.value.free_vars())
        elif isinstance(s, ir.If) and (data := ir.data_branch_vars(s)) is not None:
            for var in data:
                assigns.setdefault(var, set()).update(s.cond.free_vars())
        elif isinstance(s, ir.For) and ir.read_only_loop(s) is not None:
            control = set().union(*(e.free_vars() for e in s.control_exprs() if e is not None))
            for var in ir.assigned_vars(s.body) | {s.var}:
                assigns.setdefault(var, set()).update(control)
    # A local that steers makes whatever it is computed from steer too.
    work = [v for v in steering if v in assigns]
    while work:
        for dep in assigns.pop(work.pop(), ()):
            if dep not in steering:
                steering.add(dep)
                if dep in assigns:
                    work.append(dep)
    return steering & set(kernel.runtime_values)


# Conditions `check` decides both ways instead of asking for the values they read (2**N runs).
MAX_DECIDED_CONDITIONS = 4


def _ifs_outside_loops(b: ir.Stmt) -> Iterator[ir.If]:
    if isinstance(b, ir.Block):
        for s in b.stmts:
            yield from _ifs_outside_loops(s)
    elif isinstance(b, ir.If):
        yield b
        yield from _ifs_outside_loops(b.then)
        if b.other is not None:
            yield from _ifs_outside_loops(b.other)


def decided_condition_key(cond: Expr) -> str:
    """The run-time value under which `check` passes the outcome of such a condition."""
    return f"if {cond}"


def branch_only_values(kernel: ir.Kernel) -> tuple[set[str], list[Expr]]:
    """Runtime values that steer the kernel only through the conditions of ifs that run at most
    once (outside every loop), with those conditions, one per distinct text. Such a value need
    not be known to check the kernel: both outcomes of each condition are checked (the partial
    SYNCALL's `if (block_idx >= syncBlocks) return;` lets only some blocks take part), and
    anything else that reads the value counts it as unknown. A condition over a variable the
    kernel assigns is not included (two tests of one text could then differ)."""
    ifs = list(_ifs_outside_loops(kernel.body))
    if not ifs:
        return set(), []
    values = steering_values(kernel) - steering_values(kernel, frozenset(id(s) for s in ifs))
    if not values:
        return set(), []
    assigned = {s.var for s in ir.walk(kernel.body) if isinstance(s, (ir.Assign, ir.For))}
    conds: dict[str, Expr] = {}
    for s in ifs:
        used = s.cond.free_vars()
        if used & values and not used & assigned:
            conds.setdefault(str(s.cond), s.cond)
    return values, list(conds.values())


def data_values(kernel: ir.Kernel) -> list[str]:
    """Runtime values that only feed instructions' scalar data operands."""
    steer = steering_values(kernel)
    return [v for v in kernel.runtime_values if v not in steer]
