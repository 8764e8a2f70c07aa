"""Graph-level check of a manual kernel: every dependence ordered by its own syncs, every
flag balanced. The sync inserter's output is validated with this; the emulator's
concurrent-pipe checker is the independent, final judge.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptorewrite.analysis import ir
from ptorewrite.analysis.deps import DynDep, dynamic_deps
from ptorewrite.analysis.execution import unroll
from ptorewrite.analysis.hb import FlagProblem, happens_before, same_pipe_ordered
from ptorewrite.arch import ArchProfile


@dataclass
class CheckResult:
    races: list[DynDep]
    flag_problems: list[FlagProblem]

    @property
    def ok(self) -> bool:
        return not self.races and not self.flag_problems


def check_kernel(kernel: ir.Kernel, arch: ArchProfile, values: dict | None = None) -> CheckResult:
    trace = unroll(kernel, arch, values or {}, require_semantics=False)
    hb = happens_before(trace.steps)
    races = []
    for d in dynamic_deps(trace):
        if d.src.pipe == d.dst.pipe:
            same_tile = {id(a.value.tile) for a in d.src.stmt.tile_args} & \
                        {id(a.value.tile) for a in d.dst.stmt.tile_args}
            if same_pipe_ordered(arch, d.src.pipe, d.kind, d.src.stmt.op, d.dst.stmt.op, bool(same_tile)):
                continue
        if not hb.ordered(d.src, d.dst):
            races.append(d)
    return CheckResult(races, hb.flag_problems)
