"""Memory and data execution: byte arrays for GM and the on-chip buffers, and the trace run on them.

Every on-chip buffer is one byte array (at its real capacity in MANUAL mode; AUTO mode's private
storage may be larger), every pointer argument one GM byte array. Operands become numpy views of
those bytes and each instruction is handed to its :mod:`semantics` function in program order - which
is what the hardware computes when the kernel is race-free (:mod:`pipes` checks that).
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np
from threadpoolctl import threadpool_limits

from ptorewrite.analysis.execution import GmOperand, TileOperand, Trace, located
from ptorewrite.analysis.instructions import UB_SCRATCH_OPS
from ptorewrite.diagnostics import PtoError
from ptorewrite.emulator import semantics

NP_DTYPES = {
    "fp32": np.dtype(np.float32), "fp16": np.dtype(np.float16), "bf16": np.dtype(ml_dtypes.bfloat16),
    "int32": np.dtype(np.int32), "uint32": np.dtype(np.uint32), "int16": np.dtype(np.int16),
    "uint16": np.dtype(np.uint16), "int8": np.dtype(np.int8), "uint8": np.dtype(np.uint8),
    "int64": np.dtype(np.int64), "uint64": np.dtype(np.uint64),
    "fp8_e4m3": np.dtype(ml_dtypes.float8_e4m3fn), "fp8_e5m2": np.dtype(ml_dtypes.float8_e5m2),
    "hif8": np.dtype(np.uint8), "fp8_e8m0": np.dtype(np.uint8), "bool": np.dtype(np.uint8),
}

# Never-written on-chip bytes read back as this (NaN for floats), in both modes alike.
POISON = 0xFF


def np_dtype(name: str) -> np.dtype:
    try:
        return NP_DTYPES[name]
    except KeyError:
        raise PtoError(f"element type {name} is not supported by the emulator") from None


def is_float(dt: np.dtype) -> bool:
    return dt.kind == "f" or dt in (NP_DTYPES["bf16"], NP_DTYPES["fp8_e4m3"], NP_DTYPES["fp8_e5m2"])


# Elements handled per numpy call when generating and comparing GM arrays: bounds the temporary
# float64 / bool arrays to a few MiB whatever the argument's size.
CHUNK = 1 << 19


def random_gm(extents: dict[str, int], dtypes: dict[str, str], seed: int) -> dict[str, np.ndarray]:
    """Deterministic inputs: floats uniform in [-1, 1), integers small, per pointer argument.

    Drawn in chunks, which takes the same values from the generator's stream as one draw would."""
    rng = np.random.default_rng(seed)
    out = {}
    for param in sorted(extents):
        dt = np_dtype(dtypes.get(param, "uint8"))
        n = -(-extents[param] // dt.itemsize)
        vals = np.empty(n, dt)
        for lo in range(0, n, CHUNK):
            m = min(CHUNK, n - lo)
            if is_float(dt):
                vals[lo:lo + m] = rng.uniform(-1.0, 1.0, m).astype(np.float32).astype(dt)
            elif dt.kind == "u":
                vals[lo:lo + m] = rng.integers(0, 16, m).astype(dt)
            else:
                vals[lo:lo + m] = rng.integers(-8, 8, m).astype(dt)
        out[param] = vals.view(np.uint8)
    return out


class Memory:
    def __init__(self, trace: Trace, gm: dict[str, np.ndarray], space_of=None, dual_split=None):
        self.trace = trace
        # A cluster's trace: (buffer, step[, vector core]) -> the buffer's cluster-wide name
        # ("vec1:UB"), and step -> the axis a move into both vector cores' UB splits its tile along.
        self.space_of = space_of
        self.dual_split = dual_split
        self._half: int | None = None  # the vector core whose half of a dual-mode move is being run
        self.buffers = {name: np.full(size, POISON, np.uint8) for name, size in trace.buffer_size.items()}
        self.gm = gm
        self._plans: dict[int, tuple] = {}
        for param, extent in trace.gm_extent.items():
            if param not in gm or len(gm[param]) < extent:
                raise ValueError(f"GM argument {param} needs {extent} bytes")

    def tile(self, o: TileOperand, step=None) -> np.ndarray:
        dt = np_dtype(o.decl.dtype)
        rs, cs = o.elem_strides
        name = o.place.buffer if self.space_of is None else self.space_of(o.place.buffer, step, self._half)
        return np.ndarray(o.valid, dt, self.buffers[name], o.place.address,
                          (rs * dt.itemsize, cs * dt.itemsize))

    def gm_window(self, o: GmOperand) -> tuple[np.ndarray, np.ndarray | None]:
        """A 2-D view of the window; when the 5-D strides do not flatten, a copy plus its 5-D home."""
        dt = np_dtype(o.tensor.dtype)
        full = np.ndarray(o.shape, dt, self.gm[o.param], o.offset, tuple(s * dt.itemsize for s in o.stride))
        flat = full.view()
        try:
            flat.shape = (o.rows, o.cols)
            return flat, None
        except AttributeError:
            return full.reshape(o.rows, o.cols), full

    def execute(self, step) -> None:
        axis = self.dual_split(step) if self.dual_split is not None else None
        if axis is not None:
            self._execute_halves(step, axis)
            return
        # Instances with the same operands share one operand tuple (see execution.Machine.instr):
        # their views and call layout are built once. GM windows move with the loops: not kept.
        plan = self._plans.get(id(step.operands))
        if plan is None or plan[0] is not step.operands:
            plan = self.plan(step)
            if not any(isinstance(o, GmOperand) for o in step.operands):
                self._plans[id(step.operands)] = plan
        _, fn, dst, srcs, scalars, tmp, template, writeback = plan
        if fn is None:
            raise located(f"the emulator does not implement {step.name}", step.stmt)
        try:
            fn(semantics.OpCall(step.name, dst, srcs, scalars, tmp, template))
        except (ValueError, TypeError, IndexError, KeyError, NotImplementedError) as e:
            raise located(f"{step.name} cannot execute: {e}", step.stmt) from None
        for home, v in writeback:
            home[...] = v.reshape(home.shape)

    def _execute_halves(self, step, axis: int) -> None:
        """A dual-mode accumulator move: each vector core's UB tile takes its half of the source
        (rows for DualModeSplitM, columns for DualModeSplitN), the first half to the first core."""
        for k in (0, 1):
            self._half = k
            try:
                _, fn, dst, srcs, scalars, tmp, template, writeback = self.plan(step)
            finally:
                self._half = None
            if fn is None or not srcs:
                raise located(f"the emulator does not implement {step.name} into both vector cores", step.stmt)
            whole, size = srcs[0], dst.shape[axis]
            if whole.shape[axis] != 2 * size:
                raise located(f"{step.name} splits a {whole.shape[0]}x{whole.shape[1]} tile between the two vector "
                              f"cores into a {dst.shape[0]}x{dst.shape[1]} tile each: the halves do not match",
                              step.stmt)
            half = whole[k * size:(k + 1) * size, :] if axis == 0 else whole[:, k * size:(k + 1) * size]
            try:
                fn(semantics.OpCall(step.name, dst, [half, *srcs[1:]], scalars, tmp, template))
            except (ValueError, TypeError, IndexError, KeyError, NotImplementedError) as e:
                raise located(f"{step.name} cannot execute: {e}", step.stmt) from None
            for home, v in writeback:
                home[...] = v.reshape(home.shape)

    def plan(self, step) -> tuple:
        """(operands, semantic function, dst, srcs, scalars, tmp, template, GM write-backs)."""
        writeback = []
        views = []
        for o in step.operands:
            if isinstance(o, TileOperand):
                views.append(("tile", o, self.tile(o, step)))
            elif isinstance(o, GmOperand):
                v, home = self.gm_window(o)
                if home is not None and "w" in o.access:
                    writeback.append((home, v))
                views.append(("gm", o, v))
            else:
                views.append(("scalar", o, o))
        arrays = [v for v in views if v[0] != "scalar"]
        if not arrays:
            raise located(f"{step.name} has no tile or GM operand", step.stmt)
        dst = arrays[0][2]
        srcs, tmp = [], None
        for kind, o, v in arrays[1:]:
            if kind == "tile" and o.access == "rw":
                tmp = v
            else:
                srcs.append(v)
        template = dict(step.template)
        first_src = next((o for kind, o, _ in arrays[1:] if kind == "tile"), None)
        if first_src is not None:
            template.setdefault("TileType", first_src.decl.tile_type)
        if arrays[0][0] == "tile":
            template.setdefault("DstTileType", arrays[0][1].decl.tile_type)
        scalars = [v for kind, _, v in views if kind == "scalar"]
        return (step.operands, semantics.SEMANTICS.get(step.name), dst, srcs, scalars, tmp, template, writeback)

    def poison_scratch(self, step=None) -> None:
        lo, hi = self.trace.arch.ub_scratch
        self.buffers["UB" if self.space_of is None else self.space_of("UB", step)][lo:hi] = POISON


def run(trace: Trace, gm: dict[str, np.ndarray], order=None, space_of=None, dual_split=None) -> Memory:
    """Execute the trace's instructions on `gm` (modified in place): in program order, or in
    `order` (step indices: a cluster's cores interleaved as their cross-core flags allow, see
    `cluster.program_order`; `space_of` and `dual_split` then place each core's buffers)."""
    mem = Memory(trace, gm, space_of, dual_split)
    clobbers = trace.mode == "manual" and trace.arch.ub_scratch is not None
    # Tile matmuls are small (L0-sized): a second BLAS thread only adds hand-off costs, and on a
    # busy machine its spinning makes every call many times slower.
    # np.errstate: division by zero, overflow: hardware gives inf/wrap, no trap (as semantics.execute).
    with threadpool_limits(limits=1, user_api="blas"), np.errstate(all="ignore"):
        for step in (trace.steps if order is None else (trace.steps[i] for i in order)):
            if step.kind != "op":
                continue
            scratch = clobbers and step.name in UB_SCRATCH_OPS
            if scratch:  # the op uses the hidden scratch: a tile placed there is garbage, read or written
                mem.poison_scratch(step)
            mem.execute(step)
            if scratch:
                mem.poison_scratch(step)
    return mem


@dataclass
class Mismatch:
    param: str
    dtype: str
    count: int  # elements that differ
    total: int
    first: int  # element index of the first difference
    expected: object
    got: object
    max_abs: float | None

    def __str__(self) -> str:
        s = (f"{self.param}: {self.count} of {self.total} {self.dtype} elements differ; first at element "
             f"{self.first}: expected {self.expected}, got {self.got}")
        if self.max_abs is not None:
            s += f"; max |difference| {self.max_abs:.6g}"
        return s


def compare(expected: dict[str, np.ndarray], got: dict[str, np.ndarray], dtypes: dict[str, str],
            rtol: float | None, atol: float | None) -> list[Mismatch]:
    """Elementwise comparison of every GM argument; integers always exactly, floats by
    |got - expected| <= atol + rtol * |expected| (NaN must meet NaN) or exactly when both are None.

    Works chunk by chunk, and only looks at the values of chunks whose bytes differ (equal bytes
    are equal values, and close ones), so memory stays small and equal arguments cost one pass."""
    out = []
    for param in sorted(set(expected) | set(got)):
        a, b = expected.get(param), got.get(param)
        dt = np_dtype(dtypes.get(param, "uint8"))
        if a is None or b is None or len(a) != len(b):
            out.append(Mismatch(param, dt.name, -1, 0, 0, None, None, None))
            continue
        if a is b:  # one array shared by both runs (an argument neither writes)
            continue
        m = _compare_one(param, a, b, dt, rtol, atol)
        if m is not None:
            out.append(m)
    return out


def _compare_one(param: str, a: np.ndarray, b: np.ndarray, dt: np.dtype, rtol, atol) -> Mismatch | None:
    isz = dt.itemsize
    n = len(a) // isz * isz
    ea, eb = a[:n].view(dt), b[:n].view(dt)
    by_value = is_float(dt) and (rtol is not None or atol is not None)
    count, first, max_abs, any_finite = 0, -1, float("-inf"), False
    for lo in range(0, len(ea), CHUNK):
        hi = min(len(ea), lo + CHUNK)
        ca, cb = a[lo * isz:hi * isz], b[lo * isz:hi * isz]
        if np.array_equal(ca, cb):
            continue
        if by_value:
            x, y = ea[lo:hi].astype(np.float64), eb[lo:hi].astype(np.float64)
            with np.errstate(invalid="ignore"):
                bad = ~np.isclose(y, x, rtol=rtol or 0.0, atol=atol or 0.0, equal_nan=True)
        else:
            bad = (ca.reshape(-1, isz) != cb.reshape(-1, isz)).any(axis=1)
        idx = np.flatnonzero(bad)
        if not len(idx):
            continue
        if first < 0:
            first = lo + int(idx[0])
        count += len(idx)
        if is_float(dt):
            with np.errstate(invalid="ignore"):
                d = np.abs(ea[lo + idx].astype(np.float64) - eb[lo + idx].astype(np.float64))
            any_finite = any_finite or bool(np.isfinite(d).any())
            d = d[~np.isnan(d)]
            if len(d):
                max_abs = max(max_abs, float(d.max()))
    tail_bad = bool((a[n:] != b[n:]).any())
    if not count and not tail_bad:
        return None
    if not is_float(dt) or not count:
        max_abs = None
    elif not any_finite:
        max_abs = float("nan")
    exp_v = ea[first] if count else None
    got_v = eb[first] if count else None
    return Mismatch(param, dt.name, count + int(tail_bad), len(ea), first if count else n // isz, exp_v, got_v,
                    max_abs)
