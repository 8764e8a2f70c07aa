"""The auto2manual pipeline: plan memory, place tiles with TASSIGN, synchronize pipes.

All changes are insertions into the user's source (see `edits`); the result is the whole
file as bytes. Bad input raises PtoError before anything is produced.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ptorewrite.analysis import ir
from ptorewrite.analysis.operands import check_operands
from ptorewrite.arch import ArchProfile
from ptorewrite.diagnostics import Diagnostic, PtoError, Reporter, to_location
from ptorewrite.transform import sync
from ptorewrite.transform.edits import Insertion, edit_kernel
from ptorewrite.transform.memplan import MemoryPlan, plan_memory
from ptorewrite.transform.tassign import tassign_insertions


@dataclass
class RewriteOptions:
    checked_tassign: bool = False  # emit TASSIGN<addr>(tile) instead of TASSIGN(tile, addr)
    reserved: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # buffer -> [start, end)
    insert_sync: bool = True  # run the sync inserter (tests of placement alone turn it off)
    conservative: bool = False  # a full barrier after every instruction instead of planned syncs
    values: dict[str, int] = field(default_factory=dict)  # runtime values named on the command line (the analysis covers all)


@dataclass
class RewriteResult:
    text: bytes
    plan: MemoryPlan
    insertions: list[Insertion]


def rewrite(kernel: ir.Kernel, profile: ArchProfile, reporter: Reporter,
            options: RewriteOptions | None = None) -> RewriteResult:
    options = options or RewriteOptions()
    refuse_manual(kernel)
    check_operands(kernel, profile, reporter)
    plan = plan_memory(kernel, profile, reporter, options.reserved)
    insertions = tassign_insertions(kernel, plan, checked=options.checked_tassign)
    if options.insert_sync:
        insertions += _sync_insertions(kernel, plan, profile, reporter, options)
    text = edit_kernel(kernel, insertions)
    return RewriteResult(text, plan, insertions)


def _sync_insertions(kernel, plan, profile, reporter, options) -> list[Insertion]:
    if options.conservative:
        reporter.warn("--conservative: a pipe_barrier(PIPE_ALL) after every instruction; a baseline for "
                      "comparison and bisecting, not for production", kernel.body.stmts[0].loc
                      if kernel.body.stmts else None)
        return sync.conservative_insertions(kernel, kernel.file)
    sync_plan = sync.plan_syncs(kernel, profile, plan.address, reporter)
    return sync.sync_insertions(kernel, sync_plan, kernel.file)


def refuse_manual(kernel: ir.Kernel) -> None:
    """auto2manual takes AUTO kernels. A kernel that already synchronizes its pipes, or places
    every tile, is a manual-mode kernel; a few constant TASSIGNs in an AUTO kernel are kept as
    fixed placements instead."""
    if kernel.mode != "manual":
        return
    syncs = [s for s in ir.walk(kernel.body) if isinstance(s, ir.Sync)]
    assigns = [s for s in ir.walk(kernel.body) if isinstance(s, ir.TileAssign)]
    assigned = {id(s.ref.tile) for s in assigns}
    unplaced = [t for t in kernel.tiles
                if t.alias is None and len(t.fixed_addresses) < t.slots and id(t) not in assigned]
    if syncs or not unplaced:
        first = (syncs or assigns)[0] if (syncs or assigns) else None
        why = "it already has set_flag/wait_flag/pipe_barrier" if syncs else "every tile is already placed"
        raise PtoError(f"already a manual-mode kernel ({why}); auto2manual rewrites AUTO-mode kernels",
                       first.loc if first else None,
                       notes=(Diagnostic("note", "check it with the emulator instead, or start from the "
                                         "AUTO-mode source", to_location(None)),))
