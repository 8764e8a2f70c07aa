"""Byte footprints: the exact bytes an access touches, as sorted disjoint [start, end) runs.

A tile's valid region or a strided GM window is a few contiguous runs (one per row, or a single
run when whole rows are covered). The race checker compares footprints, so partial-width views
such as two column halves of one tile do not falsely overlap.

A single run is kept as two one-element tuples, several as numpy arrays: the common single run
is compared without numpy, and numpy is imported only by the first footprint of several runs
(planning a kernel whose accesses are all contiguous does not load it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True, eq=False)
class Footprint:
    space: str  # on-chip buffer name ("UB", "L1", ...) or "GM:<param>"
    starts: np.ndarray | tuple[int]  # int64, sorted, disjoint and non-adjacent; a 1-tuple for one run
    ends: np.ndarray | tuple[int]
    lo: int = field(init=False)  # first byte and one past the last, as Python ints (compared often)
    hi: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "lo", int(self.starts[0]))
        object.__setattr__(self, "hi", int(self.ends[-1]))

    @property
    def nbytes(self) -> int:
        if len(self.starts) == 1:
            return self.hi - self.lo
        return int((self.ends - self.starts).sum())

    def overlap(self, other: Footprint) -> tuple[int, int] | None:
        """The first overlapping byte range, or None (spaces must match)."""
        if self.space != other.space or self.hi <= other.lo or other.hi <= self.lo:
            return None
        if len(self.starts) == 1 and len(other.starts) == 1:
            return max(self.lo, other.lo), min(self.hi, other.hi)
        import numpy as np

        a, b = (self, other) if len(self.starts) <= len(other.starts) else (other, self)
        # For each run of a, the first run of b ending after its start.
        j = np.searchsorted(b.ends, a.starts, side="right")
        ok = j < len(b.starts)
        jj = np.where(ok, j, 0)
        hit = ok & (b.starts[jj] < a.ends)
        if not hit.any():
            return None
        i = int(np.argmax(hit))
        k = int(jj[i])
        return max(int(a.starts[i]), int(b.starts[k])), min(int(a.ends[i]), int(b.ends[k]))

    def covers(self, other: Footprint) -> bool:
        """Every byte of `other` is in self."""
        if self.space != other.space or other.lo < self.lo or other.hi > self.hi:
            return False
        if len(self.starts) == 1:
            return True
        import numpy as np

        j = np.searchsorted(self.ends, other.starts, side="right")
        if (j >= len(self.starts)).any():
            return False
        return bool(((self.starts[j] <= other.starts) & (other.ends <= self.ends[j])).all())


def single(space: str, start: int, end: int) -> Footprint:
    return Footprint(space, (int(start),), (int(end),))


def strided(space: str, base: int, elem_bytes: int, dims: list[tuple[int, int]]) -> Footprint | None:
    """Bytes of the elements base + sum(i_d * stride_d) * elem_bytes, 0 <= i_d < count_d.

    `dims` are (count, stride in elements). Returns None for an empty region.
    """
    dims = [(n, s) for n, s in dims if n != 1]
    if any(n <= 0 for n, _ in dims):
        return None
    dims.sort(key=lambda d: abs(d[1]))
    # Merge dimensions into one contiguous innermost run where strides line up.
    run = 1
    rest = []
    for n, s in dims:
        if not rest and s == run:
            run *= n
        else:
            rest.append((n, s))
    if not rest:  # one contiguous run
        return single(space, base, base + run * elem_bytes)
    import numpy as np

    if len(rest) == 1 and rest[0][1] > run:  # rows with gaps between them: already sorted and disjoint
        n, s = rest[0]
        starts = base + np.arange(n, dtype=np.int64) * (s * elem_bytes)
        return Footprint(space, starts, starts + run * elem_bytes)
    offsets = np.zeros(1, np.int64)
    for n, s in rest:
        offsets = (offsets[:, None] + np.arange(n, dtype=np.int64)[None, :] * s).reshape(-1)
    starts = np.sort(base + offsets * elem_bytes)
    ends = starts + run * elem_bytes
    return _merge(space, starts, ends)


def _merge(space: str, starts: np.ndarray, ends: np.ndarray) -> Footprint:
    import numpy as np

    if len(starts) > 1:
        # Runs are equal length and sorted; merge those that touch or overlap.
        ends = np.maximum.accumulate(ends)
        new = np.empty(len(starts), bool)
        new[0] = True
        new[1:] = starts[1:] > ends[:-1]
        first = np.flatnonzero(new)
        starts = starts[first]
        ends = np.maximum.reduceat(ends, first)
    if len(starts) == 1:
        return single(space, starts[0], ends[0])
    return Footprint(space, starts.astype(np.int64), ends.astype(np.int64))
