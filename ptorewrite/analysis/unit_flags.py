"""a2a3 L0C unit flags: the cube core's own M <-> FIX handshake on accumulator bytes.

A matmul may carry a phase (`TMATMUL<AccPhase::Partial>`, `<AccPhase::Final>`) and a store from
L0C a phase too (`TSTORE<STPhase::Final>`); pto-isa passes it to the hardware as the instruction's
unit-flag control (a2a3 TMatmul.hpp hands the phase to `mad`, TStore.hpp puts it in the fixpipe
configuration word). Its ISA pages say what the two ends do (`mad ... unit_flag(check_only |
check_and_set)`, `mte_l0c_gm ... unit_flag(check_only | check_and_clear)`): each L0C unit has a flag;
a matmul with a phase first checks that the flag of the bytes it writes is clear (the previous
result there has been read out), and the final one (AccPhase::Final) sets it once the result is
written; a store with STPhase::Final waits until the flag is set and clears it once it has read the
bytes. So a kernel that uses them writes no set_flag / wait_flag between PIPE_M and PIPE_FIX for
that accumulator (pto-isa's hand-written flash attention with UF_ENABLE).

The trace writes the handshake as flags of its own, one pair per accumulator region (the L0C bytes
a final matmul writes, named by their first byte): "published" (M -> FIX) is set after a final
matmul and waited for before a store with a phase; "read out" (FIX -> M) is set after a final store
and waited for before the next matmul with a phase over those bytes. The flags' ids start at
UNIT_FLAG_EVENTS, past every event id a kernel can name, so they never meet a kernel's own flags.
Not modelled (conservative: each can only add findings): a store with STPhase::Partial (check only)
waits for nothing; a store with a phase over bytes no final matmul has published waits for nothing
either (its check would hang on hardware; here whatever wrote the bytes without the handshake races
with it); a matmul without a phase neither checks nor sets.
"""

from __future__ import annotations

from dataclasses import dataclass, field

UNIT_FLAG_EVENTS = 1 << 20  # flag ids of the handshake: this plus the region's first L0C byte
MATMUL_PHASES = ("AccPhase::Partial", "AccPhase::Final")
STORE_PHASES = ("STPhase::Final",)

FREE, PUBLISHED, AWAITED, READ_OUT = range(4)  # a region's state; AWAITED: published, a matmul waits


def is_unit_flag_event(event) -> bool:
    return isinstance(event, int) and event >= UNIT_FLAG_EVENTS


def region_of(event: int) -> int:
    return event - UNIT_FLAG_EVENTS


@dataclass
class UnitFlags:
    """The handshake's state on one core, fed with each instruction in issue order: `before` and
    `after` give the flag steps (kind, src pipe, dst pipe, id) to issue around it."""

    regions: dict[tuple[int, int], int] = field(default_factory=dict)  # L0C [lo, hi) -> state

    def _overlapping(self, lo: int, hi: int) -> list[tuple[int, int]]:
        return [r for r in self.regions if r[0] < hi and lo < r[1]]

    def before(self, op_pipe: str, template_args, l0c_writes, l0c_reads) -> list[tuple[str, str, str, int]]:
        out = []
        if op_pipe == "M" and _phase(template_args, MATMUL_PHASES) and l0c_writes:
            for lo, hi in l0c_writes:
                for r in self._overlapping(lo, hi):
                    state = self.regions[r]
                    if state in (PUBLISHED, READ_OUT):  # check: wait until the flag is clear
                        out.append(("wait", "FIX", "M", UNIT_FLAG_EVENTS + r[0]))
                        self.regions[r] = AWAITED if state == PUBLISHED else FREE
        elif op_pipe == "FIX" and _phase(template_args, STORE_PHASES) and l0c_reads:
            for lo, hi in l0c_reads:
                for r in self._overlapping(lo, hi):
                    if self.regions[r] in (PUBLISHED, AWAITED):
                        out.append(("wait", "M", "FIX", UNIT_FLAG_EVENTS + r[0]))
        return out

    def after(self, op_pipe: str, template_args, l0c_writes, l0c_reads) -> list[tuple[str, str, str, int]]:
        out = []
        if op_pipe == "M" and _phase(template_args, MATMUL_PHASES) == "AccPhase::Final":
            for lo, hi in l0c_writes:
                for r in self._overlapping(lo, hi):
                    if (lo, hi) != r and self.regions[r] == FREE:
                        del self.regions[r]  # a free region this result covers gives way to it
                out.append(("set", "M", "FIX", UNIT_FLAG_EVENTS + lo))
                self.regions[(lo, hi)] = PUBLISHED
        elif op_pipe == "FIX" and _phase(template_args, STORE_PHASES):
            for lo, hi in l0c_reads:
                for r in self._overlapping(lo, hi):
                    state = self.regions[r]
                    if state in (PUBLISHED, AWAITED):  # clear: the bytes are read out
                        out.append(("set", "FIX", "M", UNIT_FLAG_EVENTS + r[0]))
                        self.regions[r] = FREE if state == AWAITED else READ_OUT
        return out

    def finish(self) -> list[tuple[str, str, str, int]]:
        """At the kernel's end a "read out" signal nobody waited for is the flag's clear state:
        taken back so that it is not reported as left set (a published result never read out is)."""
        out = []
        for r, state in self.regions.items():
            if state == READ_OUT:
                out.append(("wait", "FIX", "M", UNIT_FLAG_EVENTS + r[0]))
                self.regions[r] = FREE
        return out


def _phase(template_args, phases) -> str | None:
    for t in template_args or ():
        t = t.replace(" ", "").removeprefix("pto::")
        if t in phases:
            return t
    return None
