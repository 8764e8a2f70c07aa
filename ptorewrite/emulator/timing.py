"""Per-instruction cycle model for the emulator's pipe timing.

Every PTO instruction is charged a fixed number of cycles on its pipe, from three first-principles
forms (spec/pto-machine-model.md §6) whose parameters are fitted to the per-instruction figures of
pto-isa's cycle-level model (benchmarks/calibration/op_cycles_a2a3.csv):

* data movement (MTE1/MTE2/MTE3/FIX, vector copies): ``floor(bytes / bandwidth)`` of the path;
* cube (M): ``6 + ceil(m/16) * ceil(k/k0) * ceil(n/16)`` with ``k0 = 32 B / sizeof(input)``, and the
  fractal term doubled again for fp32 inputs as §6 states;
* vector (V): ``max(latency, head + per_repeat * repeats)`` where a repeat is 256 bytes of the
  widest operand: short instructions are latency-bound, long ones throughput-bound.

Only ``a2a3`` is calibrated. ``a5`` reuses the a2a3 tables and is NOT calibrated (see PROFILES).
benchmarks/timing_calibration.md lists model vs measurement for every CSV row.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

CLOCK_HZ = {"a2a3": 1.85e9, "a5": 1.85e9}  # a5: no public figure; a2a3's clock as a placeholder

# --- Sync and issue costs used by the pipe model -------------------------------------------------
# The calibration README's GEMM figures pin these down. Its "fully serialized" kernels (set/wait
# pairs from every pipe to every other cube pipe after every instruction) take exactly the sum of
# the CSV's per-instruction medians plus 9 cycles: 358,944 + 9 for 1536x256x1024 (720
# instructions, each followed by sync hops on the critical path), 190,876 + 9 for 256x4096x256 and
# 3,080 + 9 for one tile. So a set->wait hop adds no cycles in the reference model, and the
# constant 9 is the scalar prologue before the first transfer (about nine scalar instructions -
# TASSIGNs, address setup - at one issue cycle each; an estimate consistent with all three).
SCALAR_ISSUE_CYCLES = 1   # scalar unit cost to issue any instruction (PTO op, flag, barrier, scalar op)
SET_FLAG_CYCLES = 0       # occupancy of the source pipe by set_flag (calibrated: 0, see above)
WAIT_FLAG_CYCLES = 0      # extra delay on the destination pipe once the flag is set (calibrated: 0)
PIPE_BARRIER_CYCLES = 0   # on top of draining the pipe (estimate: same evidence as the flags)

# A fixpipe store reads L0C and then drains the data to GM. The pipe (and so a set_flag after
# the store, e.g. the FIX -> M flag that hands L0C back to the next tile's matmuls) is released
# once L0C has been read; the GM write completes at the store's full cost. The fraction is
# fitted to the calibration README's 1536 x 256 x 1024 hand-written GEMM (48 output tiles, each
# one M -> FIX / FIX -> M round trip): with the full store on the critical path the model gives
# +29%, with the read half of it -1%. The other reference points barely depend on it.
STORE_SOURCE_RELEASE = {"FIX": 0.5}

PIPES = ("S", "V", "MTE1", "MTE2", "MTE3", "M", "FIX")


@dataclass(frozen=True)
class CostQuery:
    op: str                 # instruction name, e.g. "TLOAD", "TMATMUL_ACC", "TROWEXPANDSUB"
    pipe: str               # "V", "MTE1", "MTE2", "MTE3", "M", "FIX", "S"
    rows: int               # destination valid shape (TSTORE: source tile; matmul: accumulator M x N)
    cols: int
    dtype: str              # destination element type (TSTORE: source tile; matmul: accumulator)
    src_dtype: str | None = None   # main source dtype (matmul input, TCVT source)
    k: int | None = None    # matmul reduction size
    src_buffer: str | None = None  # "GM","UB","L1","L0A","L0B","L0C","BIAS","FB"
    dst_buffer: str | None = None
    src_rows: int | None = None    # source shape where it differs from dst (reductions, merges)
    src_cols: int | None = None


# --- Element sizes ---------------------------------------------------------------------------------
_DTYPE_BYTES = {
    "fp64": 8, "int64": 8, "uint64": 8,
    "fp32": 4, "float": 4, "float32": 4, "int32": 4, "uint32": 4, "hf32": 4,
    "fp16": 2, "half": 2, "float16": 2, "bf16": 2, "bfloat16": 2, "int16": 2, "uint16": 2,
    "int8": 1, "uint8": 1, "fp8": 1, "hif8": 1, "fp8_e8m0": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "bool": 1,
    "int4": 0.5, "uint4": 0.5, "fp4": 0.5,  # packed 4-bit types take half a byte (spec §3)
}


def dtype_bytes(dtype: str) -> float:
    """Element size; unknown names fall back to the bit width in the name, else 4 bytes."""
    name = dtype.lower().removesuffix("_t")
    if name in _DTYPE_BYTES:
        return _DTYPE_BYTES[name]
    bits = re.search(r"(\d+)", name)
    return int(bits.group(1)) / 8 if bits else 4


# --- Data paths (bytes per cycle) --------------------------------------------------------------------
_A2A3_BANDWIDTH = {
    # Fitted on the CSV's TLOAD rows: fp32 vector-kernel tiles (34..559 cycles) -> UB at 59 (spec
    # value, <1% error); the fp16 cube-kernel tiles (104..1672 cycles) -> L1 at 78.4 (README).
    ("GM", "UB"): 59.0,
    ("GM", "L1"): 78.4,
    # TSTORE on MTE3 (2..299 cycles): spec's 109 with floor(), <=1.4% error.
    ("UB", "GM"): 109.0,
    ("L1", "GM"): 19.0,        # spec §6, not in the CSV
    # TEXTRACT/TIMG2COL on MTE1: A-side tiles (M x K) run at 256, B-side (K x N) at 128 (spec).
    ("L1", "L0A"): 256.0,
    ("L1", "L0B"): 128.0,
    ("L1", "BIAS"): 128.0,     # estimate: bias table assumed as fast as L0B
    ("L1", "FB"): 128.0,       # estimate: fixpipe (scaling) buffer, same
    # FIX TSTORE L0C->GM (202..1614 cycles) moves 81.2 B/cycle of fp32 accumulator. Spec §6 says
    # 41, which matches if counted in fp16 output bytes (the fixpipe is element-bound at ~20.3
    # elements/cycle); we count source (L0C) bytes.
    ("L0C", "GM"): 81.2,
    ("L0C", "L1"): 81.2 * 74 / 41,  # estimate: spec's L0C->L1 / L0C->GM ratio applied to the fit
    # TMOV on V (6/13/27 cycles for 4/8/16 KiB): spec's 594 with floor() is exact.
    ("UB", "UB"): 594.0,
}

# Path used when the query names no buffers.
_DEFAULT_PATH = {
    "MTE2": ("GM", "UB"), "MTE3": ("UB", "GM"), "MTE1": ("L1", "L0A"),
    "FIX": ("L0C", "GM"), "V": ("UB", "UB"),
}

# Short GM<->UB transfers of sub-32-bit data are charged as 4-byte elements: fitted on the 1xN fp16
# TLOAD rows (34/69/139 cycles = the fp32 tile of the same shape) and the 2xN fp16 TSTORE rows
# (2/4/9 = fp32), while 8x64/16x128/32x128 fp16 stores run at the byte rate. Applied as a floor of
# 4 B x cols x min(rows, 2) so the charge stays monotone in rows.
_NARROW_ROWS = 2
_NARROW_MIN_ELEM_BYTES = 4

# --- Cube (M) --------------------------------------------------------------------------------------
# 6 + ceil(m/16)*ceil(k/k0)*ceil(n/16), k0 = 32 B / sizeof(input): reproduces all nine TMATMUL(_ACC)
# medians exactly with fp16 inputs and K = 64 or 128 (tests/test_timing.py says which).
_CUBE_HEAD = 6
_CUBE_MN = 16
_CUBE_K_BYTES = 32
_CUBE_FP32_FACTOR = 2  # spec §6 "twice that for fp32 inputs" (not in the CSV)


# --- Vector (V) --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class VecCost:
    latency: float      # minimum cycles (short tiles)
    head: float         # intercept of the throughput line
    per_repeat: float   # cycles per 256-byte repeat
    work: str = "max"   # "max": repeats of the widest of src/dst; "src": of the source (merges)


_REPEAT_BYTES = 256

# Op-class defaults, for ops the CSV does not cover.
_VEC_CLASS = {
    "binary": VecCost(20, 0, 2),     # TMUL/TSUB small rows (20), TADD large rows (2/repeat)
    "divide": VecCost(20, 0, 4),     # estimate: TROWEXPANDDIV runs at twice TROWEXPANDMUL's rate
    "unary": VecCost(4, 0, 2),       # TEXP
    "scalar": VecCost(3, 0, 1),      # TMULS
    "expand": VecCost(0, 30, 2),     # TROWEXPAND{MUL,SUB}
    "reduce": VecCost(140, 0, 1.9),  # TROWMAX / TROWSUM
    "convert": VecCost(0, 15, 0.9),  # TCVT
    "gather": VecCost(0, 1, 17),     # TGATHER
    "sort": VecCost(0, 21, 16),      # TSORT32
    "merge": VecCost(16, -31, 14.125, "src"),  # TMRGSORT
}

# Per-op parameters, each fitted on the CSV rows named (all fp32 unless said).
_VEC_OP = {
    "TADD": VecCost(44, 0, 2),    # 1x8..1x32 = 44; 32x64 = 64, 64x64 = 128, 64x128 = 256
    "TMAX": VecCost(44, 0, 2),    # 1x8..1x32 = 44; rate assumed as TADD
    "TMUL": VecCost(20, 0, 2),    # 1x8..1x32 = 20; rate assumed as TADD
    "TSUB": VecCost(20, 0, 2),    # 1x8..1x32 = 20; rate assumed as TADD
    "TEXP": VecCost(4, 0, 2),     # 1x8..1x32 = 4; 8/16/32x256 = 64/128/256
    "TMULS": VecCost(3, 0, 1),    # 1x8..1x32 = 3; 8/16/32x256 = 32/64/128
    "TROWEXPANDDIV": VecCost(0, 31, 4),  # 32x64/64x64/64x128 = 159/287/543 (exact)
    "TROWEXPANDMUL": VecCost(0, 26, 2),  # 32x64/64x64/64x128 = 90/154/282 (exact)
    "TROWEXPANDSUB": VecCost(0, 34, 2),  # 8/16/32x256 = 98/162/281
    # Reductions: dst R x 1, cost by the R x 256 source: flat at 8 and 16 rows, then ~linear.
    "TROWMAX": VecCost(122, 0, 1.87),    # 8/16/32 rows = 122/122/239
    "TROWSUM": VecCost(162, 0, 1.92),    # 8/16/32 rows = 162/162/246
    "TCVT": VecCost(0, 15, 0.9),  # fp32 -> fp16 1x2048/4096/8192 = 45/77/128 (repeats of fp32 src)
    "TGATHER": VecCost(0, 1, 17),  # one repeat (<=256 B) = 18; fp32 1x128 (2 repeats) = 35
    "TSORT32": VecCost(0, 21, 16),  # 1x1024/2048/4096 = 277/533/1045 (exact)
    # Linear fit of a super-linear merge (1x512/1024/2048 = 82/195/400) over the merged source
    # length; the intercept is negative, so a 16-cycle floor (estimate) keeps tiny merges sane.
    "TMRGSORT": VecCost(16, -31, 14.125, "src"),
}

_VEC_OPS_BY_CLASS = {
    "divide": "TDIV TDIVS TREM TREMS TPOW TPOWS TROWEXPANDDIV TCOLEXPANDDIV",
    "unary": "TABS TNEG TNOT TRELU TEXP TLOG TSQRT TRSQRT TRECIP TLRELU",
    "scalar": "TADDS TSUBS TMULS TMINS TMAXS TANDS TORS TXORS TSHLS TSHRS TEXPANDS TAXPY TCMPS TSELS",
    "reduce": "TROWSUM TROWMAX TROWMIN TCOLSUM TCOLMAX TCOLMIN TROWARGMAX TROWARGMIN TCOLARGMAX TCOLARGMIN",
    "convert": "TCVT",
    "gather": "TGATHER TSCATTER TGATHERB",
    "sort": "TSORT32",
    "merge": "TMRGSORT",
}
_VEC_OP_CLASS = {op: cls for cls, ops in _VEC_OPS_BY_CLASS.items() for op in ops.split()}

# Vector instructions that are plain UB->UB copies: charged at the UB->UB bandwidth.
_VEC_COPY_OPS = {"TMOV", "TEXTRACT", "TINSERT", "TCONCAT", "TFILLPAD"}


def _vec_class(op: str) -> str:
    if op in _VEC_OP_CLASS:
        return _VEC_OP_CLASS[op]
    if op.startswith(("TROWEXPAND", "TCOLEXPAND")):
        return "expand"
    return "binary"


# --- Architecture profiles ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Profile:
    calibrated: bool
    bandwidth: dict = field(default_factory=dict)
    vec_op: dict = field(default_factory=dict)
    vec_class: dict = field(default_factory=dict)


_A2A3 = Profile(True, _A2A3_BANDWIDTH, _VEC_OP, _VEC_CLASS)
# a5 (Ascend 950): NOT calibrated. No public per-instruction figures, so it reuses the a2a3 tables;
# the one change is that a5 has no L1 -> GM store path (spec §2), so it is dropped and such a query
# falls back to the pipe's default path.
_A5 = replace(_A2A3, calibrated=False,
              bandwidth={p: bw for p, bw in _A2A3_BANDWIDTH.items() if p != ("L1", "GM")})
PROFILES = {"a2a3": _A2A3, "a5": _A5}


# --- The model ----------------------------------------------------------------------------------------
def instruction_cycles(q: CostQuery, arch: str = "a2a3") -> int:
    """Cycles instruction ``q`` occupies its pipe (>= 1). Raises ValueError for an unknown pipe/arch."""
    if q.pipe not in PIPES:
        raise ValueError(f"unknown pipe {q.pipe!r}")
    if arch not in PROFILES:
        raise ValueError(f"unknown arch {arch!r}")
    prof = PROFILES[arch]
    op = q.op.upper()
    if q.pipe == "S":
        return SCALAR_ISSUE_CYCLES
    if q.pipe == "M":
        return _cube_cycles(q)
    if q.pipe == "V" and op not in _VEC_COPY_OPS:
        return _vector_cycles(q, op, prof)
    return _transfer_cycles(q, prof)


def _elems(rows: int, cols: int) -> int:
    return max(rows, 0) * max(cols, 0)


def _transfer_cycles(q: CostQuery, prof: Profile) -> int:
    default = _DEFAULT_PATH[q.pipe]
    path = (q.src_buffer or default[0], q.dst_buffer or default[1])
    bw = prof.bandwidth.get(path) or prof.bandwidth[default]
    esize = dtype_bytes(q.dtype)
    nbytes = _elems(q.rows, q.cols) * esize
    if "UB" in path and "GM" in path:
        nbytes = max(nbytes, _NARROW_MIN_ELEM_BYTES * q.cols * min(q.rows, _NARROW_ROWS))
    return max(1, math.floor(nbytes / bw))


def _cube_cycles(q: CostQuery) -> int:
    in_bytes = dtype_bytes(q.src_dtype or "fp16")
    k0 = max(1, int(_CUBE_K_BYTES / in_bytes))
    k = q.k if q.k else k0  # unknown K: one fractal
    fractals = math.ceil(q.rows / _CUBE_MN) * math.ceil(k / k0) * math.ceil(q.cols / _CUBE_MN)
    if in_bytes >= 4:
        fractals *= _CUBE_FP32_FACTOR
    return _CUBE_HEAD + max(1, fractals)


def _vector_cycles(q: CostQuery, op: str, prof: Profile) -> int:
    cost = prof.vec_op.get(op) or prof.vec_class[_vec_class(op)]
    esize = max(dtype_bytes(q.dtype), dtype_bytes(q.src_dtype or q.dtype))
    dst = _elems(q.rows, q.cols)
    has_src = q.src_rows is not None or q.src_cols is not None
    src = _elems(q.src_rows or q.rows, q.src_cols or q.cols) if has_src else dst
    elems = src if cost.work == "src" else max(src, dst)
    repeats = max(1, math.ceil(elems * esize / _REPEAT_BYTES))
    return max(1, math.ceil(max(cost.latency, cost.head + cost.per_repeat * repeats)))
