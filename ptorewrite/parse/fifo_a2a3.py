"""a2a3 cross-core FIFOs (`TPipe`): TPUSH / TPOP / TFREE / TALLOC through a ring of slots in GM.

On a2a3 the cube core and the vector cores share no on-chip buffer, so a `TPipe<FlagID,
Direction, SlotSize, SlotNum, LocalSlotNum>` keeps its SlotNum slots of SlotSize bytes in GM (the
pipe's first constructor argument, a kernel argument); the consumer copies each tile into one of
LocalSlotNum slots of its own buffer (the UB address, resp. the L1 address, the constructor names),
SlotSize bytes apart. The facts below follow pto-isa's a2a3 implementation
(include/pto/npu/a2a3/TPush.hpp, TPop.hpp, TFree.hpp, TAlloc.hpp) and its ISA pages for
`set_cross_core` / `wait_flag_dev`; the lowering writes them as the IR's own statements:

- Signals are ffts flags in mode 2: `ffts_cross_core_sync(pipe, id)` raises semaphore `id` when the
  earlier work of `pipe` on the calling core is done. From the cube core it reaches both vector
  cores (one set, each vector core's semaphore counts it); from a vector core it counts for the
  cube core, whose `wait_flag_dev(id)` passes only once both vector cores raised it. So a cube-core
  set is a set for each vector core, and a cube-core wait a wait for each. `wait_flag_dev` stalls
  the whole calling core (its scalar unit: nothing after it is issued until it passes); it is a
  cross-core wait on PIPE_S here, which orders every later instruction of the core after it.
- Tile n of a ring uses GM slot n % SlotNum and local slot n % LocalSlotNum. Flags: "filled" is
  FlagID, "freed" FlagID + 1; DIR_BOTH adds the vector-to-cube ring on FlagID + 2 / FlagID + 3,
  whose GM slots follow the cube-to-vector ones (SlotNum * SlotSize bytes further).
- TPUSH: before tile n the producer waits for "freed" when n >= SlotNum and n is a multiple of
  the sync period P (SlotNum when SlotNum <= 2, else SlotNum / 2); then stores the tile into its
  slot (DIR_C2V: the whole accumulator on FIX, its valid rows and columns packed; DIR_V2C: the
  vector core's tile on MTE3, at its half of the slot by the split axis) and raises "filled" on the
  storing pipe (FIX, resp. MTE3).
- TPOP: waits for "filled", points the tile at its local slot, loads its part of the GM slot (its
  half by the split axis and its subblock id) on MTE2, and after every P-th tile raises "freed" on
  MTE2 (once the load is done). TFREE of a tile does nothing: the pop already freed the slot.
- No credits at construction; when the kernel ends, the producer takes back the free signals its
  waits did not take (the destructor: every P-th tile's signal minus the waits it made).
- The GlobalTensor forms: TALLOC waits as TPUSH does and points the tensor at the slot (a vector
  core at its part); TPUSH only raises "filled"; TPOP waits and points the tensor at the slot (a
  vector core at its part); TFREE raises "freed" after every P-th tile.
- `TPUSH<Pipe, AccTile, FixpipeParams<...>>` stores the accumulator through the fixpipe into the
  slot as the quantization's output type; a per-channel quantization also reads the Scaling tile
  the last SET_QUANT_VECTOR named.
"""

from __future__ import annotations

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const, Expr, Var, binop
from ptorewrite.analysis.instructions import lookup, pipe_of, tile_accesses
from ptorewrite.parse import cparse as cp
from ptorewrite.parse import types as ty
from ptorewrite.parse.values import Ptr, Scope, elem_bytes

A2A3_DIRECTIONS = ("DIR_C2V", "DIR_V2C", "DIR_BOTH")
SPLITS = ("TILE_NO_SPLIT", "TILE_UP_DOWN", "TILE_LEFT_RIGHT", "TILE_UP_DOWN_ODD", "TILE_LEFT_RIGHT_ODD")
SECOND_VECTOR_CORE = 16  # the cube core's ids for the second vector core's semaphores
ONE = Const(1)


class A2a3FifoLowering:
    """The a2a3 half of `fifo.FifoLowering` (mixed in; uses its `_ring`, `_bind_slot`, `_pipes`)."""

    core: str = ""

    # ffts flags in mode 2, as each core compiles them.

    def _ffts(self, kind: str, pipe: str, sem: int, loc) -> list[ir.Stmt]:
        # Flags between the cores (an AUTO kernel has them too): they do not make the kernel manual.
        ids = (sem, sem + SECOND_VECTOR_CORE) if self.core == "cube" else (sem,)
        return [ir.CrossSync(kind, pipe, Const(i), loc, self.via, ffts=True) for i in ids]

    def _producer(self, direction: str) -> str:
        return "cube" if direction == "DIR_C2V" else "vec"

    def _a2a3_allocate(self, p, loc) -> list[ir.Stmt]:
        d, f = self._ring(p, True)
        if self.core != self._producer(d):
            return []
        return [ir.Assign(p.waited, binop("+", Var(p.waited), ONE), loc)] + self._ffts("wait", "S", f + 1, loc)

    def _a2a3_record(self, p, loc) -> list[ir.Stmt]:
        d, f = self._ring(p, True)
        if self.core != self._producer(d):
            return []
        return self._ffts("set", "FIX" if d == "DIR_C2V" else "MTE3", f, loc)

    def _a2a3_wait(self, p, loc) -> list[ir.Stmt]:
        d, f = self._ring(p, False)
        return self._ffts("wait", "S", f, loc) if self.core != self._producer(d) else []

    def _a2a3_free(self, p, loc) -> list[ir.Stmt]:
        d, f = self._ring(p, False)
        return self._ffts("set", "MTE2", f + 1, loc) if self.core != self._producer(d) else []

    def _entry(self, p, direction: str) -> int:
        """Where a ring's slots start in the GM buffer: DIR_BOTH's vector-to-cube ring follows the other."""
        return p.type.slot_num * p.type.slot_size if p.type.direction == "DIR_BOTH" and direction == "DIR_V2C" else 0

    # The pipe object

    def declare_a2a3_pipe(self, t: ty.PipeType, name: str, init: list[cp.Node], scope: Scope, loc,
                          offset: int, out: list[ir.Stmt], make) -> object:
        if t.direction not in A2A3_DIRECTIONS:
            raise self.error(f"TPipe direction {t.direction} is not modelled on a2a3 (only DIR_C2V, DIR_V2C and "
                             "DIR_BOTH, through their GM slots)", offset)
        if len(init) != 3:
            raise self.error("TPipe takes a GM slot buffer, a UB consumer buffer and an L1 consumer buffer", offset)
        arg = init[0]
        while isinstance(arg, cp.Cast):  # `(__gm__ void *)(uint64_t)buffer`: the address itself
            arg = arg.operand
        gm = self.eval(arg, scope)
        if not isinstance(gm, Ptr):
            raise self.error("an a2a3 TPipe's slot buffer must be a GM pointer derived from a kernel argument",
                             init[0].offset)
        # A consumer buffer written `(uint32_t)(uint64_t)tiles[0].data()` of a tile placed at run time
        # (a TASSIGN in a loop) stays relative to that tile: a pop binds its tile to those bytes then.
        c2v, v2c = (self._relative_to_tile(a, scope) or self.scalar(a, scope) for a in init[1:])
        names = [self.unique_name(f"{name}.{what}") for what in ("pushed", "popped", "waited")]
        for var in names:
            self._mutables.add(var)
            out.append(ir.Assign(var, Const(0), loc))
        return make(c2v, v2c, names, gm)

    def a2a3_teardown(self, p, loc) -> list[ir.Stmt]:
        """The destructor: the producer waits once for every free signal its pushes did not wait
        for (every P-th popped tile signals; pto-isa counts them from its own push count). At most
        SlotNum / P + 1 are pending, so that many conditional waits cover every count."""
        period = p.type.sync_period
        pending = binop("-", binop("/", Var(p.pushed), Const(period)), Var(p.waited))
        out: list[ir.Stmt] = []
        d = self._ring(p, True)[0]
        if self.core != self._producer(d):
            return out
        f = self._ring(p, True)[1]
        for k in range(p.type.slot_num // period + 2):
            out.append(ir.If(binop(">", pending, Const(k)), ir.Block(self._ffts("wait", "S", f + 1, loc)), None, loc))
        return out

    # TPUSH / TPOP / TFREE / TALLOC

    def lower_a2a3_fifo(self, name: str, node: cp.Call, scope: Scope, loc, out: list[ir.Stmt]) -> None:
        targs = node.callee.targs or ()
        if not node.args:
            raise self.error(f"{name} takes a pipe", node.offset)
        p = self.eval(node.args[0], scope)
        if not getattr(p, "waited", ""):  # e.g. TMPipe's form, a tile first
            raise self.error(f"cross-core TPUSH/TPOP are not supported yet ('{name}' here): only a TPipe's "
                             "TPUSH / TPOP / TFREE / TALLOC are modelled, with the pipe as first argument", node.offset)
        target = node.args[1] if len(node.args) > 1 else None
        b = scope.lookup(target.parts[0]) if isinstance(target, cp.Name) and len(target.parts) == 1 else None
        if (b is not None and b.kind == "gm") or name == "TALLOC":  # not evaluated: TPOP points it first
            self._a2a3_gm_form(name, node, p, scope, loc, out)
            return
        second = self.eval(target, scope) if target is not None else None
        split_at = 1 if name == "TFREE" else 2
        if len(targs) <= split_at:
            raise self.error(f"{name} needs its template arguments (the pipe type, "
                             f"{'' if name == 'TFREE' else 'the tile type, '}the split axis)", node.offset)
        third = self.eval(targs[split_at], scope)
        fixpipe = None
        if name == "TPUSH" and isinstance(third, ty.ClassType) and third.name == "FixpipeParams":
            fixpipe = self._a2a3_fixpipe_config(third, targs[split_at].offset)
            third = "TileSplitAxis::TILE_NO_SPLIT"
        split = self._split(third, name, targs[split_at].offset)
        if name == "TFREE":
            if len(node.args) != 1:
                raise self.error("TFREE takes a pipe (and a GlobalTensor for the GM form)", node.offset)
            return  # the pop freed the slot already
        if len(node.args) not in (2, 3):
            raise self.error(f"{name} takes a pipe and a tile", node.offset)
        tile = second
        if isinstance(tile, ir.TileDecl) and tile.count is None:
            tile = ir.TileRef(tile, None)
        if not isinstance(tile, ir.TileRef):
            raise self.error(f"{name} moves a tile or a GlobalTensor", node.args[1].offset)
        sub = self.scalar(node.args[2], scope) if len(node.args) == 3 else Var("subblock_idx")
        if name == "TPUSH":
            self._a2a3_push(p, tile, split, sub, node, loc, out, fixpipe)
        else:
            self._a2a3_pop(p, tile, split, sub, node, loc, out)

    def _split(self, value, name: str, offset: int) -> str:
        try:
            split = ty.enum_member(value, "TileSplitAxis")
        except TypeError:
            raise self.error(f"{name}: expected a TileSplitAxis value", offset) from None
        if split not in SPLITS:
            raise self.error(f"{name} with {split} is not modelled", offset)
        return split

    def _waits_before(self, p, loc) -> ir.If:
        n, t = Var(p.pushed), p.type
        waits = binop("&&", binop(">=", n, Const(t.slot_num)),
                      binop("==", binop("%", n, Const(t.sync_period)), Const(0)))
        return ir.If(waits, ir.Block(self._a2a3_allocate(p, loc)), None, loc)

    def _a2a3_push(self, p, src: ir.TileRef, split: str, sub: Expr, node: cp.Call, loc, out, fixpipe) -> None:
        direction = self._ring(p, True)[0]
        want = "Acc" if direction == "DIR_C2V" else "Vec"
        producer = self._producer(direction)
        if src.tile.tile_type != want or self.core != producer:
            raise self.error(f"TPUSH on a {p.type.direction} pipe moves an {want} tile on the {producer} core",
                             node.offset)
        if fixpipe is not None and direction != "DIR_C2V":
            raise self.error("TPUSH with a FixpipeParams configuration moves an accumulator to the vector "
                             "cores (a DIR_C2V or DIR_BOTH pipe)", node.offset)
        if direction == "DIR_V2C" and split.endswith("_ODD"):
            raise self.error(f"TPUSH from a vector core with {split} is not modelled", node.offset)
        out.append(self._waits_before(p, loc))
        s = src.tile
        vr, vc = _valid(s.valid_rows, s.rows), _valid(s.valid_cols, s.cols)
        n = Var(p.pushed)
        slot = binop("+", Const(self._entry(p, direction)),
                     binop("*", binop("%", n, Const(p.type.slot_num)), Const(p.type.slot_size)))
        tiles = [(src, self.node_text(node.args[1]))]
        targs: tuple[str, ...] = ()
        if direction == "DIR_C2V":
            # pto-isa stores the whole accumulator whatever the split: the vector cores take their halves.
            dtype, rows, cols, stride = s.dtype, vr, vc, vc
            if fixpipe is not None:
                dtype = fixpipe["dtype"]
                if fixpipe["layout"] == "NZ2NZ":  # fractal blocks: the whole padded tile (conservative)
                    rows, cols, stride = Const(s.rows), Const(s.cols), Const(s.cols)
                if fixpipe["scales"] is not None:
                    tiles.append(fixpipe["scales"])
            view = self._slot_view(p, dtype, rows, cols, stride, slot, loc)
            op = "TSTORE_FP" if len(tiles) > 1 else "TSTORE"
            # EN_UNIT_FLAG: pto-isa's plain accumulator push is a store with STPhase::Final (the unit-flag
            # handshake, analysis.unit_flags); a push through a fixpipe configuration takes its phase from that.
            if fixpipe is None and p.type.unit_flag:
                targs = ("STPhase::Final",)
        else:
            e = elem_bytes(s.dtype)
            part = {"TILE_NO_SPLIT": Const(0), "TILE_UP_DOWN": binop("*", binop("*", vr, vc), Const(e)),
                    "TILE_LEFT_RIGHT": binop("*", vc, Const(e))}[split]
            stride = binop("*", vc, Const(2)) if split == "TILE_LEFT_RIGHT" else vc
            view = self._slot_view(p, s.dtype, vr, vc, stride, binop("+", slot, binop("*", sub, part)), loc)
            op = "TSTORE"
        out.append(self._gm_move(op, view, f"{p.name}'s slot", tiles, node, loc, targs=targs))
        out.append(ir.Assign(p.pushed, binop("+", n, ONE), loc))
        out.extend(self._a2a3_record(p, loc))

    def _a2a3_pop(self, p, dst: ir.TileRef, split: str, sub: Expr, node: cp.Call, loc, out) -> None:
        direction = self._ring(p, False)[0]
        want, consumer = ("Vec", "vec") if direction == "DIR_C2V" else ("Mat", "cube")
        if dst.tile.tile_type != want or self.core != consumer:
            raise self.error(f"TPOP on a {p.type.direction} pipe takes a {want} tile on the {consumer} core",
                             node.offset)
        out.extend(self._a2a3_wait(p, loc))
        m = Var(p.popped)
        t = dst.tile
        vr, vc = _valid(t.valid_rows, t.rows), _valid(t.valid_cols, t.cols)
        e = elem_bytes(t.dtype)
        slot = binop("+", Const(self._entry(p, direction)),
                     binop("*", binop("%", m, Const(p.type.slot_num)), Const(p.type.slot_size)))
        stride, part = vc, Const(0)
        if direction == "DIR_C2V":  # each vector core loads its part of the accumulator
            if split == "TILE_UP_DOWN":
                part = binop("*", sub, binop("*", binop("*", vr, vc), Const(e)))
            elif split == "TILE_LEFT_RIGHT":
                stride, part = binop("*", vc, Const(2)), binop("*", sub, binop("*", vc, Const(e)))
            elif split == "TILE_UP_DOWN_ODD":  # the first core's part has one row more
                part = binop("*", sub, binop("*", binop("*", binop("+", vr, sub), vc), Const(e)))
            elif split == "TILE_LEFT_RIGHT_ODD":  # one column more for the first core
                stride = binop("-", binop("+", binop("*", vc, Const(2)), binop("*", sub, Const(2))), ONE)
                part = binop("*", sub, binop("*", binop("+", vc, sub), Const(e)))
        view = self._slot_view(p, t.dtype, vr, vc, stride, binop("+", slot, part), loc)
        local = p.c2v_buffer if direction == "DIR_C2V" else p.v2c_buffer
        step = binop("*", binop("%", m, Const(p.type.local_slot_num)), Const(p.type.slot_size))
        # The pipe's own binding of the popped tile (an AUTO kernel has it too): it does not make the
        # kernel manual. (An AUTO run keeps the tile in its private storage: the TLOAD below fills it.)
        if isinstance(local, tuple):  # relative to a tile placed at run time
            out.append(ir.AliasDef("TASSIGN", dst, local[0], binop("+", local[1], step), loc, self.via))
        else:
            out.append(ir.TileAssign(dst, binop("+", local, step), loc, self.via))
        out.append(self._gm_move("TLOAD", view, f"{p.name}'s slot", [(dst, self.node_text(node.args[1]))], node,
                                 loc, gm_first=False))
        period = Const(p.type.sync_period)
        notify = binop("==", binop("%", binop("+", m, ONE), period), Const(0))
        out.append(ir.If(notify, ir.Block(self._a2a3_free(p, loc)), None, loc))
        out.append(ir.Assign(p.popped, binop("+", m, ONE), loc))

    def _a2a3_gm_form(self, name: str, node: cp.Call, p, scope: Scope, loc, out) -> None:
        targs = node.callee.targs or ()
        if len(targs) != 3 or len(node.args) != 2:
            raise self.error(f"{name} with a GlobalTensor takes <Pipe, GlobalTensor type, split axis>(pipe, tensor)",
                             node.offset)
        split = self._split(self.eval(targs[2], scope), name, targs[2].offset)
        if split.endswith("_ODD"):
            raise self.error(f"{name} with a GlobalTensor and {split} is not modelled", targs[2].offset)
        target = node.args[1]
        b = scope.lookup(target.parts[0]) if isinstance(target, cp.Name) and len(target.parts) == 1 else None
        if b is None or b.kind != "gm":
            raise self.error(f"{name} with a GlobalTensor takes a GlobalTensor variable", target.offset)
        producing = name in ("TALLOC", "TPUSH")
        direction = self._ring(p, producing)[0]
        producer = self._producer(direction)
        if (self.core == producer) != producing:
            runs_on = "cube" if (producer == "cube") == producing else "vector"
            raise self.error(f"{name} on a {p.type.direction} pipe runs on the {runs_on} core", node.offset)
        g = b.value
        part = Const(0)
        if self.core == "vec":  # a vector core's part of the slot
            from ptorewrite.parse.fifo import _gm_part_bytes
            part = binop("*", Var("subblock_idx"), _gm_part_bytes(g, split, elem_bytes(g.dtype)))
        extra = binop("+", Const(self._entry(p, direction)), part)
        if name == "TALLOC":
            out.append(self._waits_before(p, loc))
            self._bind_slot(p, p.pushed, extra, target.parts[0], b, scope, loc, node.offset, out)
            out.append(ir.Assign(p.pushed, binop("+", Var(p.pushed), ONE), loc))
        elif name == "TPUSH":
            out.extend(self._a2a3_record(p, loc))
        elif name == "TPOP":
            out.extend(self._a2a3_wait(p, loc))
            self._bind_slot(p, p.popped, extra, target.parts[0], b, scope, loc, node.offset, out)
            out.append(ir.Assign(p.popped, binop("+", Var(p.popped), ONE), loc))
        else:  # TFREE: after the pop counted the tile
            cond = binop("==", binop("%", Var(p.popped), Const(p.type.sync_period)), Const(0))
            out.append(ir.If(cond, ir.Block(self._a2a3_free(p, loc)), None, loc))

    def _a2a3_fixpipe_config(self, cfg: ty.ClassType, offset: int) -> dict:
        """What an a2a3 fixpipe push writes: the output type, the layout, and the per-channel scales
        it reads (SubBlockId does not matter: the slot is in GM and both vector cores are signalled)."""
        from ptorewrite.parse.fifo import FIXPIPE_OUTPUT, QUANT_BY_VALUE

        def member(m: str) -> str:
            v = self.member_of_type(cfg, m, offset)
            c = v.const_value() if isinstance(v, Expr) else v
            return str(c).rsplit("::", 1)[-1]

        quant = member("QuantPre")
        if quant.isdigit():
            quant = QUANT_BY_VALUE.get(int(quant), quant)
        scales = None
        if quant.startswith("V"):
            scales = getattr(self, "quant_vector", None)
            if scales is None:
                raise self.error(f"TPUSH with {quant} reads per-channel scales: SET_QUANT_VECTOR must name their "
                                 "Scaling tile before it", offset)
        # An atomic-add store reads and writes the slot: a write either way, which is what the check needs.
        return {"dtype": FIXPIPE_OUTPUT.get(quant), "layout": member("LayoutMode"), "scales": scales}

    # Helpers

    def _slot_view(self, p, dtype: str | None, rows: Expr, cols: Expr, row_stride: Expr, offset: Expr,
                   loc) -> ir.GmTensor:
        """A GlobalTensor over `rows` x `cols` elements of the GM slot ring at `offset` bytes."""
        base = p.gm_buffer
        size = binop("*", rows, row_stride)
        g = ir.GmTensor(self.unique_name(f"{p.name}.slot"), base.param, dtype or base.dtype,
                        (ONE, ONE, ONE, rows, cols), (size, size, size, row_stride, ONE),
                        binop("+", base.offset_bytes, offset), loc, f"{p.name} slot")
        self.gm_tensors.append(g)
        return g

    def _gm_move(self, op_name: str, view: ir.GmTensor, view_text: str, tiles, node: cp.Call, loc,
                 gm_first: bool = True, targs: tuple[str, ...] = ()) -> ir.Instr:
        op = lookup(op_name, self.arch)
        kinds = [t.tile.tile_type for t, _ in tiles]
        accesses = tile_accesses(op, kinds, self.arch.name)
        tile_args = [ir.Arg("tile", t, a, text) for (t, text), a in zip(tiles, accesses)]
        gm = ir.Arg("gm", ir.GmRef(view), op.gm[0], view_text)
        args = [gm] + tile_args if gm_first else tile_args[:1] + [gm] + tile_args[1:]
        return ir.Instr(op.name, pipe_of(op, kinds, self.arch), tuple(args), targs, loc, self.via,
                        uid=next(self._uid))


def _valid(valid: Expr | None, full: int) -> Expr:
    return valid if valid is not None else Const(full)
