"""Memory and data execution: byte arrays for GM and the on-chip buffers, and the trace run on them.

Every on-chip buffer is one byte array (at its real capacity in MANUAL mode; AUTO mode's private
storage may be larger), every pointer argument one GM byte array. Operands become numpy views of
those bytes and each instruction is handed to :func:`semantics.execute` in program order - which
is what the hardware computes when the kernel is race-free (:mod:`pipes` checks that).
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

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
    "hif8": np.dtype(np.uint8), "bool": np.dtype(np.uint8),
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


def random_gm(extents: dict[str, int], dtypes: dict[str, str], seed: int) -> dict[str, np.ndarray]:
    """Deterministic inputs: floats uniform in [-1, 1), integers small, per pointer argument."""
    rng = np.random.default_rng(seed)
    out = {}
    for param in sorted(extents):
        dt = np_dtype(dtypes.get(param, "uint8"))
        n = -(-extents[param] // dt.itemsize)
        if is_float(dt):
            vals = rng.uniform(-1.0, 1.0, n).astype(np.float32).astype(dt)
        elif dt.kind == "u":
            vals = rng.integers(0, 16, n).astype(dt)
        else:
            vals = rng.integers(-8, 8, n).astype(dt)
        out[param] = np.frombuffer(vals.tobytes(), np.uint8).copy()
    return out


class Memory:
    def __init__(self, trace: Trace, gm: dict[str, np.ndarray]):
        self.trace = trace
        self.buffers = {name: np.full(size, POISON, np.uint8) for name, size in trace.buffer_size.items()}
        self.gm = gm
        for param, extent in trace.gm_extent.items():
            if param not in gm or len(gm[param]) < extent:
                raise ValueError(f"GM argument {param} needs {extent} bytes")

    def tile(self, o: TileOperand) -> np.ndarray:
        dt = np_dtype(o.decl.dtype)
        rs, cs = o.elem_strides
        return np.ndarray(o.valid, dt, self.buffers[o.place.buffer], o.place.address,
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
        writeback = []
        views = []
        for o in step.operands:
            if isinstance(o, TileOperand):
                views.append(("tile", o, self.tile(o)))
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
        call = semantics.OpCall(step.name, dst, srcs, [v for kind, _, v in views if kind == "scalar"], tmp, template)
        try:
            semantics.execute(call)
        except semantics.UnknownInstruction:
            raise located(f"the emulator does not implement {step.name}", step.stmt) from None
        except (ValueError, TypeError, IndexError, KeyError, NotImplementedError) as e:
            raise located(f"{step.name} cannot execute: {e}", step.stmt) from None
        for home, v in writeback:
            home[...] = v.reshape(home.shape)

    def poison_scratch(self) -> None:
        lo, hi = self.trace.arch.ub_scratch
        self.buffers["UB"][lo:hi] = POISON


def run(trace: Trace, gm: dict[str, np.ndarray]) -> Memory:
    """Execute the trace's instructions in program order on `gm` (modified in place)."""
    mem = Memory(trace, gm)
    clobbers = trace.mode == "manual" and trace.arch.ub_scratch is not None
    for step in trace.steps:
        if step.kind != "op":
            continue
        scratch = clobbers and step.name in UB_SCRATCH_OPS
        if scratch:  # the op uses the hidden scratch: a tile placed there is garbage, read or written
            mem.poison_scratch()
        mem.execute(step)
        if scratch:
            mem.poison_scratch()
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
    |got - expected| <= atol + rtol * |expected| (NaN must meet NaN) or exactly when both are None."""
    out = []
    for param in sorted(set(expected) | set(got)):
        a, b = expected.get(param), got.get(param)
        dt = np_dtype(dtypes.get(param, "uint8"))
        n = min(len(a), len(b)) // dt.itemsize * dt.itemsize if a is not None and b is not None else 0
        if a is None or b is None or len(a) != len(b):
            out.append(Mismatch(param, dt.name, -1, 0, 0, None, None, None))
            continue
        ea, eb = a[:n].view(dt), b[:n].view(dt)
        if is_float(dt) and (rtol is not None or atol is not None):
            x, y = ea.astype(np.float64), eb.astype(np.float64)
            with np.errstate(invalid="ignore"):
                close = np.isclose(y, x, rtol=rtol or 0.0, atol=atol or 0.0, equal_nan=True)
            bad = ~close
        else:
            bad = a[:n].reshape(-1, dt.itemsize) != b[:n].reshape(-1, dt.itemsize)
            bad = bad.any(axis=1)
        tail_bad = bool((a[n:] != b[n:]).any())
        if bad.any() or tail_bad:
            idx = np.flatnonzero(bad)
            first = int(idx[0]) if len(idx) else n // dt.itemsize
            max_abs = None
            if is_float(dt) and len(idx):
                with np.errstate(invalid="ignore"):
                    d = np.abs(ea[idx].astype(np.float64) - eb[idx].astype(np.float64))
                max_abs = float(np.nanmax(d)) if np.isfinite(d).any() else float("nan")
            exp_v = ea[first] if len(idx) else None
            got_v = eb[first] if len(idx) else None
            out.append(Mismatch(param, dt.name, len(idx) + int(tail_bad), len(ea), first, exp_v, got_v, max_abs))
    return out
