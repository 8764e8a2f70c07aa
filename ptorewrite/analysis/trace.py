"""Concrete unrolling of a kernel: every executed instruction with the bytes it touches.

The sync analysis runs on this trace: it sees `x[i % 2]` as slot 0 or 1 in each
iteration, so dependences are exact per iteration instead of per array. Besides
instructions, the trace records a marker before and after every executed statement:
candidate synchronization is expanded at those markers without walking the IR again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import UnboundValue
from ptorewrite.analysis.footprint import AddressOf, Intervals, gm_footprint, tile_footprint

MAX_TRACE = 200_000  # statements; beyond this the kernel is too large to analyse concretely


class TraceError(Exception):
    def __init__(self, message: str, loc: ir.SourceRange | None = None):
        super().__init__(message)
        self.loc = loc


@dataclass(frozen=True)
class Access:
    space: str  # buffer name ("UB", "L1", ...) or "GM:<param>"
    bytes: Intervals
    write: bool
    what: str  # operand spelling, for messages


@dataclass(eq=False)
class DynInstr:
    seq: int
    instr: ir.Instr
    iters: tuple[tuple[int, int], ...]  # (id of each enclosing For, iteration number), outermost first
    accesses: list[Access]

    @property
    def pipe(self) -> str:
        return self.instr.pipe


@dataclass(eq=False)
class Marker:
    """A point before or after an executed statement, with the scalar values in scope there."""

    stmt: ir.Stmt
    where: str  # "before" or "after"
    env: dict


@dataclass(eq=False)
class DynSync:
    """A synchronization operation as issued (from the source or from a candidate plan)."""

    kind: str  # "set", "wait", "barrier"
    src: str
    dst: str | None
    event: int | None
    origin: object  # the ir.Sync or the planned sync it came from
    iters: tuple[tuple[int, int], ...] = ()


@dataclass
class Trace:
    items: list  # DynInstr and Marker (and DynSync for manual kernels), in issue order
    instrs: list[DynInstr] = field(default_factory=list)


def unroll(kernel: ir.Kernel, address_of: AddressOf | None, values: Mapping[str, int],
           markers: bool = True) -> Trace:
    """Execute the kernel's control flow with `values` for its runtime values.

    `address_of` places tiles (AUTO kernels after memory planning); when it is None, the
    kernel's own TASSIGN statements place them (manual kernels).
    """
    items: list = []
    instrs: list[DynInstr] = []
    env: dict = dict(values)
    assigned: dict[tuple[int, int], int] = {}

    def manual_address(tile: ir.TileDecl, slot: int) -> int:
        try:
            return assigned[(id(tile), slot)]
        except KeyError:
            raise TraceError(f"tile '{tile.name}' is used before a TASSIGN places it", tile.loc) from None

    place = address_of or manual_address
    iters: list[tuple[int, int]] = []

    def accesses_of(s: ir.Instr) -> list[Access]:
        out: list[Access] = []
        for a in s.args:
            if a.kind == "tile" and a.access:
                space, b = tile_footprint(a.value, env, place)
            elif a.kind == "gm" and a.access:
                space, b = gm_footprint(a.value.tensor, env)
            else:
                continue
            if "r" in a.access:
                out.append(Access(space, b, False, a.text))
            if "w" in a.access:
                out.append(Access(space, b, True, a.text))
        return out

    def run(stmt: ir.Stmt) -> None:
        if len(items) > MAX_TRACE:
            raise TraceError("the kernel executes too many statements to analyse concretely", stmt.loc)
        boundary = markers and stmt is not kernel.body
        if boundary:
            items.append(Marker(stmt, "before", dict(env)))
        try:
            if isinstance(stmt, ir.Block):
                for s in stmt.stmts:
                    run(s)
            elif isinstance(stmt, ir.Instr):
                d = DynInstr(len(instrs), stmt, tuple(iters), accesses_of(stmt))
                instrs.append(d)
                items.append(d)
            elif isinstance(stmt, ir.For):
                start, stop, step = (x.eval(env) for x in (stmt.start, stmt.stop, stmt.step))
                if stmt.inclusive:
                    stop = stop + (1 if step > 0 else -1)
                k = 0
                v = start
                while (v < stop) if step > 0 else (v > stop):
                    env[stmt.var] = v
                    iters.append((id(stmt), k))
                    run(stmt.body)
                    iters.pop()
                    v += step
                    k += 1
                env.pop(stmt.var, None)
            elif isinstance(stmt, ir.If):
                if stmt.cond.eval(env):
                    run(stmt.then)
                elif stmt.other is not None:
                    run(stmt.other)
            elif isinstance(stmt, ir.Assign):
                env[stmt.var] = stmt.value.eval(env)
            elif isinstance(stmt, ir.TileAssign):
                slot = 0 if stmt.ref.index is None else int(stmt.ref.index.eval(env))
                assigned[(id(stmt.ref.tile), slot)] = int(stmt.address.eval(env))
            elif isinstance(stmt, ir.Sync):
                ev = None if stmt.event is None else int(stmt.event.eval(env))
                items.append(DynSync(stmt.kind, stmt.src, stmt.dst, ev, stmt, tuple(iters)))
            elif isinstance(stmt, ir.AliasDef):
                pass  # aliases are resolved statically through TileDecl.alias
        except UnboundValue as e:
            raise TraceError(f"needs a value for '{e.name}'", stmt.loc) from None
        except IndexError as e:
            raise TraceError(str(e), stmt.loc) from None
        if boundary:
            items.append(Marker(stmt, "after", dict(env)))

    run(kernel.body)
    return Trace(items, instrs)
