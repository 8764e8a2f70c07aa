"""Device intrinsics below the PTO instructions: raw DMA copies, fills, and scalar accesses
through pointers into on-chip buffers.

Hand-written kernels (pto-isa's SYNCALL tests, its raw L1 -> GM stores) move data with the
intrinsics the PTO instructions are built from, at addresses they compute themselves. Each call is
lowered to an instruction on the pipe that runs it, whose operands are `ir.RawRegion`s: the bytes
of each side, burst by burst, computed from the call's arguments. The race check then orders them
against everything else like any other instruction; the emulator has no semantics for them, so
`simulate` and `verify` refuse them.

Facts the footprints rest on (pto-isa's implementation headers and its test kernels):
* Block-counted copies `copy_<src>_to_<dst>(dst, src, sid, nBurst, lenBurst, srcGap, dstGap[, pad])`
  count the burst length and both gaps in 32-byte blocks; burst i starts `i * (lenBurst + gap)`
  blocks after the first on each side.
* a2a3's `_align_b8/_b16/_b32` copies take the burst length in bytes. GM -> UB:
  `(dst, src, sid, nBurst, lenBytes, leftPad, rightPad, gmGapBytes, ubGapBlocks)`; UB -> GM:
  `(dst, src, sid, nBurst, lenBytes, leftPad, rightPad, ubGapBlocks, gmGapBytes)`. A UB burst
  occupies whole 32-byte blocks (padding included).
* a5's `_align_v2` copies take the length in bytes and start-to-start strides in bytes. GM -> UB/L1:
  `(dst, src, sid, nBurst, lenBytes, leftPad, rightPad, dataSelect, l2Cache, srcStride, dstStride)`;
  UB -> GM: `(dst, src, sid, nBurst, lenBytes, l2Cache, dstStride, srcStride)`.
* Pipes: GM -> UB/L1 on MTE2, UB/L1 -> GM on MTE3, L1 -> UB on MTE1, UB -> L1 on the store engine
  (MTE3), `create_cbuf_matrix` (fill L1 blocks with a value) on MTE2, `vector_dup` on V.
* `create_cbuf_matrix(dst, config, value)`: bits 0..14 of config are the repeats, bits 16..30 the
  32-byte blocks each repeat fills, bits 32..46 the blocks skipped between repeats.
* `vector_dup(dst, value, repeat, dstBlockStride, srcBlockStride, dstRepeatStride, srcRepeatStride)`
  writes 8 blocks of 32 bytes per repeat, `dstBlockStride` blocks apart, repeats `dstRepeatStride`
  blocks apart; it is counted here as the hull of each repeat's blocks (a superset). After
  `set_mask_count()` the repeat count is ignored and the vector mask's low word counts elements
  (dense strides, 1 and 8: exactly those elements, in whole blocks).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const, Expr, binop
from ptorewrite.analysis.instructions import PipeRuleError, lookup, pipe_of
from ptorewrite.parse import cparse as cp
from ptorewrite.parse.values import LocalPtr, Ptr, Scope, describe, elem_bytes

BLOCK = 32  # bytes in a DMA / vector block
# Address-space qualifiers of on-chip pointers and the buffer each names.
SPACE_BUFFER = {"__ubuf__": "UB", "__cbuf__": "L1", "__ca__": "L0A", "__cb__": "L0B", "__cc__": "L0C",
                "__fbuf__": "FB"}


@dataclass(frozen=True)
class RawCopy:
    """How one copy intrinsic lays its arguments out (positions after dst, src)."""

    dst: str  # buffer name or "GM"
    src: str
    pipe: str
    form: str  # "blocks", "align_b", "align_v2"


def _copies() -> dict[str, RawCopy]:
    table: dict[str, RawCopy] = {}
    pairs = {("gm", "ubuf"): ("UB", "GM", "MTE2"), ("ubuf", "gm"): ("GM", "UB", "MTE3"),
             ("gm", "cbuf"): ("L1", "GM", "MTE2"), ("cbuf", "gm"): ("GM", "L1", "MTE3"),
             ("cbuf", "ubuf"): ("UB", "L1", "MTE1"), ("ubuf", "cbuf"): ("L1", "UB", "MTE3")}
    for (a, b), (dst, src, pipe) in pairs.items():
        table[f"copy_{a}_to_{b}"] = RawCopy(dst, src, pipe, "blocks")
        if "gm" in (a, b):
            table[f"copy_{a}_to_{b}_align_v2"] = RawCopy(dst, src, pipe, "align_v2")
            for bits in (8, 16, 32):
                table[f"copy_{a}_to_{b}_align_b{bits}"] = RawCopy(dst, src, pipe, "align_b")
    return table


RAW_COPIES = _copies()
RAW_FILLS = frozenset({"create_cbuf_matrix", "create_cbuf_matrix_bf16", "vector_dup"})
# a5's MX scale moves, L1 -> the scale buffer beside L0A / L0B, on MTE1.
RAW_MX_LOADS = {"load_cbuf_to_ca_mx": "L0A_SCALE", "load_cbuf_to_cb_mx": "L0B_SCALE"}
RAW_MX_MATMUL = "mad_mx"
RAW_INTRINSICS = frozenset(RAW_COPIES) | RAW_FILLS | frozenset(RAW_MX_LOADS) | {RAW_MX_MATMUL}
# The MX scale buffers are addressed at the L0A / L0B address shifted right by this (pto-isa's
# TGET_SCALE_ADDR): one scale byte per 16 bytes of operand at most.
MX_ADDRESS_SHIFT = 4
MX_FRACTAL = 32  # bytes of one scale fractal: 16 rows of 2 one-byte scales


def _c(v: int) -> Expr:
    return Const(v)


def _round_up(e: Expr, unit: int) -> Expr:
    return binop("*", binop("/", binop("+", e, _c(unit - 1)), _c(unit)), _c(unit))


def _bits(e: Expr, shift: int) -> Expr:
    return binop("&", binop(">>", e, _c(shift)) if shift else e, _c(0x7FFF))


class RawLowering:
    """Mixin of `Lowering`: raw intrinsics and scalar accesses through on-chip pointers."""

    # Vector mask mode as the calls lowered so far left it: None (normal) or the element count
    # of `set_vector_mask(0, n)` after `set_mask_count()`.
    _mask_count_mode: bool = False
    _mask_count: Expr | None = None

    def note_mask_call(self, name: str, node: cp.Call, scope: Scope) -> None:
        if name == "set_mask_count":
            self._mask_count_mode = True
        elif name == "set_mask_norm":
            self._mask_count_mode = False
        elif name == "set_vector_mask" and len(node.args) == 2:
            self._mask_count = self.scalar(node.args[1], scope)

    def on_chip_pointer(self, address: Expr, dtype: str, qualifiers, offset: int) -> LocalPtr:
        """`(__ubuf__ T *)addr`: a pointer into that buffer at that byte address."""
        space = next((SPACE_BUFFER[q] for q in qualifiers if q in SPACE_BUFFER), None)
        if space is None:
            raise self.error("integer-to-pointer casts are supported only into an on-chip buffer (__ubuf__, "
                             "__cbuf__, ...); a GM pointer must be derived from a kernel argument", offset)
        if space not in self.arch.buffers:
            raise self.error(f"this architecture has no {space} buffer", offset)
        return LocalPtr(address, dtype, space)

    def _region(self, v, what: str, node: cp.Node, count: Expr, length: Expr, stride: Expr,
                want: str) -> ir.RawRegion:
        if isinstance(v, ir.TileDecl) and v.count is None:
            v = ir.TileRef(v, None)
        if isinstance(v, ir.TileRef):  # `__cce_get_tile_ptr(tile)`: the tile's own address
            v = self.tile_pointer(v, node.offset)
        if want == "GM":
            if not isinstance(v, Ptr):
                raise self.error(f"the {what} of this copy must be a GM pointer derived from a kernel argument, "
                                 f"found {describe(v)}", node.offset)
            return ir.RawRegion("GM", v.param, v.offset_bytes, count, length, stride)
        if not isinstance(v, LocalPtr):
            raise self.error(f"the {what} of this copy must be a pointer into {want}, found {describe(v)}",
                             node.offset)
        if v.space is None:
            raise self.error(f"the buffer this {what} pointer points into is not known here; declare it with "
                             "its address-space qualifier (__ubuf__, __cbuf__, ...)", node.offset)
        if v.space != want:
            raise self.error(f"the {what} of this copy must point into {want}, but it points into {v.space}",
                             node.offset)
        return ir.RawRegion(v.space, None, v.address, count, length, stride)

    def lower_raw_intrinsic(self, name: str, node: cp.Call, scope: Scope, loc: ir.SourceRange) -> ir.Instr:
        if self.auto_mode:
            raise self.error(f"'{name}' addresses buffers directly, which an AUTO-mode kernel cannot do: the "
                             "rewrite places every tile itself", node.offset)
        self.manual = True  # it works at addresses the kernel chose: a hand-written kernel
        args = node.args
        if name in RAW_COPIES:
            spec = RAW_COPIES[name]
            need = {"blocks": 7, "align_b": 9, "align_v2": 8 if spec.dst == "GM" else 11}[spec.form]
            if len(args) < need:
                raise self.error(f"{name} takes {need} arguments, found {len(args)}", node.offset)
            dst, src = (self.eval(a, scope) for a in args[:2])
            n = [self.scalar(a, scope) for a in args[2:need]]
            n_burst, length = n[1], n[2]
            if spec.form == "blocks":
                run = binop("*", length, _c(BLOCK))
                src_step = binop("*", binop("+", length, n[3]), _c(BLOCK))
                dst_step = binop("*", binop("+", length, n[4]), _c(BLOCK))
                src_run = dst_run = run
            elif spec.form == "align_b":
                pad = binop("*", binop("+", n[3], n[4]), _c(elem_bytes(getattr(dst, "dtype", "uint8"))))
                if spec.src == "GM":  # gaps: GM bytes, then UB blocks
                    src_run, src_step = length, binop("+", length, n[5])
                    dst_run = _round_up(binop("+", length, pad), BLOCK)
                    dst_step = binop("+", dst_run, binop("*", n[6], _c(BLOCK)))
                else:  # UB -> GM: gaps UB blocks, then GM bytes
                    src_run = _round_up(length, BLOCK)
                    src_step = binop("+", src_run, binop("*", n[5], _c(BLOCK)))
                    dst_run, dst_step = length, binop("+", length, n[6])
            elif spec.src == "GM":  # align_v2 GM -> UB/L1: padding lands in the on-chip burst
                pad = binop("*", binop("+", n[3], n[4]), _c(elem_bytes(getattr(dst, "dtype", "uint8"))))
                src_run, src_step = length, n[7]
                dst_run, dst_step = _round_up(binop("+", length, pad), BLOCK), n[8]
            else:  # align_v2 UB -> GM
                src_run, src_step = _round_up(length, BLOCK), n[5]
                dst_run, dst_step = length, n[4]
            regions = (self._region(dst, "destination", args[0], n_burst, dst_run, dst_step, spec.dst),
                       self._region(src, "source", args[1], n_burst, src_run, src_step, spec.src))
            instr = self._raw_instr(name, spec.pipe, regions, node, loc)
            if name == "copy_cbuf_to_ubuf":
                # On a5 the cube core's L1 -> UB copy names the vector core whose UB it writes
                # (0 or 1) in its third argument; a2a3 passes 0 there (its stream id).
                instr.args += (ir.Arg("scalar", n[0], "", self.node_text(args[2]) or str(n[0])),)
            return instr
        if name in RAW_MX_LOADS:
            return self._mx_scale_load(name, node, scope, loc)
        if name == RAW_MX_MATMUL:
            return self._mx_matmul(node, scope, loc)
        dst = self.eval(args[0], scope) if args else None
        if name.startswith("create_cbuf_matrix"):
            if len(args) != 3:
                raise self.error(f"{name} takes 3 arguments, found {len(args)}", node.offset)
            cfg = self.scalar(args[1], scope)
            self.eval(args[2], scope)
            blocks = _bits(cfg, 16)
            region = self._region(dst, "destination", args[0], _bits(cfg, 0), binop("*", blocks, _c(BLOCK)),
                                  binop("*", binop("+", blocks, _bits(cfg, 32)), _c(BLOCK)), "L1")
            return self._raw_instr(name, "MTE2", (region,), node, loc)
        # vector_dup
        if len(args) != 7:
            raise self.error(f"{name} takes 7 arguments, found {len(args)}", node.offset)
        self.eval(args[1], scope)
        repeat, blk, _, rep, _ = (self.scalar(a, scope) for a in args[2:])
        if self._mask_count_mode:
            if self._mask_count is None:
                raise self.error("vector_dup in counter mode needs set_vector_mask(0, n) before it", node.offset)
            es = elem_bytes(getattr(dst, "dtype", "uint8"))
            span = binop("*", self._mask_count, _c(es))
            if blk.const_value() == 1 and rep.const_value() == 8:  # dense: the n elements, in whole blocks
                region = self._region(dst, "destination", args[0], _c(1), _round_up(span, BLOCK),
                                      _round_up(span, BLOCK), "UB")
                return self._raw_instr(name, "V", (region,), node, loc)
            repeat = binop("/", binop("+", span, _c(8 * BLOCK - 1)), _c(8 * BLOCK))
        hull = binop("*", binop("+", binop("*", _c(7), blk), _c(1)), _c(BLOCK))
        region = self._region(dst, "destination", args[0], repeat, hull, binop("*", rep, _c(BLOCK)), "UB")
        return self._raw_instr(name, "V", (region,), node, loc)

    def lower_nd_to_nz_step(self, node: cp.Call, scope: Scope, loc: ir.SourceRange) -> ir.Instr:
        """`TMovToVecNd2Nz<T, Dst, Src>(dst.data(), src.data(), validRow, validCol, srcValidRow)`:
        the vector-pipe step a5's TMOV runs between an ND and an NZ vector tile, called directly.
        It is the TMOV of the two tiles when the extents are the ones TMOV passes (dst's valid
        rows and columns, src's valid rows); other extents are refused."""
        if len(node.args) not in (5, 6):
            raise self.error(f"TMovToVecNd2Nz takes 5 or 6 arguments, found {len(node.args)}", node.offset)
        dst, src = (self._data_tile(a, scope) for a in node.args[:2])
        extents = [self.scalar(a, scope) for a in node.args[2:5]]
        expected = [dst.tile.valid_rows, dst.tile.valid_cols, src.tile.valid_rows]
        for a, got, want, what in zip(node.args[2:5], extents, expected,
                                      ("dst's valid rows", "dst's valid columns", "src's valid rows")):
            if want is None or got != want:
                raise self.error(f"TMovToVecNd2Nz is read as the TMOV of its two tiles, so this extent must be "
                                 f"{what} ({want if want is not None else 'set at run time'}), found {got}",
                                 a.offset)
        op = lookup("TMOV", self.arch)
        try:
            pipe = pipe_of(op, [dst.tile.tile_type, src.tile.tile_type], self.arch)
        except PipeRuleError as e:
            raise self.error(str(e), node.offset) from None
        args = (ir.Arg("tile", dst, "w", self.node_text(node.args[0]) or str(dst)),
                ir.Arg("tile", src, "r", self.node_text(node.args[1]) or str(src)))
        return ir.Instr("TMOV", pipe, args, (), loc, self.via, uid=next(self._uid))

    def _data_tile(self, a: cp.Node, scope: Scope) -> ir.TileRef:
        """The tile `a` hands over as `tile.data()`."""
        if isinstance(a, cp.Call) and isinstance(a.callee, cp.Member) and a.callee.name == "data" and not a.args:
            return self._tile_arg(a.callee.base, scope, "the object whose data() is passed")
        raise self.error("pass a tile's data() here (the step is read as the TMOV of two tiles)", a.offset)

    def _mx_scale_load(self, name: str, node: cp.Call, scope: Scope, loc: ir.SourceRange) -> ir.Instr:
        """`load_cbuf_to_ca_mx(dstAddr, src, startOuter, startInner, nOuter, nInner, srcStride,
        dstStride)` (and `_cb_mx`): MTE1 copies nOuter rows of nInner 32-byte scale fractals
        from L1 into the scale buffer; the strides count fractals from row to row, the start
        positions are a row and a fractal of the source (pto-isa's a5 TEXTRACT of a scale tile
        passes its 16-row position and its 2-column position there)."""
        space = RAW_MX_LOADS[name]
        if space not in self.arch.buffers:
            raise self.error(f"'{name}' moves MX scales, which this architecture has no buffer for", node.offset)
        if len(node.args) != 8:
            raise self.error(f"{name} takes 8 arguments, found {len(node.args)}", node.offset)
        dst_addr = self.scalar(node.args[0], scope)
        src = self.eval(node.args[1], scope)
        start_outer, start_inner, n_outer, n_inner, src_stride, dst_stride = \
            (self.scalar(a, scope) for a in node.args[2:])
        run = binop("*", n_inner, _c(MX_FRACTAL))
        dst = LocalPtr(dst_addr, "uint8", space)
        skip = binop("*", binop("+", binop("*", start_outer, src_stride), start_inner), _c(MX_FRACTAL))
        src_region = self._region(src, "source", node.args[1], n_outer, run,
                                  binop("*", src_stride, _c(MX_FRACTAL)), "L1")
        src_region = replace(src_region, base=binop("+", src_region.base, skip))
        regions = (self._region(dst, "destination", node.args[0], n_outer, run,
                                binop("*", dst_stride, _c(MX_FRACTAL)), space), src_region)
        return self._raw_instr(name, "MTE1", regions, node, loc)

    def _mx_matmul(self, node: cp.Call, scope: Scope, loc: ir.SourceRange) -> ir.Instr:
        """`mad_mx(c, a, b, m, k, n, ...)`: the cube's MX matmul on PIPE_M. It reads a (L0A) and
        b (L0B), the scales of each at its address shifted right by MX_ADDRESS_SHIFT in the scale
        buffer beside it, and accumulates into c (L0C, read and written: its flags decide whether
        it starts from zero). Counted as whole 16-row fractals of m and n and K rounded up to 64
        elements, its scales as a sixteenth of each operand's bytes (the most a scale byte per 16
        operand bytes takes), a superset of what the unit touches."""
        if "L0A_SCALE" not in self.arch.buffers:
            raise self.error("'mad_mx' multiplies MX operands, which this architecture has no scale buffers for",
                             node.offset)
        if len(node.args) < 6:
            raise self.error(f"mad_mx takes at least 6 arguments, found {len(node.args)}", node.offset)
        c, a, b = (self.eval(x, scope) for x in node.args[:3])
        m, k, n = (self.scalar(x, scope) for x in node.args[3:6])
        for x in node.args[6:]:
            self.scalar(x, scope)
        m16, n16, k64 = _round_up(m, 16), _round_up(n, 16), _round_up(k, 64)

        def operand_bytes(p, rows: Expr, cols: Expr) -> Expr:
            width = ir.DTYPE_BYTES.get(getattr(p, "dtype", "uint8"), 1)
            per_row = binop("/", cols, _c(round(1 / width))) if width < 1 else binop("*", cols, _c(int(width)))
            return binop("*", rows, per_row)

        a_bytes, b_bytes = operand_bytes(a, m16, k64), operand_bytes(b, k64, n16)
        c_bytes = operand_bytes(c, m16, n16)
        regions = [
            self._region(c, "accumulator", node.args[0], _c(1), c_bytes, c_bytes, "L0C"),
            self._region(a, "left operand", node.args[1], _c(1), a_bytes, a_bytes, "L0A"),
            self._region(b, "right operand", node.args[2], _c(1), b_bytes, b_bytes, "L0B"),
        ]
        for r, space in ((regions[1], "L0A_SCALE"), (regions[2], "L0B_SCALE")):
            scale = binop("/", binop("+", r.length, _c((1 << MX_ADDRESS_SHIFT) - 1)), _c(1 << MX_ADDRESS_SHIFT))
            regions.append(ir.RawRegion(space, None, binop(">>", r.base, _c(MX_ADDRESS_SHIFT)), _c(1), scale, scale))
        texts = [self.node_text(x) for x in node.args[:3]]
        texts += [f"scales of {texts[1]}", f"scales of {texts[2]}"]
        args = tuple(ir.Arg("raw", r, access, t or str(r))
                     for r, access, t in zip(regions, ("rw", "r", "r", "r", "r"), texts))
        return ir.Instr("mad_mx", "M", args, (), loc, self.via, uid=next(self._uid))

    def _raw_instr(self, name: str, pipe: str, regions: tuple[ir.RawRegion, ...], node: cp.Call,
                   loc: ir.SourceRange) -> ir.Instr:
        access = ("w", "r")
        out = tuple(ir.Arg("raw", r, access[i], self.node_text(a) or str(r))
                    for i, (r, a) in enumerate(zip(regions, node.args)))
        return ir.Instr(name, pipe, out, (), loc, self.via, uid=next(self._uid))

    def scalar_local_access(self, ptr: LocalPtr, index: Expr, write: bool, text: str, offset: int) -> ir.Instr:
        """`ub[i]` / `*ub` through an on-chip pointer: the scalar unit reads or stores one element
        (an access on PIPE_S, which flags to PIPE_S order)."""
        if ptr.space is None:
            raise self.error("the buffer this on-chip pointer points into is not known here; declare it with "
                             "its address-space qualifier (__ubuf__, __cbuf__, ...)", offset)
        es = elem_bytes(ptr.dtype)
        base = binop("+", ptr.address, binop("*", index, _c(es)))
        region = ir.RawRegion(ptr.space, None, base, _c(1), _c(es), _c(es))
        loc = self.src.range(offset, offset)
        return ir.Instr("ScalarStore" if write else ir.SCALAR_LOAD, "S", (ir.Arg("raw", region, "w" if write else "r",
                                                                              text),), (), loc, self.via,
                        uid=next(self._uid))


def with_space(p: LocalPtr, dtype: str, qualifiers) -> LocalPtr:
    """A cast of an on-chip pointer: the element type changes; a qualifier names its buffer."""
    space = next((SPACE_BUFFER[q] for q in qualifiers if q in SPACE_BUFFER), None)
    return replace(p, dtype=dtype, space=p.space or space)
