"""Lowering of pto-isa's inter-card communication calls (namespace `pto::comm`) and SYNCALL.

These calls move data between cards or cores, which ptorewrite does not analyse, but each one
also runs pipe work and flags on the core that calls it; that part is lowered here so that
`check` sees it (spec §1, §3):

- `TPUT(dst, src, staging)` / `TGET(dst, src, staging)` copy through a staging tile in UB:
  `TLOAD(staging, src)`, an MTE2 -> MTE3 flag on event 0, `TSTORE(dst, staging)`, and an
  MTE3 -> MTE2 flag on event 0; the copies touch the whole GM tensors (`Instr.whole_gm`), as
  the chunks of a tensor larger than the tile do. The transfer of a tensor that fits the tile takes exactly these
  steps; a larger one repeats them per chunk with a `pipe_barrier(PIPE_ALL)` before each store,
  which only adds order, so the barrier-free single step is the weaker ordering and is the one
  modelled: no race is hidden.
- With two staging tiles (`ping`, `pong`) the chunks alternate: the first load into `ping` is
  issued with no barrier before it, every later access comes after a `pipe_barrier(PIPE_ALL)`,
  and events 0 (ping) and 1 (pong) carry the MTE2 <-> MTE3 hand-offs. The two-chunk sequence is
  modelled; it touches both tiles, as any transfer of more than one chunk does.
- `TNOTIFY` writes the signal with the scalar unit and ends with `pipe_barrier(PIPE_ALL)`;
  `TWAIT` and `TTEST` only read the signal with the scalar unit (TWAIT's spin loop drains the
  pipes only every so many polls, so no order is assumed from it).
- `SYNCALL` in every form starts with `pipe_barrier(PIPE_ALL)` (the soft forms end with one
  too); the barrier across cores itself is not analysed.

The scalar unit's own GM accesses (the signals) are not compared with the pipes' GM accesses;
one warning per kernel says so. Collectives and the asynchronous DMA transfers are refused.
"""

from __future__ import annotations

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const, Expr
from ptorewrite.analysis.instructions import lookup
from ptorewrite.parse import cparse as cp
from ptorewrite.parse.values import LoweringError, Scope

COMM_TRANSFERS = frozenset({"TPUT", "TGET"})
COMM_SIGNALS = frozenset({"TNOTIFY", "TWAIT", "TTEST"})
COMM_REFUSED = frozenset({"TGATHER", "TSCATTER", "TBROADCAST", "TREDUCE", "TPUT_ASYNC", "TGET_ASYNC"})


def is_comm_call(callee: cp.Name, name: str) -> bool:
    """A call of a pto::comm instruction: TPUT & co. by any spelling; the collectives, whose
    names are also vector instructions of namespace pto, only when written with `comm::`."""
    if name in COMM_TRANSFERS or name in COMM_SIGNALS:
        return True
    return name in COMM_REFUSED and "comm" in callee.parts[:-1]


class CommLowering:
    def lower_comm(self, name: str, node: cp.Call, scope: Scope, loc: ir.SourceRange, out: list[ir.Stmt]) -> None:
        if name in COMM_REFUSED:
            raise self.error(f"pto::comm::{name} is not supported: ptorewrite does not model which bytes a "
                             "collective or an asynchronous DMA transfer touches on this core", node.offset)
        node = self.lower_event_waits(node, scope, loc, out)
        if name == "SYNCALL":
            self._lower_syncall(node, scope, loc, out)
            return
        self._warn_scalar_signals(loc)
        if name in COMM_TRANSFERS:
            self._lower_transfer(name, node, scope, loc, out)
        elif name == "TNOTIFY" and not self.auto_mode:
            # In an AUTO build the planner orders TNOTIFY's neighbours.
            self.manual = True
            out.append(ir.Sync("barrier", "ALL", None, None, loc, self.via))

    def _lower_syncall(self, node: cp.Call, scope: Scope, loc: ir.SourceRange, out: list[ir.Stmt]) -> None:
        """SYNCALL: every core of the launch (of one core type, or all of them for Mix) waits until
        all have arrived. On the calling core it is pipe_barrier(PIPE_ALL), the wait for the other
        cores (an FFTS hardware flag, or for the soft forms the scalar unit polling a GM counter)
        and, in the soft forms, pipe_barrier(PIPE_ALL) again. With SyncCoreType::Mix the cores of
        one cluster are among those that wait for each other: in a cluster's check the vector
        cores signal the cube core and wait for its answer, which orders every core's work before
        the barrier before every core's work after it. What other blocks do is not seen."""
        mode, core_type = self._syncall_kind(node, scope)
        if not getattr(self, "_syncall_warned", False):
            self._syncall_warned = True
            self.reporter.warn("SYNCALL is a barrier across all blocks of the launch: check models it on this "
                               "block as pipe_barrier(PIPE_ALL) (every pipe of the core drained) and, with "
                               "SyncCoreType::Mix, as the cores of this cluster waiting for each other (a soft "
                               "barrier's usedCores taken to count every core that calls it); the other blocks, "
                               "and what they read and write in GM, are not analysed", loc)
        if self.auto_mode:
            return  # SYNCALL compiles to nothing in an AUTO build
        self.manual = True
        out.append(ir.Sync("barrier", "ALL", None, None, loc, self.via))
        if core_type == "Mix":
            if self.core == "cube":  # waits for both vector cores, then answers each
                kinds = (("wait", 0), ("wait", 16), ("set", 1), ("set", 17))
            else:
                kinds = (("set", 0), ("wait", 1))
            out += [ir.CrossSync(k, "S", Const(sem), loc, self.via, channel="syncall") for k, sem in kinds]
        if mode == "Soft":
            out.append(ir.Sync("barrier", "ALL", None, None, loc, self.via))

    def _syncall_kind(self, node: cp.Call, scope: Scope) -> tuple[str, str]:
        """(SyncAllMode, SyncCoreType) of a SYNCALL call: `SYNCALL<CoreType>()` is hard, the
        workspace form takes the mode first; AIVOnly unless named."""
        mode, core_type = "Hard", "AIVOnly"
        for t in node.callee.targs or ():
            try:
                value = self.eval(t, scope)
            except LoweringError:
                value = None
            text = value.const_value() if isinstance(value, Expr) else value
            member = text.split("::")[-1] if isinstance(text, str) else None
            if member in ("Hard", "Soft"):
                mode = member
            elif member in ("AIVOnly", "AICOnly", "Mix"):
                core_type = member
            elif not (isinstance(text, str) and "GlobalTensor" in text):
                raise self.error("SYNCALL's template arguments must name a SyncAllMode and a SyncCoreType", t.offset)
        return mode, core_type

    def _warn_scalar_signals(self, loc: ir.SourceRange) -> None:
        if getattr(self, "_comm_warned", False):
            return
        self._comm_warned = True
        self.reporter.warn("communication calls: the pipe work and flags of TPUT/TGET and TNOTIFY's closing "
                           "barrier are modelled; the scalar unit's signal reads and writes (TNOTIFY, TWAIT, "
                           "TTEST) are not checked against the pipes' GM accesses", loc)

    def _lower_transfer(self, name: str, node: cp.Call, scope: Scope, loc: ir.SourceRange,
                        out: list[ir.Stmt]) -> None:
        tiles = [a for a in node.args[2:] if self._is_tile_operand(a, scope)]
        if len(node.args) < 3 or not tiles or len(tiles) > 2:
            raise self.error(f"{name} takes a destination and a source GlobalTensor and one or two staging "
                             "tiles", node.offset)
        dst, src = node.args[0], node.args[1]

        def copy(op: str, *args: cp.Node) -> None:
            call = cp.Call(node.offset, cp.Name(node.offset, (op,)), tuple(args))
            instr = self.lower_instruction(lookup(op, self.arch), call, scope, loc)
            instr.whole_gm = True  # chunk by chunk over the whole tensors
            out.append(instr)

        def flag(src_pipe: str, dst_pipe: str, event: int, kinds: str = "set wait") -> None:
            if self.auto_mode:
                return  # the planner places the flags of an AUTO kernel
            self.manual = True
            for kind in kinds.split():
                out.append(ir.Sync(kind, src_pipe, dst_pipe, Const(event), loc, self.via))

        def barrier() -> None:
            if not self.auto_mode:
                out.append(ir.Sync("barrier", "ALL", None, None, loc, self.via))

        if len(tiles) == 1:
            copy("TLOAD", tiles[0], src)
            flag("MTE2", "MTE3", 0)
            copy("TSTORE", dst, tiles[0])
            flag("MTE3", "MTE2", 0)
            return
        ping, pong = tiles
        copy("TLOAD", ping, src)
        flag("MTE2", "MTE3", 0, "set")
        flag("MTE2", "MTE3", 0, "wait")
        barrier()
        copy("TSTORE", dst, ping)
        copy("TLOAD", pong, src)
        flag("MTE3", "MTE2", 0, "set")
        flag("MTE2", "MTE3", 1, "set")
        flag("MTE3", "MTE2", 0, "wait")
        flag("MTE2", "MTE3", 1, "wait")
        barrier()
        copy("TSTORE", dst, pong)
        flag("MTE3", "MTE2", 1)

    def _is_tile_operand(self, a: cp.Node, scope: Scope) -> bool:
        v = self.eval(a, scope)
        return isinstance(v, (ir.TileRef, ir.TileDecl))
