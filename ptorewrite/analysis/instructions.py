"""The PTO instruction table: name -> pipe rule and operand access pattern.

This is the one place that says which pipe runs an instruction and which operands it
reads and writes (spec §2). Tile operands are matched positionally against `tiles`;
GlobalTensor operands against `gm`; every other argument is a scalar.

Access codes: "w" written, "r" read, "rw" read and written (scratch tiles, in-place
accumulators), "-" not touched on that architecture (the operand is dropped, so it needs no
address). A trailing "r*" means every further tile is read. A tile operand read and written
after the first one is the instruction's scratch (`tmp`) tile: see `is_scratch`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from ptorewrite.arch import ArchProfile


@dataclass(frozen=True)
class OpInfo:
    name: str
    pipe: str  # a pipe name, or a rule: "store", "move", "insert"
    tiles: tuple[str, ...]  # default access pattern of the tile operands
    gm: tuple[str, ...] = ()
    # Overloads that differ in tile count (an optional scratch tile, a second output).
    by_count: tuple[tuple[int, tuple[str, ...]], ...] = ()
    archs: frozenset[str] = frozenset({"a2a3", "a5"})
    # Per-architecture overrides of `by_count`: (arch, count, pattern).
    by_arch: tuple[tuple[str, int, tuple[str, ...]], ...] = ()

    def accesses(self, n_tiles: int, arch: str | None = None) -> tuple[str, ...]:
        """Access code of each tile operand for a call with `n_tiles` tile operands on `arch`."""
        for a, n, pattern in self.by_arch:
            if a == arch and n == n_tiles:
                return pattern
        for n, pattern in self.by_count:
            if n == n_tiles:
                return pattern
        if self.tiles and self.tiles[-1] == "r*":
            fixed = self.tiles[:-1]
            if n_tiles < len(fixed):
                raise IndexError(n_tiles)
            return fixed + ("r",) * (n_tiles - len(fixed))
        if n_tiles != len(self.tiles):
            raise IndexError(n_tiles)
        return self.tiles

    @property
    def tile_counts(self) -> str:
        counts = sorted({len(self.tiles)} | {n for n, _ in self.by_count}) if self.tiles[-1:] != ("r*",) else []
        return " or ".join(map(str, counts)) if counts else f"at least {len(self.tiles) - 1}"


def _ops(names: str, pipe: str, tiles: str, gm: str = "", **by_count: str) -> list[OpInfo]:
    """`by_count` maps "n3" -> the pattern for calls with 3 tile operands, "a5_n3" -> the same
    on a5 only."""
    extra = tuple((int(k[1:]), tuple(v.split())) for k, v in sorted(by_count.items()) if k[0] == "n")
    per_arch = tuple((k.split("_")[0], int(k.split("_")[1][1:]), tuple(v.split()))
                     for k, v in sorted(by_count.items()) if k[0] != "n")
    return [OpInfo(n, pipe, tuple(tiles.split()), tuple(gm.split()), extra, by_arch=per_arch) for n in names.split()]


_TABLE: list[OpInfo] = [
    # Data movement between GM and on-chip buffers.
    *_ops("TLOAD", "MTE2", "w", gm="r"),
    *_ops("TSTORE", "store", "r", gm="w"),
    # Indexed GM access. MGATHER(dst, table, idx) gathers table rows or elements into a UB tile (V);
    # MGATHER(dst, table, idxGm, scratchGm) gathers into an L1 tile (MTE2), staging the element form
    # in the GM scratch. MSCATTER(table, src, idx) writes src rows or elements at the indices, so
    # which table bytes it writes (and, with an atomic, reads) is known only at run time: the whole
    # table window is read and written.
    *_ops("MGATHER", "gather", "w r", gm="r r rw", n1="w"),
    *_ops("MSCATTER", "V", "r r", gm="rw"),
    # On-chip moves: the pipe depends on the source and destination buffers.
    # TEXTRACT(dst0, dst1, src, ...) cuts two windows of one UB tile at once.
    *_ops("TMOV", "move", "w r", n3="w r rw"),
    *_ops("TEXTRACT", "move", "w r", n3="w w r"),
    *_ops("TINSERT", "insert", "w r"),
    # TIMG2COL(dst, convSrc[, posM, posK]): MTE1 expands an L1 feature map (a ConvTile, read whole)
    # into a Left tile, as the SETFMATRIX/SET_IMG2COL_* configuration says.
    *_ops("TIMG2COL", "MTE1", "w r"),
    # Fixpipe quantisation forms: (dst, src, fp[, indexRow, indexCol]) move an accumulator through
    # the fixpipe, which reads its per-channel parameters from the Scaling (fixpipe buffer) tile.
    *_ops("TSTORE_FP", "store", "r r", gm="w"),
    *_ops("TMOV_FP TEXTRACT_FP", "move", "w r r"),
    *_ops("TINSERT_FP", "insert", "w r r"),
    # Cube. TMATMUL_ACC(acc, left, right) accumulates in place; (out, in, left, right) reads `in`.
    *_ops("TMATMUL TMATMUL_BIAS TGEMV TGEMV_BIAS", "M", "w r*"),
    *_ops("TMATMUL_ACC TGEMV_ACC", "M", "w r r r", n3="rw r r"),
    # a5 MX: (c, a, aScale, b, bScale[, bias]) or (cOut, cIn, a, aScale, b, bScale): every operand
    # after the result is read, the scales from the L0A / L0B scale buffers.
    *_ops("TMATMUL_MX TGEMV_MX", "M", "w r*"),
    # Their accumulating form (cOut, cIn, ...) is read as an instruction of its own, so that
    # in-order accumulation into one L0C tile applies to it as to TMATMUL_ACC.
    *_ops("TMATMUL_MX_ACC TGEMV_MX_ACC", "M", "w r r r r r"),
    # Vector: elementwise.
    *_ops("TADD TSUB TMUL TDIV TMIN TMAX TAND TOR TXOR TSHL TSHR TCMP TADDC TSUBC TFMOD",
          "V", "w r*"),
    # TPOW(dst, base, exp, tmp) / TPOWS(dst, base, scalar, tmp): the scratch is written.
    *_ops("TPOW", "V", "w r r", n4="w r r rw"),
    *_ops("TPOWS", "V", "w r", n3="w r rw"),
    *_ops("TREM TPRELU", "V", "w r r", n4="w r r rw"),
    *_ops("TSEL", "V", "w r r r", n5="w r r r rw"),
    # Vector: tile-scalar (the scalar is a non-tile argument).
    *_ops("TADDS TSUBS TMULS TDIVS TMINS TMAXS TANDS TORS TXORS TSHLS TSHRS TREMS TCMPS TLRELU "
          "TAXPY TADDSC TSUBSC TFMODS", "V", "w r*"),
    *_ops("TSELS", "V", "w r r", n4="w r r rw"),
    # TEXPANDS(dst, scalar): on a Mat (L1) tile the fill is MTE2's work (pto-isa's Op::TEXPANDS_MAT
    # event class), on a Vec tile V's.
    *_ops("TEXPANDS", "fill", "w"),
    # TCI(dst, start) or TCI(dst, start, tmp): the scratch tile is written.
    *_ops("TCI", "V", "w", n2="w rw"),
    # Vector: unary; TCVT may take a scratch tile.
    *_ops("TABS TNEG TNOT TRELU TEXP TLOG TSQRT TRECIP", "V", "w r"),
    *_ops("TRSQRT", "V", "w r", n3="w r rw"),
    *_ops("TCVT", "V", "w r", n3="w r rw"),
    # Reductions: destination, source, scratch; arg-reductions may write a value and an index.
    *_ops("TROWSUM TROWMAX TROWMIN TROWPROD", "V", "w r rw"),
    *_ops("TROWARGMAX TROWARGMIN TCOLARGMAX TCOLARGMIN", "V", "w r rw", n4="w w r rw"),
    *_ops("TCOLSUM TCOLMAX TCOLMIN TCOLPROD", "V", "w r", n3="w r rw"),
    # Broadcasts; the binary forms may take a scratch tile.
    *_ops("TROWEXPAND TCOLEXPAND", "V", "w r"),
    *_ops("TROWEXPANDADD TROWEXPANDSUB TROWEXPANDMUL TROWEXPANDDIV TROWEXPANDMAX TROWEXPANDMIN "
          "TROWEXPANDEXPDIF TCOLEXPANDADD TCOLEXPANDSUB TCOLEXPANDMUL TCOLEXPANDDIV TCOLEXPANDMAX "
          "TCOLEXPANDMIN TCOLEXPANDEXPDIF", "V", "w r r", n4="w r r rw"),
    # Layout, gather and sort.
    *_ops("TTRANS", "V", "w r", n3="w r rw"),
    # TGATHER(dst, src, kValue, cdst, tmp, offset): compare-and-gather also writes per-row counts to
    # cdst; a5 compares without the scratch tile.
    *_ops("TGATHER", "V", "w r r", n2="w r", n4="w r r rw", n5="w r r w rw", a5_n5="w r r w -"),
    # TINTERLEAVE(dst1, dst0, src1, src0); TDEINTERLEAVE(dst1, dst0, src1, src0) or (dst1, dst0, src).
    *_ops("TINTERLEAVE", "V", "w w r r"),
    *_ops("TDEINTERLEAVE", "V", "w w r r", n3="w w r"),
    *_ops("TSCATTER TSORT32 TPARTADD TPARTMUL TPARTMAX TPARTMIN", "V", "w r*"),
    # TFILLPAD(dst, src): on a Mat (L1) tile the padding is written by MTE2, on a Vec tile by V.
    *_ops("TFILLPAD", "fill", "w r"),
    # TCONCAT(dst, src0, src1[, dstIdx], src0Idx, src1Idx): the index form also writes dstIdx.
    *_ops("TCONCAT", "V", "w r r", n5="w r r r r", n6="w r r w r r"),
    # Arg-partial reductions: (dst, src0, src1, dstIdx, src0Idx, src1Idx).
    *_ops("TPARTARGMAX TPARTARGMIN", "V", "w r r w r r"),
    # Fused forms; the multiply-adds read their destination.
    *_ops("TADDRELUCONV TSUBRELUCONV TSUBRELU", "V", "w r r"),
    *_ops("TFUSEDMULADD TFUSEDMULADDRELU TMULADDDST", "V", "rw r r"),
    *_ops("TADDDEQRELU", "V", "w r r rw"),
    *_ops("TPAIRREDUCESUM", "V", "w r"),
    # TDEQUANT(dst, src, scale, offset); TGATHERB(dst, src, offsets); TTRI(dst, diagonal).
    *_ops("TDEQUANT", "V", "w r r r"),
    # TQUANT(dst, src, scale[, offset]) and (dst, src, scale, tmp[, offset]) read scale and offset;
    # the a5 MX forms (dst, src, exp, max, scaling[, expZz]) write the per-group exponents, maxima
    # and scales. The four- and five-tile calls are read as either form: the operands that may be
    # written are written (rw), which can only add accesses.
    *_ops("TQUANT", "V", "w r r", n4="w r r rw", n5="w r rw rw rw", n6="w r w w w w"),
    # TRANDOM(dst, key, counter): key and counter are scalar arrays.
    *_ops("TRANDOM", "V", "w"),
    *_ops("TGATHERB THISTOGRAM", "V", "w r r"),
    *_ops("TTRI", "V", "w"),
    # TMRGSORT(dst, src, blockLen) or (dst, executedNumList, tmp, src0, src1[, src2, src3]).
    *_ops("TMRGSORT", "V", "w r", n4="w rw r r", n5="w rw r r r", n6="w rw r r r r"),
]

# pto-isa offers these on a5 only.
_A5_ONLY = frozenset({"TINTERLEAVE", "TDEINTERLEAVE", "TMATMUL_MX", "TGEMV_MX", "TMATMUL_MX_ACC", "TGEMV_MX_ACC"})

# MX matmul calls whose second tile is an accumulator: the accumulating form.
MX_ACCUMULATING_FORMS = {"TMATMUL_MX": "TMATMUL_MX_ACC", "TGEMV_MX": "TGEMV_MX_ACC"}
_TABLE = [replace(op, archs=frozenset({"a5"})) if op.name in _A5_ONLY else op for op in _TABLE]

INSTRUCTIONS: dict[str, OpInfo] = {op.name: op for op in _TABLE}

# Scalar-unit statements with no tile data access; the front end models them itself.
ALIAS_OPS = frozenset({"TRESHAPE", "TSUBVIEW"})
CONFIG_OPS = frozenset({"SETFMATRIX", "SET_IMG2COL_RPT", "SET_IMG2COL_PADDING", "TSETTF32MODE"})
SYNC_CALLS = frozenset({"set_flag", "wait_flag", "pipe_barrier", "TSYNC"})
# Beyond version 1: cross-core pipes are passed through with a diagnostic.
CROSS_CORE_OPS = frozenset({"TPUSH", "TPOP"})

# Broadcast family and widening vector TEXTRACT use the hidden UB scratch range on a2a3.
UB_SCRATCH_OPS = frozenset(
    n for n in INSTRUCTIONS if n.startswith("TROWEXPAND")
)

def uses_hidden_scratch(op: str, tile_accesses: list[str]) -> bool:
    """On a2a3 the row broadcasts work in the hidden UB scratch range, except the forms given a
    scratch tile of their own (`tmp`): pto-isa's implementation then works in that tile instead,
    so two of them with distinct scratch tiles touch no common bytes. `tile_accesses` are the
    access kinds of the call's tile operands in order."""
    return op in UB_SCRATCH_OPS and not any(is_scratch(i, a) for i, a in enumerate(tile_accesses))


def is_scratch(position: int, access: str) -> bool:
    """The tile operand at `position` (among the tile operands) is working space: read and written,
    and not the destination. pto-isa's implementations take a scratch tile's address and its
    capacity shape, never its valid shape (a kernel may give it any valid shape)."""
    return position > 0 and access == "rw"


_ROW_EXPAND_BINARY = frozenset(n for n in INSTRUCTIONS if n.startswith("TROWEXPAND") and n != "TROWEXPAND")
_ROW_ARG_REDUCE = frozenset({"TROWARGMAX", "TROWARGMIN"})


def scratch_reach(op: str, arch: str, position: int, valids: list[tuple[int, int]], rows: int, cols: int,
                  elem_bytes: float) -> int:
    """Bytes from its address that `op` may use of the scratch tile at `position` (whose capacity
    shape is rows x cols): the whole tile, or more where the implementation reaches past it.
    `valids` are the valid (rows, cols) of every tile operand in order."""
    whole = int(rows * cols * elem_bytes)
    if arch != "a2a3":
        return whole  # a5 ignores these scratch tiles; the whole tile is the conservative answer
    if op in _ROW_EXPAND_BINARY and len(valids) == 4:
        # The row vector is broadcast into the scratch first: each element fills a 32-byte block,
        # 8 destination rows (256 B) per repeat, at most 32 repeats (8 KiB).
        return max(whole, min(-(-valids[0][0] // 8) * 256, 8192))
    if op in _ROW_ARG_REDUCE:
        # One scratch row (its capacity width) per valid row of the source, the operand before it.
        return max(whole, int(valids[position - 1][0] * cols * elem_bytes))
    return whole


MOVE_PIPES = {
    # (dst tile type, src tile type) -> pipe
    ("Left", "Mat"): "MTE1",
    ("Right", "Mat"): "MTE1",
    ("Bias", "Mat"): "MTE1",
    ("ScaleLeft", "Mat"): "MTE1",  # a5 MX scales: load_cbuf_to_ca_mx / _cb_mx
    ("ScaleRight", "Mat"): "MTE1",
    ("Scaling", "Mat"): "FIX",
    ("Mat", "Acc"): "FIX",
    ("Vec", "Acc"): "FIX",
    ("Vec", "Vec"): "V",
}


# Moves whose third tile may be the fixpipe's Scaling tile (TMOV / TEXTRACT / TINSERT with an
# AccToVecMode and an `fp` operand); three tiles otherwise mean a scratch (TMOV) or a second
# destination (TEXTRACT).
FIXPIPE_SCALING_FORMS = frozenset({"TMOV", "TEXTRACT", "TINSERT"})


def tile_accesses(op: OpInfo, tile_types: list[str], arch: str | None = None) -> tuple[str, ...]:
    """Access code of each tile operand of a call whose tile operands have `tile_types`
    (raises IndexError for a tile count the instruction has no form for)."""
    if op.name in FIXPIPE_SCALING_FORMS and len(tile_types) == 3 and tile_types[2] == "Scaling":
        return ("w", "r", "r")  # (dst, src, fp): the scaling parameters are read
    return op.accesses(len(tile_types), arch)


# The fixpipe quantisation forms and the instruction each one is otherwise (operand places,
# windows, GM clipping).
FP_FORMS = {"TSTORE_FP": "TSTORE", "TMOV_FP": "TMOV", "TEXTRACT_FP": "TEXTRACT", "TINSERT_FP": "TINSERT"}


def base_form(name: str) -> str:
    """The instruction a fixpipe quantisation form is otherwise (`name` itself for the others)."""
    return FP_FORMS.get(name, name)


def with_fp_forms(*names: str) -> frozenset[str]:
    """`names` and their fixpipe quantisation forms."""
    return frozenset(names) | {fp for fp, base in FP_FORMS.items() if base in names}


def window_position(scalars: list) -> list:
    """The (indexRow, indexCol) among a windowed TEXTRACT / TINSERT's scalar operands: the
    fixpipe forms with a pre-quantisation scalar pass it first, (preQuantScalar, indexRow, indexCol)."""
    return scalars[1:3] if len(scalars) == 3 else scalars[:2]


class PipeRuleError(ValueError):
    pass


def pipe_of(op: OpInfo, tile_types: list[str], arch: ArchProfile) -> str:
    """The pipe an instruction runs on, given its tile operands' TileTypes in argument order."""
    if op.pipe == "store":
        src = tile_types[0] if tile_types else None
        if src == "Vec":
            return "MTE3"
        if src == "Acc":
            return "FIX"
        if src == "Mat":
            if not arch.mat_to_gm_store:
                raise PipeRuleError(f"TSTORE from a Mat (L1) tile is not available on {arch.name}")
            return "MTE3"
        raise PipeRuleError(f"TSTORE from a {src} tile is not supported")
    if op.pipe in ("fill", "gather"):
        return "MTE2" if tile_types[:1] == ["Mat"] else "V"
    if op.pipe in ("move", "insert"):
        if len(tile_types) < 2:
            raise PipeRuleError(f"{op.name} needs a destination and a source tile")
        key = (tile_types[0], tile_types[1])
        if op.pipe == "insert" and key == ("Mat", "Acc"):
            return "FIX"
        if key == ("Mat", "Vec") and arch.ub_to_l1_pipe is not None:
            return arch.ub_to_l1_pipe
        if key in MOVE_PIPES:
            return MOVE_PIPES[key]
        raise PipeRuleError(f"{op.name} from a {key[1]} tile to a {key[0]} tile is not supported")
    return op.pipe


def lookup(name: str, arch: ArchProfile) -> OpInfo | None:
    op = INSTRUCTIONS.get(name)
    if op is None or arch.name not in op.archs:
        return None
    return op


# ---------------------------------------------------------------- operand rules
# What each instruction needs of its operands (spec §2-3; pto-isa's own compile-time checks say
# the same). `analysis.operands` checks every call against these rules.


@dataclass(frozen=True)
class OperandRule:
    # TileType(s) each tile operand may have, in order; the last entry covers any further operands.
    types: tuple[frozenset[str], ...] = ()
    # Overloads that differ in tile count: count -> types.
    types_by_count: tuple[tuple[int, tuple[frozenset[str], ...]], ...] = ()
    same_dtype: tuple[int, ...] = ()  # tile operands (by position) that must hold one element type
    same_valid_shape: tuple[int, ...] = ()  # tile operands whose valid rows x cols must agree

    def types_for(self, n_tiles: int) -> tuple[frozenset[str], ...]:
        for n, types in self.types_by_count:
            if n == n_tiles:
                return types
        return self.types


def _types(spec: str) -> tuple[frozenset[str], ...]:
    """"Acc Left Right" -> one set per operand; "Vec|Mat" allows either."""
    return tuple(frozenset(t.split("|")) for t in spec.split())


def _rules(names: str, types: str = "Vec", same: str = "", shape: str = "", **by_count: str) -> dict[str, OperandRule]:
    rule = OperandRule(_types(types), tuple((int(k[1:]), _types(v)) for k, v in sorted(by_count.items())),
                       tuple(int(i) for i in same.split()), tuple(int(i) for i in shape.split()))
    return {n: rule for n in names.split()}


OPERAND_RULES: dict[str, OperandRule] = {
    # Every vector instruction works on UB tiles (TEXPANDS also fills L1 tiles).
    **{op.name: OperandRule(_types("Vec")) for op in _TABLE if op.pipe == "V"},
    **_rules("TEXPANDS", "Vec|Mat"),
    # Elementwise: one element type, one valid shape.
    **_rules("TADD TSUB TMUL TDIV TMIN TMAX TAND TOR TSHL TSHR", same="0 1 2", shape="0 1 2"),
    **_rules("TXOR TPRELU TREM", same="0 1 2", shape="0 1 2"),
    **_rules("TADDC TSUBC", same="0 1 2 3", shape="0 1 2 3"),
    **_rules("TADDS TSUBS TMULS TDIVS TMINS TMAXS TANDS TORS TXORS TSHLS TSHRS TREMS TFMODS TLRELU "
             "TABS TNEG TNOT TRELU TEXP TLOG TSQRT TRSQRT TRECIP", same="0 1", shape="0 1"),
    **_rules("TCMP", same="1 2", shape="1 2"),
    # Reductions and broadcasts keep the element type.
    **_rules("TROWSUM TROWMAX TROWMIN TCOLSUM TCOLMAX TCOLMIN TROWEXPAND TCOLEXPAND", same="0 1"),
    **_rules("TROWEXPANDADD TROWEXPANDSUB TROWEXPANDMUL TROWEXPANDDIV TROWEXPANDMAX TROWEXPANDMIN",
             same="0 1 2"),
    **_rules("TSORT32", same="0 1"),
    # Loads fill UB or L1 tiles.
    **_rules("TLOAD", "Vec|Mat"),
    # Cube: acc, left, right (TMATMUL_ACC may name the accumulator twice; TMATMUL_BIAS adds a bias).
    # Their element types are checked against MATMUL_DTYPES.
    **_rules("TMATMUL TGEMV", "Acc Left Right", n3="Acc Left Right"),
    **_rules("TMATMUL_BIAS TGEMV_BIAS", "Acc Left Right Bias"),
    **_rules("TMATMUL_ACC TGEMV_ACC", "Acc Acc Left Right", n3="Acc Left Right"),
    # a5 MX: (acc, left, leftScale, right, rightScale), then a bias, or the accumulator read first.
    **_rules("TMATMUL_MX TGEMV_MX", "Acc Left ScaleLeft Right ScaleRight",
             n6="Acc Left Left|ScaleLeft ScaleLeft|Right Right|ScaleRight ScaleRight|Bias"),
    **_rules("TMATMUL_MX_ACC TGEMV_MX_ACC", "Acc Acc Left ScaleLeft Right ScaleRight"),
}

# (acc, left, right) element types a matmul accepts.
MATMUL_DTYPES: dict[str, frozenset[tuple[str, str, str]]] = {
    "a2a3": frozenset({("int32", "int8", "int8"), ("fp32", "fp16", "fp16"), ("fp32", "fp32", "fp32"),
                       ("fp32", "bf16", "bf16")}),
    "a5": frozenset({("int32", "int8", "int8"), ("fp32", "fp16", "fp16"), ("fp32", "fp32", "fp32"),
                     ("fp32", "bf16", "bf16"), ("fp32", "fp8_e4m3", "fp8_e4m3"), ("fp32", "fp8_e4m3", "fp8_e5m2"),
                     ("fp32", "fp8_e5m2", "fp8_e4m3"), ("fp32", "fp8_e5m2", "fp8_e5m2"), ("fp32", "hif8", "hif8")}),
}

# (acc, left, right) element types the a5 MX matmuls accept: 4-bit pairs or 8-bit floats.
_FP4 = ("fp4_e1m2", "fp4_e2m1")
_FP8 = ("fp8_e4m3", "fp8_e5m2")
MX_MATMUL_DTYPES = frozenset({("fp32", a, b) for a in _FP4 for b in _FP4} | {("fp32", a, b) for a in _FP8 for b in _FP8})

# A row of a RowMajor tile without fractal boxes (a column of a ColMajor one) is a whole number
# of these blocks.
BLOCK_BYTES = 32


# pto-isa's typed events (`Event<Op::A, Op::B>`) name instruction classes, not instructions; each
# class belongs to one pipe, and the event's flag runs between those two pipes. Classes not listed
# here are vector (PIPE_V) classes; OP_COUNT belongs to no pipe.
_EVENT_CLASSES_OFF_V = {
    "MTE2": "TLOAD TEXPANDS_MAT TPREFETCH TFILLPAD_MAT MGATHER_MAT",
    "MTE3": "TSTORE_VEC TSTORE_MAT",
    "S": "SCALAR TRESHAPE TCI SETFMATRIX SET_IMG2COL_RPT SET_IMG2COL_PADDING",
    "FIX": "TMOV_V2M TEXTRACT_V2M TMOV_M2S TMOV_A2V TMOV_A2M TSTORE_ACC TEXTRACT_A2M TINSERT_A2M",
    "MTE1": "TMOV_M2B TMOV_M2L TMOV_M2R TEXTRACT_M2LR TIMG2COL",
    "M": "TMATMUL TGEMV",
}
EVENT_CLASS_PIPE: dict[str, str] = {c: pipe for pipe, names in _EVENT_CLASSES_OFF_V.items() for c in names.split()}


def event_class_pipe(op_class: str) -> str | None:
    """The pipe of an `Op::NAME` event class; None for a name that is no class (OP_COUNT, typos)."""
    if op_class in EVENT_CLASS_PIPE:
        return EVENT_CLASS_PIPE[op_class]
    return None if op_class == "OP_COUNT" or not op_class.isupper() else "V"


# MGATHER into an L1 (Mat) tile, split between the core types as pto-isa compiles it for each:
# the cube core does the whole gather (the scalar walk of the indices, the MTE2 copy into L1),
# and a vector core does nothing, since L1 is the cube core's. With a5's `GatherExec::Simt` the
# first vector core (subblock 0) gathers into the GM staging area instead (a SIMT grid its scalar
# unit waits for) and raises cluster semaphore SIMT_GATHER_SEMAPHORE from PIPE_S; the cube core
# waits for it on MTE2 and then copies the staging area into L1. The second vector core does nothing.
SIMT_GATHER_SEMAPHORE = 2


def l1_gather_part(template: Mapping[str, str], core: str, subblock, arch: ArchProfile) -> str:
    """What `core` ("vec" or "cube"; subblock 0 or 1, None when not known) does of an MGATHER
    into a Mat tile: "whole", "none", "simt-gather" (vector core: GM staging area, then the
    signal) or "simt-copy" (cube core: wait for the signal, then copy into L1)."""
    simt = arch.name == "a5" and template.get("GatherExec") == "Simt"
    if core == "cube":
        return "simt-copy" if simt else "whole"
    if not simt or subblock == 1:
        return "none"
    return "simt-gather"


# Instructions whose pto-isa implementation drains a pipe before its own work, per architecture.
# a2a3's TSTORE_FP (TSTORE of an accumulator with a Scaling tile) points the fixpipe at its
# quantisation parameters and then issues pipe_barrier(PIPE_FIX) before the store, so every
# earlier FIX instruction (the TMOV that fills the Scaling tile from L1) has completed; a5's does not.
DRAINS_BEFORE: dict[tuple[str, str], str] = {("a2a3", "TSTORE_FP"): "FIX"}


def drains_before(op: str, arch: str) -> str | None:
    """The pipe `op`'s implementation drains before its own work on `arch` (`DRAINS_BEFORE`), or
    None. One model for `check`, which issues that barrier before the instruction, and the sync
    planner, which counts it as a barrier inside the instruction with none of its accesses
    before it (`execution.mark_barrier_inside`)."""
    return DRAINS_BEFORE.get((arch, op))

# Vector instructions whose pto-isa a2a3 implementation issues pipe_barrier(PIPE_V) itself, part way
# through its own work (see `vector_barrier_inside`).
# - The float and half row reductions reduce in steps through their scratch tile, a barrier after
#   each step and after the last (the one writing the destination): the whole instruction is done
#   before any later vector instruction starts. Integer sources take another path (a scalar sum),
#   and a source row of one to two 256-byte repeats with a source or scratch tile narrower than
#   256 bytes a row returns without doing anything (no barrier either).
ROW_REDUCTIONS_DRAINED = frozenset({"TROWSUM", "TROWMAX", "TROWMIN"})
_DRAINED_REDUCTION_TYPES = frozenset({"fp32", "fp16"})
# - The binary row broadcasts given a column vector (a tile that is not row-major, one value per
#   row) first broadcast it into their scratch (the hidden UB scratch range, or the `tmp` tile of
#   the four-tile form), then pipe_barrier(PIPE_V), then compute: every earlier vector instruction is
#   done before the computation reads or writes the full tiles. The broadcast itself (reading the
#   column vector, writing the scratch) is not ordered after them. With a row-major vector (one
#   32-byte block per row) the three-tile forms compute straight from it: no scratch, no barrier.
ROW_BROADCASTS_WITH_BARRIER = frozenset(
    {"TROWEXPANDADD", "TROWEXPANDSUB", "TROWEXPANDMUL", "TROWEXPANDDIV", "TROWEXPANDMAX", "TROWEXPANDMIN"})


def vector_barrier_inside(op: str, arch: str, layouts: list[str], dtypes: list[str],
                          row_bytes: list[tuple[float, float | None]]) -> int | None:
    """Where pto-isa's a2a3 implementation of `op` issues pipe_barrier(PIPE_V) inside the instruction,
    given the block layouts, element types and row widths in bytes (capacity, valid; valid None when
    it is not known) of its tile operands in order: None if it does not (or may not); -1 after all
    of its work (a drained row reduction); otherwise the position (among the tile operands) of the
    column vector that a row broadcast reads before the barrier, along with its scratch write, the
    rest of its work coming after it. One model for `check` (the execution trace) and the sync
    planner (the bounded trace): `execution.mark_barrier_inside`."""
    if arch != "a2a3":
        return None
    if op in ROW_REDUCTIONS_DRAINED and len(dtypes) == 3 and dtypes[1] in _DRAINED_REDUCTION_TYPES:
        capacity, valid = row_bytes[1]
        narrow = min(capacity, row_bytes[2][0]) < 256
        # A width not known may be the one that returns early, if the source row can hold it.
        degenerate = narrow and (capacity > 256 if valid is None else 1 < valid / 256 < 2)
        return None if degenerate else -1
    if op in ROW_BROADCASTS_WITH_BARRIER and len(layouts) in (3, 4) and layouts[0] == "RowMajor":
        columns = [i for i in (1, 2) if layouts[i] != "RowMajor"]
        if len(columns) == 1:
            return columns[0]
    return None
