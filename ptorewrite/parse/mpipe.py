"""a5 cross-core flag pairs (`TSync_Custom`) and explicit-index FIFOs (`TMPipe`), lowered to the
cluster's flags and moves.

Both follow pto-isa's a5 headers (include/pto/npu/a5/custom/TSync_Custom.hpp, TPush.hpp's TMPipe,
TPop.hpp, TFree.hpp); the lowering writes what they do as the IR's own statements, so that
`check` runs them with the cores of the cluster (emulator/cluster.py).

A flag pair owns two cluster semaphores: FlagID ("filled", producer -> consumer) and FlagID + 1
("freed", consumer -> producer). The cube core signals each vector core with its own id (the
second vector core's are 16 higher) and waits for both; a vector core names only its own. The
pipe each step runs on depends on the direction:

    direction (producer op)       record      wait                  allocate    free
    cube -> vec, GM (TSTORE_C2GM) FIX, both   vec MTE2              FIX, both   vec MTE2
    cube -> vec, UB (TMOV_C2UB)   FIX, both   vec V                 FIX, both   vec V
    vec -> cube, GM (TSTORE_V2GM) vec MTE3    MTE2, both            vec MTE3    MTE1, both
    vec -> cube, L1 (TINSERT_V2L1) vec MTE3   MTE1, both            vec MTE3    MTE1, both

`TSync_Custom` does exactly these four calls; a call on the core that is not its side (a cube
call of a vector step) is a located error. `TMPipe` does them too, but compiles each cube-side
or vector-side step only for its core (pto-isa guards them with `__DAV_CUBE__` / `__DAV_VEC__`),
so a step called on the other core does nothing.

A `TMPipe` does not count tiles itself: each end holds a tile index the kernel sets
(`prod.setTileId(t, sub)`), an entry offset (`setEntryOffset`) and two switches (allocate and
record on the producer, wait and free on the consumer, all on at first). Its entry for tile t is
at the FIFO's base plus (t % depth) entries. TPUSH(tile, pipe): allocate if switched on, move
the tile into its entry, record if switched on. TPOP(tile, pipe): wait if switched on, then for a
FIFO in GM load the entry into the tile and free at once (if switched on); for a FIFO in UB or L1
nothing moves (the tile is the kernel's, at the address it gave it) and TFREE(pipe) frees. The
moves:

- accumulator -> GM (cube): TSTORE of the accumulator into its entry (entries are
  Tile_S1 / Cube_S1 accumulators wide), with STPhase::Final when the pipe's EN_UNIT_FLAG is
  true, as pto-isa's push stores it: on a2a3 that store takes part in the L0C unit-flag
  handshake (analysis.unit_flags) like a kernel's own phased TSTORE.
- accumulator -> UB (cube): TMOV on FIX into a vector tile at the entry, split by rows between
  the two vector cores when the consumer tile has fewer rows (DualModeSplitM), by columns when it
  has fewer columns (DualModeSplitN), whole to the first with one vector core.
- vector -> GM (vector core): TSTORE of the tile into its entry.
- vector -> L1 (vector core): TINSERT on MTE3 into the consumer tile at the entry, at the rows
  (or columns) of this vector core's subblock.
- GM -> vector / GM -> L1 (consumer): TLOAD of the entry into the tile (after pointing the tile
  at the local FIFO's entry when the pipe has one).

Constructing the pipe frees once on the consumer; its end (the destructor, at the kernel's end,
reported at the declaration) allocates once on the producer. Control FIFOs (CTRL_FIFO) and
GM FIFOs whose entries are wider than one tile are located errors.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const, Expr, Var, binop
from ptorewrite.analysis.instructions import lookup, pipe_of, tile_accesses
from ptorewrite.analysis.ir import DTYPE_BYTES
from ptorewrite.parse import cparse as cp
from ptorewrite.parse import types as ty
from ptorewrite.parse.values import Ptr, Scope

SECOND_VECTOR_CORE = 16
_C2V = {"TSTORE_C2GM": "gm", "TMOV_C2UB": "ub"}
_V2C = {"TSTORE_V2GM": "gm", "TINSERT_V2L1": "mat"}
MPIPE_SETTERS = frozenset({"setTileId", "setEntryOffset", "setAllocateStatus", "setRecordStatus",
                           "setWaitStatus", "setFreeStatus"})
SIGNAL_STEPS = frozenset({"allocate", "record", "wait", "free"})


@dataclass(eq=False)
class SyncObject:
    """One `TSync_Custom` value: its direction and its flag id."""

    name: str
    type: ty.SyncCustomType
    flag_id: int

    @property
    def c2v(self) -> bool:
        return self.type.producer in _C2V

    @property
    def path(self) -> str:
        return _C2V.get(self.type.producer) or _V2C[self.type.producer]


@dataclass(eq=False)
class MPipeEnd:
    """One end of a TMPipe (`pipe.prod` / `pipe.cons`): the IR scalars that hold its state."""

    pipe: MPipeObject
    role: str  # "prod" or "cons"
    tile_id: str
    sub_tile_id: str
    entry_offset: str
    first_switch: str  # allocate (prod) / wait (cons)
    second_switch: str  # record (prod) / free (cons)


@dataclass(eq=False)
class MPipeObject:
    name: str
    type: ty.MPipeType
    kind: str  # "c2v_gm", "c2v_ub", "v2c_gm", "v2c_mat"
    # The FIFO's base: a local byte address, (a tile, a byte offset from it), or a GM pointer.
    base: Expr | tuple | Ptr
    local_base: Expr | None
    loc: ir.SourceRange
    ends: dict[str, MPipeEnd] = field(default_factory=dict)

    @property
    def c2v(self) -> bool:
        return self.kind.startswith("c2v")


def _acc_store_phase(t) -> tuple[str, ...]:
    """The store of an accumulator into a GM FIFO carries STPhase::Final when the pipe is built with
    EN_UNIT_FLAG (pto-isa's TMPipe and TPipe pass it to TSTORE): on a2a3 it then waits for the
    matmul's unit flag and clears it (analysis.unit_flags)."""
    return ("STPhase::Final",) if t.unit_flag else ()


def _steps(c2v: bool, path: str, flag: int) -> dict[str, tuple[str, str, str, tuple[int, ...]]]:
    """Each step: (the core that runs it, set or wait, its pipe, its semaphore ids as that core names them)."""
    both = (flag, flag + SECOND_VECTOR_CORE)
    freed_both = (flag + 1, flag + 1 + SECOND_VECTOR_CORE)
    if c2v:
        consumer_pipe = "MTE2" if path == "gm" else "V"
        return {"record": ("cube", "set", "FIX", both), "wait": ("vec", "wait", consumer_pipe, (flag,)),
                "allocate": ("cube", "wait", "FIX", freed_both), "free": ("vec", "set", consumer_pipe, (flag + 1,))}
    return {"record": ("vec", "set", "MTE3", (flag,)), "wait": ("cube", "wait", "MTE2" if path == "gm" else "MTE1", both),
            "allocate": ("vec", "wait", "MTE3", (flag + 1,)), "free": ("cube", "set", "MTE1", freed_both)}


def _a2a3_steps(c2v: bool, flag: int) -> dict[str, tuple[str, str, str, tuple[int, ...]]]:
    """pto-isa's a2a3 TSync_Custom: the same four steps as ffts flags in mode 2. A set from the
    cube core raises the flag on both vector cores; a cube-core wait (`wait_flag_dev`) passes once
    both vector cores raised it; every wait stalls the whole core (PIPE_S)."""
    both = (flag, flag + SECOND_VECTOR_CORE)
    freed_both = (flag + 1, flag + 1 + SECOND_VECTOR_CORE)
    if c2v:
        return {"record": ("cube", "set", "FIX", both), "wait": ("vec", "wait", "S", (flag,)),
                "allocate": ("cube", "wait", "S", freed_both), "free": ("vec", "set", "MTE2", (flag + 1,))}
    return {"record": ("vec", "set", "MTE3", (flag,)), "wait": ("cube", "wait", "S", both),
            "allocate": ("vec", "wait", "S", (flag + 1,)), "free": ("cube", "set", "MTE2", freed_both)}


class MPipeLowering:
    """The TSync_Custom / TMPipe part of `lower.Lowering` (mixed in)."""

    core: str = ""

    def _mpipes(self) -> list[MPipeObject]:
        st = self.__dict__.get("_mpipe_objects")
        if st is None:
            st = self.__dict__["_mpipe_objects"] = []
        return st

    def _cross_syncs(self, step, loc) -> list[ir.Stmt]:
        _, kind, pipe, sems = step
        # The object's own flags (an AUTO kernel has them too): they do not make the kernel manual.
        ffts = self.arch.name == "a2a3"
        return [ir.CrossSync(kind, pipe, Const(s), loc, self.via, ffts=ffts) for s in sems]

    # -- TSync_Custom

    def declare_sync_object(self, t: ty.SyncCustomType, name: str, init: list[cp.Node], scope: Scope,
                            offset: int) -> SyncObject:
        if self.arch.name == "a2a3" and t.producer not in ("TSTORE_C2GM", "TSTORE_V2GM"):
            raise self.error(f"a2a3's TSync_Custom has no producer SyncOpType::{t.producer} (TSTORE_C2GM or "
                             "TSTORE_V2GM)", offset)
        if self.arch.name not in ("a2a3", "a5"):
            self._a5_only("TSync_Custom", offset)
        items = list(init)
        if len(items) == 1 and isinstance(items[0], cp.InitList):
            items = list(items[0].items)
        if len(items) != 1:
            raise self.error("a TSync_Custom is initialised with its flag id (`= {id}`)", offset)
        flag = self.scalar(items[0], scope).const_value()
        if not isinstance(flag, int) or not 0 <= flag <= 14:
            raise self.error("a TSync_Custom's flag id must be a compile-time integer 0..14 (it uses the id and "
                             "the next one)", items[0].offset)
        return SyncObject(name, t, flag)

    def lower_sync_method(self, obj: SyncObject, node: cp.Call, loc: ir.SourceRange, out: list[ir.Stmt]) -> None:
        step_name = node.callee.name
        if step_name not in SIGNAL_STEPS or node.args:
            raise self.error(f"TSync_Custom has no step '.{step_name}()' the front end models (record, wait, "
                             "allocate, free)", node.offset)
        step = (_a2a3_steps(obj.c2v, obj.flag_id) if self.arch.name == "a2a3" else
                _steps(obj.c2v, obj.path, obj.flag_id))[step_name]
        if step[0] != self.core:
            side = "cube" if step[0] == "cube" else "vector"
            raise self.error(f"'{obj.name}.{step_name}()' of a {'cube-to-vector' if obj.c2v else 'vector-to-cube'} "
                             f"flag runs on the {side} core; here it is compiled for the "
                             f"{'cube' if self.core == 'cube' else 'vector'} core", node.offset)
        out.extend(self._cross_syncs(step, loc))

    # -- TMPipe: declaration and the ends' state

    def declare_mpipe(self, t: ty.MPipeType, name: str, init: list[cp.Node], scope: Scope, loc: ir.SourceRange,
                      offset: int, out: list[ir.Stmt]) -> MPipeObject:
        kind = self._mpipe_kind(t, offset)
        gm = t.fifo_type == "GM_FIFO"
        if self.arch.name == "a2a3":
            if not gm:
                raise self.error(f"a2a3's TMPipe keeps its FIFO in GM (FIFOType::GM_FIFO), not {t.fifo_type}",
                                 offset)
            if len(init) != (1 if t.local_depth == 0 else 2):
                raise self.error("an a2a3 TMPipe takes the GM FIFO, and a local FIFO base when LocalDepth > 0",
                                 offset)
        elif len(init) != (2 if gm else 1):
            raise self.error("a TMPipe through GM takes the GM FIFO and a local FIFO base" if gm else
                             "a TMPipe through UB or L1 takes the FIFO's base address", offset)
        if gm:
            arg = init[0]
            while isinstance(arg, cp.Cast):
                arg = arg.operand
            base = self.eval(arg, scope)
            if not isinstance(base, Ptr):
                raise self.error("a TMPipe's GM FIFO must be a GM pointer derived from a kernel argument",
                                 init[0].offset)
            local = self.scalar(init[1], scope) if t.local_depth > 0 and len(init) > 1 else None
        else:
            # `(uint32_t)(uint64_t)tiles[0].data()`: relative to a tile whose address is set at run time.
            rel = self._relative_to_tile(init[0], scope)
            base, local = (rel if rel is not None else self.scalar(init[0], scope)), None
        p = MPipeObject(name, t, kind, base, local, loc)
        for role, switches in (("prod", ("allocate", "record")), ("cons", ("wait", "free"))):
            names = [self.unique_name(f"{name}.{role}.{n}") for n in ("tile_id", "sub_tile_id", "entryOffset",
                                                                       *switches)]
            for var, value in zip(names, (0, 0, 0, 1, 1)):
                self._mutables.add(var)
                out.append(ir.Assign(var, Const(value), loc))
            p.ends[role] = MPipeEnd(p, role, *names)
        self._mpipes().append(p)
        out.extend(self._mpipe_step(p, "free", loc))  # the constructor: one credit from the consumer
        return p

    def mpipe_teardown(self, since: int = 0) -> list[ir.Stmt]:
        """The destructors of the TMPipes declared after the first `since` ones, when their scope
        ends: the producer allocates once each."""
        ended = self._mpipes()[since:]
        del self._mpipes()[since:]
        out: list[ir.Stmt] = []
        for p in reversed(ended):
            out.extend(self._mpipe_step(p, "allocate", p.loc))
        return out

    def _a5_only(self, what: str, offset: int) -> None:
        if self.arch.name != "a5":
            raise self.error(f"{what} is modelled on a5 only; the a2a3 one signals through ffts flags that "
                             "ptorewrite does not model yet", offset)

    def _mpipe_kind(self, t: ty.MPipeType, offset: int) -> str:
        prod, cons, f = t.prod.tile_type, t.cons.tile_type, t.fifo_type
        kinds = {("Acc", "Vec", "GM_FIFO"): "c2v_gm", ("Acc", "Vec", "VEC_FIFO"): "c2v_ub",
                 ("Vec", "Mat", "GM_FIFO"): "v2c_gm", ("Vec", "Mat", "MAT_FIFO"): "v2c_mat"}
        kind = kinds.get((prod, cons, f))
        if kind is None:
            raise self.error(f"a TMPipe from a {prod} tile to a {cons} tile through {f} is not modelled (pto-isa "
                             "has accumulator to vector through GM or UB, vector to L1 through GM or L1, and "
                             "control words)", offset)
        return kind

    def _mpipe_step(self, p: MPipeObject, step_name: str, loc) -> list[ir.Stmt]:
        """One signalling step as this core compiles it (a step of the other core is compiled out)."""
        step = (_a2a3_steps(p.c2v, p.type.flag_id) if self.arch.name == "a2a3" else
                _steps(p.c2v, p.kind.split("_")[1], p.type.flag_id))[step_name]
        return self._cross_syncs(step, loc) if step[0] == self.core else []

    def mpipe_end(self, p: MPipeObject, member: str, offset: int) -> MPipeEnd:
        if member not in p.ends:
            raise self.error(f"a TMPipe has no member '{member}' the front end models (prod, cons)", offset)
        return p.ends[member]

    def mpipe_end_value(self, end: MPipeEnd, name: str, offset: int) -> Expr:
        if name == "getTileId":
            return Var(end.tile_id)
        if name == "getSubTileId":
            return Var(end.sub_tile_id)
        switches = {"getAllocateStatus" if end.role == "prod" else "getWaitStatus": end.first_switch,
                    "getRecordStatus" if end.role == "prod" else "getFreeStatus": end.second_switch}
        if name in switches:  # a rewrite's guard reads them (transform.sync_emit)
            return Var(switches[name])
        raise self.error(f"'.{name}()' of a TMPipe end is not modelled", offset)

    def lower_mpipe_method(self, end: MPipeEnd, node: cp.Call, scope: Scope, loc: ir.SourceRange,
                           out: list[ir.Stmt]) -> None:
        name = node.callee.name
        steps = ("allocate", "record") if end.role == "prod" else ("wait", "free")
        if name in steps and not node.args:
            out.extend(self._mpipe_step(end.pipe, name, loc))
            return
        args = [self.scalar(a, scope) for a in node.args]
        targets = {"setTileId": (end.tile_id, end.sub_tile_id), "setEntryOffset": (end.entry_offset,),
                   "setAllocateStatus" if end.role == "prod" else "setWaitStatus": (end.first_switch,),
                   "setRecordStatus" if end.role == "prod" else "setFreeStatus": (end.second_switch,)}
        if name not in targets or not 1 <= len(args) <= len(targets[name]):
            raise self.error(f"'.{name}()' of a TMPipe {'producer' if end.role == 'prod' else 'consumer'} is not "
                             "modelled", node.offset)
        for var, value in zip(targets[name], args):
            out.append(ir.Assign(var, value, loc))

    # -- TPUSH / TPOP / TFREE on a TMPipe

    def mpipe_of_call(self, node: cp.Call, scope: Scope) -> MPipeObject | None:
        """The TMPipe a TPUSH(tile, pipe) / TPOP(tile, pipe) / TFREE(pipe) names, if any."""
        if not node.args or len(node.args) > 2:
            return None
        last = node.args[-1]
        # Looked up, not evaluated: a TPipe call's last argument may be a view not yet pointed at GM.
        b = scope.lookup(last.parts[0]) if isinstance(last, cp.Name) and len(last.parts) == 1 else None
        return b.value if b is not None and isinstance(b.value, MPipeObject) else None

    def lower_mpipe_call(self, name: str, p: MPipeObject, node: cp.Call, scope: Scope, loc: ir.SourceRange,
                         out: list[ir.Stmt]) -> None:
        if name == "TFREE":
            if len(node.args) != 1:
                raise self.error("TFREE takes the pipe", node.offset)
            if self.arch.name == "a2a3":
                return  # a2a3's TFREE of a TMPipe does nothing: TPOP frees (when switched on)
            out.append(self._switched(p.ends["cons"].second_switch, self._mpipe_step(p, "free", loc), loc))
            return
        if name not in ("TPUSH", "TPOP") or len(node.args) != 2:
            raise self.error(f"{name} on a TMPipe takes (tile, pipe)", node.offset)
        tile = self.eval(node.args[0], scope)
        if isinstance(tile, ir.TileDecl) and tile.count is None:
            tile = ir.TileRef(tile, None)
        if not isinstance(tile, ir.TileRef):
            raise self.error(f"{name} on a TMPipe moves a tile", node.args[0].offset)
        producing = name == "TPUSH"
        want = p.type.prod if producing else p.type.cons
        core = ("cube" if p.c2v else "vec") if producing else ("vec" if p.c2v else "cube")
        if tile.tile.tile_type != want.tile_type or self.core != core:
            raise self.error(f"{name} on this TMPipe takes a {want.tile_type} tile on the "
                             f"{'cube' if core == 'cube' else 'vector'} core", node.offset)
        text = self.node_text(node.args[0])
        if self.arch.name == "a2a3":
            self._a2a3_mpipe_call(p, producing, tile, text, node, loc, out)
            return
        if producing:
            end = p.ends["prod"]
            out.append(self._switched(end.first_switch, self._mpipe_step(p, "allocate", loc), loc))
            self._mpipe_push(p, end, tile, text, node, loc, out)
            out.append(self._switched(end.second_switch, self._mpipe_step(p, "record", loc), loc))
        else:
            end = p.ends["cons"]
            out.append(self._switched(end.first_switch, self._mpipe_step(p, "wait", loc), loc))
            if p.kind.endswith("gm"):
                self._mpipe_pop_gm(p, end, tile, text, node, loc, out)
                out.append(self._switched(end.second_switch, self._mpipe_step(p, "free", loc), loc))

    def _a2a3_mpipe_call(self, p: MPipeObject, producing: bool, tile: ir.TileRef, text: str, node: cp.Call, loc,
                         out: list[ir.Stmt]) -> None:
        """pto-isa's a2a3 TPUSH / TPOP of a TMPipe (its FIFO in GM): allocate (wait) if switched on,
        move the tile, step the end's tile index, record (free) if switched on. An entry holds
        `factor` blocks side by side when one tile is `factor` times wider than the other: the
        wider one moves in `factor` column strips, each strip a view of its bytes."""
        prod, cons = p.type.prod, p.type.cons
        end = p.ends["prod" if producing else "cons"]
        out.append(self._switched(end.first_switch, self._mpipe_step(p, "allocate" if producing else "wait", loc),
                                  loc))
        self._full_valid(tile, node)
        if producing:
            esize = DTYPE_BYTES[prod.dtype]
            if p.kind == "c2v_gm":  # the accumulator into one block of the entry (the kernel's entry offset)
                factor = self._strips(cons.cols, prod.cols, node)
                gm = self._mpipe_gm(p, self._mpipe_entry(end, factor * prod.rows * prod.cols * esize), prod.dtype,
                                    prod.rows, prod.cols, loc, out)
                out.append(self._mpipe_move("TSTORE", [("gm", gm), ("tile", tile, text)], node, loc,
                                            targs=_acc_store_phase(p.type)))
            else:  # v2c_gm: the vector tile in strips as wide as the consumer's tile, block after block
                factor = self._strips(prod.cols, cons.cols, node)
                block = cons.rows * cons.cols * esize
                at = self._mpipe_entry(end, factor * block)
                for k in range(factor):
                    gm = self._mpipe_gm(p, binop("+", at, Const(k * block)), prod.dtype, prod.rows, cons.cols, loc,
                                        out)
                    strip = self._strip(p, tile, cons.cols, k, loc, out) if factor > 1 else tile
                    out.append(self._mpipe_move("TSTORE", [("gm", gm), ("tile", strip, text)], node, loc))
        else:
            esize = DTYPE_BYTES[cons.dtype]
            if p.local_base is not None and p.type.local_depth > 0 and not self.auto_mode:
                local = binop("*", binop("%", Var(end.tile_id), Const(p.type.local_depth)),
                              Const(int(cons.rows * cons.cols * esize)))
                out.append(ir.TileAssign(tile, binop("+", p.local_base, local), loc, self.via))
            if p.kind == "c2v_gm":  # this core's rows of each block, into column strips of the tile
                factor = self._strips(cons.cols, prod.cols, node)
                block = prod.rows * prod.cols * esize
                at = self._mpipe_entry(end, factor * block)
                for k in range(factor):
                    gm = self._mpipe_gm(p, binop("+", at, Const(k * block)), cons.dtype, cons.rows, prod.cols, loc,
                                        out)
                    strip = self._strip(p, tile, prod.cols, k, loc, out) if factor > 1 else tile
                    out.append(self._mpipe_move("TLOAD", [("tile", strip, text), ("gm", gm)], node, loc))
            else:  # v2c_gm: the L1 tile whole from its block
                gm = self._mpipe_gm(p, self._mpipe_entry(end, cons.rows * prod.cols * esize), cons.dtype, cons.rows,
                                    cons.cols, loc, out)
                out.append(self._mpipe_move("TLOAD", [("tile", tile, text), ("gm", gm)], node, loc))
        out.append(ir.Assign(end.tile_id, binop("+", Var(end.tile_id), Const(1)), loc))
        out.append(self._switched(end.second_switch, self._mpipe_step(p, "record" if producing else "free", loc),
                                  loc))

    def _strips(self, wide: int, narrow: int, node: cp.Call) -> int:
        if narrow <= 0 or wide % narrow:
            raise self.error(f"this TMPipe's tiles are {wide} and {narrow} columns wide; pto-isa moves the wider in "
                             "strips as wide as the other, so one must divide the other", node.offset)
        return wide // narrow

    def _strip(self, p: MPipeObject, ref: ir.TileRef, cols: int, k: int, loc, out: list[ir.Stmt]) -> ir.TileRef:
        """Columns [k * cols, (k + 1) * cols) of a row-major tile: a view of its bytes with the tile's
        row pitch (pto-isa's sub-tile at a column byte offset)."""
        t = ref.tile
        decl = ir.TileDecl(
            name=self.unique_name(f"{p.name}.strip"), tile_type=t.tile_type, dtype=t.dtype, rows=t.rows, cols=t.cols,
            valid_rows=t.valid_rows, valid_cols=Const(cols), blayout=t.blayout, slayout=t.slayout, count=None,
            loc=loc, type_text=f"{p.name} strip", cpp_name=f"{p.name}.strip", scope=self._scope_uid,
            compact=t.compact, fractal=t.fractal)
        self.tiles.append(decl)
        strip = ir.TileRef(decl, None)
        offset = Const(k * cols * DTYPE_BYTES[t.dtype])
        decl.alias = ir.Alias("TMPipe strip", ref, offset, loc)
        out.append(ir.AliasDef("TMPipe strip", strip, ref, offset, loc, self.via))
        return strip

    def _bind_entry(self, p: MPipeObject, slot: ir.TileRef, entry: Expr, loc) -> ir.Stmt:
        if isinstance(p.base, tuple):
            ref, off = p.base
            return ir.AliasDef("TMPipe entry", slot, ref, binop("+", off, entry), loc, self.via)
        return ir.TileAssign(slot, binop("+", p.base, entry), loc, self.via)

    @staticmethod
    def _switched(var: str, body: list[ir.Stmt], loc) -> ir.Stmt:
        return ir.If(binop("!=", Var(var), Const(0)), ir.Block(body), None, loc)

    def _mpipe_entry(self, end: MPipeEnd, entry_bytes: int, with_offset: bool = True) -> Expr:
        """Bytes from the FIFO's base to this end's entry: (tile index % depth) entries, plus the entry offset."""
        e = binop("*", binop("%", Var(end.tile_id), Const(end.pipe.type.depth)), Const(entry_bytes))
        return binop("+", e, Var(end.entry_offset)) if with_offset else e

    def _mpipe_push(self, p: MPipeObject, end: MPipeEnd, src: ir.TileRef, text: str, node: cp.Call, loc,
                    out: list[ir.Stmt]) -> None:
        t, prod, cons = p.type, p.type.prod, p.type.cons
        esize = DTYPE_BYTES[prod.dtype]
        if p.kind == "c2v_gm":
            factor = cons.cols // prod.cols
            gm = self._mpipe_gm(p, self._mpipe_entry(end, int(factor * prod.rows * prod.cols * esize)), prod.dtype,
                                prod.rows, prod.cols, loc, out)
            out.append(self._mpipe_move("TSTORE", [("gm", gm), ("tile", src, text)], node, loc,
                                        targs=_acc_store_phase(t)))
            return
        if p.kind == "v2c_gm":
            if prod.cols != cons.cols:
                raise self.error("a TMPipe whose GM entries hold several consumer tiles side by side is not "
                                 "modelled", node.offset)
            self._full_valid(src, node)
            gm = self._mpipe_gm(p, self._mpipe_entry(end, int(cons.rows * cons.cols * esize)), prod.dtype,
                                prod.rows, cons.cols, loc, out)
            out.append(self._mpipe_move("TSTORE", [("gm", gm), ("tile", src, text)], node, loc))
            return
        vec_cores = t.vec_cores
        split_m = prod.rows != cons.rows and prod.cols == cons.cols and vec_cores == 2
        split_n = prod.rows == cons.rows and prod.cols != cons.cols and vec_cores == 2
        whole = prod.rows == cons.rows and prod.cols == cons.cols and vec_cores == 1
        if not (split_m or split_n or whole):
            raise self.error("this TMPipe's producer and consumer shapes fit none of pto-isa's split modes (rows "
                             "or columns halved between two vector cores, or equal with one)", node.offset)
        if p.kind == "c2v_ub":
            factor = cons.cols // prod.cols
            rows, cols = prod.rows, prod.cols
            if split_m:
                rows = prod.rows // vec_cores // factor
            elif split_n:
                cols = prod.cols // vec_cores // factor
            mode = "DualModeSplitM" if split_m else "DualModeSplitN" if split_n else "SingleModeVec0"
            if whole:
                slot = self._mpipe_tile(p, cons, None, None, loc)
                entry = cons.rows * cons.cols
            else:
                slot = self._mpipe_tile(p, ty.TileType("Vec", prod.dtype, rows, cols, "RowMajor", Const(rows),
                                                       Const(cols), "NoneBox", "slot"), rows, cols, loc)
                entry = rows * cols
            out.append(self._bind_entry(p, slot, self._mpipe_entry(end, int(entry * esize)), loc))
            out.append(self._mpipe_move("TMOV", [("tile", slot, f"{p.name}'s entry"), ("tile", src, text)], node,
                                        loc, targs=(f"AccToVecMode::{mode}",)))
            return
        # v2c_mat: into the consumer tile at the entry, at this vector core's rows or columns.
        slot = self._mpipe_tile(p, cons, None, None, loc)
        esize_cons = DTYPE_BYTES[cons.dtype]
        out.append(self._bind_entry(p, slot, self._mpipe_entry(end, int(cons.rows * cons.cols * esize_cons),
                                                         with_offset=False), loc))
        sub = Var("subblock_idx")
        row = binop("*", Const(cons.rows // vec_cores), sub) if split_m else Const(0)
        col = binop("*", Const(prod.cols), sub) if split_n else Const(0)
        out.append(self._mpipe_move("TINSERT", [("tile", slot, f"{p.name}'s entry"), ("tile", src, text)], node, loc,
                                    scalars=(row, col)))

    def _mpipe_pop_gm(self, p: MPipeObject, end: MPipeEnd, dst: ir.TileRef, text: str, node: cp.Call, loc,
                      out: list[ir.Stmt]) -> None:
        prod, cons = p.type.prod, p.type.cons
        esize = DTYPE_BYTES[cons.dtype]
        if p.kind == "c2v_gm":
            if cons.cols != prod.cols:
                raise self.error("a TMPipe whose GM entries hold several producer tiles side by side is not "
                                 "modelled", node.offset)
            entry = int(prod.rows * prod.cols * esize)
        else:
            entry = int(cons.rows * prod.cols * esize)
        if p.local_base is not None:
            local = binop("*", binop("%", Var(end.tile_id), Const(p.type.local_depth)),
                          Const(int(cons.rows * cons.cols * esize)))
            out.append(ir.TileAssign(dst, binop("+", p.local_base, local), loc, self.via))
        self._full_valid(dst, node)
        gm = self._mpipe_gm(p, self._mpipe_entry(end, entry), cons.dtype, cons.rows, cons.cols, loc, out)
        out.append(self._mpipe_move("TLOAD", [("tile", dst, text), ("gm", gm)], node, loc))

    def _full_valid(self, ref: ir.TileRef, node: cp.Call) -> None:
        t = ref.tile
        for v, full in ((t.valid_rows, t.rows), (t.valid_cols, t.cols)):
            if v is None or v.const_value() != full:
                raise self.error(f"a TMPipe through GM moves '{ref}' whole; a tile with a smaller or run-time valid "
                                 "shape is not modelled here", node.offset)

    def _mpipe_gm(self, p: MPipeObject, entry: Expr, dtype: str, rows: int, cols: int, loc,
                  out: list[ir.Stmt]) -> ir.GmTensor:
        # The entry's offset is taken now, into its own scalar: the ends' indices move on later.
        at = self.unique_name(f"{p.name}@entry")
        self._mutables.add(at)
        out.append(ir.Assign(at, entry, loc))
        base: Ptr = p.base
        one = Const(1)
        g = ir.GmTensor(name=self.unique_name(f"{p.name}.entry"), param=base.param, dtype=dtype,
                        shape=(one, one, one, Const(rows), Const(cols)), stride=(one, one, one, Const(cols), one),
                        offset_bytes=binop("+", base.offset_bytes, Var(at)), loc=loc, type_text=f"{p.name} entry")
        self.gm_tensors.append(g)
        return g

    def _mpipe_tile(self, p: MPipeObject, t: ty.TileType, rows, cols, loc) -> ir.TileRef:
        decl = ir.TileDecl(
            name=self.unique_name(f"{p.name}.entry"), tile_type=t.tile_type, dtype=t.dtype,
            rows=rows or t.rows, cols=cols or t.cols,
            valid_rows=t.valid_rows if rows is None else Const(rows),
            valid_cols=t.valid_cols if cols is None else Const(cols),
            blayout=t.blayout, slayout=t.slayout, count=None, loc=loc, type_text=f"{p.name} entry",
            cpp_name=f"{p.name}.entry", scope=self._scope_uid, compact=t.compact, fractal=t.fractal)
        self.tiles.append(decl)
        return ir.TileRef(decl, None)

    def _mpipe_move(self, op_name: str, operands, node: cp.Call, loc, targs=(), scalars=()) -> ir.Instr:
        op = lookup(op_name, self.arch)
        kinds = [o[1].tile.tile_type for o in operands if o[0] == "tile"]
        accesses = iter(tile_accesses(op, kinds, self.arch.name))
        args = []
        for o in operands:
            if o[0] == "tile":
                args.append(ir.Arg("tile", o[1], next(accesses), o[2]))
            else:
                g = o[1]
                args.append(ir.Arg("gm", ir.GmRef(g), op.gm[0], g.name))
        args += [ir.Arg("scalar", e, "", str(e)) for e in scalars]
        return ir.Instr(op.name, pipe_of(op, kinds, self.arch), tuple(args), targs, loc, self.via,
                        uid=next(self._uid))
