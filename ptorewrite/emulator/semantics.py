"""Numpy semantics of the PTO tile instructions (pto-isa), as a table of short functions.

The emulator core decodes an instruction call into an :class:`OpCall` and hands it to
:func:`execute`; this module only knows what each instruction computes, not where tiles live.

Calling convention (the contract with the core)
----------------------------------------------
* ``dst`` is the first C++ argument (the written operand): a 2-D numpy view of the tile's valid
  region (valid rows x valid cols), written in place.  For TLOAD it is the tile, for TSTORE the GM
  window.  Views should be slices of a row-major buffer: TGATHER/TSCATTER read the tile's row
  stride (its ``Cols``) from ``strides[0]`` to decode flattened indices.
* ``srcs`` are the remaining tile / GM operands in C++ argument order, each a 2-D view.
  A ``tmp`` scratch tile goes to ``OpCall.tmp``, never into ``srcs``.
* ``scalars`` are the non-tile, non-enum runtime arguments in argument order (TADDS scalar,
  TEXTRACT/TINSERT indexRow/indexCol, TMRGSORT blockLen, TCI start, TTRI diagonal, ...).
* Enum arguments (C++ template *or* runtime, e.g. ``CmpMode``, ``RoundMode``) go in ``template``
  by name; values may be spelled ``"GT"`` or ``"CmpMode::GT"``.  A string found among ``scalars``
  is accepted as the enum value too.  Keys read here: ``CmpMode``, ``RoundMode``,
  ``SaturationMode``, ``AtomicType``, ``ReluPreMode``, ``PadVal``, ``MaskPattern``, ``exhausted``,
  ``descending``, ``isUpperOrLower``, ``TileType`` (source tile type, "Acc" for TSTORE/TMOV from
  L0C), ``DstTileType`` (the destination's) and ``ScalarFirst`` (TDIVS(dst, scalar, src) overload).
* Operands with two outputs put the second output in ``srcs`` where C++ has it:
  ``TROWARGMAX(dstVal, dstIdx, src, tmp)`` -> ``dst=dstVal, srcs=[dstIdx, src]`` (same for the
  other arg-reductions).

Arithmetic: fp16/bf16 inputs are computed in float32 and rounded once into ``dst``'s dtype
(round-to-nearest-even), as the vector unit does; integer inputs are computed in their own type
(wrap-around).  Matmuls accumulate in float32 (int32 for int8 inputs).

Sources wider than ``dst`` are read in their top-left ``dst``-shaped window; a source smaller than
the region an instruction must read raises ``ValueError`` rather than inventing data.

Each semantic function returns ``None``, except the multi-list TMRGSORT, which returns
``{"executedNumList": (n0, n1, n2, n3)}`` (the scalar output the C++ API writes by reference).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import ml_dtypes
import numpy as np

BF16 = np.dtype(ml_dtypes.bfloat16)


@dataclass
class OpCall:
    name: str
    dst: np.ndarray | None
    srcs: list[np.ndarray]
    scalars: list[float | int]
    tmp: np.ndarray | None = None
    template: dict[str, str] = field(default_factory=dict)


class UnknownInstruction(KeyError):
    """Raised by :func:`execute` for an instruction with no semantics here."""


SEMANTICS: dict[str, Callable[[OpCall], object]] = {}

# Aliasing / configuration instructions: no data moves, the core handles them.
CORE_HANDLED = frozenset({
    "TRESHAPE", "TSUBVIEW", "TASSIGN", "TGET_SCALE_ADDR", "TSYNC",
    "SETFMATRIX", "SET_IMG2COL_RPT", "SET_IMG2COL_PADDING",
})

# Instructions implemented from the docs whose exact hardware behaviour is not pinned down.
UNCERTAIN = {
    "TSORT32": "dst packing of (value, index) pairs: fp32 -> [value, index bits] (2 elems); fp16 -> "
               "[value, 0, index lo, index hi] (4 elems). Order descending, ties keep earlier position "
               "(CPU-sim doc); the hardware tie order is not documented.",
    "TMRGSORT": "same 8-byte struct format as TSORT32, merged descending; ties prefer the lower list "
                "index; exhausted=true stops at the first emptied list (VMS4 suspension).",
    "TCVT": "float->float narrowing always rounds to nearest-even (other RoundModes only apply to "
            "float->int); float->int saturates to the integer range and maps NaN to 0; int->int "
            "saturates unless SaturationMode=OFF.",
    "TSTORE": "Acc (fp32/int32) -> narrower GM type is a plain RNE cast; quantisation "
              "(preQuantScalar / fp tile) is not modelled.",
    "TCMP": "mask bits beyond the valid columns are written as 0; the hardware writes whole repeats "
            "(compare results of padding data).",
    "TCMPS": "same mask encoding and padding caveat as TCMP.",
    "TFILLPAD": "dst must be passed as the whole tile (Rows x Cols) for padding to reach beyond the "
                "valid region; PadVal Min for integers uses the lowest value.",
    "TFILLPAD_INPLACE": "as TFILLPAD (dst = whole tile, src = its valid region).",
    "TFILLPAD_EXPAND": "as TFILLPAD.",
    "TCI": "multi-row tiles are filled in row-major order; the doc says only validCol is consulted.",
    "TPARTADD": "elements where neither source is valid are left unchanged (undefined on hardware).",
    "TPARTMUL": "as TPARTADD.",
    "TPARTMAX": "as TPARTADD.",
    "TPARTMIN": "as TPARTADD.",
    "TGATHER": "out-of-range indices give 0 (CPU-sim behaviour; undefined on hardware).",
    "TSELS": "mask bit 1 selects the tile element, 0 the scalar (doc wording, not verified).",
    "TREM": "floor-mod (result takes the divisor's sign) as the CPU simulator computes it.",
    "TREMS": "floor-mod, as TREM.",
}


def semantic(*names: str):
    """Register the decorated function as the semantics of every name in ``names``."""

    def register(fn):
        for name in names:
            if name in SEMANTICS:
                raise ValueError(f"duplicate semantics for {name}")
            SEMANTICS[name] = fn
        return fn

    return register


def execute(call: OpCall):
    try:
        fn = SEMANTICS[call.name]
    except KeyError:
        raise UnknownInstruction(call.name) from None
    with np.errstate(all="ignore"):  # division by zero, overflow: hardware gives inf/wrap, no trap
        return fn(call)


def implemented() -> frozenset[str]:
    return frozenset(SEMANTICS)


# ----------------------------------------------------------------------------- helpers


def _is_float(dt) -> bool:
    dt = np.dtype(dt)
    return dt.kind == "f" or dt == BF16


def _calc(a: np.ndarray) -> np.ndarray:
    """Promote to the vector unit's compute type: float32 for any float, ints unchanged."""
    return a.astype(np.float32) if _is_float(a.dtype) else a


def _store(dst: np.ndarray, value) -> None:
    """dst = value cast to dst's type (numpy copes with a value that overlaps dst)."""
    np.copyto(dst, np.asarray(value), casting="unsafe")


def _fit(src: np.ndarray, shape) -> np.ndarray:
    """Top-left ``shape`` window of ``src``; refuse to read past a source's valid region."""
    r, c = shape
    if src.shape[0] < r or src.shape[1] < c:
        raise ValueError(f"source of shape {src.shape} does not cover a {r}x{c} region")
    return src[:r, :c]


def _scalar(value, dtype) -> np.ndarray:
    """A scalar argument converted to the C++ parameter type (the tile's DType), then promoted."""
    return _calc(np.asarray(value).astype(dtype))


_ENUM_VALUES = {
    "CmpMode": {"EQ", "NE", "LT", "GT", "GE", "LE"},
    "RoundMode": {"CAST_NONE", "CAST_RINT", "CAST_ROUND", "CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC",
                  "CAST_ODD"},
    "SaturationMode": {"ON", "OFF"},
    "AtomicType": {"AtomicNone", "AtomicAdd", "AtomicMax", "AtomicMin"},
}


def _enum(call: OpCall, key: str, default: str) -> str:
    """An enum argument: ``template[key]``, else a string scalar spelled ``key::X`` or a bare ``X``
    that is one of the key's known values."""
    value = call.template.get(key)
    if value is None:
        for s in call.scalars:
            if isinstance(s, str):
                prefix, _, bare = s.strip().rpartition("::")
                if prefix.endswith(key) or (not prefix and bare in _ENUM_VALUES.get(key, ())):
                    value = s
                    break
    return default if value is None else str(value).split("::")[-1].strip()


def _flag(call: OpCall, key: str) -> bool:
    return str(call.template.get(key, "0")).strip().lower() in ("1", "true")


def _numbers(call: OpCall) -> list:
    return [s for s in call.scalars if not isinstance(s, str)]


def _bits(a: np.ndarray) -> np.ndarray:
    """Integer view of a float array, so bitwise ops act on the raw encoding."""
    if a.dtype.kind in "iub":
        return a
    return np.ascontiguousarray(a).view(np.dtype(f"u{a.dtype.itemsize}"))


def _from_bits(bits: np.ndarray, dtype) -> np.ndarray:
    return np.ascontiguousarray(bits).view(dtype) if np.dtype(dtype).kind not in "iub" else bits


def _row_stride(a: np.ndarray) -> int:
    """Elements between rows of the underlying tile (its Cols) for a row-major view."""
    if a.strides[1] == a.itemsize and a.strides[0] % a.itemsize == 0:
        return max(a.strides[0] // a.itemsize, a.shape[1])
    return a.shape[1]


def _relu_pre(call: OpCall, x: np.ndarray) -> np.ndarray:
    mode = _enum(call, "ReluPreMode", "NoRelu")
    return np.maximum(x, 0) if mode not in ("NoRelu", "") else x


def _int_div(a, b):
    """C++ integer division: truncate toward zero; x/0 gives 0 instead of trapping."""
    safe = np.where(b == 0, 1, b)
    q = np.abs(a) // np.abs(safe)
    return np.where(b == 0, 0, np.where((a < 0) != (safe < 0), -q, q)).astype(np.result_type(a, b))


def _div(a, b):
    return _int_div(a, b) if a.dtype.kind in "iu" and np.asarray(b).dtype.kind in "iu" else a / b


def _floor_mod(a, b):
    return np.mod(a, b)


def _move(call: OpCall, dst: np.ndarray, src: np.ndarray) -> None:
    """dst = src through the optional ReLU and a value conversion; a same-type move without ReLU
    is a plain copy (the float32 round trip of _calc would give back the same values)."""
    if src.dtype == dst.dtype and _enum(call, "ReluPreMode", "NoRelu") in ("NoRelu", ""):
        dst[...] = src
    else:
        dst[...] = _convert(_relu_pre(call, _calc(src)), dst.dtype)


def _convert(x: np.ndarray, dtype, mode: str = "CAST_RINT", saturate: bool = True) -> np.ndarray:
    """Value conversion used by TCVT/TMOV/TSTORE: float->int rounds by ``mode`` and saturates."""
    dtype = np.dtype(dtype)
    if _is_float(x.dtype) and dtype.kind in "iu":
        v = x.astype(np.float64)
        v = {
            "CAST_RINT": np.rint, "CAST_NONE": np.rint, "CAST_FLOOR": np.floor, "CAST_CEIL": np.ceil,
            "CAST_TRUNC": np.trunc,
            "CAST_ROUND": lambda t: np.sign(t) * np.floor(np.abs(t) + 0.5),
            "CAST_ODD": lambda t: np.where(t - np.floor(t) == 0.5,
                                           np.where(np.floor(t) % 2 == 1, np.floor(t), np.floor(t) + 1),
                                           np.rint(t)),
        }[mode](v)
        info = np.iinfo(dtype)
        v = np.nan_to_num(v, nan=0.0, posinf=info.max, neginf=info.min)
        return np.clip(v, info.min, info.max).astype(dtype)
    if saturate and x.dtype.kind in "iu" and dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.clip(x.astype(np.int64), info.min, info.max).astype(dtype)
    return x.astype(dtype)


# ----------------------------------------------------------------------------- elementwise

_BINARY = {
    "TADD": np.add, "TSUB": np.subtract, "TMUL": np.multiply, "TDIV": _div,
    "TMIN": np.minimum, "TMAX": np.maximum, "TREM": _floor_mod, "TFMOD": np.fmod,
    "TPOW": np.power, "TPRELU": lambda a, b: np.where(a > 0, a, a * b),
}
_BITWISE = {"TAND": np.bitwise_and, "TOR": np.bitwise_or, "TXOR": np.bitwise_xor,
            "TSHL": np.left_shift, "TSHR": np.right_shift}


@semantic(*_BINARY)
def binary(call: OpCall) -> None:
    a, b = (_calc(_fit(s, call.dst.shape)) for s in call.srcs[:2])
    _store(call.dst, _BINARY[call.name](a, b))


@semantic(*_BITWISE)
def bitwise(call: OpCall) -> None:
    a, b = (_bits(_fit(s, call.dst.shape)) for s in call.srcs[:2])
    if call.name in ("TSHL", "TSHR"):
        b = b.astype(a.dtype)
    _store(call.dst, _from_bits(_BITWISE[call.name](a, b), call.dst.dtype))


@semantic("TADDC", "TSUBC")
def ternary(call: OpCall) -> None:
    a, b, c = (_calc(_fit(s, call.dst.shape)) for s in call.srcs[:3])
    _store(call.dst, (a + b if call.name == "TADDC" else a - b) + c)


_PART = {"TPARTADD": np.add, "TPARTMUL": np.multiply, "TPARTMAX": np.maximum, "TPARTMIN": np.minimum}


@semantic(*_PART)
def partial(call: OpCall) -> None:
    """Op where both sources are valid, a copy where only one is (valid regions may differ)."""
    a, b = call.srcs[:2]
    ra, ca = (min(x, y) for x, y in zip(a.shape, call.dst.shape))
    rb, cb = (min(x, y) for x, y in zip(b.shape, call.dst.shape))
    _store(call.dst[:ra, :ca], a[:ra, :ca])
    _store(call.dst[:rb, :cb], b[:rb, :cb])
    r, c = min(ra, rb), min(ca, cb)
    _store(call.dst[:r, :c], _PART[call.name](_calc(a[:r, :c]), _calc(b[:r, :c])))


_UNARY = {
    "TABS": np.abs, "TNEG": np.negative, "TRELU": lambda x: np.maximum(x, 0), "TEXP": np.exp,
    "TLOG": np.log, "TSQRT": np.sqrt, "TRSQRT": lambda x: 1 / np.sqrt(x), "TRECIP": lambda x: 1 / x,
}


@semantic(*_UNARY)
def unary(call: OpCall) -> None:
    _store(call.dst, _UNARY[call.name](_calc(_fit(call.srcs[0], call.dst.shape))))


@semantic("TNOT")
def bitwise_not(call: OpCall) -> None:
    _store(call.dst, _from_bits(~_bits(_fit(call.srcs[0], call.dst.shape)), call.dst.dtype))


@semantic("TCVT")
def convert(call: OpCall) -> None:
    """TCVT(dst, src, [tmp,] RoundMode[, SaturationMode]); default CAST_RINT."""
    mode = _enum(call, "RoundMode", "CAST_RINT")
    saturate = _enum(call, "SaturationMode", "ON") != "OFF"
    src = _fit(call.srcs[0], call.dst.shape)
    call.dst[...] = _convert(_calc(src) if _is_float(src.dtype) else src, call.dst.dtype, mode, saturate)


# ----------------------------------------------------------------------------- tile-scalar

_SCALAR = {
    "TADDS": np.add, "TSUBS": np.subtract, "TMULS": np.multiply, "TDIVS": _div,
    "TMINS": np.minimum, "TMAXS": np.maximum, "TREMS": _floor_mod, "TFMODS": np.fmod,
    "TPOWS": np.power, "TLRELU": lambda a, s: np.where(a > 0, a, a * s),
}
_SCALAR_BITWISE = {"TANDS": np.bitwise_and, "TORS": np.bitwise_or, "TXORS": np.bitwise_xor,
                   "TSHLS": np.left_shift, "TSHRS": np.right_shift}


@semantic(*_SCALAR)
def tile_scalar(call: OpCall) -> None:
    src = _fit(call.srcs[0], call.dst.shape)
    a, s = _calc(src), _scalar(_numbers(call)[0], src.dtype)
    if call.name == "TDIVS" and _flag(call, "ScalarFirst"):  # TDIVS(dst, scalar, src)
        a, s = np.broadcast_to(s, a.shape), a
    _store(call.dst, _SCALAR[call.name](a, s))


@semantic(*_SCALAR_BITWISE)
def tile_scalar_bitwise(call: OpCall) -> None:
    src = _bits(_fit(call.srcs[0], call.dst.shape))
    s = _bits(np.asarray(_numbers(call)[0]).astype(call.srcs[0].dtype)).astype(src.dtype)
    _store(call.dst, _from_bits(_SCALAR_BITWISE[call.name](src, s), call.dst.dtype))


@semantic("TADDSC", "TSUBSC")
def tile_scalar_tile(call: OpCall) -> None:
    """TADDSC(dst, src0, scalar, src1) = src0 + scalar + src1; TSUBSC = src0 - scalar + src1."""
    a, b = (_calc(_fit(s, call.dst.shape)) for s in call.srcs[:2])
    s = _scalar(_numbers(call)[0], call.srcs[0].dtype)
    _store(call.dst, (a + s if call.name == "TADDSC" else a - s) + b)


@semantic("TEXPANDS")
def expand_scalar(call: OpCall) -> None:
    call.dst[...] = np.asarray(_numbers(call)[0]).astype(call.dst.dtype)


@semantic("TAXPY")
def axpy(call: OpCall) -> None:
    """TAXPY(dst, src, alpha): dst = dst + alpha * src (dst is read too)."""
    src = _fit(call.srcs[0], call.dst.shape)
    _store(call.dst, _calc(call.dst) + _scalar(_numbers(call)[0], src.dtype) * _calc(src))


@semantic("TCI")
def iota(call: OpCall) -> None:
    """TCI(dst, start): start +/- k over the valid region in row-major order."""
    step = -1 if _flag(call, "descending") else 1
    k = np.arange(call.dst.size, dtype=np.int64).reshape(call.dst.shape)
    call.dst[...] = (int(_numbers(call)[0]) + step * k).astype(call.dst.dtype)


@semantic("TTRI")
def triangle(call: OpCall) -> None:
    """TTRI<isUpperOrLower>(dst, diagonal): lower keeps j <= i + d, upper keeps j >= i + d."""
    d = int(_numbers(call)[0])
    i, j = np.indices(call.dst.shape)
    ones = (j >= i + d) if _flag(call, "isUpperOrLower") else (j <= i + d)
    call.dst[...] = ones.astype(call.dst.dtype)


# ----------------------------------------------------------------------------- compare / select
# Mask tiles are packed predicate bits, row by row: column c of row r is bit (c % 8) of byte
# (c // 8) of that row (LSB first), whatever the mask tile's element type; 1 = true / src0.

_CMP = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "GT": np.greater,
        "GE": np.greater_equal, "LE": np.less_equal}


def _write_mask(dst: np.ndarray, bits: np.ndarray) -> None:
    packed = np.packbits(bits.astype(bool), axis=1, bitorder="little")
    per_elem = dst.itemsize
    nbytes = dst.shape[1] * per_elem
    if packed.shape[1] > nbytes:
        raise ValueError(f"mask tile row of {nbytes} bytes cannot hold {bits.shape[1]} bits")
    rows = np.zeros((dst.shape[0], nbytes), np.uint8)
    rows[: packed.shape[0], : packed.shape[1]] = packed
    dst[...] = rows.view(dst.dtype)


def _read_mask(mask: np.ndarray, shape) -> np.ndarray:
    r, c = shape
    raw = np.ascontiguousarray(mask[:r]).view(np.uint8)
    if raw.shape[1] * 8 < c:
        raise ValueError(f"mask of {raw.shape[1]} bytes per row cannot cover {c} columns")
    return np.unpackbits(raw, axis=1, bitorder="little")[:, :c].astype(bool)


@semantic("TCMP", "TCMPS")
def compare(call: OpCall) -> None:
    """TCMP(mask, src0, src1, CmpMode); TCMPS(mask, src0, scalar-or-tile, CmpMode)."""
    a = call.srcs[0]
    b = _calc(call.srcs[1][: a.shape[0], : a.shape[1]]) if len(call.srcs) > 1 else _scalar(
        _numbers(call)[0], a.dtype)
    _write_mask(call.dst, _CMP[_enum(call, "CmpMode", "EQ")](_calc(a), b))


@semantic("TSEL")
def select(call: OpCall) -> None:
    """TSEL(dst, mask, src0, src1, tmp): dst = mask ? src0 : src1."""
    mask, a, b = call.srcs[:3]
    pick = _read_mask(mask, call.dst.shape)
    call.dst[...] = np.where(pick, _fit(a, call.dst.shape), _fit(b, call.dst.shape))


@semantic("TSELS")
def select_scalar(call: OpCall) -> None:
    """TSELS(dst, mask, src, tmp, scalar): dst = mask ? src : scalar."""
    mask, src = call.srcs[:2]
    pick = _read_mask(mask, call.dst.shape)
    s = np.asarray(_numbers(call)[0]).astype(src.dtype)
    call.dst[...] = np.where(pick, _fit(src, call.dst.shape), s)


# ----------------------------------------------------------------------------- reductions
# Row reductions write column 0 of dst (a DN R x 1 tile or the first column of an ND tile);
# column reductions write row 0.

_REDUCE = {"SUM": np.sum, "MAX": np.max, "MIN": np.min, "PROD": np.prod}


@semantic(*(f"TROW{k}" for k in _REDUCE), *(f"TCOL{k}" for k in _REDUCE))
def reduce(call: OpCall) -> None:
    src = call.srcs[0]
    op = _REDUCE[call.name[4:]]
    if call.name.startswith("TROW"):
        _store(call.dst[: src.shape[0], 0], op(_calc(src), axis=1))
    else:
        _store(call.dst[0, : src.shape[1]], op(_calc(src), axis=0))


@semantic("TROWARGMAX", "TROWARGMIN", "TCOLARGMAX", "TCOLARGMIN")
def arg_reduce(call: OpCall) -> None:
    """First index of the max/min; forms (idx, src) or (val, idx, src) -> srcs [src] / [idx, src]."""
    src = call.srcs[-1]
    idx_tile, val_tile = (call.srcs[0], call.dst) if len(call.srcs) > 1 else (call.dst, None)
    axis = 1 if call.name.startswith("TROW") else 0
    find = np.argmax if call.name.endswith("MAX") else np.argmin
    s = _calc(src)
    idx = find(s, axis=axis)
    vals = np.take_along_axis(s, np.expand_dims(idx, axis), axis).squeeze(axis)
    for tile, data in ((idx_tile, idx), (val_tile, vals)):
        if tile is not None:
            target = tile[: src.shape[0], 0] if axis == 1 else tile[0, : src.shape[1]]
            _store(target, data)


# ----------------------------------------------------------------------------- broadcasts


@semantic("TROWEXPAND")
def row_expand(call: OpCall) -> None:
    """dst[i, :] = src[i, 0]."""
    src = call.srcs[0]
    _store(call.dst, np.broadcast_to(src[: call.dst.shape[0], :1], call.dst.shape))


@semantic("TCOLEXPAND")
def col_expand(call: OpCall) -> None:
    """dst[:, j] = src[0, j]."""
    src = call.srcs[0]
    _store(call.dst, np.broadcast_to(src[:1, : call.dst.shape[1]], call.dst.shape))


_EXPAND_OPS = {"ADD": np.add, "SUB": np.subtract, "MUL": np.multiply, "DIV": _div,
               "MAX": np.maximum, "MIN": np.minimum, "EXPDIF": lambda a, b: np.exp(a - b)}


def _expand_operands(call: OpCall, rows: bool):
    """Return (src0, src1) broadcast to dst's shape, keeping the C++ operand order.

    The full operand is the one whose valid shape equals dst's (normally src0); the other is the
    per-row (per-column) vector.  A row vector of width w (one value, or a 32-byte block per row)
    is read as vec[i, j % w] -- the hardware reuses the same 32-byte block along the row.
    """
    shape = call.dst.shape
    a, b = call.srcs[:2]
    full_first = a.shape == shape or b.shape != shape

    def widen(v):
        if rows:
            w = v.shape[1]
            return v[: shape[0], np.arange(shape[1]) % w]
        h = v.shape[0]
        return v[np.arange(shape[0]) % h, : shape[1]]

    a, b = (_fit(a, shape), widen(b)) if full_first else (widen(a), _fit(b, shape))
    return _calc(a), _calc(b)


@semantic(*(f"TROWEXPAND{k}" for k in _EXPAND_OPS))
def row_expand_binary(call: OpCall) -> None:
    a, b = _expand_operands(call, rows=True)
    _store(call.dst, _EXPAND_OPS[call.name[len("TROWEXPAND"):]](a, b))


@semantic(*(f"TCOLEXPAND{k}" for k in _EXPAND_OPS))
def col_expand_binary(call: OpCall) -> None:
    a, b = _expand_operands(call, rows=False)
    _store(call.dst, _EXPAND_OPS[call.name[len("TCOLEXPAND"):]](a, b))


# ----------------------------------------------------------------------------- matmul


def _grain(values: np.ndarray, axis: int) -> np.ndarray:
    """The largest power of two every nonzero float32 value along `axis` is a multiple of
    (the weight of the lowest set bit of its significand); inf where all are zero."""
    mantissa, exponent = np.frexp(values.astype(np.float64))
    significand = np.abs(mantissa * 2.0 ** 24).astype(np.int64)
    lowest = (significand & -significand).astype(np.float64) * np.ldexp(1.0, exponent - 24)
    return np.where(significand != 0, lowest, np.inf).min(axis=axis)


def _f32_product(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """left @ right (float32 values) as float32: each element is the float32 rounding of the
    float64 rounding of the exact sum of its products, the same bits on every machine.

    A BLAS sums in an order of its own choosing per CPU, so its last bits differ between
    machines. Here the products of two float32 values are exact in float64, so a float64 BLAS
    product is exact wherever every product is a multiple of one power of two g and the sum of
    their magnitudes is below 2**53 g (every partial sum, in any order, is then exact: the
    usual case for fp16 and bf16 tiles), and otherwise within (k + 2) * 2**-53 * (|left| @
    |right|) of the exact sum whatever its order; wherever that interval holds no float32
    rounding boundary, every value in it, the correctly rounded one included, rounds to the
    same float32. The rare elements left are summed exactly (math.fsum)."""
    lo, ro = left.astype(np.float64), right.astype(np.float64)
    approx = lo @ ro
    magnitude = np.abs(lo) @ np.abs(ro)
    out = approx.astype(np.float32)
    exact = magnitude < np.ldexp(_grain(left, 1)[:, None] * _grain(right, 0)[None, :], 53)
    if exact.all():
        return out
    bound = magnitude * ((left.shape[1] + 2) * 2.0 ** -53 * 1.0001)
    here = out.astype(np.float64)
    below = np.nextafter(out, np.float32(-np.inf)).astype(np.float64)
    above = np.nextafter(out, np.float32(np.inf)).astype(np.float64)
    safe = exact | (np.isfinite(here) & (approx - bound > (here + below) / 2) &
                    (approx + bound < (here + above) / 2))
    for i, j in zip(*np.nonzero(~safe)):
        products = lo[i, :] * ro[:, j]
        # fsum refuses inf + -inf; with an inf or a NaN among the products the sum is inf or
        # NaN in any order.
        out[i, j] = np.float32(math.fsum(products) if np.isfinite(products).all() else products.sum())
    return out


@semantic("TMATMUL", "TMATMUL_ACC", "TMATMUL_BIAS", "TGEMV", "TGEMV_ACC", "TGEMV_BIAS")
def matmul(call: OpCall) -> None:
    """m x k (left) @ k x n (right) into acc[:m, :n]; fp32 accumulation, int32 for integer inputs.

    _ACC: srcs = [accIn, left, right] (or [left, right] accumulating into dst itself);
    _BIAS: srcs = [left, right, bias] with bias a 1 x n row added to every row.
    """
    srcs = list(call.srcs)
    acc_in = None
    if call.name.endswith("_ACC"):
        acc_in = srcs.pop(0) if len(srcs) == 3 else call.dst
    left, right = srcs[:2]
    m, k = left.shape
    n = right.shape[1]
    if right.shape[0] < k:
        raise ValueError(f"left is {m}x{k} but right has only {right.shape[0]} rows")
    right = right[:k]
    if left.dtype.kind in "iu":
        prod = left.astype(np.int64) @ right.astype(np.int64)
    else:
        prod = _f32_product(left.astype(np.float32, copy=False), right.astype(np.float32, copy=False))
    out = _fit(call.dst, (m, n))
    if acc_in is not None or call.name.endswith("_BIAS"):
        # Add in the accumulator's memory order (L0C is column-major): one transposing copy.
        total = np.empty_like(out, dtype=prod.dtype)
        total[...] = prod
        if acc_in is not None:
            total += _fit(acc_in, (m, n)).astype(prod.dtype, copy=False)
        if call.name.endswith("_BIAS"):
            total += srcs[2][0, :n].astype(prod.dtype, copy=False)
        prod = total
    _store(out, prod)


# ----------------------------------------------------------------------------- data movement


def _staged(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """`src`, first packed in its own memory order when it is large and laid out across `dst`
    (row-major GM into a column-major tile, or back): numpy's copy then walks two compact arrays,
    which is several times faster than one strided transposing walk."""
    if src.ndim != 2 or src.size < 4096 or src.flags.c_contiguous or src.flags.f_contiguous:
        return src
    if (abs(src.strides[0]) < abs(src.strides[1])) == (abs(dst.strides[0]) < abs(dst.strides[1])):
        return src
    return src.copy(order="K")


def _same_size_copy(dst: np.ndarray, src: np.ndarray, what: str) -> None:
    """DMA copy: identical element size required; a differing type is a raw bit reinterpretation."""
    if src.dtype == dst.dtype:
        dst[...] = _staged(src, dst)
    elif src.dtype.itemsize == dst.dtype.itemsize:
        dst[...] = np.ascontiguousarray(src).view(dst.dtype)
    else:
        raise TypeError(f"{what}: element sizes differ ({src.dtype} -> {dst.dtype}); "
                        "pto-isa requires sizeof(tile dtype) == sizeof(GM dtype)")


@semantic("TLOAD")
def load(call: OpCall) -> None:
    """TLOAD(tile, gm): copies the overlap of the tile's valid region and the GM window."""
    gm = call.srcs[0]
    r, c = min(gm.shape[0], call.dst.shape[0]), min(gm.shape[1], call.dst.shape[1])
    _same_size_copy(call.dst[:r, :c], gm[:r, :c], "TLOAD")


@semantic("TSTORE")
def store(call: OpCall) -> None:
    """TSTORE(gm, tile): copies the overlap of the tile's valid region and the GM window.

    An Acc source (fp32/int32 stored to a different type, or template TileType=Acc) goes through
    the fixpipe: optional ReLU, then a value conversion (fp32 -> fp16/bf16 etc.).  AtomicAdd/Max/Min
    combine with the GM contents instead of overwriting them.
    """
    tile = call.srcs[0]
    r, c = min(tile.shape[0], call.dst.shape[0]), min(tile.shape[1], call.dst.shape[1])
    out, src = call.dst[:r, :c], tile[:r, :c]
    is_acc = call.template.get("TileType", "").split("::")[-1] == "Acc" or (
        src.dtype in (np.float32, np.int32) and src.dtype.itemsize != out.dtype.itemsize)
    atomic = _enum(call, "AtomicType", "AtomicNone")
    if not is_acc and atomic == "AtomicNone":
        _same_size_copy(out, src, "TSTORE")
        return
    value = _relu_pre(call, _calc(src))
    if atomic != "AtomicNone":
        combine = {"AtomicAdd": np.add, "AtomicMax": np.maximum, "AtomicMin": np.minimum}[atomic]
        value = combine(_calc(out), value)
    out[...] = _convert(value, out.dtype)


@semantic("TMOV")
def move(call: OpCall) -> None:
    """TMOV(dst, src): copy with value conversion (e.g. Acc fp32 -> Mat fp16), optional ReLU.

    Between two Vec tiles the copy covers the overlap of both valid regions (pto-isa's a2a3 and
    a5 `TMovToVec` take the smaller valid rows and columns); the other moves fill dst's valid region."""
    src = call.srcs[0]
    if call.template.get("TileType") == "Vec" and call.template.get("DstTileType") == "Vec":
        r, c = min(src.shape[0], call.dst.shape[0]), min(src.shape[1], call.dst.shape[1])
        _move(call, call.dst[:r, :c], src[:r, :c])
        return
    _move(call, call.dst, _fit(src, call.dst.shape))


@semantic("TEXTRACT")
def extract(call: OpCall) -> None:
    """TEXTRACT(dst, src, indexRow, indexCol): dst = src[r:r+R, c:c+C], converted.
    TEXTRACT(dst0, dst1, src, r0, c0, r1, c1): two windows of one source (dst1 is written through
    its view in ``srcs``)."""
    if len(call.srcs) == 2:
        (dst1, src), (r0, c0, r1, c1) = call.srcs, (list(map(int, _numbers(call))) + [0] * 4)[:4]
        for dst, r, c in ((call.dst, r0, c0), (dst1, r1, c1)):
            _move(call, dst, _fit(src[r:, c:], dst.shape))
        return
    r, c = (list(map(int, _numbers(call))) + [0, 0])[:2]
    src = call.srcs[0][r:, c:]
    _move(call, call.dst, _fit(src, call.dst.shape))


@semantic("TINSERT")
def insert(call: OpCall) -> None:
    """TINSERT(dst, src, indexRow, indexCol): dst[r:r+sr, c:c+sc] = src, converted."""
    r, c = (list(map(int, _numbers(call))) + [0, 0])[:2]
    src = call.srcs[0]
    window = call.dst[r: r + src.shape[0], c: c + src.shape[1]]
    if window.shape != src.shape:
        raise ValueError(f"TINSERT window at ({r},{c}) of {src.shape} exceeds dst {call.dst.shape}")
    _move(call, window, src)


@semantic("TINTERLEAVE")
def interleave(call: OpCall) -> None:
    """TINTERLEAVE(dst1, dst0, src1, src0): per row, the stream src0[0], src1[0], src0[1], ...;
    dst0 takes its first validCols elements, dst1 the rest (dst0 is written through its view in
    ``srcs``). dst0's valid shape is the iteration domain."""
    dst1, (dst0, src1, src0) = call.dst, call.srcs
    rows, cols = dst0.shape
    stream = np.empty((rows, 2 * cols), dtype=src0.dtype)
    stream[:, 0::2], stream[:, 1::2] = _fit(src0, (rows, cols)), _fit(src1, (rows, cols))
    _store(dst0, stream[:, :cols])
    _store(_fit(dst1, (rows, cols)), stream[:, cols:])


@semantic("TDEINTERLEAVE")
def deinterleave(call: OpCall) -> None:
    """TDEINTERLEAVE(dst1, dst0, src1, src0): per row, the stream src0 then src1 is split into its
    even (dst0) and odd (dst1) elements; TDEINTERLEAVE(dst1, dst0, src) splits one source's row."""
    dst1, dst0 = call.dst, call.srcs[0]
    if len(call.srcs) == 3:
        rows, cols = dst0.shape
        src1, src0 = call.srcs[1:]
        stream = np.concatenate([_fit(src0, (rows, cols)), _fit(src1, (rows, cols))], axis=1)
    else:
        stream = call.srcs[1]
        rows, cols = stream.shape[0], stream.shape[1] // 2
        stream = stream[:, : 2 * cols]
    _store(_fit(dst0, (rows, cols)), stream[:, 0::2])
    _store(_fit(dst1, (rows, cols)), stream[:, 1::2])


@semantic("TCONCAT")
def concat(call: OpCall) -> None:
    """TCONCAT(dst, src0, src1): columns of src0 then src1, over dst's valid rows."""
    if len(call.srcs) != 2:
        raise NotImplementedError("TCONCAT with index tiles is not modelled")
    rows = call.dst.shape[0]
    a, b = (s[:rows] for s in call.srcs)
    if a.shape[0] < rows or b.shape[0] < rows or a.shape[1] + b.shape[1] > call.dst.shape[1]:
        raise ValueError("TCONCAT operands do not fit the destination")
    _store(call.dst[:, : a.shape[1]], a)
    _store(call.dst[:, a.shape[1]: a.shape[1] + b.shape[1]], b)


@semantic("TTRANS")
def transpose(call: OpCall) -> None:
    _store(call.dst, _fit(call.srcs[0].T, call.dst.shape))


def _pad_value(call: OpCall, dtype):
    pad = _enum(call, "PadVal", "Zero")
    big = pad in ("Max", "Min")
    if big and _is_float(dtype):
        return np.inf if pad == "Max" else -np.inf
    if big:
        info = np.iinfo(dtype)
        return info.max if pad == "Max" else info.min
    if pad in ("Zero", "Null"):
        return 0
    return float(pad)


@semantic("TFILLPAD", "TFILLPAD_INPLACE", "TFILLPAD_EXPAND")
def fill_pad(call: OpCall) -> None:
    """dst (the whole destination tile) = src's valid region, PadVal everywhere else."""
    src = call.srcs[0]
    r, c = src.shape
    if r > call.dst.shape[0] or c > call.dst.shape[1]:
        raise ValueError("TFILLPAD source is larger than the destination")
    pad = np.asarray(_pad_value(call, call.dst.dtype)).astype(call.dst.dtype)
    call.dst[:r, :c] = src  # numpy copes with the in-place form, where src aliases dst
    call.dst[r:, :] = pad
    call.dst[:r, c:] = pad


_MASK_PATTERNS = {"P0101": (2, 0), "P1010": (2, 1), "P0001": (4, 0), "P0010": (4, 1),
                  "P0100": (4, 2), "P1000": (4, 3), "P1111": (1, 0)}


def _write_row_major(dst: np.ndarray, values: np.ndarray) -> None:
    n = min(values.size, dst.size)
    dst[np.unravel_index(np.arange(n), dst.shape)] = values.reshape(-1)[:n].astype(dst.dtype)


@semantic("TGATHER")
def gather(call: OpCall) -> None:
    """TGATHER(dst, src0, indices, tmp): dst[i,j] = src0 flat[indices[i,j]] (flat = tile storage);
    TGATHER<MaskPattern>(dst, src): the pattern's columns of each row, packed row-major into dst."""
    src = call.srcs[0]
    if len(call.srcs) > 2:
        raise NotImplementedError("the compare-and-gather form (dst, src, kValue, cdst, tmp, offset) is not emulated")
    if len(call.srcs) == 1:
        period, phase = _MASK_PATTERNS[_enum(call, "MaskPattern", "P1111")]
        _write_row_major(call.dst, src[:, phase::period])
        return
    flat = _fit(call.srcs[1], call.dst.shape).astype(np.int64)
    rows, cols = np.divmod(flat, _row_stride(src))
    ok = (flat >= 0) & (rows < src.shape[0]) & (cols < src.shape[1])
    picked = src[np.where(ok, rows, 0), np.where(ok, cols, 0)]
    call.dst[...] = np.where(ok, picked, np.zeros((), call.dst.dtype)).astype(call.dst.dtype)


@semantic("TSCATTER")
def scatter(call: OpCall) -> None:
    """TSCATTER(dst, src, indexes): dst flat[indexes[i,j]] = src[i,j] over indexes' valid region."""
    src, idx = call.srcs[:2]
    flat = idx.astype(np.int64).reshape(-1)
    rows, cols = np.divmod(flat, _row_stride(call.dst))
    if (flat < 0).any() or (rows >= call.dst.shape[0]).any() or (cols >= call.dst.shape[1]).any():
        raise IndexError("TSCATTER index outside the destination's valid region")
    call.dst[rows, cols] = _fit(src, idx.shape).reshape(-1).astype(call.dst.dtype)


# ----------------------------------------------------------------------------- sorting
# Sorted lists are rows of 8-byte (value, uint32 index) structs: fp32 -> 2 elements per struct,
# fp16 -> 4 (value, reserved 0, index as two halves).  Order is descending by value.


def _pack_structs(values: np.ndarray, index: np.ndarray, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    buf = np.zeros((values.size, 8), np.uint8)
    buf[:, : dtype.itemsize] = values.astype(dtype).view(np.uint8).reshape(-1, dtype.itemsize)
    buf[:, 4:] = index.astype(np.uint32).view(np.uint8).reshape(-1, 4)
    return buf.reshape(-1).view(dtype)


def _unpack_structs(row: np.ndarray):
    buf = np.ascontiguousarray(row).view(np.uint8).reshape(-1, 8)
    values = np.ascontiguousarray(buf[:, : row.itemsize]).view(row.dtype).reshape(-1)
    index = np.ascontiguousarray(buf[:, 4:]).view(np.uint32).reshape(-1)
    return values, index


def _sort_desc(values: np.ndarray) -> np.ndarray:
    return np.argsort(-values.astype(np.float64), kind="stable")


@semantic("TSORT32")
def sort32(call: OpCall) -> None:
    """TSORT32(dst, src, idx[, tmp]): each 32-element block of a row sorted descending with its
    idx values; dst receives the (value, index) structs at the same struct positions."""
    src, idx = call.srcs[:2]
    per = 8 // call.dst.itemsize
    rows = min(call.dst.shape[0], src.shape[0])
    full = src.shape[1] // 32 * 32  # whole blocks: sorted all at once
    if full and idx.shape[0] >= rows and idx.shape[1] >= full and call.dst.shape[1] >= full * per:
        v = src[:rows, :full].reshape(rows, -1, 32)
        order = np.argsort(-v.astype(np.float64), axis=-1, kind="stable")
        values = np.take_along_axis(v, order, -1).reshape(-1)
        index = np.take_along_axis(idx[:rows, :full].reshape(rows, -1, 32), order, -1).reshape(-1)
        packed = _pack_structs(values, index.astype(np.uint32), call.dst.dtype)
        call.dst[:rows, :full * per] = packed.reshape(rows, full * per)
        first = full
    else:
        first = 0
    for r in range(rows):
        for start in range(first, src.shape[1], 32):
            v, i = src[r, start: start + 32], idx[r, start: start + 32]
            order = _sort_desc(v)
            packed = _pack_structs(v[order], i[order].astype(np.uint32), call.dst.dtype)
            call.dst[r, start * per: start * per + packed.size] = packed


def _merge(lists, exhausted: bool):
    """K-way descending merge of (values, index) lists; returns merged pairs and counts used.

    Lists sorted descending (the normal input) merge as one stable sort of their concatenation
    (ties go to the lower list, as in the step-by-step merge); `exhausted` keeps the prefix up to
    the first list's last element. Unsorted lists or NaNs take the step-by-step merge."""
    dtype = lists[0][0].dtype
    as64 = [v.astype(np.float64) for v, _ in lists]
    if any(v.dtype != dtype for v, _ in lists) or any(np.isnan(x).any() or (x[1:] > x[:-1]).any() for x in as64):
        return _merge_stepwise(lists, exhausted)
    sizes = [len(x) for x in as64]
    if exhausted and 0 in sizes:
        return np.array([], dtype), np.array([], np.uint32), [0] * len(lists)
    order = np.argsort(-np.concatenate(as64), kind="stable")
    if exhausted:
        where = np.empty(len(order), np.int64)
        where[order] = np.arange(len(order))
        ends = np.cumsum(sizes) - 1
        order = order[: int(where[ends].min()) + 1]
    owner = np.repeat(np.arange(len(lists)), sizes)[order]
    values = np.concatenate([v for v, _ in lists])[order]
    index = np.concatenate([i for _, i in lists]).astype(np.uint32)[order]
    return values, index, [int(n) for n in np.bincount(owner, minlength=len(lists))]


def _merge_stepwise(lists, exhausted: bool):
    heads = [0] * len(lists)
    out_v, out_i = [], []
    while True:
        live = [k for k, (v, _) in enumerate(lists) if heads[k] < v.size]
        if not live or (exhausted and len(live) < len(lists)):
            break
        k = max(live, key=lambda q: (float(lists[q][0][heads[q]]), -q))
        out_v.append(lists[k][0][heads[k]])
        out_i.append(lists[k][1][heads[k]])
        heads[k] += 1
    return np.array(out_v, lists[0][0].dtype), np.array(out_i, np.uint32), heads


@semantic("TMRGSORT")
def merge_sort(call: OpCall):
    """Multi-list: TMRGSORT(dst, executed, tmp, src0..src3) -> srcs = [src0, src1(, src2, src3)].
    Single list: TMRGSORT(dst, src, blockLen) -> srcs = [src], scalars = [blockLen] (elements):
    every group of 4 consecutive blocks is merged into one sorted run."""
    dst = call.dst[0]
    if len(call.srcs) == 1:
        src = call.srcs[0][0]
        block = int(_numbers(call)[0])
        for start in range(0, src.size - 4 * block + 1, 4 * block):
            runs = [_unpack_structs(src[start + q * block: start + (q + 1) * block]) for q in range(4)]
            v, i, _ = _merge(runs, exhausted=False)
            packed = _pack_structs(v, i, dst.dtype)
            dst[start: start + packed.size] = packed[: dst.size - start]
        return None
    runs = [_unpack_structs(s[0]) for s in call.srcs]
    v, i, used = _merge(runs, _flag(call, "exhausted"))
    packed = _pack_structs(v, i, dst.dtype)[: dst.size]
    dst[: packed.size] = packed
    return {"executedNumList": tuple(used + [0] * (4 - len(used)))}


# ----------------------------------------------------------------------------- indexed GM access


def _remap(raw: int, capacity: int, policy: str, what: str) -> int | None:
    """The table position an index names under an out-of-range policy, or None for no access
    (GatherOOB::Zero writes zero there, ScatterOOB::Skip writes nothing). Indices are read as
    unsigned 32-bit words, as the hardware does."""
    i = int(raw) & 0xFFFFFFFF
    if i < capacity:
        return i
    if policy == "Clamp":
        return capacity - 1
    if policy == "Wrap":
        return i % capacity
    if policy in ("Zero", "Skip"):
        return None
    raise ValueError(f"{what} index {i} is outside its table of {capacity} and no out-of-range policy is set")


def _indices(idx: np.ndarray, n: int) -> np.ndarray:
    """The first `n` indices of a one-row or one-column index tile."""
    flat = np.ascontiguousarray(idx).reshape(-1)
    if flat.size < n:
        raise ValueError(f"index tile holds {flat.size} indices, {n} needed")
    return flat[:n]


@semantic("MGATHER")
def gather_gm(call: OpCall) -> None:
    """MGATHER(dst, table, idx) into a UB tile. Coalesce::Row (default): dst[r, :] = table[idx[r], :];
    Coalesce::Elem: dst[r, c] = the table's element idx[r, c] in row-major order. GatherOOB picks
    what an index past the table does (Clamp, Wrap, Zero; Undefined is an error here)."""
    if call.template.get("DstTileType", "Vec") != "Vec":
        raise NotImplementedError("MGATHER into an L1 tile (GM indices and staging area) is not emulated")
    table, idx = call.srcs[0], call.srcs[1]
    policy = _enum(call, "GatherOOB", "Undefined")
    rows, cols = call.dst.shape
    if _enum(call, "Coalesce", "Row") == "Elem":
        flat = table.reshape(-1)
        pick = _fit(idx, (rows, cols))
        for r in range(rows):
            for c in range(cols):
                i = _remap(pick[r, c], flat.size, policy, "MGATHER")
                call.dst[r, c] = 0 if i is None else flat[i]
        return
    if table.shape[1] < cols:
        raise ValueError(f"table rows of {table.shape[1]} elements are narrower than the {cols}-column destination")
    for r, raw in enumerate(_indices(idx, rows)):
        i = _remap(raw, table.shape[0], policy, "MGATHER")
        call.dst[r, :] = 0 if i is None else table[i, :cols]


@semantic("MSCATTER")
def scatter_gm(call: OpCall) -> None:
    """MSCATTER(table, src, idx): Coalesce::Row (default) writes src[r, :] to table row idx[r];
    Coalesce::Elem writes src[r, c] to the table's element idx[r, c]. ScatterAtomicOp Add / Max /
    Min combine with the table instead of overwriting it; when indices collide the later source
    position wins (writes) or every one counts (atomics). ScatterOOB: Skip, Clamp, Wrap."""
    table, src, idx = call.dst, call.srcs[0], call.srcs[1]
    policy = _enum(call, "ScatterOOB", "Undefined")
    combine = {"Add": np.add, "Max": np.maximum, "Min": np.minimum}.get(_enum(call, "ScatterAtomicOp", "None"))

    def put(target: np.ndarray, at, value) -> None:
        if combine is None:
            target[at] = value
        else:
            target[at] = _convert(combine(_calc(np.asarray(target[at])), _calc(np.asarray(value))), target.dtype)

    rows, cols = src.shape
    if _enum(call, "Coalesce", "Row") == "Elem":
        pick = _fit(idx, (rows, cols))
        for r in range(rows):
            for c in range(cols):
                i = _remap(pick[r, c], table.size, policy, "MSCATTER")
                if i is not None:
                    put(table, np.unravel_index(i, table.shape), src[r, c])
        return
    if table.shape[1] < cols:
        raise ValueError(f"table rows of {table.shape[1]} elements are narrower than the {cols}-column source")
    for r, raw in enumerate(_indices(idx, rows)):
        i = _remap(raw, table.shape[0], policy, "MSCATTER")
        if i is not None:
            put(table, (i, slice(0, cols)), src[r, :])
