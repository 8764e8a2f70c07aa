"""The SDMA engine's asynchronous L2 prefetch (`TPREFETCH_ASYNC`) and the session calls around it,
modelled by what they touch on this core.

A prefetch changes no data: the SDMA engine copies GM lines into the L2 cache, which GM accesses
see through, so the prefetched tensor is not an operand. What runs on the core is the engine's
control path (pto-isa's pto/comm/async/sdma headers): the scalar unit reads and writes words of
the GM workspace through the context's UB scratch tile, a 32-byte block. A word is written by a
scalar store into the scratch block, `pipe_barrier(PIPE_ALL)`, a UB -> GM copy on MTE3 and an
MTE3 -> MTE2 flag on the session's sync id; it is read by a GM -> UB copy on MTE2 into the block,
`pipe_barrier(PIPE_ALL)` and a scalar load. Each group of them ends with `pipe_barrier(PIPE_ALL)`,
so nothing of a call is still in flight when it returns; but a call may also return before
touching anything (no workspace, an invalid session or event, a full queue).

So every call (`TPREFETCH_ASYNC`, `comm::BuildAsyncSession`, `AsyncEvent::Wait` / `Test`) is one
scalar-unit (PIPE_S) access that reads and writes the scratch blocks and the GM workspaces. Like
the call, it waits for nothing issued before it (an unordered earlier access of those bytes is a
race, whichever of the call's first steps meets it), and everything issued after it sees it
complete. It orders nothing else: the barrier of a call that ran is not assumed, because the call
may not have run it. Its own MTE3 -> MTE2 flag is not modelled (a kernel holding a set of that
flag across the call is not checked for it).

Which scratch block and workspace a call uses depends on run-time choices (a context owns its
session or shares one built elsewhere; the first prefetch of an own session places the scratch
tile at UB 0x0): every call counts as touching UB [0x0, 0x20), the block at each address the
kernel gave a context's scratch tile (`TASSIGN(ctx.scratchTile, addr)`), each tile passed to
`BuildAsyncSession`, and the whole of every GM workspace argument named so far.

The values the calls return are known only at run time: an event's handle (`valid()` tests it
against 0) and the success of `Wait`, `Test` and `BuildAsyncSession` are run-time values named
after the call and its line (`TPREFETCH_ASYNC@77`), one per call site; where they steer the
kernel, `check` asks for them (`--set 'Wait@88=1'`). A call on the right of `&&` / `||` or in
a branch of `?:` is modelled only where that operand is evaluated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const, Expr, Var, binop
from ptorewrite.parse import cparse as cp
from ptorewrite.parse.opaque import whole_gm
from ptorewrite.parse.values import Binding, Ptr, Scope

SDMA_CONTEXT = "PrefetchAsyncContext"
SDMA_TYPES = frozenset({SDMA_CONTEXT, "AsyncSession", "AsyncEvent"})
SDMA_CALLS = frozenset({"TPREFETCH_ASYNC", "BuildAsyncSession"})
EVENT_CALLS = frozenset({"Wait", "Test"})
SCRATCH_BYTES = 32  # the scratch tile: one UB block


@dataclass(eq=False)
class SdmaContext:
    """A `PrefetchAsyncContext`: the UB address of its scratch tile is the mutable scalar `address`."""

    name: str
    address: str


@dataclass(eq=False)
class SdmaScratch:
    """`ctx.scratchTile`."""

    context: SdmaContext


@dataclass(eq=False)
class SdmaSession:
    """A `comm::AsyncSession` (or `ctx.GetSession()`): no data the kernel reads."""

    name: str


class SdmaLowering:
    """Mixin of `Lowering`."""

    def _sdma_state(self) -> tuple[list[Expr | ir.TileRef], list[str], set[str]]:
        if not hasattr(self, "_sdma_scratch"):
            self._sdma_scratch: list[Expr | ir.TileRef] = [Const(0)]
            self._sdma_workspaces: list[str] = []
            self._sdma_events: set[str] = set()
        return self._sdma_scratch, self._sdma_workspaces, self._sdma_events

    def _sdma_check_mode(self, offset: int) -> None:
        if self.auto_mode:
            raise self.error("TPREFETCH_ASYNC and the SDMA session calls are not supported in an AUTO-mode kernel",
                             offset)
        self.manual = True

    def _note_workspace(self, v, node: cp.Node) -> None:
        if not isinstance(v, Ptr):
            raise self.error("the SDMA workspace must be a GM pointer derived from a kernel argument", node.offset)
        workspaces = self._sdma_state()[1]
        if v.param not in workspaces:
            workspaces.append(v.param)

    # ---- declarations

    def declare_sdma(self, type_name: str, name: str, init: list[cp.Node], scope: Scope, loc: ir.SourceRange,
                     offset: int, out: list[ir.Stmt]) -> None:
        self._sdma_check_mode(offset)
        scratch, _, events = self._sdma_state()
        if type_name == SDMA_CONTEXT:
            if init:  # (workspace) or (workspace, shared session): the session is any of them
                self._note_workspace(self.eval(init[0], scope), init[0])
            ctx = SdmaContext(name, self.unique_name(f"{name}.scratchTile@address"))
            self._mutables.add(ctx.address)
            out.append(ir.Assign(ctx.address, Const(0), loc))
            scratch.append(Var(ctx.address))
            scope.define(name, Binding("struct", ctx))
        elif type_name == "AsyncSession":
            scope.define(name, Binding("struct", SdmaSession(name)))
        else:  # AsyncEvent: its handle, 0 (no transfer) until a call returns one
            var = self.unique_name(f"{name}.handle")
            self._mutables.add(var)
            events.add(var)
            value = self.eval(init[0], scope) if init else Const(0)
            if not isinstance(value, Expr):
                raise self.error("an AsyncEvent is initialised from TPREFETCH_ASYNC or another event", offset)
            out.append(ir.Assign(var, value, loc))
            scope.define(name, Binding("mutable", var))

    def sdma_member(self, base, name: str, offset: int):
        """`ctx.scratchTile`."""
        if isinstance(base, SdmaContext) and name == "scratchTile":
            return SdmaScratch(base)
        raise self.error(f"member '.{name}' of an SDMA object is not supported", offset)

    def sdma_event_var(self, node: cp.Node, scope: Scope) -> str | None:
        """The handle variable of an `AsyncEvent` named by `node`, if it is one."""
        if not isinstance(node, cp.Name) or len(node.parts) != 1:
            return None
        b = scope.lookup(node.last)
        events = self._sdma_state()[2]
        return b.value if b is not None and b.kind == "mutable" and b.value in events else None

    def tassign_scratch(self, node: cp.Call, scope: Scope, loc: ir.SourceRange) -> ir.Assign | None:
        """`TASSIGN(ctx.scratchTile, addr)`."""
        if len(node.args) != 2 or not isinstance(node.args[0], cp.Member) or node.args[0].name != "scratchTile":
            return None
        target = self.eval(node.args[0], scope)
        if not isinstance(target, SdmaScratch):
            return None
        return ir.Assign(target.context.address, self.scalar(node.args[1], scope), loc)

    # ---- calls

    def sdma_call(self, name: str, node: cp.Call, scope: Scope) -> Expr:
        """Model one call (see the module's docstring) before the statement it is written in; its value."""
        self._sdma_check_mode(node.offset)
        loc = self.src.range(node.offset, node.offset)
        line = loc.line
        if name == "TPREFETCH_ASYNC":
            if len(node.args) < 2:
                raise self.error("TPREFETCH_ASYNC takes a GlobalTensor and a PrefetchAsyncContext", node.offset)
            if not isinstance(self.eval(node.args[0], scope), ir.GmTensor):
                raise self.error("TPREFETCH_ASYNC prefetches a GlobalTensor", node.args[0].offset)
            if not isinstance(self.eval(node.args[1], scope), SdmaContext):
                raise self.error("TPREFETCH_ASYNC takes a PrefetchAsyncContext", node.args[1].offset)
            what, result = "TPREFETCH_ASYNC", Var(f"TPREFETCH_ASYNC@{line}")
        elif name == "BuildAsyncSession":
            if len(node.args) < 3:
                raise self.error("BuildAsyncSession takes a scratch tile, the GM workspace and a session", node.offset)
            tile = self.eval(node.args[0], scope)
            if isinstance(tile, ir.TileDecl) and tile.count is None:
                tile = ir.TileRef(tile, None)
            if isinstance(tile, ir.TileRef):
                if tile.tile.tile_type != "Vec":
                    raise self.error("the SDMA scratch tile must be a Vec (UB) tile", node.args[0].offset)
                self._sdma_state()[0].append(tile)
            elif not isinstance(tile, SdmaScratch):
                raise self.error("the first argument of BuildAsyncSession is the UB scratch tile", node.args[0].offset)
            self._note_workspace(self.eval(node.args[1], scope), node.args[1])
            for a in node.args[3:]:  # sync id, engine configuration: the same accesses
                self.eval(a, scope)
            what, result = "BuildAsyncSession", Var(f"BuildAsyncSession@{line}")
        else:  # event.Wait(session) / event.Test(session): the session is any of them
            for a in node.args:
                self.eval(a, scope)
            what, result = f"AsyncEvent::{name}", Var(f"{name}@{line}")
        # (Wait and Test on a handle of 0 return at once, touching nothing: counted as touching.)
        self._sdma_emit(what, loc)
        return result

    def _sdma_emit(self, what: str, loc: ir.SourceRange) -> None:
        scratch, workspaces, _ = self._sdma_state()
        regions: list[ir.RawRegion] = []
        for s in scratch:
            if isinstance(s, ir.TileRef):
                base = self.tile_pointer(s, loc.offset).address
            else:
                base = s
            r = ir.RawRegion("UB", None, base, Const(1), Const(SCRATCH_BYTES), Const(SCRATCH_BYTES))
            if r not in regions:
                regions.append(r)
        args = tuple(ir.Arg("raw", r, "rw", "scratch") for r in regions) + \
            tuple(ir.Arg("raw", whole_gm(p), "rw", f"workspace '{p}'") for p in workspaces)
        self.add_effects([ir.Instr(what, "S", args, (), loc, self.via, uid=next(self._uid))], what, loc.offset)
        if not getattr(self, "_sdma_warned", False):
            self._sdma_warned = True
            self.reporter.warn("TPREFETCH_ASYNC and the SDMA session calls: each counts as one scalar-unit access that "
                               "reads and writes every UB scratch block and GM workspace the kernel names, and orders "
                               "nothing else (a call may return before its pipe_barrier(PIPE_ALL)); its own "
                               "MTE3 -> MTE2 flag is not checked against the kernel's, its result is a run-time value, "
                               "and the emulator does not run it", loc)


_RESULT = re.compile(r"(?:TPREFETCH_ASYNC|BuildAsyncSession|Wait|Test)@\d+")


def is_sdma_result(name: str) -> bool:
    """A run-time value standing for an SDMA call's result (see `SdmaLowering.sdma_call`)."""
    return _RESULT.fullmatch(name) is not None


def event_valid(var: str) -> Expr:
    return binop("!=", Var(var), Const(0))
