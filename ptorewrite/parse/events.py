"""pto-isa's typed events, lowered to the IR's set / wait / barrier statements.

`Event<Op::A, Op::B> e;` names two instruction classes; each class belongs to one pipe
(`instructions.event_class_pipe`), and the event is a flag between those pipes:

- *record* (`e = INSTR(...)`, `Event<..> e = INSTR(...)`, `e.Record()`, `e.Init()`): a
  `set_flag(src, dst, token)` right after the instruction is issued;
- *wait* (the event passed as a trailing argument of an instruction, `TSYNC(e...)`,
  `e.Wait()`): a `wait_flag(src, dst, token)` right before the instruction is issued;
- the *token* (event id) is taken when the event object is constructed, from a counter per
  ordered pipe pair that starts at 0 and counts modulo 8; so the n-th event constructed on a
  pair uses id n % 8, and one constructed in a loop gets a new id every iteration;
- an event whose two classes share a pipe has no flag: recording it does nothing, waiting on it
  is `pipe_barrier(pipe)` (on a5 only for the MTE2 and MTE3 pipes; a scalar-pipe event is
  nothing, the scalar unit being in order);
- cross-core events (a cube result moved to the vector core, or vector data to the cube core)
  are not modelled: they are reported and skipped, as the cross-core instructions are;
- under `__PTO_AUTO__` every event operation compiles to nothing.

`TSYNC<Op::X>()` is `pipe_barrier` of X's pipe, and `PtoSetWaitFlag<SRC, DST>(set, wait)` a set
immediately followed by a wait.
"""

from __future__ import annotations

from dataclasses import replace

from clang.cindex import Cursor

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const, Expr, Var, binop
from ptorewrite.analysis.instructions import event_class_pipe
from ptorewrite.arch import NUM_EVENT_IDS
from ptorewrite.parse import cparse as cp
from ptorewrite.parse import types as ty
from ptorewrite.parse.values import EventObject, Scope


def is_cross_core(arch: str, src_class: str, dst_pipe: str) -> bool:
    """The classes pto-isa routes through cross-core signalling instead of a flag."""
    if arch == "a5":
        return src_class in ("TMOV_A2V", "TMOV_V2M", "TEXTRACT_V2M")
    return (src_class == "TMOV_A2V" and dst_pipe == "V") or \
        (src_class in ("TMOV_V2M", "TEXTRACT_V2M") and dst_pipe == "MTE1")


class EventLowering:
    """The event part of `lower.Lowering` (mixed in; uses its error, reporter and naming)."""

    def _event_state(self):
        st = self.__dict__.get("_events")
        if st is None:
            st = self.__dict__["_events"] = {"counts": {}, "vars": {}}
        return st

    def class_pipe(self, op_class: str, offset: int) -> str:
        pipe = event_class_pipe(op_class)
        if pipe is None:
            raise self.error(f"Op::{op_class} is not an instruction class an event can name", offset)
        return pipe

    def declare_event(self, t: ty.EventType, name: str, loc: ir.SourceRange, offset: int,
                      out: list[ir.Stmt]) -> EventObject:
        src, dst = self.class_pipe(t.src_class, offset), self.class_pipe(t.dst_class, offset)
        cross = is_cross_core(self.arch.name, t.src_class, dst)
        if not t.auto_token:
            token = t.event_id
        else:
            token = self._next_token(src, dst, name, loc, out)
        return EventObject(name, t.src_class, t.dst_class, src, dst, token, cross)

    def _next_token(self, src: str, dst: str, name: str, loc: ir.SourceRange, out: list[ir.Stmt]) -> Expr:
        """The id counter of the pipe pair: folded while every construction runs once, in order;
        a scalar variable from the first construction in a loop or a run-time branch on."""
        st = self._event_state()
        pair = (src, dst)
        counter = st["vars"].get(pair)
        if counter is None and self._control_level() == (0, 0):
            n = st["counts"].get(pair, 0)
            st["counts"][pair] = n + 1
            return Const(n % NUM_EVENT_IDS)
        if counter is None:
            counter = st["vars"][pair] = self.unique_name(f"Event<{src},{dst}>.next")
            # Constructions so far ran once each, before this point: the counter starts past them.
            self.prologue.append(ir.Assign(counter, Const(st["counts"].get(pair, 0) % NUM_EVENT_IDS), loc))
        token = self.unique_name(f"{name}.token")
        out.append(ir.Assign(token, Var(counter), loc))
        out.append(ir.Assign(counter, binop("%", binop("+", Var(counter), Const(1)), Const(NUM_EVENT_IDS)), loc))
        return Var(token)

    def _events_compile(self, ev: EventObject, loc: ir.SourceRange) -> bool:
        if self.auto_mode:
            return False
        if ev.cross_core:
            self.reporter.warn(f"event '{ev.name}' (Op::{ev.src_class} -> Op::{ev.dst_class}) crosses cores; it is "
                               "not modelled (version 1 handles single-core-type kernels)", loc)
            return False
        self.manual = True
        return True

    def record_event(self, ev: EventObject, loc: ir.SourceRange, out: list[ir.Stmt]) -> None:
        if self._events_compile(ev, loc) and not ev.same_pipe:
            out.append(ir.Sync("set", ev.src, ev.dst, ev.token, loc, self.via))

    def wait_event(self, ev: EventObject, loc: ir.SourceRange, out: list[ir.Stmt]) -> None:
        if not self._events_compile(ev, loc):
            return
        if not ev.same_pipe:
            out.append(ir.Sync("wait", ev.src, ev.dst, ev.token, loc, self.via))
        elif ev.src != "S" and (self.arch.name != "a5" or ev.src in ("MTE2", "MTE3")):
            out.append(ir.Sync("barrier", ev.src, None, None, loc, self.via))

    def class_barrier(self, op_class: str, offset: int, loc: ir.SourceRange, out: list[ir.Stmt]) -> None:
        """`TSYNC<Op::X>()`."""
        pipe = self.class_pipe(op_class, offset)
        if self.auto_mode or pipe == "S":
            return
        self.manual = True
        out.append(ir.Sync("barrier", pipe, None, None, loc, self.via))

    def set_wait_pair(self, src: str, dst: str, set_id: Expr, wait_id: Expr, loc: ir.SourceRange,
                      out: list[ir.Stmt]) -> None:
        """`PtoSetWaitFlag<SRC, DST>(setId, waitId)`."""
        if self.auto_mode:
            return
        self.manual = True
        out.append(ir.Sync("set", src, dst, set_id, loc, self.via))
        out.append(ir.Sync("wait", src, dst, wait_id, loc, self.via))

    def lower_recording(self, ev: EventObject, rhs: cp.Node, scope: Scope, loc: ir.SourceRange,
                        out: list[ir.Stmt], c: Cursor) -> None:
        """`e = INSTR(...)`: the instruction, then the event's set."""
        if isinstance(rhs, cp.InitList) and len(rhs.items) == 1:
            rhs = rhs.items[0]
        if isinstance(rhs, cp.Call) and isinstance(rhs.callee, cp.Name) and rhs.callee.last == "RecordEvent":
            self.record_event(ev, loc, out)  # `e = RecordEvent{};`: a record with no instruction
            return
        if not (isinstance(rhs, cp.Call) and isinstance(rhs.callee, cp.Name)):
            raise self.error(f"event '{ev.name}' must be recorded from an instruction call", rhs.offset)
        self.lower_call(rhs, scope, loc, out, c)
        self.record_event(ev, loc, out)

    def lower_event_method(self, ev: EventObject, node: cp.Call, loc: ir.SourceRange, out: list[ir.Stmt]) -> None:
        name = node.callee.name
        if name == "Wait":
            self.wait_event(ev, loc, out)
        elif name in ("Record", "Init"):
            self.record_event(ev, loc, out)
        elif name != "InitAddr":  # InitAddr only configures cross-core signalling
            raise self.error(f"Event has no member function '{name}'", node.offset)

    def lower_event_waits(self, node: cp.Call, scope: Scope, loc: ir.SourceRange, out: list[ir.Stmt]) -> cp.Call:
        """Waits for the events passed to an instruction (pto-isa waits for them, in order, before
        issuing it); returns the call without them."""
        kept = []
        for a in node.args:
            b = scope.lookup(a.last) if isinstance(a, cp.Name) and len(a.parts) == 1 else None
            if b is not None and b.kind == "event":
                self.wait_event(b.value, loc, out)
            else:
                kept.append(a)
        return node if len(kept) == len(node.args) else replace(node, args=tuple(kept))

    def lower_set_wait_pair(self, node: cp.Call, scope: Scope, loc: ir.SourceRange, out: list[ir.Stmt]) -> None:
        targs = node.callee.targs or ()
        pipes = [self.scalar(t, scope).const_value() for t in targs]
        if len(pipes) != 2 or not all(isinstance(p, str) for p in pipes):
            raise self.error("PtoSetWaitFlag takes two PIPE_* template arguments", node.offset)
        ids = [self.scalar(a, scope) for a in node.args] + [Const(0)] * (2 - len(node.args))
        self.set_wait_pair(pipes[0], pipes[1], ids[0], ids[1], loc, out)
