"""manual2auto: the AUTO-mode form of a manual kernel, by deleting what manual mode adds.

Deleted, from every function defined in the kernel file (each core type's code as the file's
guards select it for the architecture):
- `TASSIGN` of tiles (`TASSIGN(t, addr)`, `TASSIGN<addr>(t)`); a `TASSIGN` that re-points a
  GlobalTensor is program logic and stays;
- `set_flag`, `wait_flag`, `pipe_barrier`, `TSYNC`, `PtoSetWaitFlag`, `WaitAllEvents`;
- calls of flag helpers: functions whose bodies hold nothing but the above (and calls of other
  flag helpers, and `if`s of them), e.g. `SetFlag<PIPE_V, PIPE_MTE2>(slot)`; the helpers' own
  definitions in the kernel file go too once nothing names them;
- pto-isa's typed events: `Event<...>` declarations, `e.Record()` / `e.Wait()` / `e.Init()`,
  events passed to instructions (the argument goes), recordings `e = TLOAD(...)` and
  `Event<...> e = TADD(...)` (the instruction stays), and events passed to helpers of the file
  (the argument, the helper's parameter and a template parameter only it used go);
- an `if` or a `for` (with its own loop variable) left with nothing inside, and a scope block
  left empty.

A statement on lines of its own goes with its lines (and the reason comment ptorewrite writes
after an inserted line); one sharing its line goes alone. Everything else keeps its bytes, so
`auto2manual` of the result inserts the same lines again. The result is parsed once more in
AUTO mode: an edit that would not compile is a bug, reported as such.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from clang.cindex import Cursor, CursorKind

from ptorewrite.diagnostics import Location, PtoError, Reporter
from ptorewrite.parse.frontend import ParsedFile, core_candidates, parse_configured, parse_file
from ptorewrite.parse.guards import code_only
from ptorewrite.parse.invocation import (
    BUNDLED_INCLUDE,
    TOOLKIT_STANDINS,
    FrontendOptions,
    clang_args,
    with_database,
)
from ptorewrite.parse.launch_syntax import blank_launch_configs

SYNC_CALLS = frozenset({"set_flag", "wait_flag", "pipe_barrier", "TSYNC", "PtoSetWaitFlag", "WaitAllEvents"})
EVENT_METHODS = frozenset({"Record", "Wait", "Init", "InitAddr"})
FUNCTION_KINDS = (CursorKind.FUNCTION_DECL, CursorKind.FUNCTION_TEMPLATE, CursorKind.CXX_METHOD,
                  CursorKind.CONSTRUCTOR, CursorKind.DESTRUCTOR)
SCOPE_KINDS = (CursorKind.NAMESPACE, CursorKind.LINKAGE_SPEC, CursorKind.CLASS_DECL, CursorKind.STRUCT_DECL,
               CursorKind.CLASS_TEMPLATE, CursorKind.UNEXPOSED_DECL)
_LEFTOVER = re.compile(r"\b(set_flag|wait_flag|pipe_barrier|TSYNC|PtoSetWaitFlag)\s*[<(]")
_SIDE_EFFECT = re.compile(r"\+\+|--|(?<![=!<>+\-*/%&|^])=(?!=)|[+\-*/%&|^]=|<<=|>>=")


@dataclass
class Stripped:
    text: bytes
    removed: int  # statements deleted or shortened


def manual_to_auto(path: str, opts: FrontendOptions, reporter: Reporter) -> Stripped:
    """The kernel file at `path` without its TASSIGN of tiles and its synchronization."""
    file = Path(path)
    opts = with_database(opts, file)
    data = file.read_bytes()
    text = data.decode("latin-1")
    manual = FrontendOptions(**{**opts.__dict__, "auto_mode": False})
    cores = [opts.core] if opts.core else core_candidates(text, opts.arch)
    parses = [parse_configured(file, manual, core) for core in cores]
    edits: dict[tuple[int, int], str] = {}
    helper_defs: dict[str, list[tuple[int, int]]] = {}
    for parsed in parses:
        s = _Stripper(parsed, str(file), opts)
        s.run()
        for (a, b), repl in s.edits.items():
            edits.setdefault((a, b), repl)
        for name, ranges in s.main_helper_defs.items():
            helper_defs.setdefault(name, []).extend(ranges)
    edits = _whole_lines(text, edits)
    out = _drop_unused_helpers(text, edits, helper_defs)
    _warn_leftovers(out, str(file), opts, cores, reporter)
    if edits:
        _check_compiles(file, out, opts, cores)
    else:
        reporter.warn("no TASSIGN of a tile and no synchronization found: this already is an AUTO-mode kernel",
                      Location(str(file), 1, 1))
    return Stripped(out.encode("latin-1"), len(edits))


# ---------------------------------------------------------------- finding what to delete


def _unwrap(c: Cursor) -> Cursor:
    while c.kind == CursorKind.UNEXPOSED_EXPR:
        kids = list(c.get_children())
        if len(kids) != 1:
            break
        c = kids[0]
    return c


def _key(c: Cursor | None) -> tuple[str, int] | None:
    if c is None or c.location.file is None:
        return None
    return (c.location.file.name, c.location.offset)


def _body(fn: Cursor) -> Cursor | None:
    if not fn.is_definition():
        return None
    for ch in fn.get_children():
        if ch.kind == CursorKind.COMPOUND_STMT:
            return ch
    return None


class _Stripper:
    def __init__(self, parsed: ParsedFile, main: str, opts: FrontendOptions):
        self.parsed = parsed
        self.main = main
        self.text = parsed.source.text
        self.code = code_only(self.text)
        self.opts = opts
        self.edits: dict[tuple[int, int], str] = {}
        self.functions: list[Cursor] = []  # definitions in user files (the kernel file and user headers)
        self.event_decls: set[tuple[str, int]] = set()
        self.event_params: dict[tuple[str, int], tuple[Cursor, int]] = {}  # parameter -> (function, index)
        self.helpers: set[str] = set()
        self.main_helper_defs: dict[str, list[tuple[int, int]]] = {}

    # -- the functions of the translation unit

    def _user_file(self, name: str) -> bool:
        p = str(Path(name).resolve())
        system = [str(BUNDLED_INCLUDE), str(TOOLKIT_STANDINS)]
        if self.opts.pto_isa_root:
            system.append(str(Path(self.opts.pto_isa_root).resolve()))
        return not any(p.startswith(s) for s in system) and not p.startswith("/usr/")

    def _collect(self, cursors) -> None:
        for c in cursors:
            f = c.location.file
            if f is None or not self._user_file(f.name):
                continue
            if c.kind in FUNCTION_KINDS and _body(c) is not None:
                self.functions.append(c)
            elif c.kind in SCOPE_KINDS:
                self._collect(c.get_children())

    def in_main(self, c: Cursor) -> bool:
        return c.location.file is not None and c.location.file.name == self.main

    def run(self) -> None:
        self._collect(self.parsed.top)
        for fn in self.functions:
            for c in fn.walk_preorder():
                if c.kind == CursorKind.VAR_DECL and "Event<" in c.type.spelling:
                    self.event_decls.add(_key(c))
        self._find_event_params()
        self._find_helpers()
        for fn in self.functions:
            if not self.in_main(fn):
                continue
            if fn.spelling in self.helpers:
                self.main_helper_defs.setdefault(fn.spelling, []).append((fn.extent.start.offset,
                                                                          fn.extent.end.offset))
            body = _body(fn)
            self._block(body, self.edits)
            self._drop_event_params(fn)

    def _defs_named(self, name: str) -> list[Cursor]:
        return [f for f in self.functions if f.spelling == name]

    def _params(self, fn: Cursor) -> list[Cursor]:
        return [c for c in fn.get_children() if c.kind == CursorKind.PARM_DECL]

    def is_event(self, c: Cursor) -> bool:
        c = _unwrap(c)
        return c.kind == CursorKind.DECL_REF_EXPR and _key(c.referenced) in self.event_decls

    def _find_event_params(self) -> None:
        """An event passed to a helper of a user file makes that parameter an event too."""
        changed = True
        while changed:
            changed = False
            for fn in self.functions:
                for c in fn.walk_preorder():
                    if c.kind != CursorKind.CALL_EXPR:
                        continue
                    args = list(c.get_arguments()) or list(c.get_children())[1:]
                    for i, a in enumerate(args):
                        if not self.is_event(a):
                            continue
                        for d in self._defs_named(self._callee_name(c) or ""):
                            params = self._params(d)
                            if i < len(params) and _key(params[i]) not in self.event_decls:
                                self.event_decls.add(_key(params[i]))
                                self.event_params[_key(params[i])] = (d, i)
                                changed = True

    def _find_helpers(self) -> None:
        """Flag helpers: user functions whose body is only synchronization (a fixed point, so a
        helper calling helpers counts)."""
        while True:
            ok: dict[str, bool] = {}
            for fn in self.functions:
                body = _body(fn)
                stmts = list(body.get_children())
                removable = bool(stmts) and self._block(body, {})
                ok[fn.spelling] = ok.get(fn.spelling, True) and removable
            found = {name for name, yes in ok.items() if yes}
            if found == self.helpers:
                return
            self.helpers = found

    # -- statements

    def _callee_name(self, call: Cursor) -> str | None:
        """The called function's name, as written (`pto::set_flag`, `SetFlag<PIPE_V, PIPE_MTE2>`,
        `e.Record`: set_flag, SetFlag, Record)."""
        kids = list(call.get_children())
        if not kids:
            return call.spelling or None
        callee = _unwrap(kids[0])
        if callee.kind == CursorKind.MEMBER_REF_EXPR:
            return callee.spelling or None
        text = self.text[kids[0].extent.start.offset:kids[0].extent.end.offset]
        m = re.match(r"\s*(?:::\s*)?(?:\w+\s*::\s*)*(\w+)", text)
        return m.group(1) if m else (call.spelling or None)

    def _stmt_end(self, c: Cursor) -> int:
        """End of the statement, past its `;` when the cursor's extent stops before it."""
        end = c.extent.end.offset
        if self.text[end - 1:end] == "}" and c.kind not in (CursorKind.CALL_EXPR, CursorKind.DECL_STMT):
            return end
        m = re.compile(r"\s*").match(self.code, end)
        j = m.end()
        return j + 1 if self.code[j:j + 1] == ";" else end

    def _block(self, block: Cursor, edits: dict) -> bool:
        """Strip a `{ ... }`; True when nothing is left in it (then its statements are deleted)."""
        stmts = list(block.get_children())
        gone = [self._stmt(s, edits) for s in stmts]
        for s, g in zip(stmts, gone):
            if g:
                self._delete(s, edits)
        return bool(stmts) and all(gone)

    def _branch(self, s: Cursor, edits: dict) -> bool:
        """A body of an if / for: True when the stripping left nothing in it (a body the user wrote
        empty is theirs and keeps the statement)."""
        if s.kind == CursorKind.COMPOUND_STMT:
            return self._block(s, edits)
        if self._stmt(s, edits):
            # Kept only if the enclosing statement stays: an empty body instead of the statement.
            edits[(s.extent.start.offset, self._stmt_end(s))] = "{}"
            return True
        return False

    def _stmt(self, s: Cursor, edits: dict) -> bool:
        """Record the edits of statement `s`; True when all of it should go."""
        k = s.kind
        if k == CursorKind.COMPOUND_STMT:
            return self._block(s, edits)
        if k == CursorKind.IF_STMT:
            return self._if(s, edits)
        if k == CursorKind.FOR_STMT:
            kids = list(s.get_children())
            empty = self._branch(kids[-1], edits)
            own_var = bool(kids) and kids[0].kind == CursorKind.DECL_STMT
            return empty and own_var
        if k in (CursorKind.WHILE_STMT, CursorKind.DO_STMT, CursorKind.SWITCH_STMT, CursorKind.CASE_STMT,
                 CursorKind.DEFAULT_STMT):
            # The loop, switch or label stays (its condition may have effects): only its body is
            # stripped. The body is the last child (the first of a do), statement or expression.
            kids = list(s.get_children())
            if not kids:
                return False
            body = kids[0] if k == CursorKind.DO_STMT else kids[-1]
            labelled = k in (CursorKind.CASE_STMT, CursorKind.DEFAULT_STMT)
            if labelled and body.kind != CursorKind.COMPOUND_STMT and self._stmt(body, {}) \
                    and not self.code[self._stmt_end(body):].lstrip().startswith("}"):
                self._delete(body, edits)  # the label now labels the next statement
            else:
                self._branch(body, edits)
            return False
        if k == CursorKind.DECL_STMT:
            return self._decl(s, edits)
        if k.is_expression():
            return self._expression_stmt(s, edits)
        return False

    def _if(self, s: Cursor, edits: dict) -> bool:
        kids = list(s.get_children())
        cond_end = self._condition_end(s)
        branches = [c for c in kids if c.extent.start.offset >= cond_end]
        if not branches:
            return False
        then = branches[0]
        other = branches[1] if len(branches) > 1 else None
        then_empty = self._branch(then, edits)
        if other is not None and other.kind == CursorKind.IF_STMT:
            other_empty = self._if(other, edits)
            if other_empty and not then_empty:  # `else if (...) { }` left behind: drop the else-if
                edits[(self._stmt_end(then), self._stmt_end(other))] = ""
        else:
            other_empty = True if other is None else self._branch(other, edits)
        head = self.code[s.extent.start.offset:cond_end]
        return then_empty and other_empty and not _SIDE_EFFECT.search(head)

    def _condition_end(self, s: Cursor) -> int:
        """Offset just past the `)` that closes an if's condition."""
        start = s.extent.start.offset
        open_at = self.code.index("(", start)
        depth = 0
        for i in range(open_at, s.extent.end.offset):
            ch = self.code[i]
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth == 0:
                    return i + 1
        return s.extent.end.offset

    def _decl(self, s: Cursor, edits: dict) -> bool:
        decls = [c for c in s.get_children() if c.kind == CursorKind.VAR_DECL]
        if not decls or _key(decls[0]) not in self.event_decls:
            self._lambdas(s, edits)
            return False
        if len(decls) == 1:
            init = [c for c in decls[0].get_children() if _unwrap(c).kind == CursorKind.CALL_EXPR
                    and self._callee_name(_unwrap(c)) not in ("Event", None)]
            if init:  # `Event<..> e = TADD(...);`: the instruction stays
                call = _unwrap(init[0])
                edits[(s.extent.start.offset, self._stmt_end(s))] = self._call_text(call) + ";"
                return False
        return True

    def _expression_stmt(self, s: Cursor, edits: dict) -> bool:
        c = _unwrap(s)
        if c.kind == CursorKind.CALL_EXPR:
            kids = list(c.get_children())
            member = _unwrap(kids[0]) if kids else None
            if member is not None and member.kind == CursorKind.MEMBER_REF_EXPR and member.spelling in EVENT_METHODS:
                base = list(member.get_children())
                if base and self.is_event(base[0]):
                    return True
            name = self._callee_name(c)
            if name in SYNC_CALLS or name in self.helpers:
                return True
            if name == "TASSIGN" and self._assigns_tile(c):
                return True
            self._drop_event_args(c, edits)
            self._lambdas(c, edits)
            return False
        if c.kind == CursorKind.BINARY_OPERATOR:
            kids = list(c.get_children())
            op = self.code[kids[0].extent.end.offset:kids[1].extent.start.offset].strip() if len(kids) == 2 else ""
            if op == "=" and self.is_event(kids[0]):
                rhs = _unwrap(kids[1])
                if rhs.kind == CursorKind.CALL_EXPR and self._callee_name(rhs) not in ("RecordEvent", None):
                    edits[(s.extent.start.offset, self._stmt_end(s))] = self._call_text(rhs) + ";"
                    return False
                return True
        self._lambdas(s, edits)
        return False

    def _lambdas(self, c: Cursor, edits: dict) -> None:
        """Bodies of lambdas inside an expression (pto-isa's MultiBuffered loops); lambdas nested
        in them are reached through their bodies."""
        for ch in c.get_children():
            if ch.kind == CursorKind.LAMBDA_EXPR:
                for b in ch.get_children():
                    if b.kind == CursorKind.COMPOUND_STMT:
                        self._block(b, edits)
            else:
                self._lambdas(ch, edits)

    def _args(self, call: Cursor) -> list[Cursor]:
        kids = list(call.get_children())
        return kids[1:]

    def _event_arg_ranges(self, call: Cursor) -> list[tuple[int, int]]:
        """Byte ranges to cut for the event arguments of a call, each with its comma."""
        args = self._args(call)
        out = []
        for i, a in enumerate(args):
            if not self.is_event(a):
                continue
            if i > 0:
                out.append((args[i - 1].extent.end.offset, a.extent.end.offset))
            elif len(args) > 1:
                out.append((a.extent.start.offset, args[1].extent.start.offset))
            else:
                out.append((a.extent.start.offset, a.extent.end.offset))
        return out

    def _drop_event_args(self, call: Cursor, edits: dict) -> None:
        for a, b in self._event_arg_ranges(call):
            edits[(a, b)] = ""

    def _call_text(self, call: Cursor) -> str:
        a, b = call.extent.start.offset, call.extent.end.offset
        out, pos = [], a
        for x, y in sorted(self._event_arg_ranges(call)):
            out.append(self.text[pos:x])
            pos = y
        out.append(self.text[pos:b])
        return "".join(out)

    def _assigns_tile(self, call: Cursor) -> bool:
        """TASSIGN of a tile (not the re-pointing of a GlobalTensor)."""
        args = self._args(call)
        if not args:
            return False
        c = _unwrap(args[0])
        while c.kind in (CursorKind.ARRAY_SUBSCRIPT_EXPR, CursorKind.PAREN_EXPR, CursorKind.UNEXPOSED_EXPR):
            kids = list(c.get_children())
            if not kids:
                break
            c = _unwrap(kids[0])
        decl = c.referenced if c.kind in (CursorKind.DECL_REF_EXPR, CursorKind.MEMBER_REF_EXPR) else None
        spelled = _type_text(decl.type) if decl is not None else _type_text(c.type)
        return "GlobalTensor" not in spelled

    # -- events passed to helpers

    def _drop_event_params(self, fn: Cursor) -> None:
        """Parameters of `fn` that receive events, and a template parameter only they used."""
        params = self._params(fn)
        gone = [i for i, p in enumerate(params) if _key(p) in self.event_params]
        if not gone:
            return
        for i in gone:
            p = params[i]
            if i > 0:
                self.edits[(params[i - 1].extent.end.offset, p.extent.end.offset)] = ""
            elif len(params) > 1:
                self.edits[(p.extent.start.offset, params[1].extent.start.offset)] = ""
            else:
                self.edits[(p.extent.start.offset, p.extent.end.offset)] = ""
        if fn.kind != CursorKind.FUNCTION_TEMPLATE:
            return
        tparams = [c for c in fn.get_children() if c.kind == CursorKind.TEMPLATE_TYPE_PARAMETER]
        cut = [(params[i].extent.start.offset, params[i].extent.end.offset) for i in gone]
        rest = self.code[fn.extent.start.offset:fn.extent.end.offset]
        base = fn.extent.start.offset
        for a, b in cut:
            rest = rest[:a - base] + " " * (b - a) + rest[b - base:]
        for t in tparams:
            uses = re.findall(rf"\b{re.escape(t.spelling)}\b", rest)
            if len(uses) == 1:  # only its own declaration: nothing else can deduce it now
                j = tparams.index(t)
                if j > 0:
                    self.edits[(tparams[j - 1].extent.end.offset, t.extent.end.offset)] = ""
                elif len(tparams) > 1:
                    self.edits[(t.extent.start.offset, tparams[1].extent.start.offset)] = ""
                else:
                    raise PtoError(f"'{fn.spelling}' takes an event through its only template parameter; "
                                   "removing it would make the helper a non-template: rewrite it by hand",
                                   Location(self.main, fn.location.line, fn.location.column))

    # -- deleting text

    def _delete(self, s: Cursor, edits: dict) -> None:
        start, end = s.extent.start.offset, self._stmt_end(s)
        edits[_removal(self.text, start, end)] = ""


def _type_text(t) -> str:
    """A type's spelling, through typedefs and aliases."""
    seen = []
    for _ in range(8):
        seen.append(t.spelling)
        decl = t.get_declaration()
        if decl is None or decl.kind not in (CursorKind.TYPEDEF_DECL, CursorKind.TYPE_ALIAS_DECL):
            if t.get_pointee().spelling:
                t = t.get_pointee()
                continue
            elem = t.get_array_element_type()
            if elem.spelling:
                t = elem
                continue
            break
        t = decl.underlying_typedef_type
    return " ".join(seen)


def _removal(text: str, start: int, end: int) -> tuple[int, int]:
    """The bytes to delete for a statement at [start, end): its whole lines when it has them to
    itself (a trailing `//` comment included), else the statement and the blanks after it."""
    ls = text.rfind("\n", 0, start) + 1
    le = text.find("\n", end)
    le = len(text) if le < 0 else le
    before, after = text[ls:start], text[end:le]
    if not before.strip() and (not after.strip() or after.strip().startswith("//")):
        return ls, min(le + 1, len(text))
    b = end
    while b < len(text) and text[b] in " \t":
        b += 1
    return start, b


def _apply(text: str, edits: dict[tuple[int, int], str]) -> str:
    """Apply edits; one inside a larger deleted or replaced range is dropped."""
    ordered = sorted(edits.items(), key=lambda kv: (kv[0][0], -kv[0][1]))
    out, pos = [], 0
    for (a, b), repl in ordered:
        if a < pos:
            if b <= pos:
                continue  # inside an earlier edit
            raise RuntimeError(f"overlapping edits at byte {a}")
        out.append(text[pos:a])
        out.append(repl)
        pos = b
    out.append(text[pos:])
    return "".join(out)


def _whole_lines(text: str, edits: dict[tuple[int, int], str]) -> dict[tuple[int, int], str]:
    """A line whose statements all go (`set_flag(...); wait_flag(...);`) goes whole, with a
    trailing `//` comment, instead of staying behind blank."""
    out = dict(edits)
    by_line: dict[int, list[tuple[int, int]]] = {}
    for (a, b), repl in edits.items():
        if repl == "" and a < b:
            by_line.setdefault(text.rfind("\n", 0, a) + 1, []).append((a, b))
    for ls, cuts in by_line.items():
        le = text.find("\n", ls)
        le = len(text) if le < 0 else le
        if any(b > le + 1 for _, b in cuts) or not text[ls:le].strip():
            continue
        kept = list(text[ls:le])
        for a, b in cuts:
            for i in range(a - ls, min(b, le) - ls):
                kept[i] = " "
        rest = "".join(kept).strip()
        if rest and not rest.startswith("//"):
            continue
        for cut in cuts:
            del out[cut]
        out[(ls, min(le + 1, len(text)))] = ""
    return out


def _drop_unused_helpers(text: str, edits: dict, helper_defs: dict[str, list[tuple[int, int]]]) -> str:
    """Definitions of flag helpers in the kernel file that nothing names any more, with the
    comment lines right above them."""
    more = dict(edits)
    for name, ranges in helper_defs.items():
        cut = dict(more)
        for a, b in set(ranges):
            a = text.rfind("\n", 0, a) + 1
            while a > 0:  # the comment block just above documents the helper
                prev = text.rfind("\n", 0, a - 1) + 1
                if text[prev:a].lstrip().startswith("//"):
                    a = prev
                else:
                    break
            le = text.find("\n", b)
            b = len(text) if le < 0 else le + 1
            if text[b:b + 1] == "\n" and (a == 0 or text[a - 2:a] == "\n\n"):
                b += 1  # and one blank line after it
            cut = {k: v for k, v in cut.items() if not (a <= k[0] and k[1] <= b)}
            cut[(a, b)] = ""
        trial = _apply(text, cut)
        if not re.search(rf"\b{re.escape(name)}\b", code_only(trial)):
            more = cut
    return _apply(text, more)


def _warn_leftovers(out: str, path: str, opts: FrontendOptions, cores: list[str], reporter: Reporter) -> None:
    code = code_only(out)
    for m in _LEFTOVER.finditer(code):
        line = out.count("\n", 0, m.start()) + 1
        col = m.start() - (out.rfind("\n", 0, m.start()) + 1) + 1
        reporter.warn(f"{m.group(1)} left as it is: this code is not compiled for --arch {opts.arch} "
                      f"({' or '.join(cores)} core), so ptorewrite did not read it; run manual2auto with the "
                      "configuration that compiles it", Location(path, line, col))


def _check_compiles(file: Path, out: str, opts: FrontendOptions, cores: list[str]) -> None:
    auto = FrontendOptions(**{**opts.__dict__, "auto_mode": True})
    blanked, _ = blank_launch_configs(out)
    for core in cores:
        args = clang_args(auto, core)
        parsed = parse_file(file, args, replaced={str(file): blanked})
        from clang.cindex import Diagnostic as ClangDiagnostic

        errors = [d for d in parsed.tu.diagnostics if d.severity >= ClangDiagnostic.Error]
        if errors:
            d = errors[0]
            raise RuntimeError(f"the AUTO form of {file} does not compile ({d.location.line}:{d.location.column}: "
                               f"{d.spelling})")
