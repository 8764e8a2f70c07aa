"""Operand checks: every instruction's operands against what the instruction needs.

The rules are data in `analysis.instructions` (`OPERAND_RULES`, `MATMUL_DTYPES`): the TileType of
each tile operand, which operands share an element type and a valid shape. Besides them, this
module checks what holds for every kernel of the spec (§3) and of pto-isa's own compile-time checks:

- a tile's shape: positive, and a row of a RowMajor tile without fractal boxes (a column of a
  ColMajor one) a whole number of 32-byte blocks. A valid shape given to the constructor may
  exceed the capacity (pto-isa does not check it): it matters only where an instruction uses it,
  and the execution checks it there (a scratch tile's valid shape never matters; an empty valid
  region touches nothing);
- TLOAD / TSTORE copy bytes unconverted between GM and UB or L1: the tile's element has the size
  of the GM tensor's (fixpipe stores from L0C convert, so they are exempt);
- matmul element types (acc, left, right) are a combination the cube unit has; the left tile's
  k fits the right tile, and the product fits the accumulator;
- TSUBVIEW / TRESHAPE aliases stay inside their base tile (when the offset is a constant; the
  execution checks every other offset when it runs), TSUBVIEW keeps the block layout. In AUTO
  mode a constant TSUBVIEW that reaches past its base tile is accepted with a warning: pto-isa's
  AUTO compiler aliases by byte offset (`__cce_alias`), so the base tile's place reserves the bytes
  the view reaches (`TileDecl.overhang`). In manual mode TSUBVIEW is an address computation
  (`TASSIGN(dst, src.data() + offset)`) and may name any bytes of the buffer; the execution checks
  that the view lies inside it;
- a manual TASSIGN with a constant address is aligned for its buffer and fits in it (for `check`
  a finding of the kernel, not a refusal);
- MGATHER into an L1 tile reads GM with the scalar unit: nothing else in the kernel writes the
  GM it reads or touches its GM staging area.

Each problem is a located error naming the operand, what it is and what the instruction needs.
Checks whose answer depends on run-time values (dynamic valid shapes, symbolic offsets) are left
to the execution or skipped: the module never rejects a kernel it cannot prove wrong.
"""

from __future__ import annotations

from fractions import Fraction

from ptorewrite.analysis import ir
from ptorewrite.analysis.instructions import (
    BLOCK_BYTES,
    MATMUL_DTYPES,
    MX_MATMUL_DTYPES,
    OPERAND_RULES,
    base_form,
)
from ptorewrite.arch import ArchProfile
from ptorewrite.diagnostics import Diagnostic, PtoError, Reporter, to_location

MAX_ERRORS = 20


def check_operands(kernel: ir.Kernel, arch: ArchProfile, reporter: Reporter | None = None,
                   placement_findings: list[Diagnostic] | None = None) -> None:
    """Raise PtoError with every operand problem of `kernel` (at most MAX_ERRORS of them).

    With `placement_findings`, a manual TASSIGN that is misaligned or reaches past its buffer is
    appended there instead: `check` reports it as a finding of the kernel and goes on checking
    (the bytes past the end are still distinct bytes to the race analysis)."""
    errors: list[Diagnostic] = []

    def error(message: str, loc) -> None:
        d = Diagnostic("error", message, to_location(loc))
        if d not in errors:
            errors.append(d)

    for tile in kernel.tiles:
        _check_tile_shape(tile, error)
        if tile.packed and reporter is not None:
            step = "a byte per column, as pto-isa's vector paths step" if tile.tile_type == "Vec" else \
                "two values a byte, as pto-isa's cube-side paths move them"
            reporter.warn(f"tile '{tile.cpp_name or tile.name}' holds packed {tile.dtype} values: every access counts "
                          f"as touching its whole {tile.storage_bytes} B ({step}), and the emulator does not compute "
                          "them", tile.loc)
    _check_scalar_gm_walks(kernel, error)
    if kernel.mode == "auto":
        reserve_alias_reach(kernel, reporter)  # the front end has done it; kernels built otherwise
    for s in ir.walk(kernel.body):
        if isinstance(s, ir.Instr):
            _check_instr(s, arch, error, reporter)
        elif isinstance(s, ir.AliasDef):
            _check_alias(s, error, reach=kernel.mode == "auto" or s.kind == "TRESHAPE")
        elif isinstance(s, ir.TileAssign):
            _check_tassign(s, arch, error if placement_findings is None else _collector(placement_findings))
    if errors:
        raise PtoError.many(errors[:MAX_ERRORS])


def _collector(findings: list[Diagnostic]):
    def collect(message: str, loc) -> None:
        d = Diagnostic("error", message, to_location(loc))
        if d not in findings:
            findings.append(d)
    return collect


def _name(ref: ir.TileRef | ir.TileDecl) -> str:
    tile = ref.tile if isinstance(ref, ir.TileRef) else ref
    name = tile.cpp_name or tile.name
    return f"{name}[{ref.index}]" if isinstance(ref, ir.TileRef) and ref.index is not None else name


def _a(word: str) -> str:
    return f"an {word}" if word[:1] in "AEIOU" else f"a {word}"


def _describe(t: ir.TileDecl) -> str:
    return f"{_a(t.tile_type)} {t.dtype} {t.rows}x{t.cols} tile"


def _const(e) -> int | None:
    if e is None:
        return None
    v = e.const_value()
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _valid_shape(t: ir.TileDecl) -> tuple[int, int] | None:
    r, c = _const(t.valid_rows), _const(t.valid_cols)
    return (r, c) if r is not None and c is not None else None


# ---------------------------------------------------------------- tiles


def _check_tile_shape(t: ir.TileDecl, error) -> None:
    name = t.cpp_name or t.name
    if t.rows <= 0 or t.cols <= 0:
        error(f"tile '{name}' has {t.rows} rows and {t.cols} columns; a tile needs at least one of each", t.loc)
        return
    if t.slayout != "NoneBox" or t.dtype not in ir.DTYPE_BYTES:
        return
    elem = Fraction(max(1, t.elem_bytes) if t.packed else t.elem_bytes)  # pto-isa: sizeof(DType), 1 when packed
    if t.blayout == "RowMajor":
        line, what = t.cols * elem, f"a row of {t.cols} x {_bytes(elem)}"
    else:
        line, what = t.rows * elem, f"a column of {t.rows} x {_bytes(elem)}"
    if line % BLOCK_BYTES:
        error(f"tile '{name}' ({t.tile_type} {t.dtype} {t.rows}x{t.cols}, {t.blayout}): {what} = {_bytes(line)} is "
              f"not a multiple of the {BLOCK_BYTES}-byte block a {t.blayout} tile without fractal boxes needs",
              t.loc)


def _bytes(n: Fraction) -> str:
    return f"{n} B" if n.denominator == 1 else f"{float(n):g} B"


# ---------------------------------------------------------------- instructions


def _check_instr(s: ir.Instr, arch: ArchProfile, error, reporter: Reporter | None) -> None:
    tiles = [a for a in s.args if a.kind == "tile"]
    refs: list[ir.TileRef] = [a.value for a in tiles]  # type: ignore[misc]
    rule = OPERAND_RULES.get(s.op)
    if rule is not None:
        types = rule.types_for(len(refs))
        for i, (arg, ref) in enumerate(zip(tiles, refs)):
            allowed = types[min(i, len(types) - 1)] if types else None
            if allowed and ref.tile.tile_type not in allowed:
                need = " or ".join(sorted(allowed))
                error(f"{s.op} operand {i + 1} '{arg.text}' is {_describe(ref.tile)}; {s.op} needs {_a(need)} tile "
                      f"there", s.loc)
        _agree(s, tiles, rule.same_dtype, "element type", lambda t: t.dtype, error)
        _agree(s, tiles, rule.same_valid_shape, "valid shape", _valid_shape, error,
               show=lambda v: f"{v[0]}x{v[1]}")
    if base_form(s.op) in ("TLOAD", "TSTORE"):
        _check_gm_copy(s, error, reporter)
    elif s.op.startswith(("TMATMUL", "TGEMV")):
        _check_matmul(s, refs, tiles, arch, error)


def _check_scalar_gm_walks(kernel: ir.Kernel, error) -> None:
    """MGATHER into an L1 tile (GM indices, GM staging area) walks its indices, and in the element
    form the table, with the scalar unit, which writes the staging area too; only the final copy
    into L1 runs on MTE2. No pipe flag orders the scalar unit's GM accesses, so the kernel may
    not write those tensors' GM, nor touch the staging area, anywhere else."""
    walks = [s for s in ir.walk(kernel.body) if isinstance(s, ir.Instr) and s.op == "MGATHER"
             and sum(a.kind == "gm" for a in s.args) == 3]
    if not walks:
        return
    accesses = [(s, a) for s in ir.walk(kernel.body) if isinstance(s, ir.Instr) for a in s.args
                if a.kind == "gm" or (a.kind == "raw" and a.value.space == "GM")]
    for walk in walks:
        table, idx, stage = (a for a in walk.args if a.kind == "gm")
        for s, a in accesses:
            if s is walk:
                continue
            param = a.value.tensor.param if a.kind == "gm" else a.value.param  # raw copies and element accesses
            hit = None
            if param == stage.value.tensor.param:
                hit = f"its staging area '{stage.text}'"
            elif "w" in a.access and param in (table.value.tensor.param, idx.value.tensor.param):
                hit = f"GM its scalar walk reads ('{param}')"
            if hit is not None:
                error(f"{s.op} at {s.loc.line}:{s.loc.col} touches {hit}: MGATHER into an L1 tile reads its "
                      "indices (and an element table) and writes its staging area with the scalar unit, which "
                      "no pipe flag orders", walk.loc)
                break


def _agree(s: ir.Instr, tiles: list[ir.Arg], positions, what: str, key, error, show=str) -> None:
    present = [i for i in positions if i < len(tiles)]
    if len(present) < 2:
        return
    first = present[0]
    want = key(tiles[first].value.tile)
    if want is None:
        return
    for i in present[1:]:
        got = key(tiles[i].value.tile)
        if got is not None and got != want:
            error(f"{s.op} operand {i + 1} '{tiles[i].text}' has {what} {show(got)} but operand {first + 1} "
                  f"'{tiles[first].text}' has {show(want)}; {s.op} needs one {what} for them", s.loc)
            return


def _check_gm_copy(s: ir.Instr, error, reporter: Reporter | None) -> None:
    tile_arg = next((a for a in s.args if a.kind == "tile"), None)
    gm_arg = next((a for a in s.args if a.kind == "gm"), None)
    if tile_arg is None or gm_arg is None:
        return
    tile, gm = tile_arg.value.tile, gm_arg.value.tensor
    if base_form(s.op) == "TSTORE" and tile.tile_type == "Acc":
        return  # the fixpipe converts on the way out
    if tile.dtype == gm.dtype or "auto" in (tile.dtype, gm.dtype):
        return
    tb, gb = ir.DTYPE_BYTES.get(tile.dtype), ir.DTYPE_BYTES.get(gm.dtype)
    if tb is None or gb is None:
        return
    if tb != gb:
        error(f"{s.op} tile '{tile_arg.text}' holds {tile.dtype} ({_bytes(Fraction(tb))} elements) but GM tensor "
              f"'{gm_arg.text}' holds {gm.dtype} ({_bytes(Fraction(gb))}); {s.op} copies bytes without converting "
              "and needs elements of one size", s.loc)
    elif reporter is not None:
        reporter.warn(f"{s.op} copies {gm.dtype} data of '{gm_arg.text}' and {tile.dtype} data of '{tile_arg.text}' "
                      "bit for bit (no conversion)", s.loc)


def _check_matmul(s: ir.Instr, refs: list[ir.TileRef], tiles: list[ir.Arg], arch: ArchProfile, error) -> None:
    by_type = {}
    for arg, ref in zip(tiles, refs):
        by_type.setdefault(ref.tile.tile_type, (arg, ref.tile))
    if not all(k in by_type for k in ("Acc", "Left", "Right")):
        return  # the TileType check has said what is missing
    (acc_arg, acc), (left_arg, left), (right_arg, right) = by_type["Acc"], by_type["Left"], by_type["Right"]
    combos = MX_MATMUL_DTYPES if "_MX" in s.op else MATMUL_DTYPES.get(arch.name, frozenset())
    if (acc.dtype, left.dtype, right.dtype) not in combos:
        known = ", ".join(f"{a} <- {l_} x {r}" for a, l_, r in sorted(combos))
        error(f"{s.op} multiplies '{left_arg.text}' ({left.dtype}) by '{right_arg.text}' ({right.dtype}) into "
              f"'{acc_arg.text}' ({acc.dtype}); the cube unit on {arch.name} takes {known}", s.loc)
    if len(refs) == 4 and s.op.endswith("_ACC") and refs[1].tile.dtype != acc.dtype:
        error(f"{s.op} accumulates '{tiles[1].text}' ({refs[1].tile.dtype}) into '{acc_arg.text}' ({acc.dtype}); "
              "both accumulators need one element type", s.loc)
    bias = next(((a, r.tile) for a, r in zip(tiles, refs) if r.tile.tile_type == "Bias"), None)
    if bias is not None and bias[1].dtype != acc.dtype:
        error(f"{s.op} bias '{bias[0].text}' holds {bias[1].dtype} but the accumulator '{acc_arg.text}' holds "
              f"{acc.dtype}; the bias needs the accumulator's element type", s.loc)
    lv = _valid_shape(left) or (left.rows, left.cols)
    m, k = lv
    n = (_valid_shape(right) or (right.rows, right.cols))[1]
    if right.rows < k:
        error(f"{s.op} left '{left_arg.text}' is {m}x{k} but right '{right_arg.text}' has only {right.rows} rows; "
              f"the right tile needs k = {k} rows", s.loc)
    if acc.rows < m or acc.cols < n:
        error(f"{s.op} computes a {m}x{n} product but the accumulator '{acc_arg.text}' is {acc.rows}x{acc.cols}",
              s.loc)


# ---------------------------------------------------------------- aliases and placements


def _alias_end(s: ir.AliasDef) -> float | None:
    """One past the last byte of the base tile that the alias's valid region covers (its rows keep
    its own row stride), or None when the offset or the valid shape is not a constant."""
    dst = s.dst.tile
    off, valid = _const(s.offset_bytes), _valid_shape(dst)
    if off is None or valid is None or dst.dtype not in ir.DTYPE_BYTES:
        return None
    vr, vc = valid
    rs, cs = (dst.cols, 1) if dst.blayout == "RowMajor" else (1, dst.rows)
    return off + (((vr - 1) * rs + (vc - 1) * cs + 1) * dst.elem_bytes if vr and vc else 0)


def reserve_alias_reach(kernel: ir.Kernel, reporter: Reporter | None) -> None:
    """AUTO mode: a TSUBVIEW with a constant offset that reaches past the capacity of the tile that
    owns its bytes grows that tile's reservation (`overhang`) to cover it, with a warning. The
    dynamic-offset views are checked against the reservation when the execution runs them."""
    for s in ir.walk(kernel.body):
        if not isinstance(s, ir.AliasDef) or s.kind != "TSUBVIEW":
            continue
        end = _alias_end(s)
        root = s.src.tile
        while end is not None and root.alias is not None:  # a view of a view: offsets add up
            up = _const(root.alias.offset_bytes)
            end = None if up is None else end + up
            root = root.alias.base.tile
        if end is None or _const(s.offset_bytes) < 0:
            continue
        need = -int(-end // 1) - root.capacity_bytes  # whole bytes (4-bit elements take half)
        if need <= root.overhang:
            continue
        root.overhang = need
        if reporter is not None:
            reporter.warn(f"TSUBVIEW '{_name(s.dst)}' reaches {need} B past its base tile '{root.cpp_name or root.name}' "
                          f"({root.capacity_bytes} B); the tile's place reserves {root.capacity_bytes + need} B, as "
                          "the AUTO compiler's byte-offset alias needs", s.loc)


def _check_alias(s: ir.AliasDef, error, reach: bool) -> None:
    """The block layout of a sub-view; with `reach`, that the alias stays inside its base tile."""
    dst, src = s.dst.tile, s.src.tile
    if s.kind == "TSUBVIEW" and dst.blayout != src.blayout:
        error(f"TSUBVIEW destination '{_name(s.dst)}' is {dst.blayout} but its source '{_name(s.src)}' is "
              f"{src.blayout}; a sub-view keeps its base tile's block layout", s.loc)
    off, end = _const(s.offset_bytes), _alias_end(s)
    if end is None or not reach:
        return
    vr, vc = _valid_shape(dst)
    if off < 0 or end > max(src.nbytes, src.storage_bytes):
        error(f"{s.kind} '{_name(s.dst)}' ({vr}x{vc} valid of {dst.rows}x{dst.cols} {dst.dtype}) at byte {off} of "
              f"'{_name(s.src)}' ({src.nbytes} B) reaches byte {end:g}, outside its base tile", s.loc)


def _check_tassign(s: ir.TileAssign, arch: ArchProfile, error) -> None:
    addr = _const(s.address)
    tile = s.ref.tile
    if addr is None or tile.tile_type not in ("Vec", "Mat", "Left", "Right", "Acc", "Bias", "Scaling"):
        return
    buf = arch.buffer_of(tile.tile_type)
    if addr % buf.alignment:
        error(f"TASSIGN places '{_name(s.ref)}' at 0x{addr:x}, which is not a multiple of {buf.alignment}: "
              f"{tile.tile_type} tiles ({buf.name}) need {buf.alignment}-byte alignment", s.loc)
    if addr < 0 or addr + tile.nbytes > buf.capacity:
        error(f"TASSIGN places '{_name(s.ref)}' ({tile.nbytes} B) at 0x{addr:x}, ending at 0x{addr + tile.nbytes:x}, "
              f"outside {buf.name} ({buf.capacity} B)", s.loc)
