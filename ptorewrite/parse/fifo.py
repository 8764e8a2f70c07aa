"""Cross-core FIFOs (`TPipe`) and TPUSH / TPOP / TFREE, lowered to the cluster's flags and moves.

A `TPipe<FlagID, Direction, SlotSize, SlotNum, LocalSlotNum, IsNoSplit>` is a ring of SlotNum
slots of SlotSize bytes in the consumer's buffer, guarded by two cluster semaphores: FlagID
("slot filled", producer -> consumer) and FlagID + 1 ("slot freed", consumer -> producer). Each
end keeps its own count of the tiles it has pushed or popped; tile n uses slot n % SlotNum. The
facts below follow pto-isa's a5 implementation (include/pto/npu/a5/TPush.hpp, TPop.hpp,
TFree.hpp); the lowering writes them as the IR's own statements, so that `check` runs them with
the cores of the cluster:

- DIR_C2V (cube L0C -> vector UB): TPUSH on the cube core moves the accumulator tile into the
  slot on the FIX pipe (TILE_UP_DOWN: the top half of the rows to the first vector core and the
  bottom half to the second; TILE_LEFT_RIGHT: the column halves; TILE_NO_SPLIT: all of it to the
  first), then raises "filled" on FIX for each vector core it wrote. TPOP on a vector core waits
  for "filled" on PIPE_V and binds the tile to the slot (no copy). TFREE raises "freed" on V.
- DIR_V2C (vector UB -> cube L1): TPUSH on a vector core inserts its tile into the slot (its half
  of the rows or columns by its subblock id, or all of it without a split) on MTE3 and raises
  "filled" on MTE3. TPOP on the cube core waits for "filled" on MTE1 (from both vector cores
  unless TILE_NO_SPLIT) and binds the tile to the slot; TFREE raises "freed" on MTE1.
- Credits: the producer waits for "freed" (on FIX, resp. MTE3) before tile n only when
  n >= SlotNum and n is a multiple of the sync period P (SlotNum when SlotNum <= 2, else
  SlotNum / 2); the consumer's TFREE signals only after every P-th tile. Constructing the pipe
  gives the producer P signals of "freed"; when the kernel ends the producer takes P of them
  back.
- DIR_BOTH is both rings in one object: the cube core pushes L0C tiles to the vector cores as
  DIR_C2V does (FlagID, FlagID + 1) and pops L1 tiles they push as DIR_V2C does, on FlagID + 2
  ("filled") and FlagID + 3 ("freed"); each core's count of pushes and pops serves its own ring.
- `TPUSH<Pipe, AccTile, FixpipeParams<...>>` on a C2V ring moves the whole accumulator through
  the fixpipe to the vector core the configuration names, as the quantization's output type in
  its layout; a per-channel quantization also reads the Scaling tile SET_QUANT_VECTOR named.
- DIR_C2V_GM is the C2V ring in GM, with GlobalTensor views instead of tiles (TALLOC, TPUSH,
  TPOP, TFREE; see `_lower_gm_fifo`).
- The other directions (V2C and both ways through GM, control words) are refused with a
  located error. a2a3 pipes keep their slots in GM and signal with ffts flags: `fifo_a2a3`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const, Expr, Var, binop
from ptorewrite.analysis.instructions import lookup, pipe_of, tile_accesses
from ptorewrite.parse import cparse as cp
from ptorewrite.parse import types as ty
from ptorewrite.parse.fifo_a2a3 import A2a3FifoLowering
from ptorewrite.parse.values import Ptr, Scope, elem_bytes

FIFO_CALLS = frozenset({"TPUSH", "TPOP", "TFREE", "TALLOC"})
# Scalar-unit writes of the fixpipe's quantization registers (no tile data moves when they run).
QUANT_REGISTER_CALLS = frozenset({"SET_QUANT_SCALAR", "SET_QUANT_VECTOR"})
# The fixpipe's output type per quantization mode (the accumulator's own type otherwise).
FIXPIPE_OUTPUT = {
    **dict.fromkeys(("F322F16", "QF322F16_PRE", "DEQF16", "VDEQF16"), "fp16"),
    **dict.fromkeys(("F322BF16", "QF322BF16_PRE", "QS322BF16_PRE", "VQS322BF16_PRE"), "bf16"),
    **dict.fromkeys(("QF322B8_PRE", "REQ8", "VQF322B8_PRE", "VREQ8"), "int8"),
}
QUANT_BY_VALUE = {0: "NoQuant", 1: "F322F16", 2: "VREQ8", 3: "REQ8", 4: "VDEQF16", 5: "DEQF16", 16: "F322BF16",
                  23: "VQF322B8_PRE", 24: "QF322B8_PRE", 32: "QF322F16_PRE", 34: "QF322BF16_PRE",
                  35: "QS322BF16_PRE", 39: "VQS322BF16_PRE"}
SUPPORTED = ("DIR_C2V", "DIR_V2C", "DIR_BOTH", "DIR_C2V_GM")
C2V = ("DIR_C2V", "DIR_C2V_GM")
SECOND_VECTOR_CORE = 16  # the cube core's ids for the second vector core's semaphores


@dataclass(eq=False)
class PipeObject:
    """One constructed TPipe: its type, its consumer buffers and each end's tile count."""

    name: str
    type: ty.PipeType
    c2v_buffer: Expr  # UB byte address of slot 0 (DIR_C2V)
    v2c_buffer: Expr  # L1 byte address of slot 0 (DIR_V2C)
    pushed: str  # IR scalar: tiles this core has pushed
    popped: str  # IR scalar: tiles this core has popped
    loc: ir.SourceRange
    gm_buffer: object = None  # the GM slot buffer (a Ptr; DIR_C2V_GM, and every a2a3 pipe)
    waited: str = ""  # a2a3, IR scalar: the producer's waits for a free slot


@dataclass(frozen=True, eq=False)
class PipeEnd:
    """`pipe.prod` or `pipe.cons` of a TPipe, read through its getters: `getTileId()` is that end's
    tile count (the rewrite writes a ring's local slot with it, transform.sync_emit)."""

    pipe: PipeObject
    role: str  # "prod" or "cons"


class FifoLowering(A2a3FifoLowering):
    """The TPipe part of `lower.Lowering` (mixed in); a2a3 pipes are lowered by `fifo_a2a3`."""

    core: str = ""  # set by the front end: "cube" or "vec"

    def _pipes(self) -> list[PipeObject]:
        st = self.__dict__.get("_fifo_pipes")
        if st is None:
            st = self.__dict__["_fifo_pipes"] = []
        return st

    def pipe_end(self, p: PipeObject, member: str, offset: int) -> PipeEnd:
        if member not in ("prod", "cons"):
            raise self.error(f"a TPipe has no member '{member}' the front end models (prod, cons)", offset)
        return PipeEnd(p, member)

    def pipe_end_value(self, end: PipeEnd, name: str, offset: int) -> Expr:
        if name == "getTileId":
            return Var(end.pipe.pushed if end.role == "prod" else end.pipe.popped)
        raise self.error(f"'.{name}()' of a TPipe end is not modelled (getTileId is)", offset)

    def _cross(self, kind: str, pipe: str, sem: int, loc: ir.SourceRange) -> ir.CrossSync:
        # The pipe's own flags (an AUTO kernel has them too): they do not make the kernel manual.
        return ir.CrossSync(kind, pipe, Const(sem), loc, self.via)

    def declare_pipe(self, t: ty.PipeType, name: str, init: list[cp.Node], scope: Scope, loc: ir.SourceRange,
                     offset: int, out: list[ir.Stmt]) -> PipeObject:
        if self.arch.name == "a2a3":
            def make(c2v, v2c, names, gm):
                p = PipeObject(name, t, c2v, v2c, names[0], names[1], loc, gm, names[2])
                self._pipes().append(p)
                return p
            return self.declare_a2a3_pipe(t, name, init, scope, loc, offset, out, make)
        if self.arch.name != "a5":
            raise self.error(f"cross-core FIFOs (TPipe) are not modelled on {self.arch.name}", offset)
        if t.direction not in SUPPORTED:
            raise self.error(f"TPipe direction {t.direction} is not modelled (only DIR_C2V, cube L0C to vector UB, "
                             "DIR_V2C, vector UB to cube L1, DIR_BOTH, and DIR_C2V_GM, cube to vector through GM)",
                             offset)
        if len(init) != 3:
            raise self.error("TPipe takes a GM slot buffer, a UB consumer buffer and an L1 consumer buffer", offset)
        c2v, v2c = (self.scalar(a, scope) for a in init[1:])
        gm = None
        if t.direction == "DIR_C2V_GM":
            arg = init[0]
            while isinstance(arg, cp.Cast):  # `(__gm__ void *)(uint64_t)buffer`: the address itself
                arg = arg.operand
            gm = self.eval(arg, scope)
            if not isinstance(gm, Ptr):
                raise self.error("a DIR_C2V_GM TPipe's slot buffer must be a GM pointer derived from a kernel "
                                 "argument", init[0].offset)
        pushed, popped = self.unique_name(f"{name}.pushed"), self.unique_name(f"{name}.popped")
        for var in (pushed, popped):
            self._mutables.add(var)
            out.append(ir.Assign(var, Const(0), loc))
        p = PipeObject(name, t, c2v, v2c, pushed, popped, loc, gm)
        self._pipes().append(p)
        split = "TILE_NO_SPLIT" if t.no_split else "TILE_UP_DOWN"
        for _ in range(t.sync_period):  # the consumer's initial credits
            out.extend(self._free(p, split, loc))
        return p

    def pipe_teardown(self, loc: ir.SourceRange | None = None, since: int = 0) -> list[ir.Stmt]:
        """The producer takes its credits back when a pipe's scope ends (its destructor): the pipes
        declared after the first `since` ones, which are then forgotten. A pipe built in a helper
        or a loop body is destroyed at the end of each call or iteration, as in C++."""
        ended = self._pipes()[since:]
        del self._pipes()[since:]
        out: list[ir.Stmt] = []
        for p in ended:
            if p.waited:
                out.extend(self.a2a3_teardown(p, loc or p.loc))
                continue
            split = "TILE_NO_SPLIT" if p.type.no_split else "TILE_UP_DOWN"
            for _ in range(p.type.sync_period):
                out.extend(self._allocate(p, split, loc or p.loc))
        return out

    # The four signalling steps, as each core compiles them.

    def _both(self, kind: str, pipe: str, sem: int, split: str, loc) -> list[ir.Stmt]:
        first = [self._cross(kind, pipe, sem, loc)]
        if split == "TILE_NO_SPLIT":
            return first
        return first + [self._cross(kind, pipe, sem + SECOND_VECTOR_CORE, loc)]

    def _ring(self, p: PipeObject, pushing: bool) -> tuple[str, int]:
        """The ring this core's pushes (or pops) use: its direction and its "filled" semaphore id."""
        d = p.type.direction
        if d == "DIR_BOTH":
            c2v = (self.core == "cube") == pushing
            return ("DIR_C2V", p.type.flag_id) if c2v else ("DIR_V2C", p.type.flag_id + 2)
        return d, p.type.flag_id

    def _allocate(self, p: PipeObject, split: str, loc) -> list[ir.Stmt]:
        d, f = self._ring(p, True)
        if d in C2V:
            return self._both("wait", "FIX", f + 1, split, loc) if self.core == "cube" else []
        return [self._cross("wait", "MTE3", f + 1, loc)] if self.core == "vec" else []

    def _record(self, p: PipeObject, split: str, loc) -> list[ir.Stmt]:
        d, f = self._ring(p, True)
        if d in C2V:
            return self._both("set", "FIX", f, split, loc) if self.core == "cube" else []
        return [self._cross("set", "MTE3", f, loc)]

    def _wait(self, p: PipeObject, split: str, loc) -> list[ir.Stmt]:
        d, f = self._ring(p, False)
        if d in C2V:  # through GM, the vector core's loads wait
            return [self._cross("wait", "V" if d == "DIR_C2V" else "MTE2", f, loc)] if self.core == "vec" else []
        return self._both("wait", "MTE1", f, split, loc) if self.core == "cube" else []

    def _free(self, p: PipeObject, split: str, loc) -> list[ir.Stmt]:
        d, f = self._ring(p, False)
        if d in C2V:
            return [self._cross("set", "V" if d == "DIR_C2V" else "MTE2", f + 1, loc)] if self.core == "vec" else []
        return self._both("set", "MTE1", f + 1, split, loc) if self.core == "cube" else []

    # TPUSH / TPOP / TFREE

    def lower_fifo(self, name: str, node: cp.Call, scope: Scope, loc: ir.SourceRange, out: list[ir.Stmt]) -> None:
        if self.arch.name == "a2a3":
            self.lower_a2a3_fifo(name, node, scope, loc, out)
            return
        targs = node.callee.targs or ()
        first = self.eval(node.args[0], scope) if node.args else None
        if isinstance(first, PipeObject) and first.gm_buffer is not None:
            self._lower_gm_fifo(name, node, first, scope, loc, out)
            return
        if name == "TALLOC":
            raise self.error("TALLOC takes a TPipe through GM (DIR_C2V_GM) and a GlobalTensor", node.offset)
        split_at = 1 if name == "TFREE" else 2
        if len(targs) <= split_at:
            raise self.error(f"{name} needs its template arguments (the pipe type, "
                             f"{'' if name == 'TFREE' else 'the tile type, '}the split axis)", node.offset)
        third = self.eval(targs[split_at], scope)
        fixpipe = None
        if name == "TPUSH" and isinstance(third, ty.ClassType) and third.name == "FixpipeParams":
            fixpipe = self._fixpipe_config(third, targs[split_at].offset)
            third = "TileSplitAxis::TILE_NO_SPLIT"
        try:
            split = ty.enum_member(third, "TileSplitAxis")
        except TypeError:
            raise self.error(f"{name}: expected a TileSplitAxis value", targs[split_at].offset) from None
        if split not in ("TILE_NO_SPLIT", "TILE_UP_DOWN", "TILE_LEFT_RIGHT"):
            raise self.error(f"{name} with {split} is not modelled", targs[split_at].offset)
        if not node.args:
            raise self.error(f"{name} takes a pipe", node.offset)
        p = self.eval(node.args[0], scope)
        if not isinstance(p, PipeObject):
            raise self.error(f"{name} takes a TPipe first", node.args[0].offset)
        n_args = 1 if name == "TFREE" else 2
        if len(node.args) not in (n_args, n_args + 1):
            raise self.error(f"{name} takes {'a pipe' if name == 'TFREE' else 'a pipe and a tile'}", node.offset)
        sub = self.scalar(node.args[2], scope) if len(node.args) == 3 else Var("subblock_idx")
        if name == "TFREE":
            period = p.type.sync_period
            cond = binop("==", binop("%", Var(p.popped), Const(period)), Const(0))
            out.append(ir.If(cond, ir.Block(self._free(p, split, loc)), None, loc))
            return
        tile = self.eval(node.args[1], scope)
        if isinstance(tile, ir.TileDecl) and tile.count is None:
            tile = ir.TileRef(tile, None)
        if not isinstance(tile, ir.TileRef):
            raise self.error(f"{name} moves a tile (a GlobalTensor FIFO is not modelled)", node.args[1].offset)
        if name == "TPUSH":
            self._push(p, tile, split, sub, node, loc, out, fixpipe)
        else:
            self._pop(p, tile, split, node, loc, out)

    def _lower_gm_fifo(self, name: str, node: cp.Call, p: PipeObject, scope: Scope, loc, out) -> None:
        """The GlobalTensor forms on a pipe through GM (pto-isa's a5 TAlloc.hpp, TPush.hpp, TPop.hpp,
        TFree.hpp): TALLOC (cube) waits for a free slot as TPUSH does and points the GlobalTensor at
        the slot, where the kernel's own stores fill it; TPUSH (cube) only raises "filled"; TPOP
        (vector core) waits for "filled" on MTE2 and points the GlobalTensor at its part of the slot
        (its half of the rows or columns by its subblock id); TFREE raises "freed" on MTE2."""
        targs = node.callee.targs or ()
        if len(targs) != 3 or len(node.args) != 2:
            raise self.error(f"{name} on a GM pipe takes <Pipe, GlobalTensor type, split axis>(pipe, tensor)",
                             node.offset)
        try:
            split = ty.enum_member(self.eval(targs[2], scope), "TileSplitAxis")
        except TypeError:
            raise self.error(f"{name}: expected a TileSplitAxis value", targs[2].offset) from None
        if split not in ("TILE_NO_SPLIT", "TILE_UP_DOWN", "TILE_LEFT_RIGHT"):
            raise self.error(f"{name} with {split} is not modelled", targs[2].offset)
        target = node.args[1]
        b = scope.lookup(target.parts[0]) if isinstance(target, cp.Name) and len(target.parts) == 1 else None
        if b is None or b.kind != "gm":
            raise self.error(f"{name} on a GM pipe takes a GlobalTensor variable", target.offset)
        producer = name in ("TALLOC", "TPUSH")
        if self.core != ("cube" if producer else "vec"):
            raise self.error(f"{name} on a DIR_C2V_GM pipe runs on the {'cube' if producer else 'vector'} core",
                             node.offset)
        if name == "TALLOC":
            n = Var(p.pushed)
            waits = binop("&&", binop(">=", n, Const(p.type.slot_num)),
                          binop("==", binop("%", n, Const(p.type.sync_period)), Const(0)))
            out.append(ir.If(waits, ir.Block(self._allocate(p, split, loc)), None, loc))
            self._bind_slot(p, p.pushed, Const(0), target.parts[0], b, scope, loc, node.offset, out)
            out.append(ir.Assign(p.pushed, binop("+", n, Const(1)), loc))
        elif name == "TPUSH":
            out.extend(self._record(p, split, loc))
        elif name == "TPOP":
            out.extend(self._wait(p, split, loc))
            g = b.value
            part = _gm_part_bytes(g, split, elem_bytes(g.dtype))
            self._bind_slot(p, p.popped, binop("*", Var("subblock_idx"), part), target.parts[0], b, scope, loc,
                            node.offset, out)
            out.append(ir.Assign(p.popped, binop("+", Var(p.popped), Const(1)), loc))
        else:
            cond = binop("==", binop("%", Var(p.popped), Const(p.type.sync_period)), Const(0))
            out.append(ir.If(cond, ir.Block(self._free(p, split, loc)), None, loc))

    def _bind_slot(self, p: PipeObject, count: str, extra: Expr, name: str, b, scope: Scope, loc, offset: int,
                   out: list[ir.Stmt]) -> None:
        # The slot's offset is taken now, into its own scalar: the view keeps it when the count moves on.
        at = self.unique_name(f"{name}@slot")
        self._mutables.add(at)
        slot = binop("*", binop("%", Var(count), Const(p.type.slot_num)), Const(p.type.slot_size))
        out.append(ir.Assign(at, binop("+", slot, extra), loc))
        base = p.gm_buffer
        ptr = Ptr(base.param, binop("+", base.offset_bytes, Var(at)), b.value.dtype)
        self.rebind_gm(name, b, ptr, scope, loc, offset, exact=True)

    def _slot_address(self, p: PipeObject, count: str, direction: str) -> Expr:
        base = p.c2v_buffer if direction == "DIR_C2V" else p.v2c_buffer
        slot = binop("%", Var(count), Const(p.type.slot_num))
        return binop("+", base, binop("*", slot, Const(p.type.slot_size)))

    def _fixpipe_config(self, cfg: ty.ClassType, offset: int) -> dict:
        """The settings of a `FixpipeParams<...>` type that decide what a push writes."""
        def member(m: str) -> str:
            v = self.member_of_type(cfg, m, offset)
            c = v.const_value() if isinstance(v, Expr) else v
            return str(c).rsplit("::", 1)[-1]

        quant = member("QuantPre")
        if quant.isdigit():
            quant = QUANT_BY_VALUE.get(int(quant), quant)
        layout, sub = member("LayoutMode"), member("SubBlockId")
        if member("AtomicT") not in ("AtomicNone", "0") or sub not in ("0", "1"):
            raise self.error("this FixpipeParams form of TPUSH (atomic add, or a subblock other than 0 or 1) "
                             "is not modelled", offset)
        return {"quant": quant, "layout": layout, "mode": ("SingleModeVec0", "SingleModeVec1")[int(sub)]}

    def _push(self, p: PipeObject, src: ir.TileRef, split: str, sub: Expr, node: cp.Call, loc, out,
              fixpipe: dict | None = None) -> None:
        t = p.type
        direction = self._ring(p, True)[0]
        want, producer = ("Acc", "cube") if direction == "DIR_C2V" else ("Vec", "vec")
        if src.tile.tile_type != want or self.core != producer:
            raise self.error(f"TPUSH on a {t.direction} pipe moves an {want} tile on the {producer} core",
                             node.offset)
        if fixpipe is not None and direction != "DIR_C2V":
            raise self.error("TPUSH with a FixpipeParams configuration moves an accumulator to the vector "
                             "cores (a DIR_C2V or DIR_BOTH pipe)", node.offset)
        n = Var(p.pushed)
        waits = binop("&&", binop(">=", n, Const(t.slot_num)),
                      binop("==", binop("%", n, Const(t.sync_period)), Const(0)))
        out.append(ir.If(waits, ir.Block(self._allocate(p, split, loc)), None, loc))
        s = src.tile
        if fixpipe is not None:
            self._push_fixpipe(p, src, fixpipe, node, loc, out)
        elif direction == "DIR_C2V":
            rows, cols = s.rows // (2 if split == "TILE_UP_DOWN" else 1), s.cols // (2 if split == "TILE_LEFT_RIGHT" else 1)
            vr = _halved(s.valid_rows, s.rows, split == "TILE_UP_DOWN")
            vc = _halved(s.valid_cols, s.cols, split == "TILE_LEFT_RIGHT")
            slot = self._slot_tile(p, "Vec", s.dtype, rows, cols, vr, vc, "RowMajor", "NoneBox", loc)
            mode = {"TILE_NO_SPLIT": "SingleModeVec0", "TILE_UP_DOWN": "DualModeSplitM",
                    "TILE_LEFT_RIGHT": "DualModeSplitN"}[split]
            out.append(ir.TileAssign(slot, self._slot_address(p, p.pushed, direction), loc, self.via))
            out.append(self._move("TMOV", [(slot, f"{p.name}'s slot"), (src, self.node_text(node.args[1]))],
                                  (f"AccToVecMode::{mode}",), node, loc))
        else:
            up, left = split == "TILE_UP_DOWN", split == "TILE_LEFT_RIGHT"
            rows, cols = s.rows * (2 if up else 1), s.cols * (2 if left else 1)
            vr = _doubled(s.valid_rows, s.rows, up)
            vc = _doubled(s.valid_cols, s.cols, left)
            # pto-isa's slot view is a plain column-major L1 tile (no fractal box), each half at its rows.
            slot = self._slot_tile(p, "Mat", s.dtype, rows, cols, vr, vc, "ColMajor", "NoneBox", loc)
            out.append(ir.TileAssign(slot, self._slot_address(p, p.pushed, direction), loc, self.via))
            row = binop("*", s.valid_rows if s.valid_rows is not None else Const(s.rows), sub) if up else Const(0)
            col = binop("*", s.valid_cols if s.valid_cols is not None else Const(s.cols), sub) if left else Const(0)
            out.append(self._move("TINSERT", [(slot, f"{p.name}'s slot"), (src, self.node_text(node.args[1]))], (),
                                  node, loc, (row, col)))
        out.append(ir.Assign(p.pushed, binop("+", n, Const(1)), loc))
        out.extend(self._record(p, split, loc))

    def lower_quant_register(self, name: str, node: cp.Call, scope: Scope) -> None:
        """SET_QUANT_SCALAR writes a register; SET_QUANT_VECTOR points the fixpipe at a Scaling
        tile, which the per-channel quantizing pushes after it read (as their operand)."""
        if name == "SET_QUANT_SCALAR":
            return
        tile = self.eval(node.args[0], scope) if len(node.args) == 1 else None
        if isinstance(tile, ir.TileDecl) and tile.count is None:
            tile = ir.TileRef(tile, None)
        if not isinstance(tile, ir.TileRef) or tile.tile.tile_type != "Scaling":
            raise self.error("SET_QUANT_VECTOR takes a Scaling tile", node.offset)
        self.quant_vector = (tile, self.node_text(node.args[0]))

    def _push_fixpipe(self, p: PipeObject, src: ir.TileRef, cfg: dict, node: cp.Call, loc, out) -> None:
        """The whole accumulator through the fixpipe into the slot of the vector core the
        configuration names: converted to the quantization's output type, in its layout (pto-isa's
        a5 TPush.hpp); a per-channel quantization also reads the Scaling tile set last."""
        s = src.tile
        dtype = FIXPIPE_OUTPUT.get(cfg["quant"], s.dtype)
        blayout, slayout = {"NZ2ND": ("RowMajor", "NoneBox"), "NZ2DN": ("ColMajor", "NoneBox"),
                            "NZ2NZ": ("ColMajor", "RowMajor")}[cfg["layout"]]
        slot = self._slot_tile(p, "Vec", dtype, s.rows, s.cols, s.valid_rows, s.valid_cols, blayout, slayout, loc)
        out.append(ir.TileAssign(slot, self._slot_address(p, p.pushed, "DIR_C2V"), loc, self.via))
        tiles = [(slot, f"{p.name}'s slot"), (src, self.node_text(node.args[1]))]
        if cfg["quant"].startswith("V"):
            scales = getattr(self, "quant_vector", None)
            if scales is None:
                raise self.error(f"TPUSH with {cfg['quant']} reads per-channel scales: SET_QUANT_VECTOR must "
                                 "name their Scaling tile before it", node.offset)
            tiles.append(scales)
        out.append(self._move("TMOV", tiles, (f"AccToVecMode::{cfg['mode']}",), node, loc))

    def _pop(self, p: PipeObject, dst: ir.TileRef, split: str, node: cp.Call, loc, out) -> None:
        direction = self._ring(p, False)[0]
        want, consumer = ("Vec", "vec") if direction == "DIR_C2V" else ("Mat", "cube")
        if dst.tile.tile_type != want or self.core != consumer:
            raise self.error(f"TPOP on a {p.type.direction} pipe takes a {want} tile on the {consumer} core",
                             node.offset)
        out.extend(self._wait(p, split, loc))
        self.manual = True
        out.append(ir.TileAssign(dst, self._slot_address(p, p.popped, direction), loc, self.via))
        out.append(ir.Assign(p.popped, binop("+", Var(p.popped), Const(1)), loc))

    def _slot_tile(self, p: PipeObject, kind: str, dtype: str, rows: int, cols: int, vr, vc, blayout: str,
                   slayout: str, loc) -> ir.TileRef:
        decl = ir.TileDecl(
            name=self.unique_name(f"{p.name}.slot"), tile_type=kind, dtype=dtype, rows=rows, cols=cols,
            valid_rows=vr, valid_cols=vc, blayout=blayout, slayout=slayout, count=None, loc=loc,
            type_text=f"{p.name} slot", cpp_name=f"{p.name}.slot", scope=self._scope_uid)
        self.tiles.append(decl)
        return ir.TileRef(decl, None)

    def _move(self, op_name: str, tiles, targs, node: cp.Call, loc, scalars=()) -> ir.Instr:
        op = lookup(op_name, self.arch)
        kinds = [t.tile.tile_type for t, _ in tiles]
        accesses = tile_accesses(op, kinds, self.arch.name)
        args = [ir.Arg("tile", t, a, text) for (t, text), a in zip(tiles, accesses)]
        args += [ir.Arg("scalar", e, "", str(e)) for e in scalars]
        return ir.Instr(op.name, pipe_of(op, kinds, self.arch), tuple(args), targs, loc, self.via,
                        uid=next(self._uid))


def _halved(valid: Expr | None, full: int, split: bool) -> Expr:
    v = valid if valid is not None else Const(full)
    return binop("/", v, Const(2)) if split else v


def _doubled(valid: Expr | None, full: int, split: bool) -> Expr:
    v = valid if valid is not None else Const(full)
    return binop("*", v, Const(2)) if split else v


def _gm_part_bytes(g: ir.GmTensor, split: str, elem: int) -> Expr:
    """Bytes between the two vector cores' parts of a GM slot: a whole view (its static rows times
    columns) apart for TILE_UP_DOWN, a row of the view apart for TILE_LEFT_RIGHT."""
    if split == "TILE_NO_SPLIT":
        return Const(0)
    cols = g.shape[4]
    size = binop("*", g.shape[3], cols) if split == "TILE_UP_DOWN" else cols
    return binop("*", size, Const(elem))
