"""Tests for ptorewrite.emulator.semantics: every instruction against an independent numpy reference."""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ptorewrite.emulator.semantics import (
    CORE_HANDLED,
    SEMANTICS,
    UNCERTAIN,
    OpCall,
    UnknownInstruction,
    execute,
    implemented,
)

BF16 = ml_dtypes.bfloat16
F32, F16 = np.float32, np.float16
FLOATS = [F32, F16, BF16]
RNG = np.random.default_rng(1234)

COVERED: set[str] = set()


def covers(*names):
    """Record which instructions a test exercises (checked against implemented())."""
    COVERED.update(names)
    return lambda fn: fn


def rand(shape, dtype, lo=-4.0, hi=4.0):
    if np.dtype(dtype).kind in "iu":
        return RNG.integers(int(lo), int(hi), size=shape).astype(dtype)
    return RNG.uniform(lo, hi, size=shape).astype(np.float32).astype(dtype)


def run(name, dst, *srcs, scalars=(), tmp=None, **template):
    return execute(OpCall(name, dst, list(srcs), list(scalars), tmp, {k: str(v) for k, v in template.items()}))


def as32(x):
    return np.asarray(x).astype(np.float32)


def same(got, want):
    """Bit-for-bit equal after rounding the reference to got's dtype (NaNs equal)."""
    want = np.broadcast_to(np.asarray(want).astype(got.dtype), got.shape)
    np.testing.assert_array_equal(as32(got) if got.dtype.kind not in "iu" else got,
                                  as32(want) if got.dtype.kind not in "iu" else want)


# ----------------------------------------------------------------------------- registry


def test_unknown_instruction_raises():
    with pytest.raises(UnknownInstruction):
        execute(OpCall("TFROBNICATE", None, [], []))
    assert issubclass(UnknownInstruction, KeyError)


def test_registry_shape():
    assert implemented() == frozenset(SEMANTICS)
    assert not CORE_HANDLED & implemented()
    assert {"TRESHAPE", "TSUBVIEW", "TASSIGN"} <= CORE_HANDLED
    assert set(UNCERTAIN) <= implemented()


# ----------------------------------------------------------------------------- elementwise

BINARY_REF = {
    "TADD": lambda a, b: a + b, "TSUB": lambda a, b: a - b, "TMUL": lambda a, b: a * b,
    "TDIV": lambda a, b: a / b, "TMIN": np.minimum, "TMAX": np.maximum,
    "TPRELU": lambda a, b: np.where(a > 0, a, a * b),
    "TREM": lambda a, b: a - np.floor(a / b) * b, "TFMOD": lambda a, b: a - np.trunc(a / b) * b,
    "TPOW": lambda a, b: np.abs(a) ** b,
}


@covers(*BINARY_REF)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(BINARY_REF))
def test_binary_float(name, dtype):
    a, b = rand((4, 16), dtype), rand((4, 16), dtype, 0.5, 3.0)
    if name == "TPOW":
        a = np.abs(a).astype(dtype)
    dst = np.zeros((4, 16), dtype)
    run(name, dst, a, b)
    want = BINARY_REF[name](as32(a).astype(np.float64), as32(b).astype(np.float64))
    np.testing.assert_allclose(as32(dst), as32(np.asarray(want, np.float32).astype(dtype)),
                               rtol=1e-5, atol=1e-6)


def test_binary_float_exact_rounding():
    # fp16 add computed in fp32 then rounded once: 2048 + 1 = 2049 is not representable in fp16.
    a, b = np.full((1, 8), 2048, F16), np.full((1, 8), 1, F16)
    dst = np.zeros((1, 8), F16)
    run("TADD", dst, a, b)
    same(dst, np.float32(2049).astype(F16))


def test_binary_reads_top_left_window_and_rejects_small_sources():
    a, b = rand((8, 32), F32), rand((8, 32), F32)
    dst = np.zeros((3, 5), F32)
    run("TSUB", dst, a, b)
    same(dst, a[:3, :5] - b[:3, :5])
    with pytest.raises(ValueError):
        run("TADD", np.zeros((4, 4), F32), a[:2, :2], b)


@covers("TADD", "TSUB", "TMUL", "TDIV", "TMIN", "TMAX", "TREM", "TFMOD")
@pytest.mark.parametrize("dtype", [np.int16, np.int32])
def test_binary_int(dtype):
    a, b = rand((4, 8), dtype, -50, 50), rand((4, 8), dtype, 1, 9) * np.where(RNG.random((4, 8)) < .5, -1, 1)
    b = b.astype(dtype)
    for name, ref in {"TADD": a + b, "TSUB": a - b, "TMUL": a * b, "TMIN": np.minimum(a, b),
                      "TMAX": np.maximum(a, b), "TREM": a % b,
                      "TFMOD": np.fmod(a, b),
                      "TDIV": np.array([[int(x / y) for x, y in zip(ra, rb)] for ra, rb in zip(a, b)])}.items():
        dst = np.zeros_like(a)
        run(name, dst, a, b)
        same(dst, ref)


@covers("TAND", "TOR", "TXOR", "TSHL", "TSHR", "TNOT")
@pytest.mark.parametrize("dtype", [np.int16, np.uint16, np.int32])
def test_bitwise(dtype):
    a, b = rand((2, 16), dtype, 0, 1000), rand((2, 16), dtype, 0, 1000)
    s = rand((2, 16), dtype, 0, 5)
    for name, x, y, ref in [("TAND", a, b, a & b), ("TOR", a, b, a | b), ("TXOR", a, b, a ^ b),
                            ("TSHL", a, s, a << s), ("TSHR", a, s, a >> s)]:
        dst = np.zeros_like(a)
        run(name, dst, x, y, tmp=np.zeros_like(a))
        same(dst, ref)
    dst = np.zeros_like(a)
    run("TNOT", dst, a)
    same(dst, ~a)


def test_shr_is_arithmetic_for_signed():
    a = np.array([[-16, -1, 16, 7]], np.int32)
    dst = np.zeros_like(a)
    run("TSHR", dst, a, np.full_like(a, 2))
    same(dst, [[-4, -1, 4, 1]])


@covers("TADDC", "TSUBC")
@pytest.mark.parametrize("dtype", FLOATS + [np.int32])
def test_ternary(dtype):
    a, b, c = (rand((3, 8), dtype) for _ in range(3))
    for name, ref in [("TADDC", as32(a) + as32(b) + as32(c)), ("TSUBC", as32(a) - as32(b) + as32(c))]:
        dst = np.zeros_like(a)
        run(name, dst, a, b, c)
        np.testing.assert_allclose(as32(dst), as32(ref.astype(dtype)), rtol=1e-6)


@covers("TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN")
def test_partial_ops():
    a, b = rand((4, 8), F32), rand((2, 5), F32)
    for name, op in [("TPARTADD", np.add), ("TPARTMUL", np.multiply), ("TPARTMAX", np.maximum),
                     ("TPARTMIN", np.minimum)]:
        dst = np.zeros((4, 8), F32)
        run(name, dst, a, b)
        want = a.copy()
        want[:2, :5] = op(a[:2, :5], b)
        same(dst, want)


UNARY_REF = {
    "TABS": np.abs, "TNEG": np.negative, "TRELU": lambda x: np.maximum(x, 0), "TEXP": np.exp,
    "TLOG": np.log, "TSQRT": np.sqrt, "TRSQRT": lambda x: 1 / np.sqrt(x), "TRECIP": lambda x: 1 / x,
}


@covers(*UNARY_REF)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(UNARY_REF))
def test_unary(name, dtype):
    lo = 0.25 if name in ("TLOG", "TSQRT", "TRSQRT", "TRECIP") else -3
    x = rand((4, 16), dtype, lo, 3)
    dst = np.zeros_like(x)
    run(name, dst, x)
    want = UNARY_REF[name](as32(x).astype(np.float64)).astype(np.float32).astype(dtype)
    np.testing.assert_allclose(as32(dst), as32(want), rtol=1e-6)


def test_unary_int():
    x = np.array([[-3, 0, 5, -128]], np.int16)
    for name, ref in [("TABS", np.abs(x)), ("TNEG", -x), ("TRELU", np.maximum(x, 0))]:
        dst = np.zeros_like(x)
        run(name, dst, x)
        same(dst, ref)


# ----------------------------------------------------------------------------- TCVT


@covers("TCVT")
@pytest.mark.parametrize("mode,ref", [
    ("CAST_RINT", [2, 2, -2, -2, 3, -4]), ("CAST_ROUND", [3, 2, -3, -2, 3, -4]),
    ("CAST_FLOOR", [2, 1, -3, -2, 2, -4]), ("CAST_CEIL", [3, 2, -2, -1, 3, -3]),
    ("CAST_TRUNC", [2, 1, -2, -1, 2, -3]), ("CAST_ODD", [3, 1, -3, -1, 3, -4]),
])
@pytest.mark.parametrize("src_dtype", FLOATS)
def test_cvt_float_to_int_modes(mode, ref, src_dtype):
    x = np.array([[2.5, 1.5, -2.5, -1.5, 2.75, -3.75]], np.float32).astype(src_dtype)
    dst = np.zeros(x.shape, np.int32)
    run("TCVT", dst, x, scalars=[f"RoundMode::{mode}"])
    same(dst, ref)
    dst2 = np.zeros(x.shape, np.int32)
    run("TCVT", dst2, x, RoundMode=mode)  # the same enum given as a template entry
    same(dst2, ref)


def test_cvt_saturates_and_float_narrowing():
    x = np.array([[1e6, -1e6, np.nan, 100.4]], np.float32)
    dst = np.zeros(x.shape, np.int16)
    run("TCVT", dst, x, RoundMode="CAST_RINT")
    same(dst, [32767, -32768, 0, 100])
    y = rand((3, 8), F32)
    for dtype in (F16, BF16):
        d = np.zeros(y.shape, dtype)
        run("TCVT", d, y, scalars=["RoundMode::CAST_RINT"])
        same(d, y.astype(dtype))
    i = rand((2, 8), np.int32, -1000, 1000)
    d = np.zeros(i.shape, F32)
    run("TCVT", d, i, scalars=["RoundMode::CAST_NONE"])
    same(d, i.astype(F32))


# ----------------------------------------------------------------------------- tile-scalar

SCALAR_REF = {
    "TADDS": lambda a, s: a + s, "TSUBS": lambda a, s: a - s, "TMULS": lambda a, s: a * s,
    "TDIVS": lambda a, s: a / s, "TMINS": np.minimum, "TMAXS": np.maximum,
    "TLRELU": lambda a, s: np.where(a > 0, a, a * s), "TPOWS": lambda a, s: np.abs(a) ** s,
    "TFMODS": np.fmod, "TREMS": lambda a, s: a - np.floor(a / s) * s,
}


@covers(*SCALAR_REF)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(SCALAR_REF))
def test_tile_scalar(name, dtype):
    a = rand((4, 16), dtype)
    if name == "TPOWS":
        a = np.abs(a).astype(dtype)
    s = 1.75
    dst = np.zeros_like(a)
    run(name, dst, a, scalars=[s], tmp=np.zeros_like(a))
    want = SCALAR_REF[name](as32(a).astype(np.float64), float(np.float32(s).astype(dtype)))
    np.testing.assert_allclose(as32(dst), as32(np.asarray(want, np.float32).astype(dtype)), rtol=1e-6)


def test_tdivs_scalar_first_and_int_scalars():
    a = rand((2, 8), F32, 0.5, 3)
    dst = np.zeros_like(a)
    run("TDIVS", dst, a, scalars=[3.0], ScalarFirst="true")
    np.testing.assert_allclose(dst, 3.0 / a, rtol=1e-6)
    i = rand((2, 8), np.int16, -100, 100)
    dst = np.zeros_like(i)
    run("TADDS", dst, i, scalars=[7])
    same(dst, i + 7)


@covers("TANDS", "TORS", "TXORS", "TSHLS", "TSHRS")
def test_tile_scalar_bitwise():
    a = rand((2, 16), np.int32, -1000, 1000)
    for name, ref in [("TANDS", a & 0x5A), ("TORS", a | 0x5A), ("TXORS", a ^ 0x5A)]:
        dst = np.zeros_like(a)
        run(name, dst, a, scalars=[0x5A], tmp=np.zeros_like(a))
        same(dst, ref)
    for name, ref in [("TSHLS", a << 3), ("TSHRS", a >> 3)]:
        dst = np.zeros_like(a)
        run(name, dst, a, scalars=[3])
        same(dst, ref)


@covers("TADDSC", "TSUBSC", "TEXPANDS", "TAXPY")
@pytest.mark.parametrize("dtype", FLOATS)
def test_fused_scalar(dtype):
    a, b = rand((3, 8), dtype), rand((3, 8), dtype)
    s = np.float32(0.5)
    for name, ref in [("TADDSC", as32(a) + s + as32(b)), ("TSUBSC", as32(a) - s + as32(b))]:
        dst = np.zeros_like(a)
        run(name, dst, a, b, scalars=[s])
        np.testing.assert_allclose(as32(dst), as32(ref.astype(dtype)), rtol=1e-6)
    dst = np.zeros_like(a)
    run("TEXPANDS", dst, scalars=[2.25])
    same(dst, np.full(a.shape, 2.25))
    y = b.copy()
    run("TAXPY", y, a, scalars=[2.0])
    np.testing.assert_allclose(as32(y), as32((as32(b) + 2 * as32(a)).astype(dtype)), rtol=1e-6)


@covers("TCI", "TTRI")
def test_generators():
    dst = np.zeros((2, 8), np.int32)
    run("TCI", dst, scalars=[10])
    same(dst, 10 + np.arange(16).reshape(2, 8))
    run("TCI", dst, scalars=[100], descending="1")
    same(dst, 100 - np.arange(16).reshape(2, 8))
    tri = np.zeros((4, 6), F32)
    run("TTRI", tri, scalars=[1], isUpperOrLower="0")
    same(tri, np.tril(np.ones((4, 6)), 1))
    run("TTRI", tri, scalars=[0], isUpperOrLower="1")
    same(tri, np.triu(np.ones((4, 6)), 0))


# ----------------------------------------------------------------------------- compare / select


def ref_pack(bits):
    """Reference packing: bit c%8 of byte c//8, LSB first, written by hand."""
    rows, cols = bits.shape
    out = np.zeros((rows, (cols + 7) // 8), np.uint8)
    for r in range(rows):
        for c in range(cols):
            if bits[r, c]:
                out[r, c // 8] |= 1 << (c % 8)
    return out


CMP_REF = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "GT": np.greater,
           "GE": np.greater_equal, "LE": np.less_equal}


@covers("TCMP", "TCMPS")
@pytest.mark.parametrize("dtype", FLOATS + [np.int32])
@pytest.mark.parametrize("mode", sorted(CMP_REF))
def test_compare(mode, dtype):
    a = rand((4, 24), dtype, -3, 3)
    b = a.copy()
    b[:, ::3] = rand((4, 8), dtype, -3, 3)
    mask = np.full((4, 32), 0xFF, np.uint8)
    run("TCMP", mask, a, b, scalars=[f"CmpMode::{mode}"])
    want = ref_pack(CMP_REF[mode](as32(a), as32(b)))
    np.testing.assert_array_equal(mask[:, :3], want)
    assert not mask[:, 3:].any()
    run("TCMPS", mask, a, scalars=[1, mode])
    np.testing.assert_array_equal(mask[:, :3], ref_pack(CMP_REF[mode](as32(a), np.float32(1))))
    run("TCMPS", mask, a, b, CmpMode=mode)
    np.testing.assert_array_equal(mask[:, :3], want)


@covers("TSEL", "TSELS")
@pytest.mark.parametrize("dtype", FLOATS + [np.int16, np.int32])
def test_select(dtype):
    a, b = rand((4, 20), dtype), rand((4, 20), dtype)
    bits = RNG.random((4, 20)) < 0.5
    mask = np.zeros((4, 32), np.uint8)
    mask[:, :3] = ref_pack(bits)
    dst = np.zeros_like(a)
    run("TSEL", dst, mask, a, b, tmp=np.zeros((1, 16), np.uint32))
    same(dst, np.where(bits, a, b))
    run("TSELS", dst, mask, a, scalars=[1.0], tmp=np.zeros((1, 16), np.uint32))
    same(dst, np.where(bits, a, np.asarray(1.0).astype(dtype)))


def test_cmp_then_sel_roundtrip():
    a, b = rand((2, 64), F16), rand((2, 64), F16)
    mask = np.zeros((2, 32), np.uint8)
    run("TCMP", mask, a, b, CmpMode="GT")
    dst = np.zeros_like(a)
    run("TSEL", dst, mask, a, b)
    same(dst, np.maximum(as32(a), as32(b)))


# ----------------------------------------------------------------------------- reductions

REDUCE_REF = {"SUM": np.sum, "MAX": np.max, "MIN": np.min, "PROD": np.prod}


@covers(*(f"T{d}{k}" for d in ("ROW", "COL") for k in REDUCE_REF))
@pytest.mark.parametrize("dtype", FLOATS + [np.int32])
@pytest.mark.parametrize("kind", sorted(REDUCE_REF))
def test_reductions(kind, dtype):
    src = rand((5, 12), dtype, 0.5, 1.5) if kind == "PROD" else rand((5, 12), dtype)
    ref = REDUCE_REF[kind]
    col = np.zeros((5, 1), dtype)
    run(f"TROW{kind}", col, src, tmp=np.zeros_like(src))
    np.testing.assert_allclose(as32(col[:, 0]), as32(ref(as32(src), axis=1).astype(dtype)), rtol=1e-5)
    wide = np.full((5, 8), 7, dtype)  # ND destination: only column 0 is written
    run(f"TROW{kind}", wide, src, tmp=np.zeros_like(src))
    np.testing.assert_array_equal(as32(wide[:, 0]), as32(col[:, 0]))
    assert (as32(wide[:, 1:]) == 7).all()
    row = np.zeros((1, 12), dtype)
    run(f"TCOL{kind}", row, src)
    np.testing.assert_allclose(as32(row[0]), as32(ref(as32(src), axis=0).astype(dtype)), rtol=1e-5)


@covers("TROWARGMAX", "TROWARGMIN", "TCOLARGMAX", "TCOLARGMIN")
@pytest.mark.parametrize("dtype", FLOATS + [np.int16])
def test_arg_reductions(dtype):
    src = rand((6, 10), dtype, -20, 20)
    src[2, 3] = src[2, 7] = 99  # ties: the first index wins
    for name, axis, f in [("TROWARGMAX", 1, np.argmax), ("TROWARGMIN", 1, np.argmin),
                          ("TCOLARGMAX", 0, np.argmax), ("TCOLARGMIN", 0, np.argmin)]:
        shape = (6, 1) if axis == 1 else (1, 10)
        idx = np.zeros(shape, np.uint32)
        run(name, idx, src, tmp=np.zeros_like(src))
        np.testing.assert_array_equal(idx.reshape(-1), f(as32(src), axis=axis))
        val = np.zeros(shape, dtype)
        idx2 = np.zeros(shape, np.int32)
        run(name, val, idx2, src, tmp=np.zeros_like(src))  # (dstVal, dstIdx, src) form
        np.testing.assert_array_equal(idx2.reshape(-1), f(as32(src), axis=axis))
        want = (np.max if name.endswith("MAX") else np.min)(as32(src), axis=axis)
        np.testing.assert_array_equal(as32(val).reshape(-1), want)


# ----------------------------------------------------------------------------- broadcasts


@covers("TROWEXPAND", "TCOLEXPAND")
@pytest.mark.parametrize("dtype", FLOATS + [np.int32])
def test_expand(dtype):
    col = rand((4, 3), dtype)
    dst = np.zeros((4, 9), dtype)
    run("TROWEXPAND", dst, col)
    same(dst, np.repeat(col[:, :1], 9, axis=1))
    row = rand((2, 9), dtype)
    dst = np.zeros((5, 9), dtype)
    run("TCOLEXPAND", dst, row)
    same(dst, np.repeat(row[:1, :], 5, axis=0))


EXPAND_REF = {"ADD": np.add, "SUB": np.subtract, "MUL": np.multiply, "DIV": np.divide,
              "MAX": np.maximum, "MIN": np.minimum, "EXPDIF": lambda a, b: np.exp(a - b)}


@covers(*(f"TROWEXPAND{k}" for k in EXPAND_REF), *(f"TCOLEXPAND{k}" for k in EXPAND_REF))
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("kind", sorted(EXPAND_REF))
def test_expand_binary(kind, dtype):
    ref = EXPAND_REF[kind]
    full = rand((4, 16), dtype, 0.5, 2)
    vec = rand((4, 1), dtype, 0.5, 2)
    dst = np.zeros_like(full)
    run(f"TROWEXPAND{kind}", dst, full, vec)  # src0 full tile, src1 per-row vector
    want = np.empty((4, 16), np.float64)
    for i in range(4):
        for j in range(16):
            want[i, j] = ref(float(as32(full)[i, j]), float(as32(vec)[i, 0]))
    np.testing.assert_allclose(as32(dst), as32(want.astype(np.float32).astype(dtype)), rtol=1e-6)
    run(f"TROWEXPAND{kind}", dst, vec, full)  # swapped: the vector is src0, order is kept
    want_swapped = ref(as32(vec).astype(np.float64), as32(full).astype(np.float64))
    np.testing.assert_allclose(as32(dst), as32(want_swapped.astype(np.float32).astype(dtype)), rtol=1e-6)
    cvec = rand((1, 16), dtype, 0.5, 2)
    run(f"TCOLEXPAND{kind}", dst, full, cvec)
    want_c = ref(as32(full).astype(np.float64), as32(cvec).astype(np.float64))
    np.testing.assert_allclose(as32(dst), as32(want_c.astype(np.float32).astype(dtype)), rtol=1e-6)


def test_row_expand_32_byte_block_vector():
    full = rand((3, 24), F32)
    block = np.repeat(rand((3, 1), F32), 8, axis=1)  # one 32-byte block per row, value replicated
    dst = np.zeros_like(full)
    run("TROWEXPANDSUB", dst, full, block)
    same(dst, full - block[:, :1])


# ----------------------------------------------------------------------------- matmul


@covers("TMATMUL", "TMATMUL_ACC", "TMATMUL_BIAS", "TGEMV", "TGEMV_ACC", "TGEMV_BIAS")
@pytest.mark.parametrize("dtype", FLOATS)
def test_matmul_float(dtype):
    a, b = rand((16, 32), dtype), rand((32, 24), dtype)
    want = as32(a) @ as32(b)
    for mm in ("TMATMUL", "TGEMV"):
        acc = np.zeros((16, 24), F32)
        run(mm, acc, a, b, AccPhase="Unspecified")
        np.testing.assert_allclose(acc, want, rtol=1e-5, atol=1e-4)
    acc_in = rand((16, 24), F32)
    for mm in ("TMATMUL_ACC", "TGEMV_ACC"):
        out = np.zeros((16, 24), F32)
        run(mm, out, acc_in, a, b)
        np.testing.assert_allclose(out, acc_in + want, rtol=1e-5, atol=1e-4)
    acc = acc_in.copy()
    run("TMATMUL_ACC", acc, a, b)  # 3-argument form accumulates into dst itself
    np.testing.assert_allclose(acc, acc_in + want, rtol=1e-5, atol=1e-4)
    bias = rand((1, 24), F32)
    for mm in ("TMATMUL_BIAS", "TGEMV_BIAS"):
        out = np.zeros((16, 24), F32)
        run(mm, out, a, b, bias)
        np.testing.assert_allclose(out, want + bias, rtol=1e-5, atol=1e-4)


def test_matmul_fp16_exact_fp32_result():
    a = np.array([[2048, 1, 1]], F16)
    b = np.array([[1], [1], [1]], F16)
    acc = np.zeros((1, 1), F32)
    run("TMATMUL", acc, a, b)
    assert acc[0, 0] == np.float32(2050)  # would be 2048 if accumulated in fp16
    a, b = rand((32, 64), F16), rand((64, 16), F16)
    acc = np.zeros((32, 16), F32)
    run("TMATMUL", acc, a, b)
    # fp16 products and their sums of this size are exact in float64: the result is the exact
    # sum rounded once to float32 (a float32 product sums in its own order, off in the last bits).
    np.testing.assert_array_equal(acc, (a.astype(np.float64) @ b.astype(np.float64)).astype(F32))


def test_matmul_int8():
    a, b = rand((8, 64), np.int8, -128, 127), rand((64, 8), np.int8, -128, 127)
    acc = np.zeros((8, 8), np.int32)
    run("TMATMUL", acc, a, b)
    same(acc, a.astype(np.int64) @ b.astype(np.int64))


# ----------------------------------------------------------------------------- data movement


@covers("TLOAD", "TSTORE")
@pytest.mark.parametrize("dtype", FLOATS + [np.int8, np.int32])
def test_load_store(dtype):
    gm = rand((8, 40), dtype)
    tile = np.zeros((4, 16), dtype)
    run("TLOAD", tile, gm[2:6, 8:24])
    same(tile, gm[2:6, 8:24])
    out = np.zeros((8, 40), dtype)
    run("TSTORE", out[4:8, 0:16], tile)
    same(out[4:8, :16], gm[2:6, 8:24])
    assert not as32(out[:4]).any()


def test_load_overlap_reinterpret_and_reject():
    gm = rand((2, 3), F32)
    tile = np.full((4, 4), -1, F32)
    run("TLOAD", tile, gm)  # GM window smaller than the tile: the overlap is copied
    same(tile[:2, :3], gm)
    assert (tile[2:] == -1).all() and (tile[:, 3] == -1).all()
    bits = np.zeros((2, 3), np.int32)
    run("TLOAD", bits, gm)  # same size, different type: raw bits
    np.testing.assert_array_equal(bits, gm.view(np.int32))
    with pytest.raises(TypeError):
        run("TLOAD", np.zeros((2, 3), F16), gm)


def test_store_acc_fixpipe_cast_and_atomic():
    acc = rand((4, 8), F32)
    for dtype in (F16, BF16):
        gm = np.zeros((4, 8), dtype)
        run("TSTORE", gm, acc)
        same(gm, acc.astype(dtype))
    gm = rand((4, 8), F32)
    before = gm.copy()
    run("TSTORE", gm, acc, AtomicType="AtomicAdd", TileType="Acc")
    same(gm, before + acc)
    gm = np.zeros((4, 8), F16)
    run("TSTORE", gm, acc, ReluPreMode="NormalRelu", TileType="Acc")
    same(gm, np.maximum(acc, 0).astype(F16))


@covers("TMOV", "TEXTRACT", "TINSERT")
@pytest.mark.parametrize("dtype", FLOATS + [np.int32])
def test_mov_extract_insert(dtype):
    src = rand((16, 32), dtype)
    dst = np.zeros((16, 32), dtype)
    run("TMOV", dst, src)
    same(dst, src)
    win = np.zeros((4, 8), dtype)
    run("TEXTRACT", win, src, scalars=[5, 16])
    same(win, src[5:9, 16:24])
    big = np.zeros((16, 32), dtype)
    run("TINSERT", big, win, scalars=[8, 4])
    same(big[8:12, 4:12], src[5:9, 16:24])
    assert not as32(big[:8]).any() and not as32(big[:, :4]).any()
    with pytest.raises(ValueError):
        run("TINSERT", big, win, scalars=[14, 0])


def test_mov_and_extract_convert_acc_to_fp16():
    acc = rand((16, 16), F32)
    mat = np.zeros((16, 16), F16)
    run("TMOV", mat, acc)
    same(mat, acc.astype(F16))
    win = np.zeros((8, 8), BF16)
    run("TEXTRACT", win, acc, scalars=[8, 0])
    same(win, acc[8:16, :8].astype(BF16))


@settings(max_examples=25, deadline=None)
@given(r=st.integers(0, 12), c=st.integers(0, 24), h=st.integers(1, 4), w=st.integers(1, 8))
def test_extract_windows_property(r, c, h, w):
    src = np.arange(16 * 32, dtype=F32).reshape(16, 32)
    dst = np.zeros((h, w), F32)
    run("TEXTRACT", dst, src, scalars=[r, c])
    same(dst, src[r:r + h, c:c + w])


@covers("TCONCAT", "TTRANS")
@pytest.mark.parametrize("dtype", FLOATS + [np.int16])
def test_concat_transpose(dtype):
    a, b = rand((4, 5), dtype), rand((4, 3), dtype)
    dst = np.zeros((4, 8), dtype)
    run("TCONCAT", dst, a, b)
    same(dst, np.concatenate([a, b], axis=1))
    t = np.zeros((5, 4), dtype)
    run("TTRANS", t, a, tmp=np.zeros_like(a))
    same(t, a.T)


@covers("TFILLPAD", "TFILLPAD_INPLACE", "TFILLPAD_EXPAND")
@pytest.mark.parametrize("dtype", FLOATS + [np.int16])
def test_fillpad(dtype):
    src = rand((3, 5), dtype)
    for name, pad, padval in [("TFILLPAD", "Zero", 0),
                              ("TFILLPAD_EXPAND", "PadValue::Min", -np.inf if dtype != np.int16 else -32768),
                              ("TFILLPAD", "Max", np.inf if dtype != np.int16 else 32767)]:
        dst = np.full((4, 8), 9, dtype)
        run(name, dst, src, PadVal=pad)
        want = np.full((4, 8), padval, np.float64)
        want[:3, :5] = as32(src)
        same(dst, want)
    tile = np.full((4, 8), 9, dtype)
    tile[:3, :5] = src
    run("TFILLPAD_INPLACE", tile, tile[:3, :5], PadVal="Zero")
    want = np.zeros((4, 8), np.float32)
    want[:3, :5] = as32(src)
    same(tile, want)


@covers("TGATHER", "TSCATTER")
@pytest.mark.parametrize("dtype", FLOATS + [np.int32])
def test_gather_scatter(dtype):
    buf = rand((8, 16), dtype)
    src = buf[:4, :10]  # valid region of a 16-column tile: flat index = row * 16 + col
    rows, cols = RNG.integers(0, 4, (3, 6)), RNG.integers(0, 10, (3, 6))
    idx = (rows * 16 + cols).astype(np.int32)
    dst = np.zeros((3, 6), dtype)
    run("TGATHER", dst, src, idx, tmp=np.zeros((3, 6), dtype))
    same(dst, np.array([[src[r, c] for r, c in zip(rr, cc)] for rr, cc in zip(rows, cols)]))
    idx_oob = idx.copy()
    idx_oob[0, 0] = 10_000
    run("TGATHER", dst, src, idx_oob)
    assert as32(dst)[0, 0] == 0
    tile = np.zeros((4, 16), dtype)
    values = rand((2, 4), dtype)
    perm = RNG.permutation(64)[:8].reshape(2, 4).astype(np.uint32)
    run("TSCATTER", tile, values, perm)
    flat = np.zeros(64, dtype)
    flat[perm.reshape(-1)] = values.reshape(-1)
    same(tile, flat.reshape(4, 16))


def test_gather_mask_pattern():
    src = rand((2, 8), F32)
    dst = np.zeros((2, 4), F32)
    run("TGATHER", dst, src, MaskPattern="MaskPattern::P0101")
    same(dst, src[:, 0::2])
    dst = np.zeros((1, 4), F32)
    run("TGATHER", dst, src, MaskPattern="P1000")
    same(dst, src[:, 3::4].reshape(1, 4))


# ----------------------------------------------------------------------------- sorting


def decode(row, dtype):
    """Reference decode of the 8-byte (value, uint32 index) structs."""
    raw = np.ascontiguousarray(row).view(np.uint8).reshape(-1, 8)
    size = np.dtype(dtype).itemsize
    vals = np.array([np.frombuffer(r[:size].tobytes(), dtype)[0] for r in raw])
    idx = np.array([int.from_bytes(r[4:].tobytes(), "little") for r in raw])
    return vals, idx


@covers("TSORT32")
@pytest.mark.parametrize("dtype", [F32, F16])
def test_sort32(dtype):
    src = rand((2, 64), dtype, -100, 100)
    idx = np.tile(np.arange(64, dtype=np.uint32) + 1000, (2, 1))
    per = 8 // np.dtype(dtype).itemsize
    dst = np.zeros((2, 64 * per), dtype)
    run("TSORT32", dst, src, idx)
    for r in range(2):
        vals, ids = decode(dst[r], dtype)
        for b in range(2):
            block = src[r, 32 * b: 32 * b + 32]
            order = sorted(range(32), key=lambda k: (-float(block[k]), k))
            np.testing.assert_array_equal(vals[32 * b: 32 * b + 32], block[order])
            np.testing.assert_array_equal(ids[32 * b: 32 * b + 32], 1000 + 32 * b + np.array(order))


def encode(vals, idx, dtype):
    out = bytearray()
    for v, i in zip(vals, idx):
        out += np.asarray(v, dtype).tobytes().ljust(4, b"\0") + int(i).to_bytes(4, "little")
    return np.frombuffer(bytes(out), dtype).reshape(1, -1).copy()


@covers("TMRGSORT")
@pytest.mark.parametrize("dtype", [F32, F16])
def test_mrgsort_lists(dtype):
    lists = [np.sort(rand(n, dtype, -50, 50))[::-1] for n in (5, 7, 3)]
    srcs = [encode(v, np.arange(len(v)) + 100 * k, dtype) for k, v in enumerate(lists)]
    total = sum(len(v) for v in lists)
    dst = np.zeros((1, total * 8 // np.dtype(dtype).itemsize), dtype)
    out = run("TMRGSORT", dst, *srcs, tmp=np.zeros_like(dst), exhausted="false")
    vals, ids = decode(dst[0], dtype)
    everything = sorted(((float(v), 100 * k + j) for k, l in enumerate(lists) for j, v in enumerate(l)),
                        key=lambda p: -p[0])
    np.testing.assert_array_equal(as32(vals), [p[0] for p in everything])
    assert sorted(ids) == sorted(p[1] for p in everything)
    assert out == {"executedNumList": (5, 7, 3, 0)}
    # exhausted=true: merging stops as soon as one list has been used up.
    used = [0, 0, 0]
    for _, ident in sorted(((-float(v), 100 * k + j) for k, l in enumerate(lists) for j, v in enumerate(l))):
        used[ident // 100] += 1
        if used[ident // 100] == len(lists[ident // 100]):
            break
    dst[...] = 0
    out = run("TMRGSORT", dst, *srcs, tmp=np.zeros_like(dst), exhausted="true")
    assert out == {"executedNumList": (*used, 0)}
    vals, _ = decode(dst[0, : sum(used) * 8 // np.dtype(dtype).itemsize], dtype)
    np.testing.assert_array_equal(as32(vals), [p[0] for p in everything[: sum(used)]])


def test_mrgsort_single_list_blocks():
    dtype = F32
    block = 64  # elements per block (32 structs of 2 fp32 elements)
    runs = [np.sort(rand(32, dtype, -9, 9))[::-1] for _ in range(4)]
    src = np.concatenate([encode(v, np.arange(32) + 32 * k, dtype) for k, v in enumerate(runs)], axis=1)
    dst = np.zeros_like(src)
    run("TMRGSORT", dst, src, scalars=[block])
    vals, ids = decode(dst[0], dtype)
    np.testing.assert_array_equal(vals, np.sort(np.concatenate(runs))[::-1])
    assert sorted(ids) == list(range(128))


# ----------------------------------------------------------------------------- coverage


def test_two_window_extract_and_the_compare_gather_form():
    src = np.arange(64, dtype=np.float32).reshape(8, 8)
    d0, d1 = np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32)
    run("TEXTRACT", d0, d1, src, scalars=[1, 2, 4, 6])
    np.testing.assert_array_equal(d0, src[1:3, 2:5])
    np.testing.assert_array_equal(d1, src[4:7, 6:8])
    with pytest.raises(NotImplementedError, match="compare-and-gather"):
        run("TGATHER", np.zeros((2, 8), np.int32), src, np.zeros((1, 8), np.uint32), np.zeros((8, 1), np.int32))


@covers("MGATHER")
def test_gather_rows_and_elements_with_out_of_range_policies():
    table = np.arange(40, dtype=np.float32).reshape(5, 8)
    dst = np.zeros((3, 8), np.float32)
    run("MGATHER", dst, table, np.array([[4, 0, 2]], np.int32))
    np.testing.assert_array_equal(dst, table[[4, 0, 2]])
    run("MGATHER", dst, table, np.array([[7, 1, 5]], np.int32), GatherOOB="GatherOOB::Clamp")
    np.testing.assert_array_equal(dst, table[[4, 1, 4]])
    run("MGATHER", dst, table, np.array([[7, 1, 5]], np.int32), GatherOOB="Wrap")
    np.testing.assert_array_equal(dst, table[[2, 1, 0]])
    run("MGATHER", dst, table, np.array([[7, 1, -1]], np.int32), GatherOOB="Zero")
    np.testing.assert_array_equal(dst, np.stack([np.zeros(8), table[1], np.zeros(8)]))
    with pytest.raises(ValueError, match="outside its table"):
        run("MGATHER", dst, table, np.array([[7, 1, 5]], np.int32))
    elems = np.zeros((2, 2), np.float32)
    run("MGATHER", elems, table, np.array([[39, 0], [8, 17]], np.int32), Coalesce="Coalesce::Elem")
    np.testing.assert_array_equal(elems, [[39, 0], [8, 17]])
    with pytest.raises(NotImplementedError):
        run("MGATHER", dst, table, np.array([[0, 1, 2]], np.int32), DstTileType="Mat")


@covers("MSCATTER")
def test_scatter_rows_and_elements_with_atomics_and_policies():
    src = np.arange(12, dtype=np.float32).reshape(3, 4)
    table = np.zeros((4, 4), np.float32)
    run("MSCATTER", table, src, np.array([[3, 0, 3]], np.int32))  # a collision: the later row wins
    np.testing.assert_array_equal(table, [src[1], [0] * 4, [0] * 4, src[2]])
    table[...] = 1
    run("MSCATTER", table, src, np.array([[3, 0, 3]], np.int32), ScatterAtomicOp="ScatterAtomicOp::Add")
    np.testing.assert_array_equal(table, [src[1] + 1, [1] * 4, [1] * 4, src[0] + src[2] + 1])
    table[...] = 0
    run("MSCATTER", table, src, np.array([[9, 1, 6]], np.int32), ScatterOOB="Skip")
    np.testing.assert_array_equal(table, [[0] * 4, src[1], [0] * 4, [0] * 4])
    run("MSCATTER", table, src, np.array([[9, 1, 6]], np.int32), ScatterOOB="Wrap", ScatterAtomicOp="Max")
    np.testing.assert_array_equal(table[1], src[1])
    np.testing.assert_array_equal(table[2], src[2])
    with pytest.raises(ValueError, match="outside its table"):
        run("MSCATTER", table, src, np.array([[9, 1, 6]], np.int32))
    flat = np.zeros((2, 8), np.int32)
    run("MSCATTER", flat, np.array([[5, 6]], np.int32), np.array([[15, 3]], np.int32), Coalesce="Elem")
    assert flat[1, 7] == 5 and flat[0, 3] == 6 and flat.sum() == 11


def test_every_implemented_instruction_is_tested():
    missing = implemented() - COVERED
    assert not missing, f"instructions without a test: {sorted(missing)}"
    assert not COVERED - implemented(), f"tests name unknown instructions: {sorted(COVERED - implemented())}"


def test_uncertain_entries_have_reasons():
    assert all(isinstance(v, str) and len(v) > 10 for v in UNCERTAIN.values())


@covers("TINTERLEAVE", "TDEINTERLEAVE")
def test_interleave_and_its_inverse():
    src0 = np.arange(8, dtype=np.float32).reshape(2, 4)
    src1 = src0 + 100
    dst0, dst1 = np.zeros((2, 4), np.float32), np.zeros((2, 4), np.float32)
    run("TINTERLEAVE", dst1, dst0, src1, src0)
    assert dst0.tolist() == [[0, 100, 1, 101], [4, 104, 5, 105]]
    assert dst1.tolist() == [[2, 102, 3, 103], [6, 106, 7, 107]]
    even, odd = np.zeros((2, 4), np.float32), np.zeros((2, 4), np.float32)
    run("TDEINTERLEAVE", odd, even, dst1, dst0)
    assert even.tolist() == src0.tolist() and odd.tolist() == src1.tolist()
    # One source: each row's even and odd elements.
    half0, half1 = np.zeros((2, 2), np.float32), np.zeros((2, 2), np.float32)
    run("TDEINTERLEAVE", half1, half0, dst0)
    assert half0.tolist() == [[0, 1], [4, 5]] and half1.tolist() == [[100, 101], [104, 105]]


def test_matmul_rounds_the_exact_sum_whatever_the_blas():
    """Each element of a float matmul is the float32 rounding of the float64 rounding of the
    exact sum of its products (math.fsum), bit for bit, for fp16-valued tiles (the exact fast
    path), small integers with cancellation and ties, a wide exponent range and float32 inputs
    with huge and tiny terms (the interval test and the exact fallback)."""
    import math

    from ptorewrite.emulator.semantics import _f32_product

    def reference(left, right):
        lo, ro = left.astype(np.float64), right.astype(np.float64)
        return np.array([[np.float32(math.fsum(lo[i] * ro[:, j])) for j in range(right.shape[1])]
                         for i in range(left.shape[0])], np.float32).reshape(left.shape[0], right.shape[1])

    rng = np.random.default_rng(7)
    for trial in range(40):
        m, k, n = (int(x) for x in rng.integers(1, 33, 3))
        kind = trial % 4
        if kind == 0:
            left = rng.standard_normal((m, k)).astype(np.float16).astype(np.float32)
            right = rng.standard_normal((k, n)).astype(np.float16).astype(np.float32)
        elif kind == 1:
            left = rng.integers(-3, 4, (m, k)).astype(np.float32)
            right = rng.integers(-3, 4, (k, n)).astype(np.float32) * np.float32(0.5)
        elif kind == 2:
            left = (rng.standard_normal((m, k)) * 2.0 ** rng.integers(-60, 60, (m, k))).astype(np.float32)
            right = (rng.standard_normal((k, n)) * 2.0 ** rng.integers(-60, 60, (k, n))).astype(np.float32)
        else:
            left = rng.standard_normal((m, k)).astype(np.float32)
            right = rng.standard_normal((k, n)).astype(np.float32)
            left[:, 0], right[0, :] = 1e30, 1e-30
        got = _f32_product(left, right)
        assert np.array_equal(got.view(np.uint32), reference(left, right).view(np.uint32)), (trial, kind)
    # A sum a float32 BLAS gets wrong in its last bit for some orders: 1 + 2**-24 + 2**-24.
    left = np.array([[1.0, 2.0 ** -24, 2.0 ** -24]], np.float32)
    right = np.ones((3, 1), np.float32)
    assert _f32_product(left, right)[0, 0] == np.float32(1.0 + 2.0 ** -23)
