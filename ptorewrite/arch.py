"""Architecture profiles: buffers, capacities, alignment and same-pipe ordering rules.

Figures follow the machine model (spec §3, §4). Profiles are plain data so that the
memory planner, the sync inserter and the emulator read the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

KiB = 1024

# Pipes, with the hardware enum values the simulator headers use.
PIPES = ("S", "V", "MTE1", "MTE2", "MTE3", "M", "ALL", "FIX")
PIPE_ENUM = {f"PIPE_{p}": p for p in PIPES}
PIPE_CODE = {p: i for i, p in enumerate(PIPES)}
NUM_EVENT_IDS = 8
# a5 flags between the cores of a cluster (set_intra_block / wait_intra_block): on the cube core ids
# 0..15 name the first vector core's semaphores and 16..31 the second's; a vector core names its own
# (and the cube core's for it) with 0..15. Each semaphore counts up to 15 pending signals.
CROSS_CORE_SEMAPHORES = 32
CROSS_CORE_SEMAPHORE_LIMIT = 15


@dataclass(frozen=True)
class Buffer:
    name: str
    capacity: int  # bytes of the physical buffer
    alloc_limit: int  # bytes the allocator may use (below hidden scratch ranges)
    alignment: int


@dataclass(frozen=True)
class ArchProfile:
    name: str
    buffers: dict[str, Buffer]
    # Same-pipe hazards that need pipe_barrier(P) on this architecture (spec §4).
    # Value: which overlapping access kinds need a barrier ("raw", "war", "waw").
    same_pipe_barrier: dict[str, frozenset[str]] = field(default_factory=dict)
    # Hidden UB scratch used by the broadcast family and widening vector TEXTRACT.
    ub_scratch: tuple[int, int] | None = None
    # TSTORE from an L1 (Mat) tile to GM exists on this architecture.
    mat_to_gm_store: bool = True
    # The pipe that moves a UB (Vec) tile into L1 (TMOV / TEXTRACT to a Mat tile), if any.
    ub_to_l1_pipe: str | None = None
    predefined_macros: dict[str, str] = field(default_factory=dict)

    def buffer_of(self, tile_type: str) -> Buffer:
        return self.buffers[TILE_TYPE_BUFFER[tile_type]]

    def with_capacity(self, overrides: dict[str, int]) -> ArchProfile:
        """A copy with smaller (or reserved) buffer limits, e.g. from the command line."""
        bufs = dict(self.buffers)
        for name, limit in overrides.items():
            if name not in bufs:
                raise KeyError(name)
            b = bufs[name]
            bufs[name] = replace(b, alloc_limit=min(limit, b.capacity))
        return replace(self, buffers=bufs)


TILE_TYPE_BUFFER = {
    "Vec": "UB",
    "Mat": "L1",
    "Left": "L0A",
    "Right": "L0B",
    "Acc": "L0C",
    "Bias": "BIAS",
    "Scaling": "FB",
    "ScaleLeft": "L0A_SCALE",
    "ScaleRight": "L0B_SCALE",
}

_ALL_KINDS = frozenset({"raw", "war", "waw"})

A2A3 = ArchProfile(
    name="a2a3",
    buffers={
        "UB": Buffer("UB", 192 * KiB, 184 * KiB, 32),
        "L1": Buffer("L1", 512 * KiB, 512 * KiB, 32),
        "L0A": Buffer("L0A", 64 * KiB, 64 * KiB, 512),
        "L0B": Buffer("L0B", 64 * KiB, 64 * KiB, 512),
        "L0C": Buffer("L0C", 128 * KiB, 128 * KiB, 512),
        "BIAS": Buffer("BIAS", 1 * KiB, 1 * KiB, 64),
        "FB": Buffer("FB", 2 * KiB, 2 * KiB, 64),
    },
    same_pipe_barrier={
        "V": _ALL_KINDS,
        "M": _ALL_KINDS,  # except in-order accumulation into one L0C tile (see sync rules)
        "MTE1": _ALL_KINDS,
        "FIX": _ALL_KINDS,
        "MTE2": frozenset({"waw"}),
        "MTE3": frozenset({"waw"}),
    },
    ub_scratch=(184 * KiB, 192 * KiB),
    mat_to_gm_store=True,
)

A5 = ArchProfile(
    name="a5",
    buffers={
        "UB": Buffer("UB", 256 * KiB, 256 * KiB, 32),
        "L1": Buffer("L1", 512 * KiB, 512 * KiB, 32),
        "L0A": Buffer("L0A", 64 * KiB, 64 * KiB, 512),
        "L0B": Buffer("L0B", 64 * KiB, 64 * KiB, 512),
        "L0C": Buffer("L0C", 256 * KiB, 256 * KiB, 512),
        "BIAS": Buffer("BIAS", 4 * KiB, 4 * KiB, 64),
        "FB": Buffer("FB", 4 * KiB, 4 * KiB, 64),
        # The MX scale buffers beside L0A / L0B (ScaleLeft / ScaleRight tiles).
        "L0A_SCALE": Buffer("L0A_SCALE", 4 * KiB, 4 * KiB, 32),
        "L0B_SCALE": Buffer("L0B_SCALE", 4 * KiB, 4 * KiB, 32),
    },
    same_pipe_barrier={
        "M": _ALL_KINDS,
        "MTE1": _ALL_KINDS,
        "FIX": _ALL_KINDS,
        "MTE2": frozenset({"waw"}),
        "MTE3": frozenset({"waw"}),
    },
    ub_scratch=None,
    mat_to_gm_store=False,
    ub_to_l1_pipe="MTE3",  # copy_ubuf_to_cbuf runs on the store engine
)

PROFILES = {"a2a3": A2A3, "a5": A5}


def profile(name: str) -> ArchProfile:
    return PROFILES[name]
