"""Graph-level check of a manual kernel: every dependence ordered by its own syncs, every
flag balanced. The sync inserter's output is validated with this; the emulator's
concurrent-pipe checker is the independent, final judge.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptorewrite.analysis import ir
from ptorewrite.analysis.deps import DynDep, dynamic_deps
from ptorewrite.analysis.hb import FlagProblem, happens_before, same_pipe_ordered
from ptorewrite.analysis.trace import unroll
from ptorewrite.arch import ArchProfile


@dataclass
class CheckResult:
    races: list[DynDep]
    flag_problems: list[FlagProblem]

    @property
    def ok(self) -> bool:
        return not self.races and not self.flag_problems


def check_kernel(kernel: ir.Kernel, arch: ArchProfile, values: dict | None = None) -> CheckResult:
    trace = unroll(kernel, None, values or {}, markers=False)
    hb = happens_before(trace.items)
    races = []
    for d in dynamic_deps(trace):
        if d.src.pipe == d.dst.pipe:
            same_tile = {id(a.value.tile) for a in d.src.instr.tile_args} & \
                        {id(a.value.tile) for a in d.dst.instr.tile_args}
            if same_pipe_ordered(arch, d.src.pipe, d.kind, d.src.instr.op, d.dst.instr.op, bool(same_tile)):
                continue
        if not hb.ordered(d.src, d.dst):
            races.append(d)
    return CheckResult(races, hb.flag_problems)
