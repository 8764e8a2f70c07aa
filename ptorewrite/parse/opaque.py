"""Constructs whose inside is not analysed, modelled from the outside: what they can touch, on
which pipe, and how the scalar unit waits for them. Each becomes ordinary instructions of the
IR, so `check` orders them against the rest of the kernel like any other work; where the exact
bytes are out of reach they count as touching more (the whole buffer, the whole GM argument),
never less. One located warning per construct says what that costs.

- a5 register-level vector code, `__VEC_SCOPE__ { ... }`: the block is one vector function, run
  by the vector pipe (V) as a unit, as the PTO instructions' own a5 implementations are. Vector
  registers load from and store to UB only, through addresses the block computes, so the block
  counts as one V instruction that reads and writes every byte of UB. Its `mem_bar`s order the
  register loads and stores inside the block only: nothing outside sees them.
- a5 SIMT, `cce::async_invoke<fn>(grid, args...)`: the SIMT lanes of the vector core run `fn`
  on the vector pipe; the scalar unit waits for it with a flag from PIPE_V (or a barrier), as
  pto-isa's own SIMT launches do. The lanes reach UB at any address and GM through the pointer
  arguments: one V instruction that reads and writes all of UB and reads (a `const` pointee)
  or reads and writes (any other) every byte of each GM argument passed.
- The SDMA engine's asynchronous L2 prefetch, see `SdmaLowering` in parse/sdma.py.

The emulator runs no semantics for these instructions: `simulate` and `verify` refuse them.
"""

from __future__ import annotations

import re

from clang.cindex import Cursor

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const, Expr
from ptorewrite.parse import cparse as cp
from ptorewrite.parse.values import LocalPtr, Ptr, Scope, describe

VEC_SCOPE = "__VEC_SCOPE__"
VEC_SCOPE_OP = "VEC_SCOPE"
SIMT_OP = "SIMT_INVOKE"
SIMT_LAUNCH = ("cce", "::", "async_invoke")
# Bytes of a GM argument a region of unknown extent is counted to reach (as execution.GM_REACH).
GM_WHOLE = 1 << 40

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


def opens_vec_scope(text_before: str) -> bool:
    """Whether the text between the previous statement (or the enclosing `{`) and a block ends
    with `__VEC_SCOPE__`, comments aside."""
    words = re.findall(r"\w+|\S", _COMMENTS.sub(" ", text_before))
    return bool(words) and words[-1] == VEC_SCOPE


def whole_buffer(space: str, size: int) -> ir.RawRegion:
    return ir.RawRegion(space, None, Const(0), Const(1), Const(size), Const(size))


def whole_gm(param: str) -> ir.RawRegion:
    return ir.RawRegion("GM", param, Const(0), Const(1), Const(GM_WHOLE), Const(GM_WHOLE))


class OpaqueLowering:
    """Mixin of `Lowering`."""

    def _is_vec_scope(self, c: Cursor, previous: Cursor | None) -> bool:
        """A block written `__VEC_SCOPE__ { ... }` (the macro expands to nothing): the text
        between the previous statement, or the enclosing `{`, and the block names it."""
        src = self.file_of(c)
        start = c.extent.start.offset
        if previous is not None and self.file_of(previous) is src and previous.extent.end.offset <= start:
            lo = previous.extent.end.offset
        else:
            lo = src.text.rfind("{", 0, start) + 1
        return opens_vec_scope(src.text[lo:start])

    def lower_vec_scope(self, c: Cursor) -> ir.Instr:
        loc = self.range_of(c)
        if self.auto_mode:
            raise self.error(f"a {VEC_SCOPE} block addresses UB directly, which an AUTO-mode kernel cannot do: the "
                             "rewrite places every tile itself", cursor=c)
        ub = self.arch.buffers["UB"].capacity
        self.reporter.warn(f"{VEC_SCOPE} block: its register-level vector code is not analysed; the block counts as "
                           "one vector-pipe (V) instruction that reads and writes all of UB, and the emulator does "
                           "not run it", loc)
        self.manual = True
        return ir.Instr(VEC_SCOPE_OP, "V", (ir.Arg("raw", whole_buffer("UB", ub), "rw", VEC_SCOPE),), (), loc,
                        self.via, uid=next(self._uid))

    def lower_simt_invoke(self, text: str, off: int, tokens: list[cp.Token], scope: Scope,
                          loc: ir.SourceRange) -> ir.Instr:
        """`cce::async_invoke<fn>(grid, args...)`: `text` is the statement, at offset `off`."""
        if self.auto_mode:
            raise self.error("a SIMT launch (cce::async_invoke) addresses UB directly, which an AUTO-mode kernel cannot "
                             "do: the rewrite places every tile itself", tokens[2].offset)
        fn, args = _split_launch(tokens)
        if not args:
            raise self.error("cce::async_invoke takes a thread grid and the SIMT function's arguments",
                             tokens[2].offset)
        const_params = self._simt_const_params(fn, len(args) - 1)
        gm_access: dict[str, tuple[str, str]] = {}  # GM argument -> (access, text)
        for i, arg in enumerate(args[1:]):
            start, end = arg[0].offset, arg[-1].offset + len(arg[-1].text)
            arg_text = text[start - off:end - off]
            v = self.eval(self.parse(arg_text, start, scope), scope)
            if isinstance(v, ir.TileDecl) and v.count is None:
                v = ir.TileRef(v, None)
            if isinstance(v, (Ptr, ir.GmTensor)):
                param = v.param
                access = "r" if isinstance(v, Ptr) and const_params.get(i, False) else "rw"
                if param in gm_access and gm_access[param][0] != access:
                    access = "rw"  # passed twice, once writable
                gm_access[param] = (access, gm_access.get(param, (access, arg_text))[1])
            elif isinstance(v, LocalPtr) and v.space not in (None, "UB") or \
                    isinstance(v, ir.TileRef) and v.tile.tile_type != "Vec":
                raise self.error("a SIMT function reaches UB and GM only; this argument is in another buffer",
                                 arg[0].offset)
            elif not isinstance(v, (Expr, LocalPtr, ir.TileRef)):
                raise self.error(f"this argument of a SIMT launch is not supported ({describe(v)}): its lanes' "
                                 "accesses through it could not be counted", arg[0].offset)
        regions = [ir.Arg("raw", whole_buffer("UB", self.arch.buffers["UB"].capacity), "rw", "UB")]
        regions += [ir.Arg("raw", whole_gm(p), a, t) for p, (a, t) in gm_access.items()]
        passed = list(gm_access)
        gm = ", ".join(f"'{p}'" for p in passed) or "none"
        self.reporter.warn("cce::async_invoke: the SIMT function's accesses are not analysed; the launch counts as "
                           "one vector-pipe (V) instruction that reads and writes all of UB and every GM argument "
                           f"passed to it (read only through a const pointer; here: {gm}), and the emulator does not "
                           "run it", loc)
        self.manual = True
        return ir.Instr(SIMT_OP, "V", tuple(regions), (), loc, self.via, uid=next(self._uid))

    def _simt_const_params(self, fn: str, count: int) -> dict[int, bool]:
        """Which parameters of the SIMT function point to const data, by position (none known
        when the function is not found: every pointer then counts as written)."""
        b = self.globals.lookup(fn) if fn else None
        out: dict[int, bool] = {}
        for f in b.value if b is not None and b.kind == "funcs" else []:
            params = [a for a in f.cursor.get_children() if a.kind.name == "PARM_DECL"]
            if len(params) != count:
                continue
            for i, p in enumerate(params):
                spelled = p.type.spelling
                pointee = spelled.split("*")[0] if "*" in spelled else ""
                out[i] = "const" in pointee.split()
            return out
        return out


def _split_launch(tokens: list[cp.Token]) -> tuple[str, list[list[cp.Token]]]:
    """The SIMT function's name and the call's arguments (token lists) of
    `cce::async_invoke<fn<...>>(a, b, ...)`."""
    i = 3
    fn, named = "", False
    if i < len(tokens) and tokens[i].text == "<":
        depth = 0
        while i < len(tokens):
            t = tokens[i].text
            if depth == 1 and tokens[i].kind == "id" and not named:
                fn = t  # the last name before the function's own template arguments
            depth += t.count("<") - t.count(">") if t in ("<", ">", ">>", "<<") else 0
            named = named or depth > 1
            i += 1
            if depth <= 0:
                break
    args: list[list[cp.Token]] = []
    if i >= len(tokens) or tokens[i].text != "(":
        return fn, args
    depth, cur = 0, []
    for t in tokens[i + 1:]:
        if t.text in ("(", "{", "["):
            depth += 1
        elif t.text in (")", "}", "]"):
            if depth == 0:
                if cur:
                    args.append(cur)
                break
            depth -= 1
        if t.text == "," and depth == 0:
            args.append(cur)
            cur = []
        else:
            cur.append(t)
    return fn, args
