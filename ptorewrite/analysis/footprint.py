"""Exactly which bytes an operand touches, for a given placement and concrete values.

A tile access covers its valid region inside its buffer (row by row when the valid region
is narrower than the capacity shape); an alias covers its own valid region at its base's
address plus the TRESHAPE/TSUBVIEW offset; a GlobalTensor window covers its 5-D strided
elements in its kernel argument.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ptorewrite.analysis import ir
from ptorewrite.arch import TILE_TYPE_BUFFER

Intervals = tuple[tuple[int, int], ...]  # sorted, disjoint [start, end) byte ranges
AddressOf = Callable[[ir.TileDecl, int], int]  # (tile, slot) -> byte address in its buffer

MAX_INTERVALS = 4096  # beyond this a window is widened to its hull (conservative)


def merge(ranges: list[tuple[int, int]]) -> Intervals:
    out: list[tuple[int, int]] = []
    for s, e in sorted(ranges):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return tuple(out)


def overlaps(a: Intervals, b: Intervals) -> bool:
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i][1] <= b[j][0]:
            i += 1
        elif b[j][1] <= a[i][0]:
            j += 1
        else:
            return True
    return False


def covers(outer: Intervals, inner: Intervals) -> bool:
    """Every byte of `inner` lies in `outer`."""
    j = 0
    for s, e in inner:
        while j < len(outer) and outer[j][1] <= s:
            j += 1
        if j >= len(outer) or outer[j][0] > s or outer[j][1] < e:
            return False
    return True


def slot_of(ref: ir.TileRef, env: Mapping) -> int:
    if ref.index is None:
        return 0
    v = ref.index.eval(env)
    if not isinstance(v, int) or not 0 <= v < ref.tile.slots:
        raise IndexError(f"index {v} of '{ref.tile.cpp_name}' is out of range 0..{ref.tile.slots - 1}")
    return v


def tile_base(ref: ir.TileRef, env: Mapping, address_of: AddressOf) -> int:
    """Byte address of the referenced tile (slot), following alias chains."""
    t = ref.tile
    if t.alias is not None:
        return tile_base(t.alias.base, env, address_of) + int(t.alias.offset_bytes.eval(env))
    return address_of(t, slot_of(ref, env))


def tile_footprint(ref: ir.TileRef, env: Mapping, address_of: AddressOf) -> tuple[str, Intervals]:
    t = ref.tile
    base = tile_base(ref, env, address_of)
    eb = t.elem_bytes
    vr = t.rows if t.valid_rows is None else int(t.valid_rows.eval(env))
    vc = t.cols if t.valid_cols is None else int(t.valid_cols.eval(env))
    buffer = TILE_TYPE_BUFFER[t.tile_type]
    if (vr, vc) == (t.rows, t.cols) or t.tile_type in ("Left", "Right", "Acc", "Mat"):
        # Cube-side tiles use fractal layouts: treat the whole capacity as touched.
        return buffer, ((base, base + t.nbytes),)
    if t.blayout == "RowMajor":
        runs = [(base + int(r * t.cols * eb), base + int((r * t.cols + vc) * eb)) for r in range(vr)]
    else:
        runs = [(base + int(c * t.rows * eb), base + int((c * t.rows + vr) * eb)) for c in range(vc)]
    return buffer, merge(runs)


def gm_footprint(g: ir.GmTensor, env: Mapping) -> tuple[str, Intervals]:
    eb = max(1, int(ir.DTYPE_BYTES[g.dtype]))
    shape = [int(s.eval(env)) for s in g.shape]
    stride = [int(s.eval(env)) for s in g.stride]
    base = int(g.offset_bytes.eval(env))
    if any(s <= 0 for s in shape):
        return f"GM:{g.param}", ()
    # Pick the unit-stride dimension as the contiguous run.
    inner = max((d for d in range(5) if stride[d] == 1 and shape[d] > 1), default=4)
    outer = [d for d in range(5) if d != inner and shape[d] > 1]
    count = 1
    for d in outer:
        count *= shape[d]
    run = shape[inner] * eb if stride[inner] == 1 else eb
    if count > MAX_INTERVALS:
        lo = base
        hi = base + (sum((shape[d] - 1) * stride[d] for d in range(5)) + 1) * eb
        return f"GM:{g.param}", ((lo, hi),)
    runs = []
    idx = [0] * len(outer)
    for _ in range(count):
        off = sum(i * stride[d] for i, d in zip(idx, outer))
        if stride[inner] == 1:
            runs.append((base + off * eb, base + off * eb + run))
        else:
            runs += [(base + (off + k * stride[inner]) * eb, base + (off + k * stride[inner] + 1) * eb)
                     for k in range(shape[inner])]
        for p in range(len(idx) - 1, -1, -1):
            idx[p] += 1
            if idx[p] < shape[outer[p]]:
                break
            idx[p] = 0
    return f"GM:{g.param}", merge(runs)
