"""Lower a libclang translation unit into the kernel IR.

Starting at the entry function, the lowering walks statements with libclang and parses
the expressions inside them itself (`cparse`), evaluating them in its own scopes:
template parameters are bound to the concrete arguments of each call, constexpr values
fold to constants, loop variables and runtime arguments stay symbolic. Calls to the
user's own functions (kernel templates, `AICORE inline` helpers) are inlined, keeping
each instruction's location inside the helper and the chain of call sites.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterable
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from clang.cindex import Cursor, CursorKind, StorageClass

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import (
    Const,
    Expr,
    Var,
    binop,
    select,
    unop,
)
from ptorewrite.analysis.instructions import (
    ALIAS_OPS,
    CONFIG_OPS,
    CROSS_CORE_OPS,
    MX_ACCUMULATING_FORMS,
    PipeRuleError,
    lookup,
    pipe_of,
    tile_accesses,
)
from ptorewrite.arch import CROSS_CORE_SEMAPHORES, PIPE_ENUM, TILE_TYPE_BUFFER, ArchProfile
from ptorewrite.diagnostics import PtoError, Reporter
from ptorewrite.parse import cparse as cp
from ptorewrite.parse import macros
from ptorewrite.parse import types as ty
from ptorewrite.parse.calls import CallInlining
from ptorewrite.parse.comm import COMM_REFUSED, COMM_SIGNALS, COMM_TRANSFERS, CommLowering, is_comm_call
from ptorewrite.parse.consteval import ConstEvaluation, ScalarArray
from ptorewrite.parse.cursor_text import enum_names, enum_values, is_mutable_reference, param_count_fits
from ptorewrite.parse.effects import EffectLowering
from ptorewrite.parse.events import EventLowering
from ptorewrite.parse.fifo import FIFO_CALLS, QUANT_REGISTER_CALLS, FifoLowering, PipeEnd, PipeObject
from ptorewrite.parse.guards import skipped_ranges
from ptorewrite.parse.loops import LoopLowering, has_jump
from ptorewrite.parse.mpipe import MPipeEnd, MPipeLowering, MPipeObject, SyncObject
from ptorewrite.parse.opaque import SIMT_LAUNCH, OpaqueLowering
from ptorewrite.parse.raw import RAW_INTRINSICS, RawLowering, with_space
from ptorewrite.parse.records import RECORD_KINDS, RecordLowering
from ptorewrite.parse.sdma import (
    EVENT_CALLS,
    SDMA_CALLS,
    SDMA_TYPES,
    SdmaContext,
    SdmaLowering,
    SdmaSession,
    event_valid,
)
from ptorewrite.parse.source import SourceFile
from ptorewrite.parse.typeres import (
    TYPE_TRAITS,
    VALUE_TRAITS,
    VECTOR_REGISTER_CODE,
    TypeResolution,
    vector_register_refusal,
)
from ptorewrite.parse.values import (
    NAMESPACES,
    NULL_POINTER,
    ArrayPointer,
    Binding,
    Closure,
    EventObject,
    Frame,
    Function,
    GmState,
    LaneContext,
    LocalPtr,
    LoweringError,
    MultiBufferLoop,
    NullPointer,
    Ptr,
    PtrState,
    RecordValue,
    ScalarAddress,
    Scope,
    StageRunner,
    StructValue,
    TileChoice,
    TileConstruction,
    describe,
    elem_bytes,
    tile_type_of,
)

__all__ = ["Binding", "Lowering", "LoweringError", "Ptr", "Scope"]  # what the front end driver uses
# Vector-mask setters kernels call before PTO vector code (pto-isa's demos do); no tile data.
MASK_BUILTINS = frozenset({"set_mask_norm", "set_mask_count", "set_vector_mask"})
# Device set-up calls with no tile data and no ordering between the pipes of one core.
# dcci: the scalar unit's data-cache maintenance, which orders no pipe.
IGNORED_BUILTINS = frozenset({"set_ffts_base_addr", "set_atomic_none", "set_padding", "SetFFTSBaseAddr", "dsb",
                              "preload", "dcci"})  # preload: instruction-cache prefetch
# a5 flags between the cube core and its vector cores (compiler builtins, outside namespace pto).
CROSS_CORE_BUILTINS = frozenset({"set_intra_block", "wait_intra_block"})
# pto-isa's AccToVecMode by value: which vector core's UB an a5 accumulator-to-vector move writes.
ACC_TO_VEC_MODES = ("SingleModeVec0", "SingleModeVec1", "DualModeSplitM", "DualModeSplitN")
# a5 MX intrinsics (scale moves into L0A/L0B, the MX cube op), declared in the bundled headers but
# not modelled: a kernel that runs one is refused.
UNMODELLED_INTRINSICS: frozenset[str] = frozenset()
# ffts cross-core flags written directly (a2a3), and the scalar device store that can raise one.
FFTS_CALLS = frozenset({"ffts_cross_core_sync", "wait_flag_dev", "st_dev"})
# Implementation entry points kernels sometimes call directly: the instruction they implement.
IMPL_ALIASES = {"TCONCAT_IMPL": "TCONCAT", "TCOLEXPAND_IMPL": "TCOLEXPAND", "TROWEXPANDSUB_IMPL": "TROWEXPANDSUB"}
# Address-space qualifiers of on-chip buffers: a pointer into one holds a byte address.
ON_CHIP_SPACES = frozenset({"__ubuf__", "__cbuf__", "__ca__", "__cb__", "__cc__", "__fbuf__"})
# Tile member functions that set how later instructions compute (K alignment, TF32 rounding).
TILE_MODE_SETTERS = frozenset({"SetKAligned", "SetMadTF32Mode", "ResetMadMode"})
# A ConvTile's img2col configuration (feature map, filter, padding, strides, repeats, where the
# output goes in the destination): read by SETFMATRIX/TIMG2COL, which touch both tiles whole.
CONV_TILE_SETTERS = frozenset({
    "SetFmapH", "SetFmapW", "SetPadList", "SetPadListArray", "SetFilterH", "SetFilterW", "SetDilationH",
    "SetDilationW", "SetStrideH", "SetStrideW", "SetPadValue", "SetChannelSize", "SetRepeatStride",
    "SetRepeatTime", "SetRepeatMode", "SetTranspose", "SetDstStride", "SetDstMposition"})
RUNTIME_BUILTINS = {"block_idx": "block_idx", "block_num": "block_num"}
RUNTIME_CALLS = {"get_block_idx": "block_idx", "get_block_num": "block_num", "GetBlockIdx": "block_idx",
                 "GetBlockNum": "block_num", "get_subblockid": "subblock_idx", "get_subblockdim": "subblock_num"}



# Expression kinds that compute nothing and touch nothing: a statement made only of these
# (a macro expanded to `((void)0)`, say) can be dropped.
_INERT_KINDS = frozenset({CursorKind.CSTYLE_CAST_EXPR, CursorKind.PAREN_EXPR, CursorKind.INTEGER_LITERAL,
                          CursorKind.UNEXPOSED_EXPR, CursorKind.CXX_BOOL_LITERAL_EXPR,
                          CursorKind.CXX_NULL_PTR_LITERAL_EXPR})


def _macro_use_end(text: str, off: int) -> int:
    """One past the `)` closing the function-like macro use that starts at `off` (or `off`)."""
    m = re.match(r"[A-Za-z_]\w*\s*\(", text[off:])
    if m is None:
        return off
    depth = 0
    for i in range(off + m.end() - 1, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i + 1
    return off


def _without_effect(c: Cursor) -> bool:
    return c.kind in _INERT_KINDS and all(d.kind in _INERT_KINDS for d in c.walk_preorder())


# The namespace-scope declarations `_collect_globals` takes: anything else is skipped before
# asking libclang for its file, which is slow.
_GLOBAL_KINDS = frozenset({
    CursorKind.NAMESPACE, CursorKind.UNEXPOSED_DECL, CursorKind.LINKAGE_SPEC, CursorKind.TYPE_ALIAS_DECL,
    CursorKind.TYPEDEF_DECL, CursorKind.TYPE_ALIAS_TEMPLATE_DECL, CursorKind.CLASS_TEMPLATE,
    CursorKind.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION, CursorKind.VAR_DECL, CursorKind.FUNCTION_DECL,
    CursorKind.FUNCTION_TEMPLATE, CursorKind.STRUCT_DECL, CursorKind.CLASS_DECL, CursorKind.ENUM_DECL})


def _leading_words(text: str, start: int) -> tuple[str, ...]:
    """Qualifier words written just before `start` on its line (`__ubuf__ T *p` when clang's
    extent begins at `T`)."""
    line_start = max(text.rfind(c, 0, start) for c in "\n;{}(,") + 1
    words = text[line_start:start].split()
    return tuple(words) if words and all(w in cp.QUALIFIER_WORDS for w in words) else ()


# ---------------------------------------------------------------- the lowering


# The kernel argument of a GlobalTensor variable declared without a pointer (none yet).
UNBOUND_GM = ""

# Configuration types of the PTO headers read like a user's class template, through their static
# members (`TPUSH<Pipe, Acc, FixpipeParams<...>>`).
LIBRARY_CONFIG_TYPES = frozenset({"FixpipeParams"})


@dataclass
class Lowering(RecordLowering, TypeResolution, CallInlining, EventLowering, CommLowering, FifoLowering, MPipeLowering,
               LoopLowering, RawLowering, OpaqueLowering, SdmaLowering, EffectLowering, ConstEvaluation):
    tu: Any
    main: SourceFile
    arch: ArchProfile
    reporter: Reporter
    macros: dict[str, str]  # object-like macros usable in expressions
    function_macros: dict[str, macros.FunctionMacro | None]  # None: pastes or stringizes tokens
    user_files: set[str]
    auto_mode: bool = False  # __PTO_AUTO__ is defined: TASSIGN-free, sync-free source (events compile to nothing)
    # The translation unit's top-level cursors, listed once per parse and shared by the lowerings
    # of its kernels (libclang is slow to list them); None: listed here.
    top: list[Cursor] | None = None
    files: dict[str, SourceFile] = field(default_factory=dict)
    tiles: list[ir.TileDecl] = field(default_factory=list)
    gm_tensors: list[ir.GmTensor] = field(default_factory=list)
    params: list[ir.Param] = field(default_factory=list)
    runtime_values: list[str] = field(default_factory=list)
    manual: bool = False
    lambda_calls: list[ir.SourceRange] = field(default_factory=list)  # where a helper calls a kernel's lambda
    prologue: list[ir.Stmt] = field(default_factory=list)  # run first in the entry (event id counters)
    # `return` statements below the top level of a function (in a loop or a branch): lowered with
    # a flag the rest of the function tests (see _lower_list).
    early_returns: list[ir.SourceRange] = field(default_factory=list)
    _exit_flags: list[str | None] = field(default_factory=list)  # per function being lowered
    # Per function being lowered: the variable its `return value;` assigns (a helper inlined for its
    # value, see calls.CallInlining.inline_value_call), or None.
    _result_vars: list[str | None] = field(default_factory=list)
    # Per loop being lowered: the flags its `continue` and `break` set (None: it has none).
    _jump_flags: list[tuple[str | None, str | None]] = field(default_factory=list)
    _loop_prelude: list[ir.Stmt] = field(default_factory=list)  # statements a loop needs before it
    # Pointer arguments the scalar unit reads from (`*p`, `p[i]`): the first read of each.
    scalar_gm_reads: dict[str, ir.SourceRange] = field(default_factory=dict)
    # Pointer arguments the scalar unit stores to (`*p = v`, `p[i] = v`): the first store to each.
    scalar_gm_writes: dict[str, ir.SourceRange] = field(default_factory=dict)
    gm_read_values: set[str] = field(default_factory=set)  # names of the values those reads give
    # Every value the scalar unit reads from a buffer element (`ub[i]`, `t.GetValue(i)`, `p[i]`).
    element_values: set[str] = field(default_factory=set)
    user_namespaces: set[str] = field(default_factory=set)  # namespaces of the user's files
    _exit_serial: itertools.count = field(default_factory=lambda: itertools.count(1))
    _mutables: set[str] = field(default_factory=set)  # IR names of mutable local scalars
    _tile_addresses: dict = field(default_factory=dict)  # (id(tile), slot) -> address its TASSIGN gave
    _tile_levels: dict = field(default_factory=dict)  # id(tile) -> control level of its declaration
    _uid: itertools.count = field(default_factory=lambda: itertools.count(1))
    _names: dict[str, int] = field(default_factory=dict)
    _gm_read_names: dict[tuple, str] = field(default_factory=dict)  # (text, param, byte offset) -> value name
    _stack: list[Frame] = field(default_factory=list)
    _loop_vars: list[str] = field(default_factory=list)
    _loop_ids: list[int] = field(default_factory=list)  # one id per loop instance (names repeat)
    _loop_serial: itertools.count = field(default_factory=lambda: itertools.count(1))
    # Enclosing MultiBuffered bodies: (buffers, lane expression, lane source text `ctx.bufferId`).
    _lanes: list[tuple[int, Expr, str, ir.SourceRange]] = field(default_factory=list)
    _node_ends: dict = field(default_factory=dict)  # parsed node -> end offset (see cparse.Parser.ends)
    # Enclosing loops: (IR var, start, step, constant trip count or None, C++ spelling, call depth).
    _loops: list[tuple[str, Expr, Expr, int | None, str, int]] = field(default_factory=list)
    # Tile element reads (`GetValue`) of the statement being lowered: issued before it.
    _scalar_unit_reads: list[ir.Instr] = field(default_factory=list)
    # `static` locals of inlined functions: one IR scalar per function instance and name.
    _statics: dict = field(default_factory=dict)
    _instances: list = field(default_factory=list)  # the function instances being inlined

    def __post_init__(self):
        self.files[self.main.path] = self.main
        self.globals = Scope()
        self._define_builtins(self.globals)
        if self.top is None:
            self.top = list(self.tu.cursor.get_children())
        self._library_templates: set[str] = set()
        self._collect_library_constants(self.top, self.globals)
        self._enum_names = enum_names(self.top)
        self._enum_values: dict[str, int] | None = None  # read when an enumerator is first converted
        self._collect_globals(self.top, self.globals)

    # -- setup

    def _define_builtins(self, scope: Scope) -> None:
        for name, pipe in PIPE_ENUM.items():
            scope.define(name, Binding("value", Const(pipe)))
        for i in range(8):
            scope.define(f"EVENT_ID{i}", Binding("value", Const(i)))
        for name, var in RUNTIME_BUILTINS.items():
            scope.define(name, Binding("value", Var(var)))
        scope.define("nullptr", Binding("value", NULL_POINTER))

    def _collect_library_constants(self, cursors: Iterable[Cursor], scope: Scope) -> None:
        """Namespace-scope constants of the PTO headers (`BLOCK_BYTE_SIZE`, `C0_SIZE_BYTE`, ...),
        evaluated on first use; the user's own names, collected after, take precedence."""
        for c in cursors:
            if c.kind != CursorKind.NAMESPACE or c.spelling != "pto":
                continue  # before the file check: asking libclang for a cursor's file is slow
            if c.location.file is None or c.location.file.name in self.user_files:
                continue
            kids = list(c.get_children())
            for k in kids:
                if k.kind == CursorKind.NAMESPACE and k.spelling in NAMESPACES:
                    kids += k.get_children()  # `pto::GlobalTensorDim::DIM_3`
                elif k.kind == CursorKind.VAR_DECL and k.spelling not in scope.names:
                    scope.define(k.spelling, Binding("lazy_value", k))
                elif k.kind == CursorKind.ENUM_DECL and not k.is_scoped_enum():
                    for e in k.get_children():  # `CV_CORE_SYNC` of `enum CVSyncMode`
                        if e.kind == CursorKind.ENUM_CONSTANT_DECL and e.spelling not in scope.names:
                            scope.define(e.spelling, Binding("value", Const(e.enum_value)))
                elif k.kind == CursorKind.CLASS_TEMPLATE and k.spelling in LIBRARY_CONFIG_TYPES and \
                        k.spelling not in scope.names:
                    scope.define(k.spelling, Binding("class_template", [k]))
                elif k.kind in (CursorKind.FUNCTION_DECL, CursorKind.FUNCTION_TEMPLATE) and \
                        not k.spelling.isupper() and k.spelling not in scope.names and self._is_constexpr_helper(k):
                    # Helpers kernels use as values (`GetTileLayoutCustom<T>()` in an `if constexpr`).
                    scope.define(k.spelling, Binding("funcs", [Function(k, k.spelling)]))
                elif k.kind == CursorKind.FUNCTION_TEMPLATE:
                    # `NAME<...>(...)` of a library template reads as a call, also when the
                    # instruction table does not know NAME (it is then reported by name).
                    self._library_templates.add(k.spelling)

    def _is_constexpr_helper(self, c: Cursor) -> bool:
        """A library function with a body whose declaration (the text before it) says constexpr."""
        body = next((ch for ch in c.get_children() if ch.kind == CursorKind.COMPOUND_STMT), None)
        if body is None:
            return False
        head = self.file_of(c).text[c.extent.start.offset:body.extent.start.offset]
        return re.search(r"\bconstexpr\b", head) is not None

    def _collect_globals(self, cursors: Iterable[Cursor], scope: Scope) -> None:
        """Namespace-scope aliases, constexpr values and function definitions of user files."""
        for c in cursors:
            k = c.kind
            if k not in _GLOBAL_KINDS:
                continue  # before the file check: asking libclang for a cursor's file is slow
            if c.location.file is None or c.location.file.name not in self.user_files:
                continue
            if k == CursorKind.NAMESPACE and c.spelling == "pto_auto":
                # pto-isa's AUTO kernels ship their own copy of the MultiBuffered helper next to the
                # kernel; the front end models MultiBuffered and Range itself, whichever copy is read.
                # The file's cross-core objects and flags are read as in any other kernel.
                continue
            if k in (CursorKind.NAMESPACE, CursorKind.UNEXPOSED_DECL, CursorKind.LINKAGE_SPEC):
                if k == CursorKind.NAMESPACE and c.spelling:
                    # The user's names are collected unqualified: `ns::name` is read as `name`.
                    self.user_namespaces.add(c.spelling)
                self._collect_globals(c.get_children(), scope)
            elif k in (CursorKind.TYPE_ALIAS_DECL, CursorKind.TYPEDEF_DECL):
                scope.define(c.spelling, Binding("lazy_type", c))
            elif k == CursorKind.TYPE_ALIAS_TEMPLATE_DECL:
                scope.define(c.spelling, Binding("alias_template", c))
            elif k in (CursorKind.CLASS_TEMPLATE, CursorKind.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION):
                # A type selector (`template <...> struct Sel; template <...> struct Sel<..., X> {
                # using Type = ...; };`): the primary and its partial specializations.
                b = scope.names.get(c.spelling)
                if b is None or b.kind != "class_template":
                    b = Binding("class_template", [])
                    scope.define(c.spelling, b)
                b.value.append(c)
            elif k == CursorKind.VAR_DECL:
                scope.define(c.spelling, Binding("lazy_value", c))
            elif k == CursorKind.ENUM_DECL and not c.is_scoped_enum():
                # An unscoped enumerator written bare (`BUF0_QK_READY`) is an integer constant.
                for e in c.get_children():
                    if e.kind == CursorKind.ENUM_CONSTANT_DECL and e.spelling not in scope.names:
                        scope.define(e.spelling, Binding("value", Const(e.enum_value)))
            elif k in RECORD_KINDS and c.spelling and c.is_definition():
                scope.define(c.spelling, Binding("record", c))
            elif k in (CursorKind.FUNCTION_DECL, CursorKind.FUNCTION_TEMPLATE) and \
                    any(ch.kind == CursorKind.COMPOUND_STMT for ch in c.get_children()):
                b = scope.names.get(c.spelling)
                if b is None or b.kind != "funcs":
                    b = Binding("funcs", [])
                    scope.define(c.spelling, b)
                b.value.append(Function(c, c.spelling))

    # -- source helpers

    def file_of(self, cursor: Cursor) -> SourceFile:
        name = cursor.location.file.name if cursor.location.file else self.main.path
        if name not in self.files:
            self.files[name] = SourceFile.read(name)
        return self.files[name]

    @property
    def src(self) -> SourceFile:
        return self._stack[-1].src if self._stack else self.main

    @property
    def via(self) -> tuple[ir.SourceRange, ...]:
        return self._stack[-1].via if self._stack else ()

    def text_of(self, cursor: Cursor) -> tuple[str, int]:
        e = cursor.extent
        src = self.file_of(cursor)
        return src.text[e.start.offset:e.end.offset], e.start.offset

    def range_of(self, cursor: Cursor, include_semicolon: bool = False) -> ir.SourceRange:
        src = self.file_of(cursor)
        e = cursor.extent
        return self._range_in(src, e.start.offset, e.end.offset, include_semicolon)

    @staticmethod
    def _range_in(src: SourceFile, start: int, end: int, include_semicolon: bool) -> ir.SourceRange:
        if include_semicolon:
            rest = src.text[end:end + 64]
            stripped = rest.lstrip(" \t")
            if stripped.startswith(";"):
                end += len(rest) - len(stripped) + 1
        return src.range(start, end)

    def error(self, message: str, offset: int | None = None, cursor: Cursor | None = None) -> LoweringError:
        return LoweringError(message, offset, cursor)

    def located(self, err: LoweringError | cp.ParseError) -> PtoError:
        src = getattr(err, "src", None) or self.src
        if isinstance(err, cp.ParseError):
            return PtoError(f"cannot parse expression: {err}", src.range(err.offset, err.offset))
        if err.cursor is not None:
            return PtoError(str(err), self.range_of(err.cursor))
        if err.offset is not None:
            return PtoError(str(err), src.range(err.offset, err.offset))
        return PtoError(str(err))

    @contextmanager
    def frame(self, src: SourceFile, via: tuple[ir.SourceRange, ...], key: str):
        """Lower inside another file or call: errors raised in it keep the file their offsets count in."""
        self._stack.append(Frame(src, via, key))
        try:
            yield
        except (LoweringError, cp.ParseError) as e:
            if getattr(e, "src", None) is None and getattr(e, "cursor", None) is None:
                e.src = src
            raise
        finally:
            self._stack.pop()

    # -- parsing with scope-aware predicates

    def parse(self, text: str, offset: int, scope: Scope, tokens: list[cp.Token] | None = None) -> cp.Node:
        p = self.parser(text, offset, scope, tokens)
        while len(p.tokens) > 1 and p.tokens[-1].text == ";":
            p.tokens.pop()  # a statement macro whose body ends in `;` (`#define LOG(x) *(p++) = x;`)
        if p.peek() is not None and p.peek().text == "constexpr":
            p.next()  # `if MACRO {` whose expansion is `constexpr (cond)` (AscendC's ASCEND_IS_AIV)
        node = p.expression()
        if not p.done():
            t = p.peek()
            raise cp.ParseError(f"unexpected {t.text!r}", t.offset)
        return node

    def parser(self, text: str, offset: int, scope: Scope, tokens: list[cp.Token] | None = None) -> cp.Parser:
        if tokens is None and _DIRECTIVE_LINE.search(text):
            text = self._active_text(text, offset)
        tokens = self._expand_macros(cp.tokenize(text, offset) if tokens is None else tokens)
        return cp.Parser(tokens, is_template=lambda n: self._is_template(n, scope),
                         is_type=lambda n: self._is_type(n, scope), end_offset=offset + len(text),
                         ends=self._node_ends)

    def _active_text(self, text: str, offset: int) -> str:
        """`text` (from some file at `offset`) with preprocessor directive lines and the branches
        the preprocessor skipped blanked, offsets kept: an initializer may hold `#if` ... `#endif`."""
        src = next((f for f in (self.main, *self.files.values()) if f.text[offset:offset + len(text)] == text), None)
        if src is None:
            return text
        if not hasattr(self, "_skipped_lines"):
            self._skipped_lines = {}
            for r in skipped_ranges(self.tu):
                self._skipped_lines.setdefault(os.path.realpath(r.file), []).append((r.start_line, r.end_line))
        skipped = self._skipped_lines.get(os.path.realpath(src.path), [])
        first = src.line_col(offset)[0]
        lines = text.split("\n")
        continued = False
        for i, line in enumerate(lines):
            n = first + i
            directive = continued or _DIRECTIVE_LINE.match(line) is not None
            continued = directive and line.rstrip().endswith("\\")
            if directive or any(a <= n <= b for a, b in skipped):
                lines[i] = " " * len(line)
        return "\n".join(lines)

    def _scalar_only(self, tokens: list[cp.Token]) -> bool:
        """The expansion of a statement macro names no instruction, sync or raw intrinsic (a
        scalar store such as `#define LOG(x) *(p++) = x;`): it is lowered like written code."""
        for t in self._expand_macros(tokens):
            if t.kind == "id" and (lookup(t.text, self.arch) is not None or t.text in RAW_INTRINSICS or t.text in (
                    "set_flag", "wait_flag", "pipe_barrier", "TASSIGN", "SYNCALL") or t.text in self.function_macros
                    or (t.text.startswith("T") and t.text[1:2].isupper())):
                return False
        return True

    def _expand_macros(self, tokens: list[cp.Token]) -> list[cp.Token]:
        # A kernel's own `#define PIPE_FIX static_cast<pipe_t>(10)` (for toolchains whose pipe_t
        # lacks it) still names that pipe: pipe names are read as pipes, not expanded.
        return macros.expand(tokens, self.macros, self.function_macros, keep=PIPE_ENUM)

    def _is_template(self, name: str, scope: Scope) -> bool:
        if name in ty.PTO_TYPE_TEMPLATES or name in ("TASSIGN", "loop", "NestedLoopInvoker") or \
                name in VALUE_TRAITS or name in TYPE_TRAITS or name == "PtoSetWaitFlag":
            return True
        if lookup(name, self.arch) is not None or name in ALIAS_OPS or name in CROSS_CORE_OPS or \
                name in COMM_TRANSFERS or name in COMM_SIGNALS or name in COMM_REFUSED or name == "SYNCALL":
            return True
        b = scope.lookup(name)
        if b is None:
            return name in self._library_templates
        if b.kind in ("alias_template", "class_template"):
            return True
        if b.kind == "funcs":
            return any(f.cursor.kind == CursorKind.FUNCTION_TEMPLATE for f in b.value)
        return False

    def _is_type(self, name: str, scope: Scope) -> bool:
        if name in ty.DTYPE_NAMES or name in ty.PTO_TYPE_TEMPLATES or name in self._enum_names:
            return True
        b = scope.lookup(name)
        return b is not None and b.kind in ("type", "lazy_type", "alias_template", "class_template", "record")

    # -- evaluation

    def eval(self, node: cp.Node, scope: Scope) -> Any:
        m = getattr(self, "_eval_" + type(node).__name__)
        return m(node, scope)

    def scalar(self, node: cp.Node, scope: Scope, value=None) -> Expr:
        """`node` as a scalar; `value`: its value, when it was already evaluated."""
        v = self.eval(node, scope) if value is None else value
        if isinstance(v, Expr):
            return v
        if isinstance(v, LocalPtr):
            return v.address
        if isinstance(v, Ptr) and v.as_integer:  # a GM address as a number: the argument's name stands for it
            return binop("+", Var(v.param), v.offset_bytes)
        raise self.error(f"expected a scalar value, found {describe(v)}", node.offset)

    def _eval_Num(self, node: cp.Num, scope):
        return Const(node.value)

    def _eval_StringLit(self, node, scope):
        raise self.error("string literals are not supported here", node.offset)

    def _eval_InitList(self, node: cp.InitList, scope):
        if len(node.items) == 1:
            return self.eval(node.items[0], scope)
        raise self.error("brace lists are not supported here", node.offset)

    def _eval_Name(self, node: cp.Name, scope: Scope):
        parts = [p for p in node.parts if p not in NAMESPACES and p not in self.user_namespaces] or \
            list(node.parts[-1:])
        if parts[0] in VALUE_TRAITS and node.targs is not None and parts[1:] in ([], ["value"]):
            return self.value_trait(parts[0], node, scope)
        if len(parts) == 1:
            name = parts[0]
            if node.targs is not None or name in ty.PTO_TYPE_TEMPLATES:
                return self.resolve_type(cp.TypeId(node.offset, node), scope)
            b = scope.lookup(name)
            if b is None:
                if name in ty.DTYPE_NAMES:
                    return ty.ScalarType(ty.DTYPE_NAMES[name])
                raise self.error(f"unknown name '{name}'", node.offset)
            return self.binding_value(b, name, node.offset, scope)
        # Qualified: an enum member (`TileType::Vec`) or a static member of a type (`TileT::Rows`).
        head = scope.lookup(parts[0])
        if head is not None and head.kind in ("type", "lazy_type", "alias_template", "class_template") or \
                parts[0] in ty.PTO_TYPE_TEMPLATES:
            # `Sel<A, B>::Member`: the template arguments belong to the head.
            t = self.resolve_type(cp.TypeId(node.offset, cp.Name(node.offset, (parts[0],),
                                                                 node.targs if len(parts) <= 2 else None)), scope)
            for member in parts[1:]:  # `Pipe::DataFiFo::fifoDepth`: a member of a member type
                t = self.member_of_type(t, member, node.offset)
            return t
        return Const("::".join(parts))

    def binding_value(self, b: Binding, name: str, offset: int, scope: Scope):
        k = b.kind
        if k == "value":
            return b.value
        if k == "mutable":
            return Var(b.value)
        if k == "type":
            return b.value
        if k == "record":
            return self.record_type(b.value)
        if k == "lazy_type":
            b.kind, b.value = "type", self._resolve_alias_cursor(b.value)
            return b.value
        if k == "lazy_value":
            cur = b.value
            b.kind, b.value = "value", None
            b.value = self._global_value(cur)
            return b.value
        if k == "ptr" and b.value is None:
            raise self.error(f"GM pointer '{name}' is used before it is set", offset)
        if k == "gm" and b.value.param == UNBOUND_GM:
            raise self.error(f"GlobalTensor '{name}' is used before a TASSIGN points it at GM", offset)
        if k == "gm" and isinstance(b.extra, GmState):
            if b.extra.repointed_at is not None:
                raise self.error(f"GlobalTensor '{name}' is re-pointed by the TASSIGN at line "
                                 f"{b.extra.repointed_at.line} inside a loop or condition; it cannot be used "
                                 "outside that block", offset)
            b.extra.used_in.add(tuple(self._loop_ids))
        if k in ("tile", "ref", "gm", "ptr", "multibuf", "mbctx", "event", "array", "struct", "closure"):
            return b.value
        if k == "funcs":
            return b.value
        raise self.error(f"'{name}' cannot be used here", offset)

    def _eval_Member(self, node: cp.Member, scope):
        base = self.eval(node.base, scope)
        if isinstance(base, LaneContext):
            if node.name == "iter":
                return base.iter
            if node.name == "bufferId":
                return base.buffer_id
            if node.name == "phase":
                return base.phase
            raise self.error(f"a MultiBuffered context has no member '{node.name}'", node.offset)
        if isinstance(base, ir.TileRef):
            tt = tile_type_of(base.tile)
            return self.member_of_type(tt, node.name, node.offset)
        if isinstance(base, RecordValue) or isinstance(base, Ptr) and base.record is not None:
            return self.record_member(base, node)
        if isinstance(base, SdmaContext):
            return self.sdma_member(base, node.name, node.offset)
        if isinstance(base, MPipeObject):
            return self.mpipe_end(base, node.name, node.offset)
        if isinstance(base, PipeObject):
            return self.pipe_end(base, node.name, node.offset)
        raise self.error(f"member access '.{node.name}' is not supported here", node.offset)

    def _eval_Binary(self, node: cp.Binary, scope):
        if node.op in cp.ASSIGN_OPS:
            raise self.error("assignment inside an expression is not supported", node.offset)
        lhs = self.eval(node.lhs, scope)
        mark = len(self._pending_effects or ())
        rhs = self.eval(node.rhs, scope)
        if node.op in ("&&", "||") and isinstance(lhs, Expr):  # the right side runs only on the left's outcome
            self.guard_effects(mark, lhs if node.op == "&&" else unop("!", lhs))
        if isinstance(lhs, Ptr) and isinstance(rhs, Expr) and node.op in "+-":
            scale = lhs.record.size if lhs.record is not None else elem_bytes(lhs.dtype)
            d = binop("*", rhs, Const(scale))
            return replace(lhs, offset_bytes=binop(node.op, lhs.offset_bytes, d))
        if isinstance(rhs, Ptr) and isinstance(lhs, Expr) and node.op == "+":
            return replace(rhs, offset_bytes=binop("+", rhs.offset_bytes, binop("*", lhs, Const(elem_bytes(rhs.dtype)))))
        if isinstance(lhs, LocalPtr) and isinstance(rhs, Expr) and node.op in "+-":
            return replace(lhs, address=binop(node.op, lhs.address, binop("*", rhs, Const(elem_bytes(lhs.dtype)))))
        if isinstance(rhs, LocalPtr) and isinstance(lhs, Expr) and node.op == "+":
            return replace(rhs, address=binop("+", rhs.address, binop("*", lhs, Const(elem_bytes(rhs.dtype)))))
        if isinstance(lhs, Expr) and isinstance(rhs, Expr):
            return binop(node.op, lhs, rhs)
        if node.op in ("==", "!=") and isinstance(lhs, (Ptr, NullPointer)) and isinstance(rhs, (Ptr, NullPointer)):
            return self._null_test(node.op, lhs, rhs, node.offset)
        if isinstance(lhs, Ptr) and lhs.as_integer or isinstance(rhs, Ptr) and rhs.as_integer:
            # Other arithmetic on an address (`addr & 31`): the argument's name stands for its
            # address, a run-time value.
            lhs, rhs = (binop("+", Var(x.param), x.offset_bytes) if isinstance(x, Ptr) and x.as_integer else x
                        for x in (lhs, rhs))
            if isinstance(lhs, Expr) and isinstance(rhs, Expr):
                return binop(node.op, lhs, rhs)
        if node.op in ("==", "!=") and isinstance(lhs, ty.ScalarType) and isinstance(rhs, ty.ScalarType):
            return Const((lhs == rhs) == (node.op == "=="))
        raise self.error(f"operator '{node.op}' on {describe(lhs)} and {describe(rhs)} is not supported", node.offset)

    def _null_test(self, op: str, lhs, rhs, offset: int) -> Expr:
        """`p != nullptr`: whether a pointer argument was passed as null is known only at run time
        (the argument's name stands for its address); a pointer and itself, or two nulls, are equal."""
        if isinstance(lhs, NullPointer) and isinstance(rhs, NullPointer):
            return Const(op == "==")
        if isinstance(lhs, NullPointer) or isinstance(rhs, NullPointer):
            ptr = lhs if isinstance(lhs, Ptr) else rhs
            if ptr.null_var is not None:  # declared null, maybe set since (see PtrState)
                return binop(op, Var(ptr.null_var), Const(1))
            return binop(op, Var(ptr.param), Const(0))
        raise self.error("comparing two GM pointers is not supported", offset)

    def _eval_Unary(self, node: cp.Unary, scope):
        if node.op in ("++", "--"):
            raise self.error("increment inside an expression is not supported", node.offset)
        if node.op == "&":
            addr = self.address_of(node.operand, scope)
            if addr is not None:
                return addr
        v = self.eval(node.operand, scope)
        if node.op in ("&", "*") and isinstance(v, RecordValue):
            return v  # a pointer to a struct the kernel holds by value: its members are shared
        if node.op == "*" and isinstance(v, Ptr) and v.record is not None:
            return v  # `*p` of a struct pointer: the struct in GM, read member by member
        if node.op == "+":
            return v
        if node.op == "*" and isinstance(v, Ptr):
            return self.scalar_gm_read(v, f"*{self.node_text(node.operand) or v.param}", node.offset)
        if node.op == "*" and isinstance(v, ArrayPointer):
            return Var(self.unique_name(f"{v.array.name}[]"))
        if node.op == "*" and isinstance(v, LocalPtr):
            return self.scalar_local_read(v, Const(0), self.element_text(node), node.offset)
        if node.op == "*" and isinstance(v, ScalarAddress):
            # The bits of a scalar read as another type: data, known only at run time.
            return Var(self.node_text(node) or "*&scalar")
        if node.op == "&" and isinstance(v, Expr):
            return ScalarAddress(v)
        if node.op in ("&", "*"):
            if isinstance(v, (ir.TileRef, ir.TileDecl, Ptr, ir.GmTensor, ScalarArray, ty.DimsType)):
                return v
            raise self.error(f"operator '{node.op}' is not supported here", node.offset)
        if isinstance(v, Expr):
            return unop(node.op, v)
        raise self.error(f"operator '{node.op}' on {describe(v)} is not supported", node.offset)

    def _eval_Conditional(self, node: cp.Conditional, scope):
        c = self.scalar(node.cond, scope)
        if isinstance(c, Const):
            return self.eval(node.then if c.value else node.other, scope)
        mark = len(self._pending_effects or ())
        then = self.eval(node.then, scope)
        if isinstance(then, (ir.TileRef, ir.TileDecl)):
            # `auto &t = ping ? a : b;`: a tile chosen at run time (a declaration binds it).
            other = self.eval(node.other, scope)
            if not isinstance(other, (ir.TileRef, ir.TileDecl)):
                raise self.error(f"a choice between {describe(then)} and {describe(other)} is not supported",
                                 node.offset)
            return TileChoice(c, *(Binding("ref" if isinstance(v, ir.TileRef) else "tile", v) for v in (then, other)))
        then = self.scalar(node.then, scope, then)
        self.guard_effects(mark, c)
        mark = len(self._pending_effects or ())
        other = self.scalar(node.other, scope)
        self.guard_effects(mark, unop("!", c))
        return select(c, then, other)

    def _eval_Cast(self, node: cp.Cast, scope):
        v = self.eval(node.operand, scope)
        t = self.resolve_type(node.type, scope)
        if isinstance(v, Ptr) and isinstance(t, ty.PointerType):
            if v.as_integer and v.offset_bytes.free_vars() & self.gm_read_values:
                # An address computed from values the kernel read from GM: another rank's copy of
                # the buffer `v` points into (`peer_base + (p - my_base)`). A region of its own,
                # at the same offset expression.
                peer = self.pointer_read_from_gm(f"{v.param}@peer", t.dtype, t.record, node.offset)
                return replace(peer, offset_bytes=v.offset_bytes)
            return replace(v, dtype=t.dtype, record=t.record, as_integer=False)
        if isinstance(v, Ptr) and isinstance(t, ty.ScalarType) and not t.dtype.startswith(("fp", "bf")):
            return replace(v, dtype="uint8", record=None, as_integer=True)  # its address, in bytes
        if isinstance(v, ScalarAddress) and isinstance(t, ty.PointerType):
            return v
        if isinstance(v, LocalPtr):
            return with_space(v, t.dtype, node.type.qualifiers) if isinstance(t, ty.PointerType) else v.address
        if isinstance(v, Expr) and isinstance(t, ty.ScalarType):
            c = v.const_value()
            if isinstance(c, str):  # an enumerator converted to its number: `static_cast<int>(Byte::B1)`
                return Const(self.enumerator_value(c, node.offset))
            if isinstance(c, float) and not t.dtype.startswith("fp") and t.dtype != "bf16":
                return Const(int(c))
            return v
        if isinstance(v, Expr) and isinstance(t, ty.PointerType):
            if v.free_vars() & self.gm_read_values and "__gm__" in node.type.qualifiers + _leading_words(
                    self.src.text, node.type.offset):
                # A GM address the kernel read from GM (a peer rank's window): an opaque region.
                return self.pointer_read_from_gm(self.node_text(node) or "pointer", t.dtype, t.record, node.offset)
            return self.on_chip_pointer(v, t.dtype, node.type.qualifiers, node.offset)
        return v

    def enumerator_value(self, name: str, offset: int) -> int:
        if self._enum_values is None:
            self._enum_values = enum_values(self.top)
        key = "::".join(name.split("::")[-2:])
        if key not in self._enum_values:
            raise self.error(f"the value of enumerator '{name}' is not known here", offset)
        return self._enum_values[key]

    def _eval_SizeOf(self, node: cp.SizeOf, scope):
        if isinstance(node.operand, cp.TypeId):
            t = self.resolve_type(node.operand, scope)
        else:
            t = self.eval(node.operand, scope)
        if isinstance(t, ty.ScalarType):
            return Const(elem_bytes(t.dtype))
        if isinstance(t, ty.PointerType):
            return Const(8)
        if isinstance(t, (ty.RecordType, RecordValue)):
            return Const((t if isinstance(t, ty.RecordType) else t.type).size)
        raise self.error("sizeof of this operand is not supported", node.offset)

    def _eval_Index(self, node: cp.Index, scope):
        base = self.eval(node.base, scope)
        idx = self.scalar(node.index, scope)
        if isinstance(base, ScalarArray):
            return self.array_element(base, idx, node.offset)
        if isinstance(base, ir.TileDecl):
            if base.count is None:
                raise self.error(f"'{base.cpp_name}' is not a tile array", node.offset)
            c = idx.const_value()
            if c is not None and not 0 <= c < base.count:
                raise self.error(f"index {c} is out of range for '{base.cpp_name}[{base.count}]'", node.offset)
            return ir.TileRef(base, idx)
        if isinstance(base, Ptr):
            return self.scalar_gm_read(base, self.element_text(node), node.offset, idx)
        if isinstance(base, LocalPtr):
            text = self.element_text(node)
            return self.scalar_local_read(base, idx, text, node.offset)
        raise self.error(f"subscript of {describe(base)} is not supported", node.offset)

    def bit_cast(self, t, v: Expr, offset: int) -> Expr:
        """`__builtin_bit_cast(uint32_t, -1.0f)`: a float constant's bits as an integer of that size
        (a value known only at run time stays one)."""
        import struct

        if not isinstance(t, ty.ScalarType):
            raise self.error("__builtin_bit_cast needs a scalar type", offset)
        c = v.const_value()
        size = elem_bytes(t.dtype)
        if not isinstance(c, (int, float)) or isinstance(c, bool):
            return Var(self.unique_name("bit_cast"))
        if isinstance(c, float) and size in (2, 4, 8):
            fmt = {2: "<e", 4: "<f", 8: "<d"}[size]
            return Const(int.from_bytes(struct.pack(fmt, c), "little"))
        return Const(int(c) & ((1 << (8 * size)) - 1))

    def element_text(self, node: cp.Node) -> str:
        """How an element access through a pointer is spelled (`ub[i * 8]`, `*ub`), for reports."""
        def text(n: cp.Node) -> str:
            if isinstance(n, cp.Name):
                return n.text
            if isinstance(n, cp.Num):
                return str(n.value)
            return self.node_text(n) or "..."
        if isinstance(node, cp.Index):
            return self.node_text(node) or f"{text(node.base)}[{text(node.index)}]"
        return self.node_text(node) or f"*{text(node.operand) if isinstance(node, cp.Unary) else text(node)}"

    def scalar_local_read(self, ptr: LocalPtr, index: Expr, text: str, offset: int) -> Var:
        """`ub[i]`: the scalar unit reads one element of an on-chip buffer; issued before the
        statement it is written in, like `GetValue`. Its value is data known only at run time."""
        self._scalar_unit_reads.append(self.scalar_local_access(ptr, index, False, text, offset))
        name = self.unique_name(text)
        self.element_values.add(name)
        return Var(name)

    def scalar_gm_read(self, ptr: Ptr, text: str, offset: int, index: Expr | None = None) -> Var:
        """A scalar the scalar unit reads from GM (`*p`, `p[i]`): data, known only at run time.
        The read itself is no pipe instruction, so it is only race-free while no instruction in the
        kernel writes that pointer argument; `frontend` refuses the kernel otherwise."""
        es = elem_bytes(ptr.dtype)
        base = ptr.offset_bytes if index is None else binop("+", ptr.offset_bytes, binop("*", index, Const(es)))
        region = ir.RawRegion("GM", ptr.param, base, Const(1), Const(es), Const(es))
        # Issued before its statement like an on-chip element read; where a kernel needs it
        # (an instruction writes the argument) the race check orders it (see frontend).
        self._scalar_unit_reads.append(ir.Instr(ir.SCALAR_LOAD, "S", (ir.Arg("raw", region, "r", text),), (),
                                                self.src.range(offset, offset), self.via, uid=next(self._uid)))
        # Reads spelled alike name one value only where they read the same address (a helper
        # inlined with other pointers reads other bytes: another value, `text#2`).
        key = (text, ptr.param, base)
        name = self._gm_read_names.get(key)
        if name is None:
            name = self._gm_read_names[key] = self.unique_name(text)
        self.gm_read_values.add(name)
        self.element_values.add(name)
        return Var(name)

    def device_load(self, node: cp.Call, scope: Scope) -> Var:
        """`ld_dev(p, 0)`: the scalar unit reads the element at `p` straight from GM, past its data
        cache (the soft SYNCALL's counter poll and kernels reading flags other cores publish). For
        this core it is a scalar GM read like `p[0]`."""
        ptr = self.eval(node.args[0], scope)
        if not isinstance(ptr, Ptr):
            raise self.error(f"ld_dev reads through a GM pointer, found {describe(ptr)}", node.args[0].offset)
        if self.with_known(self.scalar(node.args[1], scope)).const_value() != 0:
            raise self.error("ld_dev with an offset other than 0 is not supported; add it to the pointer",
                             node.args[1].offset)
        return self.scalar_gm_read(ptr, self.node_text(node) or "ld_dev(...)", node.offset)

    def _eval_Lambda(self, node, scope):
        return Closure(node, scope, self.src)

    def _eval_TypeId(self, node: cp.TypeId, scope):
        return self.resolve_type(node, scope)

    def _eval_Call(self, node: cp.Call, scope):
        callee = node.callee
        if isinstance(callee, cp.Member):
            return self.member_call(callee, node, scope)
        if isinstance(callee, cp.Name):
            name = callee.last
            if name in SDMA_CALLS:
                return self.sdma_call(name, node, scope)
            if name in RUNTIME_CALLS and not node.args:
                var = RUNTIME_CALLS[name]
                return Var(var)
            if name == "get_sys_cnt" and not node.args:
                # The system timer: a value that differs at every read and that nothing gives. Where
                # it only feeds data (a profile record) nothing needs it; where it would steer what
                # runs, the run asks for it by this name.
                return Var(self.unique_name(f"get_sys_cnt()@{self.src.line_col(node.offset)[0]}"))
            if name == "TSYNC_CVID":
                raise self.error("pto::TSYNC_CVID is not modelled: the cube core stores a slot number it derives "
                                 "from its physical core id into the communication buffer and raises ffts flag 12, "
                                 "and the vector cores wait for it and read the slot back; the slot (which GM FIFO "
                                 "region the cluster uses) is known only on the device", node.offset)
            if name == "__cce_get_tile_ptr" and len(node.args) == 1:  # a tile handle's address
                return self.eval(node.args[0], scope)
            if name == "ld_dev" and len(node.args) == 2:
                return self.device_load(node, scope)
            if name == "__builtin_bit_cast" and len(node.args) == 2:
                return self.bit_cast(self.eval(node.args[0], scope), self.scalar(node.args[1], scope), node.offset)
            if name in ("offsetof", "__builtin_offsetof"):
                return self.offset_of(node, scope)
            if name == "decltype" and len(node.args) == 1:
                return self.decltype(node.args[0], scope)
            if name == "__cce_get_tile_ptr" and len(node.args) == 1:
                return self.eval(node.args[0], scope)  # the buffer address behind a tile handle: the handle
            if name in ("min", "max") and len(node.args) == 2:
                a, b = (self.scalar(x, scope) for x in node.args)
                return select(binop("<" if name == "min" else ">", a, b), a, b)
            b = scope.lookup(name) if len(callee.parts) == 1 or callee.parts[0] in NAMESPACES else None
            if b is not None and b.kind == "funcs":  # `CeilDiv<uint16_t>(a, b)`, `CeilDiv(a, b)`
                if not self.compile_time and self.helper_issues_work(b.value):
                    return self.call_effectful_helper(b.value, callee, node, scope)
                return self.call_value_function(b.value, callee, node, scope)
            target = self.eval(callee, scope) if (scope.lookup(name) or callee.targs is not None
                                                  or name in ty.PTO_TYPE_TEMPLATES) else None
            if name == "Signal" and target is None:
                # `pto::comm::Signal(ptr)`: a temporary of the comm signal type (the resolver knows it by name).
                target = self.resolve_type(cp.TypeId(callee.offset, callee), scope)
            if isinstance(target, list):  # user functions: constexpr helpers that return a value
                return self.call_value_function(target, callee, node, scope)
            if isinstance(target, (ty.GmType, ty.DimsType, ty.ScalarType, ty.PointerType, ty.TileType, ty.RecordType)):
                return self.construct(target, list(node.args), scope, node.offset, name)
        raise self.error("this call is not supported inside an expression", node.offset)

    def scalar_tile_read(self, ref: ir.TileRef, index_node: cp.Node, scope: Scope, offset: int, text: str) -> Var:
        """`t.GetValue(i)`: the scalar unit reads one element of a tile. It is an access like an
        instruction's, on PIPE_S (flags to PIPE_S order it), taken as a read of the tile's whole
        valid region; it runs before the statement it is written in (see lower_stmt), and its
        value is data known only at run time."""
        index = self.scalar(index_node, scope)
        loc = self.src.range(offset, offset)  # until lower_stmt gives it its statement's
        self._scalar_unit_reads.append(ir.Instr(
            "GetValue", "S", (ir.Arg("tile", ref, "r", str(ref)), ir.Arg("scalar", index, "", "")), (), loc,
            self.via, uid=next(self._uid)))
        self.element_values.add(text)
        return Var(text)

    def tile_pointer(self, ref: ir.TileRef, offset: int) -> LocalPtr:
        """`t.data()`: manual kernels compute addresses from a tile's own (`TASSIGN(row,
        (uint64_t)t.data() + off)`) and hand it to raw copies."""
        i = ref.index.const_value() if ref.index is not None else 0
        addr = self._tile_addresses.get((id(ref.tile), i)) if isinstance(i, int) else None
        if addr is None:
            raise self.error(f"the address of '{ref}' is not known here (it needs one TASSIGN with a "
                             "constant slot before this use)", offset)
        return LocalPtr(addr, ref.tile.dtype, self.arch.buffer_of(ref.tile.tile_type).name)

    def decltype(self, node: cp.Node, scope: Scope):
        """`decltype(dynShape)`: the type of a shape, stride or tile object (a shape object is
        its own type with its dimensions filled in)."""
        v = self.eval(node, scope)
        if isinstance(v, ty.DimsType):
            return v
        if isinstance(v, ir.TileDecl) and v.count is None:
            v = ir.TileRef(v, None)
        if isinstance(v, ir.TileRef):
            return tile_type_of(v.tile)
        raise self.error(f"decltype of {describe(v)} is not supported", node.offset)

    def member_call(self, callee: cp.Member, node: cp.Call, scope: Scope):
        """Value-returning member functions: `view.data()`, `tile.GetValidRow()` / `GetValidCol()`."""
        name = callee.name
        event = self.sdma_event_var(callee.base, scope)
        if event is not None and name == "valid" and not node.args:
            return event_valid(event)
        if event is not None and name in EVENT_CALLS:
            return self.sdma_call(name, node, scope)
        base = self.eval(callee.base, scope)
        if isinstance(base, SdmaContext) and name == "GetSession" and not node.args:
            return SdmaSession(f"{base.name}.GetSession()")
        if isinstance(base, ir.GmTensor) and name == "data" and not node.args:
            return Ptr(base.param, base.offset_bytes, base.dtype)
        if isinstance(base, ir.GmTensor) and name in ("GetShape", "GetStride") and \
                len(node.args) + len(callee.targs or ()) == 1:
            dim = self.scalar((callee.targs or node.args)[0], scope).const_value()
            if not isinstance(dim, int) or not 0 <= dim < 5:
                raise self.error(f"'.{name}()' needs a dimension 0..4 known at compile time", node.offset)
            return (base.shape if name == "GetShape" else base.stride)[dim]
        if isinstance(base, ir.TileDecl) and base.count is None:
            base = ir.TileRef(base, None)
        if isinstance(base, ir.TileRef) and name == "data" and not node.args:
            return self.tile_pointer(base, node.offset)
        if isinstance(base, ir.TileRef) and name == "GetValue" and len(node.args) == 1:
            text = f"{self.node_text(callee.base) or base}.GetValue({self.node_text(node.args[0])})"
            return self.scalar_tile_read(base, node.args[0], scope, node.offset, text)
        if isinstance(base, MPipeEnd):
            return self.mpipe_end_value(base, name, node.offset)
        if isinstance(base, PipeEnd) and not node.args:
            return self.pipe_end_value(base, name, node.offset)
        if isinstance(base, ir.TileRef) and name in ("GetValidRow", "GetValidCol") and not node.args:
            t = base.tile
            v = t.valid_rows if name == "GetValidRow" else t.valid_cols
            if v is None:
                raise self.error(f"'{t.cpp_name}' has a run-time valid shape that its declaration does not give",
                                 node.offset)
            return v
        raise self.error(f"member call '.{name}()' on {describe(base)} is not supported here", node.offset)

    def construct(self, t, args: list[cp.Node], scope: Scope, offset: int, text: str):
        """A temporary built by a functional cast, e.g. `GmT(a + off)` or `float(x)`."""
        if isinstance(t, ty.GmType):
            return self.make_gm_tensor(t, f"{text}(...)", args, scope, offset, None)
        if isinstance(t, ty.DimsType):
            return self.fill_dims(t, args, scope, offset)
        if isinstance(t, ty.ScalarType) and len(args) == 1:
            return self.scalar(args[0], scope)
        if isinstance(t, ty.TileType) and len(args) <= 2:
            return TileConstruction(t, tuple(self.scalar(a, scope) for a in args))
        if isinstance(t, ty.RecordType):
            return self.record_from_init(t, args, scope, offset)
        raise self.error("unsupported construction", offset)

    def fill_dims(self, t: ty.DimsType, args: list[cp.Node], scope: Scope, offset: int) -> ty.DimsType:
        """`Shape<1, 1, 1, -1, -1>(rows, cols)`: constructor values fill the dynamic dims in order."""
        if not args:
            return t
        values = [self.scalar(a, scope) for a in args]
        if len(values) != t.dynamic_count() and not (t.extents2d is not None and len(values) == 2):
            raise self.error(f"{len(values)} values for a {t.kind} with {t.dynamic_count()} dynamic dimensions",
                             offset)
        if t.extents2d is not None:
            return t.with_extents(values)
        dynamic = [i for i, d in enumerate(t.dims) if d.const_value() == ty.DYNAMIC]
        dims = list(t.dims)
        for i, v in zip(dynamic, values):
            dims[i] = v
        return replace(t, dims=tuple(dims))

    # -- statements

    def lower_function_body(self, fn: Cursor, scope: Scope, result: str | None = None) -> list[ir.Stmt]:
        """`result`: the variable the function's `return value;` statements assign."""
        body = next((c for c in fn.get_children() if c.kind == CursorKind.COMPOUND_STMT), None)
        if body is None:
            raise self.error(f"'{fn.spelling}' has no body", cursor=fn)
        entry = not self._stack
        opening = self.text_of(body)[0][:1]
        if opening != "{":
            expanded = self.macro_definition(fn)
            children = list(body.get_children())
            if expanded is None or expanded.statements is None or len(expanded.statements) != len(children) or \
                    any(not (k.kind.is_expression() or k.kind == CursorKind.UNEXPOSED_EXPR) for k in children):
                raise self.error(f"the body of '{fn.spelling}' comes from a macro expansion; ptorewrite reads "
                                 "such a body only when it is a list of expression statements (expand the macro "
                                 "in the source)", cursor=fn)
            if entry:
                self.forwarding_entry = len(children) == 1
            return self.prologue + self.lower_macro_body(fn, expanded, children, scope) if entry else \
                self.lower_macro_body(fn, expanded, children, scope)
        children = list(body.get_children())
        if entry:
            # An entry whose body is one call forwards to the kernel (template): that call's body
            # is the kernel. Any other call from the entry is a helper call, kept as one statement.
            self.forwarding_entry = len(children) == 1
        # A return below the top level (in a loop or a branch) leaves the function from there: the
        # function gets a flag, set by the return and tested by all that follows it.
        flag = None
        if "return" in self.text_of(body)[0] and any(
                not (k.kind == CursorKind.RETURN_STMT or (k.kind == CursorKind.IF_STMT and self._is_guard_return(k)))
                and _has_return(k) for k in children):
            flag = f"returned#{next(self._exit_serial)}"
        self._exit_flags.append(flag)
        self._result_vars.append(result)
        try:
            stmts = self.lower_compound(body, scope, top=True)
        finally:
            self._exit_flags.pop()
            self._result_vars.pop()
        if flag is not None:
            stmts = [ir.Assign(flag, Const(0), self.range_of(body)), *stmts]
        return self.prologue + stmts if entry else stmts

    def macro_definition(self, fn: Cursor) -> macros.ExpandedFunction | None:
        """The definition of `fn` when a function-like macro use writes it (pto-isa's test files
        define one kernel entry per case with a macro), expanded from the use's text."""
        src = self.file_of(fn)
        return macros.expand_function_at(src.text, fn.extent.start.offset, fn.spelling, self.function_macros)

    def lower_macro_body(self, fn: Cursor, expanded: macros.ExpandedFunction, children: list[Cursor],
                         scope: Scope) -> list[ir.Stmt]:
        """The statements of a body a macro use wrote, read from the expansion; each is placed at
        the macro use."""
        where = self.range_of(fn)
        text_src = SourceFile(self.file_of(fn).path, expanded.text.encode("latin-1"))
        out: list[ir.Stmt] = []
        # Not a frame of its own: the body stays the function's (an entry forwarding to a kernel
        # template is still one), only the text its offsets count in changes.
        saved = self._stack[-1] if self._stack else None
        if saved is not None:
            self._stack[-1] = Frame(text_src, saved.via, saved.func_key)
        else:
            saved_main, self.main = self.main, text_src
        try:
            for (text, off), c in zip(expanded.statements, children):
                self.lower_expr_stmt(c, scope, out, (text, off, where))
        except (LoweringError, cp.ParseError) as e:
            if getattr(e, "src", None) is None and getattr(e, "cursor", None) is None:
                e.src = text_src
            raise
        finally:
            if saved is not None:
                self._stack[-1] = saved
            else:
                self.main = saved_main
        return out

    def lower_compound(self, cursor: Cursor, scope: Scope, top: bool = False) -> list[ir.Stmt]:
        inner = Scope(scope)
        out: list[ir.Stmt] = []
        children = list(cursor.get_children())
        pipes, mpipes = len(self._pipes()), len(self._mpipes())
        self._lower_list(children, inner, out, top)
        # The destructors of the FIFOs this block declared run where the block ends.
        return out + self.pipe_teardown(since=pipes) + self.mpipe_teardown(since=mpipes)

    def _lower_list(self, children: list[Cursor], scope: Scope, out: list[ir.Stmt], top: bool = False) -> None:
        """`top`: the function's own statement list, whose end is the function's end."""
        flag = self._exit_flags[-1] if self._exit_flags else None
        for i, c in enumerate(children):
            # At the top of a function, `if (cond) return;` guards the rest of the function: lower
            # it as `if (!cond) { rest }`. The If spans the guard and the rest, so that what goes
            # before it runs on both paths; what goes after it also goes before the return (see
            # ir.If.exits).
            if top and c.kind == CursorKind.IF_STMT and self._is_guard_return(c):
                outer_effects, self._pending_effects = self._pending_effects, []
                try:
                    cond = self.scalar(self.parse(*self.text_of(next(iter(c.get_children()))), scope), scope)
                    out.extend(self._pending_effects)  # calls in the condition run before the test
                finally:
                    self._pending_effects = outer_effects
                if isinstance(cond, Const):
                    if not cond.value:
                        self._lower_list(children[i + 1:], scope, out, top)
                    return
                before = dict(self.known)
                rest: list[ir.Stmt] = []
                self._lower_list(children[i + 1:], scope, rest, top)
                self.merge_known(before, self.known)  # the rest may not run
                guard = self.range_of(c)
                end = self.range_of(children[-1]) if i + 1 < len(children) else guard
                loc = self.file_of(c).range(guard.offset, max(guard.end_offset, end.end_offset))
                body = list(c.get_children())[1]
                ret = next(iter(body.get_children())) if body.kind == CursorKind.COMPOUND_STMT else body
                out.append(ir.If(unop("!", cond), ir.Block(rest, uid=next(self._uid)), None, loc,
                                 exit=(self.range_of(body, include_semicolon=True),
                                       self.range_of(ret, include_semicolon=True))))
                return
            if top and c.kind == CursorKind.RETURN_STMT:
                if list(c.get_children()):
                    if not (self._result_vars and self._result_vars[-1]):
                        raise self.located(self.error("returning a value from a kernel helper is not supported",
                                                      cursor=c))
                    self.lower_stmt(c, scope, out)  # assigns the helper's result
                return  # the function ends here
            if c.kind == CursorKind.COMPOUND_STMT and self._is_vec_scope(c, children[i - 1] if i else None):
                out.append(self.lower_vec_scope(c))
                continue
            lowered = len(out)
            self.lower_stmt(c, scope, out)
            if c.kind in (CursorKind.RETURN_STMT, CursorKind.CONTINUE_STMT, CursorKind.BREAK_STMT):
                return  # the rest of this list never runs
            cont, brk = self._jump_flags[-1] if self._jump_flags else (None, None)
            tests = [f for f, jumps in ((flag, flag is not None and _has_return(c)),
                                        (cont, cont is not None and has_jump(c, CursorKind.CONTINUE_STMT)),
                                        (brk, brk is not None and has_jump(c, CursorKind.BREAK_STMT))) if jumps]
            # A jump only in a branch the compiler drops (`if constexpr (false) { return; }`) sets
            # no flag: the rest runs unguarded.
            tests = [f for f in tests if _assigns(out[lowered:], f)]
            if tests and i + 1 < len(children):
                # c may have returned, continued or broken: the rest of this list runs only if not.
                before = dict(self.known)
                rest = []
                self._lower_list(children[i + 1:], scope, rest, top)
                self.merge_known(before, self.known)
                first, last = self.range_of(children[i + 1]), self.range_of(children[-1])
                loc = self.file_of(c).range(first.offset, last.end_offset)
                cond = binop("==", Var(tests[0]), Const(0))
                for t in tests[1:]:
                    cond = binop("&&", cond, binop("==", Var(t), Const(0)))
                out.append(ir.If(cond, ir.Block(rest, uid=next(self._uid)), None, loc))
                return

    def _is_guard_return(self, c: Cursor) -> bool:
        kids = list(c.get_children())
        if len(kids) != 2:
            return False
        then = kids[1]
        if then.kind == CursorKind.RETURN_STMT:
            return not list(then.get_children())  # (`return v;` assigns a result: see calls.lower_result)
        if then.kind == CursorKind.COMPOUND_STMT:
            body = list(then.get_children())
            return len(body) == 1 and body[0].kind == CursorKind.RETURN_STMT and not list(body[0].get_children())
        return False

    def lower_stmt(self, c: Cursor, scope: Scope, out: list[ir.Stmt]) -> None:
        n0 = len(out)
        outer, self._scalar_unit_reads = self._scalar_unit_reads, []
        outer_effects, self._pending_effects = self._pending_effects, []
        try:
            self._lower_stmt(c, scope, out)
            if self._pending_effects:
                # SDMA calls written in the statement's expressions run before it (an if's condition
                # is evaluated once, before either branch).
                if c.kind not in (CursorKind.DECL_STMT, CursorKind.RETURN_STMT, CursorKind.IF_STMT) \
                        and not c.kind.is_expression() and c.kind != CursorKind.UNEXPOSED_EXPR:
                    raise self.error("an SDMA call (TPREFETCH_ASYNC, Wait, ...) or a call to a helper that issues "
                                     "work and returns a value, in a loop's condition or step, is not supported: "
                                     "it would run on every test of the loop; call it in a statement of its own",
                                     cursor=c)
                out[n0:n0] = self._pending_effects
                n0 += len(self._pending_effects)
            if self._scalar_unit_reads:
                # Element reads (`t.GetValue(i)`) of a declaration or expression statement run
                # just before it; in a loop or branch condition they would run on every test.
                # An if's condition is tested once, before either branch: its reads go before the if.
                if c.kind not in (CursorKind.DECL_STMT, CursorKind.RETURN_STMT, CursorKind.IF_STMT) \
                        and not c.kind.is_expression() and c.kind != CursorKind.UNEXPOSED_EXPR:
                    # GM elements read in a loop condition: not issued; sound only while no
                    # instruction writes that argument (checked by the front end).
                    for r in [r for r in self._scalar_unit_reads if _gm_element_read(r)]:
                        self.scalar_gm_reads.setdefault(r.args[0].value.param, r.loc)
                        self._scalar_unit_reads.remove(r)
                if self._scalar_unit_reads and c.kind not in (CursorKind.DECL_STMT, CursorKind.RETURN_STMT,
                                                              CursorKind.IF_STMT) \
                        and not c.kind.is_expression() and c.kind != CursorKind.UNEXPOSED_EXPR:
                    raise self.error("reading a buffer element (GetValue, an on-chip pointer) in a loop condition "
                                     "is not supported; read it into a variable first", cursor=c)
                where = self.range_of(c, include_semicolon=True)
                for read in self._scalar_unit_reads:
                    read.loc = where  # syncs it needs go before the whole statement
                out[n0:n0] = self._scalar_unit_reads
        finally:
            self._scalar_unit_reads = outer
            self._pending_effects = outer_effects
        for s in out[n0:]:  # straight-line assignments: their values are known from here on
            if isinstance(s, ir.Assign):
                self.note_assign(s)

    def _lower_stmt(self, c: Cursor, scope: Scope, out: list[ir.Stmt]) -> None:
        k = c.kind
        try:
            if k == CursorKind.COMPOUND_STMT:
                out.append(ir.Block(self.lower_compound(c, scope), self.range_of(c), uid=next(self._uid),
                                    compound=True))
            elif k == CursorKind.DECL_STMT:
                decls = list(c.get_children())
                for d in decls:
                    self.lower_decl(d, scope, out, c if len(decls) > 1 else None)
            elif k == CursorKind.FOR_STMT or k == CursorKind.WHILE_STMT and not self._no_effect(c):
                mark = len(self._loop_prelude)
                loop = self.lower_for(c, scope) if k == CursorKind.FOR_STMT else self.lower_while(c, scope)
                out.extend(self._loop_prelude[mark:])
                del self._loop_prelude[mark:]
                flag = self._exit_flags[-1] if self._exit_flags else None
                if flag is not None and _has_return(c) and _assigns([loop], flag):
                    # After a return the remaining iterations do nothing.
                    body = loop.body
                    guard = ir.If(binop("==", Var(flag), Const(0)), body, None, body.loc)
                    loop.body = ir.Block([guard], body.loc, uid=next(self._uid))
                out.append(loop)
            elif k == CursorKind.IF_STMT:
                self.lower_if(c, scope, out)
            elif k in (CursorKind.NULL_STMT,):
                pass
            elif k == CursorKind.ASM_STMT:
                loc = self.range_of(c, include_semicolon=True)
                for name in self.compiler_barrier(c):  # a register read: a value known only at run time
                    b = scope.lookup(name)
                    value = Var(self.unique_name(f"{name}@asm"))
                    if b is not None and b.kind == "mutable":
                        out.append(ir.Assign(b.value, value, loc))
                    elif b is not None and b.kind == "value":
                        b.value = value
                    else:
                        raise self.error(f"'{name}' cannot be set by this assembly statement", cursor=c)
            elif k == CursorKind.UNEXPOSED_STMT and self._attributed_stmt(c) is not None:
                # `#pragma unroll` / `[[...]]` before a statement: only a hint, lower the statement.
                self.lower_stmt(self._attributed_stmt(c), scope, out)
            elif k == CursorKind.RETURN_STMT:
                if list(c.get_children()):
                    result = self._result_vars[-1] if self._result_vars else None
                    if result is None:
                        raise self.error("returning a value from a kernel helper is not supported", cursor=c)
                    out.append(self.lower_result(c, result, scope, out))
                flag = self._exit_flags[-1] if self._exit_flags else None
                if flag is not None:
                    loc = self.range_of(c, include_semicolon=True)
                    self.early_returns.append(loc)
                    out.append(ir.Assign(flag, Const(1), loc))
            elif k == CursorKind.WHILE_STMT and self._no_effect(c):
                pass  # a spin-wait on the core's status (`while (get_icache_prl_st()) {}`): it changes nothing
            elif k == CursorKind.DO_STMT:
                raise self.error("do loops are not supported; write a for or while loop", cursor=c)
            elif k in (CursorKind.GOTO_STMT, CursorKind.LABEL_STMT, CursorKind.INDIRECT_GOTO_STMT):
                raise self.error("goto is not supported", cursor=c)
            elif k in (CursorKind.BREAK_STMT, CursorKind.CONTINUE_STMT):
                cont, brk = self._jump_flags[-1] if self._jump_flags else (None, None)
                jump = cont if k == CursorKind.CONTINUE_STMT else brk
                if jump is None:
                    raise self.error(f"'{k.name.split('_')[0].lower()}' is supported only in a for loop", cursor=c)
                out.append(ir.Assign(jump, Const(1), self.range_of(c, include_semicolon=True)))
            elif k in (CursorKind.SWITCH_STMT,):
                raise self.error("switch is not supported; use if/else", cursor=c)
            elif k in (CursorKind.STATIC_ASSERT, CursorKind.TYPE_ALIAS_DECL, CursorKind.TYPEDEF_DECL):
                self.lower_decl(c, scope, out)
            else:
                self.lower_expr_stmt(c, scope, out)
        except cp.ParseError as e:
            raise self.located(e) from None
        except LoweringError as e:
            if e.cursor is None and e.offset is None:
                e.cursor = c
            raise self.located(e) from None

    def _attributed_stmt(self, c: Cursor) -> Cursor | None:
        kids = list(c.get_children())
        if len(kids) == 1 and kids[0].kind.is_statement() and \
                self.text_of(c)[0].lstrip().startswith(("#pragma", "[[", "_Pragma")):
            return kids[0]
        return None

    # -- declarations

    @dataclass
    class VarDecl:
        name: str
        type_node: cp.TypeId | None
        array: cp.Node | None
        init: list[cp.Node] | None
        init_style: str  # "=", "(", "{", ""
        is_const: bool
        name_offset: int

    def parse_var_decl(self, cursor: Cursor, scope: Scope, group: Cursor | None = None) -> Lowering.VarDecl:
        """`group`: the declaration statement when it declares several variables (`T a, b[2];`)."""
        src = self.file_of(cursor)
        start, end = cursor.extent.start.offset, cursor.extent.end.offset
        name = cursor.spelling
        name_at = cursor.location.offset
        type_text = src.text[start:name_at]
        first = next(group.get_children()) if group is not None else cursor
        if first != cursor:
            # A later declarator's extent starts at its own `*`/name: take the type from the first one.
            base = src.text[first.extent.start.offset:first.location.offset].rstrip(" \t*&")
            type_text, start = base + " " + type_text, first.extent.start.offset
        p = self.parser(type_text, start, scope)
        quals = set()
        while p.peek() is not None and p.peek().text in cp.QUALIFIER_WORDS:
            quals.add(p.next().text)
        type_node = None
        if not (p.peek() and p.peek().text == "auto"):
            p.pos = 0
            type_node = p.type_id()
            # Qualifiers the headers define to nothing (`__cbuf__`) fall outside clang's extent.
            before = _leading_words(src.text, start)
            if before:
                type_node = replace(type_node, qualifiers=before + type_node.qualifiers)
        rest_off = name_at + len(name)
        rest = src.text[rest_off:end]
        q = self.parser(rest, rest_off, scope)
        array = None
        if q.at("["):
            q.next()
            array = cp.InitList(q.offset(), ()) if q.at("]") else q.expression()  # `[]`: sized by its initializer
            q.expect("]")
        init = None
        style = ""
        if q.at("="):
            q.next()
            style = "="
            init = [q.expression()]
        elif q.at("(") or q.at("{"):
            close = ")" if q.at("(") else "}"
            style = q.next().text
            init = q.arguments(close)
        is_const = bool({"constexpr", "const"} & (quals | set(type_node.qualifiers if type_node else ())))
        return Lowering.VarDecl(name, type_node, array, init, style, is_const, name_at)

    def lower_decl(self, d: Cursor, scope: Scope, out: list[ir.Stmt], group: Cursor | None = None) -> None:
        if d.kind in (CursorKind.TYPE_ALIAS_DECL, CursorKind.TYPEDEF_DECL):
            scope.define(d.spelling, Binding("type", self._resolve_alias_cursor(d, scope)))
            return
        if d.kind == CursorKind.STATIC_ASSERT:
            return
        if d.kind in RECORD_KINDS:  # a struct declared in a function
            if d.spelling and d.is_definition():
                scope.define(d.spelling, Binding("record", d))
            return
        if d.kind != CursorKind.VAR_DECL:
            raise self.error(f"unsupported declaration ({d.kind.name.lower()})", cursor=d)
        decl = self.parse_var_decl(d, scope, group)
        t = self.resolve_type(decl.type_node, scope) if decl.type_node else None
        if d.storage_class == StorageClass.STATIC and self._is_assigned_later(d):
            self.declare_static(d, decl, t, scope)
            return
        if isinstance(t, ty.TileType):
            self.declare_tile(d, decl, t, scope, group, out)
            return
        if isinstance(t, ty.GmType):
            g = self.make_gm_tensor(t, self.node_text(decl.type_node), decl.init or [], scope,
                                    decl.name_offset, decl.name, decl_cursor=d)
            scope.define(decl.name, Binding("gm", g, GmState(self._control_level())))
            return
        if isinstance(t, ty.DimsType):
            if decl.init_style == "=":  # `Shape<...> s = Shape<...>(rows, cols);`
                dims = self.eval(decl.init[0], scope)
                if not isinstance(dims, ty.DimsType):
                    raise self.error(f"expected a {t.kind} value", decl.init[0].offset)
            else:
                dims = self.fill_dims(t, decl.init or [], scope, decl.name_offset)
            scope.define(decl.name, Binding("value", dims))
            return
        if isinstance(t, ty.MultiBufferType):
            scope.define(decl.name, Binding("multibuf", MultiBufferLoop(t.buffers, None)))
            return
        if isinstance(t, ty.MultiStagedType):
            scope.define(decl.name, Binding("multibuf", StageRunner(t.stages)))
            return
        if isinstance(t, ty.OpaqueType) and t.text in SDMA_TYPES:
            self.declare_sdma(t.text, decl.name, decl.init or [], scope, self.range_of(group or d, include_semicolon=True),
                              decl.name_offset, out)
            return
        if isinstance(t, ty.OpaqueType) and t.text in ty.PTO_STRUCTS:
            scope.define(decl.name, Binding("struct", StructValue(decl.name, t.text)))
            return
        if isinstance(t, ty.PipeType):
            loc = self.range_of(group or d, include_semicolon=True)
            pipe = self.declare_pipe(t, decl.name, decl.init or [], scope, loc, decl.name_offset, out)
            scope.define(decl.name, Binding("value", pipe))
            return
        if isinstance(t, ty.MPipeType):
            loc = self.range_of(group or d, include_semicolon=True)
            pipe = self.declare_mpipe(t, decl.name, decl.init or [], scope, loc, decl.name_offset, out)
            scope.define(decl.name, Binding("value", pipe))
            return
        if isinstance(t, ty.SyncCustomType):
            scope.define(decl.name, Binding("value", self.declare_sync_object(t, decl.name, decl.init or [], scope,
                                                                              decl.name_offset)))
            return
        if isinstance(t, ty.RecordType) and decl.array is None:
            items = decl.init or []
            if decl.init_style == "=" and len(items) == 1 and isinstance(items[0], cp.InitList):
                items = list(items[0].items)
            if decl.type_node is not None and decl.type_node.reference and len(items) == 1 and \
                    not isinstance(items[0], cp.InitList):
                value = self.eval(items[0], scope)
                if isinstance(value, Ptr) and value.record == t:
                    # `const __gm__ S &s = p->member;`: a reference to a struct in GM, whose
                    # members are read where they are used, as through `p`.
                    scope.define(decl.name, Binding("value", value))
                    return
            scope.define(decl.name, Binding("value", self.record_from_init(t, items, scope, decl.name_offset)))
            return
        if isinstance(t, ty.EventType):
            loc = self.range_of(group or d, include_semicolon=True)
            ev = self.declare_event(t, decl.name, loc, decl.name_offset, out)
            scope.define(decl.name, Binding("event", ev))
            if decl.init:  # `Event<..> e = TLOAD(...);` records it
                self.lower_recording(ev, decl.init[0], scope, loc, out, d)
            return
        if isinstance(t, ty.ArrayType) and decl.array is None:
            self.declare_array(decl, t.dtype, scope, d, length=t.length)
            return
        if decl.array is not None:
            if t is not None and not isinstance(t, ty.ScalarType):
                raise self.error(f"arrays of {describe(t)} are not supported", decl.name_offset)
            self.declare_array(decl, t.dtype if t is not None else "int32", scope, d)
            return
        if isinstance(t, ty.PointerType) and decl.init and isinstance(decl.init[0], cp.Name) \
                and decl.init[0].parts == ("nullptr",):
            # Set later, e.g. through a `T *&` out-parameter (pto-isa's gemm InitGMOffsets), or in
            # a loop or a branch (a pointer to the previous iteration's output, a profile slot).
            base = self._later_pointer_base(d, scope) if self._assigned_deeper(d) else None
            if base is None:
                scope.define(decl.name, Binding("ptr", None, PtrState(self._control_level())))
                return
            loc = self.range_of(group or d, include_semicolon=True)
            offset, null = self.unique_name(f"{decl.name}@offset"), self.unique_name(f"{decl.name}@null")
            out += [ir.Assign(offset, Const(0), loc), ir.Assign(null, Const(1), loc)]
            ptr = Ptr(base.param, Var(offset), getattr(t, "dtype", base.dtype), base.record, null_var=null)
            scope.define(decl.name, Binding("ptr", ptr, PtrState(self._control_level(), offset, null)))
            return
        init = decl.init[0] if decl.init else None
        if init is not None and not self.compile_time:
            init = self.hoist_core_helpers(init, scope, self.range_of(group or d, include_semicolon=True), out)
        value = self.eval(init, scope) if init is not None else None
        if isinstance(t, ty.PointerType) and isinstance(value, (Expr, LocalPtr)) and decl.type_node is not None \
                and ON_CHIP_SPACES.intersection(decl.type_node.qualifiers):
            # `__cbuf__ T *p = tile.data();`: a pointer into an on-chip buffer.
            if isinstance(value, LocalPtr):
                ptr = with_space(value, t.dtype, decl.type_node.qualifiers)
            else:
                ptr = self.on_chip_pointer(value, t.dtype, decl.type_node.qualifiers, decl.name_offset)
            var = None
            if self._is_assigned_later(d) and self._assigned_deeper(d):
                # Reassigned in a loop or a branch (`p = base + k * stride;` per iteration): its
                # address also lives in a mutable scalar, updated by an Assign at every
                # reassignment. Uses read that scalar from the first reassignment lowered
                # under a loop or a run-time condition on, and from the start when one sits in
                # a loop (a later iteration reads what the previous one left).
                var = self.unique_name(f"{decl.name}@address")
                out.append(ir.Assign(var, ptr.address, self.range_of(d, include_semicolon=True)))
                if self._assigned_in_loop(d):
                    ptr = replace(ptr, address=Var(var))
            scope.define(decl.name, Binding("value", ptr, ("on-chip", self._control_level(), var)))
            return
        if isinstance(t, ty.PointerType) and isinstance(value, (ScalarArray, ArrayPointer)):
            scope.define(decl.name, Binding("value", value if isinstance(value, ArrayPointer) else ArrayPointer(value)))
            return
        if isinstance(t, ty.PointerType) or isinstance(value, Ptr):
            if not isinstance(value, Ptr):
                raise self.error("GM pointers must be derived from a kernel argument", decl.name_offset)
            if isinstance(t, ty.PointerType) and (t.dtype, t.record) != (value.dtype, value.record):
                value = replace(value, dtype=t.dtype, record=t.record)
            scope.define(decl.name, self.pointer_binding(value, d, decl.name, out))
            return
        if isinstance(value, ir.GmTensor):
            scope.define(decl.name, Binding("gm", value))
            return
        if isinstance(value, (ir.TileRef, ir.TileDecl)):
            scope.define(decl.name, Binding("ref" if isinstance(value, ir.TileRef) else "tile", value))
            return
        if isinstance(value, TileChoice):
            var = self.unique_name(f"{decl.name}@choice")
            out.append(ir.Assign(var, value.var_value, self.range_of(group or d, include_semicolon=True)))
            scope.define(decl.name, Binding("choice", replace(value, var=var)))
            return
        if isinstance(value, LocalPtr) and not self._is_assigned_later(d):
            scope.define(decl.name, Binding("value", value))  # `auto &a = tile.data();`
            return
        if isinstance(value, TileConstruction) and decl.array is None:
            # `auto t = MakeTile<T>(rows, cols);`: a helper returned a tile it constructed.
            self.declare_tile(d, decl, value.type, scope, group, out, value.args)
            return
        if value is None:
            value = Const(0)
        if not isinstance(value, Expr):
            raise self.error(f"unsupported initializer ({describe(value)})", decl.name_offset)
        if decl.is_const or not self._is_assigned_later(d):
            # In a manual kernel, a value read from a variable that changes later is the value at this
            # point (an AUTO kernel keeps the expression: the syncs the rewrite writes may be placed
            # where only the variables it reads are in scope).
            if not self.auto_mode:
                value = self._captured(value, decl.name, self.range_of(d, include_semicolon=True), out)
            scope.define(decl.name, Binding("value", value))
        else:
            var = self.unique_name(decl.name)
            self._mutables.add(var)
            scope.define(decl.name, Binding("mutable", var))
            out.append(ir.Assign(var, value, self.range_of(d, include_semicolon=True)))

    def declare_static(self, d: Cursor, decl, t, scope: Scope) -> None:
        """A `static` local that the function changes keeps its value from one call to the next: one
        scalar per function instance (a template's instantiations have their own), set to its
        (constant) initializer when the kernel starts."""
        if t is not None and not isinstance(t, ty.ScalarType):
            raise self.error("a static local that is not a scalar is not supported", decl.name_offset)
        where = self._instances[-1] if self._instances else self._stack[-1].func_key if self._stack else "entry"
        key = (where, decl.name, d.location.offset)
        var = self._statics.get(key)
        if var is None:
            value = self.scalar(decl.init[0], scope) if decl.init else Const(0)
            if value.const_value() is None:
                raise self.error("a static local needs a compile-time initializer", decl.name_offset)
            var = self._statics[key] = self.unique_name(f"{decl.name}@static")
            self._mutables.add(var)
            self.prologue.append(ir.Assign(var, value, self.range_of(d, include_semicolon=True)))
        scope.define(decl.name, Binding("mutable", var))

    def _lane_counter(self, decl) -> str:
        """The IR scalar that would count the executions of a helper's tile declaration: one per
        function instance and declaration, as a `static` local there would be (see declare_static)."""
        key = (self._instances[-1], "copy", decl.name_offset)
        var = self._statics.get(key)
        if var is None:
            var = self._statics[key] = self.unique_name(f"{decl.name}Copy")
        return var

    def _is_assigned_later(self, decl: Cursor) -> bool:
        """A local scalar is mutable if any statement in its function assigns to it."""
        return bool(self._assignment_sites(decl))

    def _later_pointer_base(self, decl: Cursor, scope: Scope) -> Ptr | None:
        """The GM pointer in scope that the first assignment to the null pointer `decl` derives
        it from (`p = gmA + row * n;`, `p = reinterpret_cast<T *>(arg) + k;`), or None. Every
        assignment is checked against it when it is lowered."""
        for site, _ in sorted(self._assignment_sites(decl), key=lambda x: x[0].extent.start.offset):
            kids = list(site.get_children())
            if site.kind != CursorKind.BINARY_OPERATOR or len(kids) != 2:
                continue
            text, off = self.text_of(kids[1])
            try:
                rhs = self.parse(text, off, scope)
            except LoweringError:
                return None
            for name in _names_in(rhs):
                b = scope.lookup(name)
                if b is not None and b.kind == "ptr" and isinstance(b.value, Ptr):
                    return b.value
            return None
        return None

    def _assigned_deeper(self, decl: Cursor) -> bool:
        """Some assignment to `decl` sits in a loop, a branch or a lambda of its function."""
        return any(nested for _, nested in self._assignment_sites(decl))

    def _assignment_sites(self, decl: Cursor) -> list[tuple[Cursor, bool | str]]:
        """Assignments (`=`, `op=`, `++`, `--`) to `decl` in its function, each with whether it is
        nested in a loop or a lambda ("loop"), only in ifs ("branch"), or in neither (False) (every
        local of a function is found in one walk of it)."""
        fn = decl.semantic_parent
        while fn is not None and fn.kind not in (CursorKind.FUNCTION_DECL, CursorKind.FUNCTION_TEMPLATE,
                                                 CursorKind.LAMBDA_EXPR, CursorKind.CXX_METHOD):
            fn = fn.semantic_parent
        if fn is None:
            return []
        cache = self.__dict__.setdefault("_assignment_cache", {})
        key = (fn.hash, fn.extent.start.offset, str(fn.location.file))
        if key not in cache:
            cache[key] = self._assignments_in(fn)
        return cache[key].get(decl.hash, [])

    def _assignments_in(self, fn: Cursor) -> dict[int, list[tuple[Cursor, bool | str]]]:
        found: dict[int, list[tuple[Cursor, bool | str]]] = {}
        repeating = (CursorKind.FOR_STMT, CursorKind.WHILE_STMT, CursorKind.DO_STMT, CursorKind.LAMBDA_EXPR,
                     CursorKind.CXX_FOR_RANGE_STMT)
        nesting = (*repeating, CursorKind.IF_STMT)
        todo = [(c, False) for c in fn.get_children()]
        while todo:
            c, nested = todo.pop()
            kids = list(c.get_children())
            if c.kind in (CursorKind.BINARY_OPERATOR, CursorKind.COMPOUND_ASSIGNMENT_OPERATOR,
                          CursorKind.UNARY_OPERATOR):
                if kids and kids[0].kind == CursorKind.DECL_REF_EXPR and kids[0].referenced is not None:
                    text, _ = self.text_of(c)
                    if c.kind == CursorKind.UNARY_OPERATOR:
                        if "++" in text or "--" in text:
                            found.setdefault(kids[0].referenced.hash, []).append((c, nested))
                    else:
                        after = cp.tokenize(text[len(kids[0].spelling):])
                        if after and after[0].text in cp.ASSIGN_OPS:
                            found.setdefault(kids[0].referenced.hash, []).append((c, nested))
            elif c.kind == CursorKind.CALL_EXPR:
                args = list(c.get_arguments())
                for i, a in enumerate(args):
                    while a.kind == CursorKind.UNEXPOSED_EXPR and len(list(a.get_children())) == 1:
                        a = next(a.get_children())
                    if a.kind == CursorKind.DECL_REF_EXPR and a.referenced is not None and \
                            self._by_reference(c, i, len(args)):
                        found.setdefault(a.referenced.hash, []).append((c, nested))  # the callee may assign it
            if c.kind in repeating:
                inner = "loop"
            else:
                inner = nested or ("branch" if c.kind in nesting else False)
            todo.extend((k, inner) for k in kids)
        return found

    def _assigned_in_loop(self, decl: Cursor) -> bool:
        """Some assignment to `decl` sits in a loop or a lambda (which may run it again before
        a use that precedes it in the source)."""
        return any(nested == "loop" for _, nested in self._assignment_sites(decl))

    def _by_reference(self, call: Cursor, index: int, nargs: int) -> bool:
        """Some user function of the called name takes argument `index` by non-const reference."""
        words = [t.text for t in cp.tokenize(self.text_of(call)[0]) if t.kind == "id"]
        name = next((w for w in words if w not in NAMESPACES), None)
        b = self.globals.lookup(name) if name else None
        if b is None or b.kind != "funcs":
            return False
        for f in b.value:
            params = [c for c in f.cursor.get_children() if c.kind == CursorKind.PARM_DECL]
            if index < len(params) and param_count_fits(f.cursor, nargs) and \
                    is_mutable_reference(params[index], self.file_of(f.cursor)):
                return True
        return False

    def unique_name(self, base: str) -> str:
        n = self._names.get(base, 0)
        self._names[base] = n + 1
        return base if n == 0 else f"{base}#{n + 1}"

    def declare_tile(self, d: Cursor, decl: Lowering.VarDecl, t: ty.TileType, scope: Scope,
                     group: Cursor | None = None, out: list[ir.Stmt] | None = None,
                     constructed: tuple[Expr, ...] | None = None) -> None:
        """`constructed`: the constructor arguments when a returned tile value initializes it."""
        count = None
        if decl.array is not None:
            c = self.scalar(decl.array, scope).const_value()
            if not isinstance(c, int) or c <= 0:
                raise self.error("tile array length must be a positive compile-time constant", decl.name_offset)
            count = c
        vr, vc = t.valid_rows, t.valid_cols
        for what, valid, cap in (("rows", vr, t.rows), ("columns", vc, t.cols)):
            v = None if valid is None else valid.const_value()
            if isinstance(v, int) and not 0 <= v <= cap:  # pto-isa refuses this type at compile time
                raise self.error(f"tile type '{t.text}' has {v} valid {what} but room for {cap}; its valid shape "
                                 "must fit the tile", decl.name_offset)
        elements = None  # a ConvTile's element count, from its dynamic dimensions' values
        if t.conv_static and (constructed is not None or (decl.init and decl.init_style in ("(", "{"))):
            dyn = list(constructed) if constructed is not None else [self.scalar(a, scope) for a in decl.init]
            elements = self.conv_elements(t, dyn)
        elif constructed is not None or (decl.init and decl.init_style in ("(", "{")):
            dyn = list(constructed) if constructed is not None else [self.scalar(a, scope) for a in decl.init]
            if len(dyn) >= 2:  # (validRow, validCol): each fills its dimension if that one is dynamic
                vr = dyn[0] if vr is None else vr
                vc = dyn[1] if vc is None else vc
            elif len(dyn) == 1:  # one dynamic dimension: the argument is that one
                if vr is None:
                    vr = dyn[0]
                elif vc is None:
                    vc = dyn[0]
        loc = self.range_of(group or d, include_semicolon=True)
        if out is not None:
            # A valid shape is fixed when the tile is constructed: one read from a variable that
            # changes later is captured in a scalar of its own.
            vr = self._captured(vr, f"{decl.name}.validRow", loc, out)
            vc = self._captured(vc, f"{decl.name}.validCol", loc, out)
        tile = ir.TileDecl(
            name=self.unique_name(decl.name), tile_type=t.tile_type, dtype=t.dtype, rows=t.rows,
            cols=t.cols, valid_rows=vr, valid_cols=vc, blayout=t.blayout, slayout=t.slayout,
            count=count, loc=loc, type_text=t.text, cpp_name=decl.name, scope=self._scope_uid,
            declarator=decl.name_offset, compact=t.compact, conv_static=t.conv_static, fractal=t.fractal,
        )
        if t.conv_static and out is not None:
            # Each slot's element count in a scalar of its own, assigned where the tile is
            # constructed; without constructor values, the capacity.
            tile.valid_var = self.unique_name(f"{decl.name}.elements")
            for k in range(count or 1):
                out.append(ir.Assign(f"{tile.valid_var}#{k}", elements or Const(t.cols), loc))
        if t.tile_type not in ("Vec", "Mat", "Left", "Right", "Acc", "Bias", "Scaling", "ScaleLeft", "ScaleRight"):
            raise self.error(f"tiles of type {t.tile_type} are not supported in version 1", decl.name_offset)
        if TILE_TYPE_BUFFER.get(t.tile_type) not in self.arch.buffers:
            raise self.error(f"tiles of type {t.tile_type} have no buffer on {self.arch.name} (the MX scale buffers "
                             "are a5's)", decl.name_offset)
        self.tiles.append(tile)
        self._tile_levels[id(tile)] = self._control_level()
        if count is None and self._instances:
            tile.lane_counter = self._lane_counter(decl)
        if self._lanes and count is None:
            # The AUTO compiler gives each lane of a MultiBuffered loop its own copy.
            nbuf, slot, lane_text, body = self._lanes[-1]
            if loc.file == body.file and body.offset <= loc.offset < body.end_offset:
                tile.count, tile.per_lane, tile.lane_text = nbuf, True, lane_text
                tile.lane_constexpr = lane_text.endswith(".bufferId")
                scope.define(decl.name, Binding("ref", ir.TileRef(tile, slot)))
                return
            # Declared in a helper the body calls: the lane is not in scope where the TASSIGN
            # would go, so every lane shares one copy; the syncs order the lanes' uses of it.
            # The memory plan warns about the ones that own bytes.
            tile.lanes_shared = True
        scope.define(decl.name, Binding("tile", tile))

    def _captured(self, e: Expr | None, name: str, loc: ir.SourceRange, out: list[ir.Stmt]) -> Expr | None:
        if e is None or not (e.free_vars() & self._mutables):
            return e
        var = self.unique_name(name)
        out.append(ir.Assign(var, e, loc))
        return Var(var)

    _scope_uid: int = 0
    _cond_depth: int = 0  # enclosing if/else with a run-time condition

    def _control_level(self) -> tuple[int, int]:
        return len(self._loop_vars), self._cond_depth

    def make_gm_tensor(self, t: ty.GmType, text: str, init: list[cp.Node], scope: Scope, offset: int,
                       name: str | None, decl_cursor: Cursor | None = None) -> ir.GmTensor:
        if not init and name is None:
            raise self.error("a GlobalTensor needs a GM pointer", offset)
        # A variable declared without one views nothing until a TASSIGN (or a GM FIFO's TALLOC /
        # TPOP) points it at GM; a use before that is refused (see eval_name).
        ptr = self.eval(init[0], scope) if init else Ptr(UNBOUND_GM, Const(0), t.dtype)
        if isinstance(ptr, ir.GmTensor):
            return ptr
        if not isinstance(ptr, Ptr):
            raise self.error("a GlobalTensor must point into a kernel argument", init[0].offset)
        shape, stride = list(t.shape), list(t.stride)
        dyn = [self.eval(a, scope) for a in init[1:]]
        for v in dyn:
            if isinstance(v, ty.DimsType):
                target = shape if v.kind == "shape" else stride
                for i, dv in enumerate(v.dims):
                    if dv.const_value() != ty.DYNAMIC:
                        target[i] = dv
        loc = self.range_of(decl_cursor, include_semicolon=True) if decl_cursor else self.src.range(offset, offset)
        g = ir.GmTensor(
            name=self.unique_name(name or f"{ptr.param}@gm"), param=ptr.param, dtype=t.dtype,
            shape=tuple(shape), stride=tuple(stride), offset_bytes=ptr.offset_bytes, loc=loc, type_text=text,
        )
        self.gm_tensors.append(g)
        return g

    # -- control flow

    def unique_loop_var(self, name: str) -> str:
        if name not in self._loop_vars:
            return name
        i = 2
        while f"{name}#{i}" in self._loop_vars:
            i += 1
        return f"{name}#{i}"

    def _lower_body(self, cursor: Cursor, scope: Scope) -> ir.Block:
        uid = next(self._uid)
        saved, self._scope_uid = self._scope_uid, uid
        try:
            if cursor.kind == CursorKind.COMPOUND_STMT:
                stmts = self.lower_compound(cursor, scope)
            else:
                stmts = []
                self.lower_stmt(cursor, Scope(scope), stmts)
        finally:
            self._scope_uid = saved
        return ir.Block(stmts, self.range_of(cursor), uid=uid, compound=cursor.kind == CursorKind.COMPOUND_STMT)

    @staticmethod
    def _is_if_constexpr(c: Cursor) -> bool:
        """`if constexpr (...)`: its dead branch need not even compile, so it is not kept."""
        toks = [t.spelling for t in itertools.islice(c.get_tokens(), 2)]
        return toks[1:] != ["("]

    def lower_if(self, c: Cursor, scope: Scope, out: list[ir.Stmt]) -> None:
        kids = list(c.get_children())
        cond_cursor = kids[0]
        if cond_cursor.kind == CursorKind.DECL_STMT or cond_cursor.kind == CursorKind.VAR_DECL:
            raise self.error("declarations in if conditions are not supported", cursor=cond_cursor)
        cond = self.scalar(self.parse(*self.text_of(cond_cursor), scope), scope)
        if isinstance(self.with_known(cond), Const):
            cond = self.with_known(cond)  # decided by values known here (see consteval)
        then_c = kids[1]
        else_c = kids[2] if len(kids) > 2 else None
        if isinstance(cond, Const):
            # Compile-time condition (if constexpr, template constants): keep only the live branch.
            chosen = then_c if cond.value else else_c
            if self._stack and not self._is_if_constexpr(c):
                # In a helper a plain `if` may be decided by one call's constant argument and
                # not by another's: this copy keeps the `if` (its dead branch empty) so that
                # every copy has the same statements at the same places, and the
                # synchronization planned for it is the one text the other copies get.
                live = self._lower_body(chosen, scope) if chosen is not None else None
                then = live if cond.value else ir.Block([], self.range_of(then_c), uid=next(self._uid))
                other = (None if else_c is None else
                         live if not cond.value else ir.Block([], self.range_of(else_c), uid=next(self._uid)))
                out.append(ir.If(cond, then, other, self.range_of(c)))
                return
            if chosen is not None:
                out.append(self._lower_body(chosen, scope))
            return
        self._cond_depth += 1
        before = dict(self.known)
        try:
            then = self._lower_body(then_c, scope)
            after_then = dict(self.known)
            self.known.clear()
            self.known.update(before)
            other = self._lower_body(else_c, scope) if else_c is not None else None
            self.merge_known(after_then, self.known)
        finally:
            self._cond_depth -= 1
        out.append(ir.If(cond, then, other, self.range_of(c)))

    # -- expression statements: instructions, syncs, assignments, calls

    def lower_expr_stmt(self, c: Cursor, scope: Scope, out: list[ir.Stmt],
                        expanded: tuple[str, int, ir.SourceRange] | None = None) -> None:
        """`expanded`: the statement's text and offset in the current frame's source, and its
        place, when clang's cursor sits in a macro expansion (see lower_macro_body)."""
        if expanded is None:
            # The statement's place is read from clang once (each read is a call into libclang).
            src = self.file_of(c)
            e = c.extent
            off, end = e.start.offset, e.end.offset
            text = src.text[off:end]
            if not text.strip():  # a whole statement a macro writes (`LOG(t);`): its use
                end = _macro_use_end(src.text, off)
                text = src.text[off:end]
        else:
            text, off, where = expanded
            end = off + len(text)
        tokens = cp.tokenize(text, off)
        first = tokens[:1]
        if tuple(t.text for t in tokens[:3]) == SIMT_LAUNCH:
            out.append(self.lower_simt_invoke(text, off, tokens, scope, self._range_in(src, off, end, True)
                                              if expanded is None else expanded[2]))
            return
        if first and first[0].text in self.function_macros and expanded is None \
                and not self._scalar_only(tokens):
            if _without_effect(c):
                return  # e.g. an assert macro compiled out to `((void)0)`
            raise self.error(
                f"macro '{first[0].text}' expands to PTO statements; macros that expand to instructions "
                "are not supported in version 1 (write the calls out or use an inline function)", cursor=c)
        node = self.parse(text, off, scope, tokens)
        loc = self._range_in(src, off, end, include_semicolon=True) if expanded is None else where
        self.lower_parsed_stmt(node, scope, loc, out, c)

    def lower_parsed_stmt(self, node: cp.Node, scope: Scope, loc: ir.SourceRange, out: list[ir.Stmt],
                          c: Cursor) -> None:
        """An expression statement, parsed. One that names a tile chosen at run time (see
        TileChoice) is lowered once per choice, under the choice's condition."""
        name = next((n for n in _names_in(node) if (b := scope.lookup(n)) is not None and b.kind == "choice"), None)
        if name is not None:
            choice: TileChoice = scope.lookup(name).value
            branches = []
            for binding in (choice.then, choice.other):
                inner, body = Scope(scope), []
                inner.define(name, binding)
                self.lower_parsed_stmt(node, inner, loc, body, c)
                branches.append(ir.Block(body, loc, uid=next(self._uid)))
            if branches[0].stmts or branches[1].stmts:
                out.append(ir.If(binop("!=", Var(choice.var), Const(0)), branches[0], branches[1], loc))
            return
        if isinstance(node, cp.Binary) and node.op == "=" and isinstance(node.lhs, cp.Name):
            b = scope.lookup(node.lhs.last) if len(node.lhs.parts) == 1 else None
            if b is not None and b.kind == "event":
                self.lower_recording(b.value, node.rhs, scope, loc, out, c)
                return
        if isinstance(node, cp.Call) and isinstance(node.callee, cp.Member) and node.callee.name in EVENT_CALLS \
                and self.sdma_event_var(node.callee.base, scope) is not None:
            self.eval(node, scope)  # `event.Wait(session);`: modelled before the statement
            return
        if isinstance(node, cp.Call) and isinstance(node.callee, cp.Member):
            base = self.eval(node.callee.base, scope) if node.callee.name != "loop" else None
            if isinstance(base, EventObject):
                self.lower_event_method(base, node, loc, out)
                return
            if isinstance(base, SyncObject):
                self.lower_sync_method(base, node, loc, out)
                return
            if isinstance(base, MPipeEnd):
                self.lower_mpipe_method(base, node, scope, loc, out)
                return
        if isinstance(node, cp.Binary) and node.op == "=" and \
                (tile := self._assigned_tile(node.lhs, scope)) is not None:
            self.reconstruct_tile(tile, node, scope, loc, out)
            return
        if isinstance(node, cp.Binary) and node.op in cp.ASSIGN_OPS:
            rhs = self.hoist_core_helpers(node.rhs, scope, loc, out)
            if rhs is not node.rhs:
                node = replace(node, rhs=rhs)
            stmt = self.lower_assign(node, scope, loc)
            if stmt is not None:  # None: a GM pointer was rebound; a list: several assignments
                out.extend(stmt if isinstance(stmt, list) else [stmt])
            return
        if isinstance(node, cp.Unary) and node.op in ("++", "--"):
            stmt = self.lower_assign(cp.Binary(node.offset, "+=" if node.op == "++" else "-=",
                                               node.operand, cp.Num(node.offset, 1)), scope, loc)
            if stmt is not None:
                out.extend(stmt if isinstance(stmt, list) else [stmt])
            return
        if isinstance(node, cp.Cast) and node.type.base.parts == ("void",):
            return  # `(void)x;`
        if isinstance(node, cp.Call) and isinstance(node.callee, cp.Member) and node.callee.name == "loop":
            target = self.eval(node.callee.base, scope)
            if isinstance(target, MultiBufferLoop):
                out.extend(self.lower_multibuffered(target, node, scope, loc))
                return
        if isinstance(node, cp.Call) and isinstance(node.callee, cp.Member) and node.callee.name == "run":
            target = self.eval(node.callee.base, scope)
            if isinstance(target, StageRunner):
                out.extend(self.lower_stages(node, scope))
                return
        if isinstance(node, cp.Call) and isinstance(node.callee, cp.Member) and \
                node.callee.name in TILE_MODE_SETTERS:
            self.lower_tile_mode(node, scope, loc)
            return
        if isinstance(node, cp.Call) and isinstance(node.callee, cp.Member) and \
                node.callee.name in VALID_SHAPE_SETTERS:
            base = self.eval(node.callee.base, scope)
            if isinstance(base, ir.TileDecl) and base.count is None:
                base = ir.TileRef(base, None)
            if isinstance(base, ir.TileRef):
                for a in node.args:
                    self.eval(a, scope)
                name = node.callee.name
                self.widen_valid_shape(base.tile, name != "SetValidCol", name != "SetValidRow", loc)
                return
        if isinstance(node, cp.Call) and isinstance(node.callee, cp.Member) and \
                node.callee.name in CONV_TILE_SETTERS:
            self.lower_conv_setting(node, scope)
            return
        if not isinstance(node, cp.Call) or not isinstance(node.callee, cp.Name):
            raise self.error("unsupported statement", cursor=c)
        self.lower_call(node, scope, loc, out, c)

    def lower_conv_setting(self, node: cp.Call, scope: Scope) -> None:
        """`fmap.SetFmapH(h);`: img2col configuration held by a ConvTile. It changes the values
        TIMG2COL computes, not which bytes it touches: a ConvTile is read whole and the cube tile
        written has fractal boxes, touched whole too (execution.tile_footprint)."""
        name = node.callee.name
        base = self.eval(node.callee.base, scope)
        if isinstance(base, ir.TileDecl) and base.count is None:
            base = ir.TileRef(base, None)
        if not isinstance(base, ir.TileRef) or not base.tile.slayout.startswith("Conv"):
            raise self.error(f"member call '.{name}()' on {describe(base)} is not supported here", node.offset)
        for a in node.args:
            self.eval(a, scope)

    def lower_tile_mode(self, node: cp.Call, scope: Scope, loc: ir.SourceRange) -> None:
        """`a.SetKAligned(true);`, `a.SetMadTF32Mode(mode);`: settings of a cube tile that change how
        later instructions compute, never which of its bytes they touch: every access to a tile
        with fractal boxes counts as touching the whole tile (see execution.tile_footprint)."""
        name = node.callee.name
        base = self.eval(node.callee.base, scope)
        if isinstance(base, ir.TileDecl) and base.count is None:
            base = ir.TileRef(base, None)
        if not isinstance(base, ir.TileRef):
            raise self.error(f"member call '.{name}()' on {describe(base)} is not supported here", node.offset)
        for a in node.args:
            self.eval(a, scope)
        if base.tile.slayout == "NoneBox":
            raise self.error(f"'.{name}()' on '{base}', a tile without fractal boxes, is not supported: it may "
                             "change which bytes later instructions touch", node.offset)
        if name == "SetMadTF32Mode":
            self.reporter.warn(f"'.{name}()' changes the arithmetic of later cube instructions, which the "
                               "emulator does not model; the race check is not affected", loc)

    def lower_assign(self, node: cp.Binary, scope: Scope, loc: ir.SourceRange) -> ir.Assign:
        if isinstance(node.lhs, cp.Index):
            arr = self.eval(node.lhs.base, scope)
            if isinstance(arr, ScalarArray):
                value = self.scalar(node.rhs, scope)
                idx = self.scalar(node.lhs.index, scope)
                if node.op != "=":
                    value = binop(node.op[:-1], self.array_element(arr, idx, node.offset), value)
                self.store_element(arr, idx, value, node.lhs.offset)
                return None
        target = node.lhs.operand if isinstance(node.lhs, cp.Unary) and node.lhs.op == "*" else \
            node.lhs.base if isinstance(node.lhs, cp.Index) else None
        if isinstance(target, cp.Unary) and target.op in ("++", "--") and target.postfix \
                and isinstance(target.operand, cp.Name) and isinstance(node.lhs, cp.Unary):
            # `*(p++) = v;`: the store through p, then the step.
            stmt = self.lower_assign(cp.Binary(node.offset, node.op, cp.Unary(node.lhs.offset, "*", target.operand),
                                               node.rhs), scope, loc)
            step = self.lower_assign(cp.Binary(target.offset, "+=" if target.op == "++" else "-=", target.operand,
                                               cp.Num(target.offset, 1)), scope, loc)
            if stmt is not None and step is not None:
                raise self.error("this store through a stepped pointer is not supported", node.offset)
            return stmt or step
        if target is not None:
            ptr = self.eval(target, scope)
            if isinstance(ptr, ArrayPointer):
                # Into the core's stack: the array's elements are run-time values from here on.
                self.eval(node.rhs, scope)
                arr = ptr.array
                arr.elems[:] = [Var(self.unique_name(f"{arr.name}[]")) for _ in arr.elems]
                return None
            if isinstance(ptr, LocalPtr):
                # `ub[0] = v;`: the scalar unit stores one element into an on-chip buffer.
                self.eval(node.rhs, scope)
                idx = self.scalar(node.lhs.index, scope) if isinstance(node.lhs, cp.Index) else Const(0)
                st = self.scalar_local_access(ptr, idx, True, self.element_text(node.lhs), node.lhs.offset)
                st.loc = loc
                return st
            if isinstance(ptr, Ptr):
                # `*out = view.data();`, `flags[i] = 1;`: the scalar unit stores to GM.
                self.eval(node.rhs, scope)
                self.scalar_gm_writes.setdefault(ptr.param, self.src.range(node.lhs.offset, node.lhs.offset))
                return None
        if isinstance(node.lhs, cp.Member):
            base = self.eval(node.lhs.base, scope)
            if isinstance(base, Ptr) and base.record is not None:
                # `p->count = v`: the scalar unit stores to a field of a struct in GM.
                self.record_member(base, node.lhs, address=True)
                self.eval(node.rhs, scope)
                self.scalar_gm_writes.setdefault(base.param, self.src.range(node.lhs.offset, node.lhs.offset))
                return None
            if isinstance(base, ir.TileDecl) and base.count is None:
                base = ir.TileRef(base, None)
            if isinstance(base, ir.TileRef) and node.lhs.name in VALID_SHAPE_FIELDS:
                # `t.RowMaskInternal = rows;`: the field SetValidRow sets (see widen_valid_shape).
                self.eval(node.rhs, scope)
                rows = node.lhs.name == "RowMaskInternal"
                self.widen_valid_shape(base.tile, rows, not rows, loc)
                return None
            if isinstance(base, RecordValue):
                raise self.error(f"assignment to member '{node.lhs.name}' of a struct value is not supported",
                                 node.lhs.offset)
        tile = self._assigned_tile(node.lhs, scope) if node.op == "=" else None
        if tile is not None:
            self.reconstruct_tile(tile, node, scope, loc)
            return None
        if not isinstance(node.lhs, cp.Name) or len(node.lhs.parts) != 1:
            raise self.error("only assignments to local scalar variables are supported", node.offset)
        b = scope.lookup(node.lhs.parts[0])
        if b is not None and b.kind == "value" and isinstance(b.value, LocalPtr) and isinstance(b.extra, tuple) \
                and b.extra[0] == "on-chip":
            # `ub = other;` / `ub += n;`: an on-chip pointer rebound where it was declared (a
            # compile-time branch is no level of its own), or, one reassigned deeper, its address
            # variable updated (see the declaration).
            var = b.extra[2]
            if var is None and b.extra[1] != self._control_level():
                raise self.error(f"on-chip pointer '{node.lhs.parts[0]}' is reassigned inside a loop or a run-time "
                                 "condition; derive a new pointer there instead", node.lhs.offset)
            rhs = node.rhs if node.op == "=" else cp.Binary(node.offset, node.op[0], node.lhs, node.rhs)
            value = self.eval(rhs, scope)
            if isinstance(value, Expr):
                value = LocalPtr(value, b.value.dtype, b.value.space)
            if not isinstance(value, LocalPtr):
                raise self.error(f"expected an on-chip pointer, found {describe(value)}", node.rhs.offset)
            if var is None:
                b.value = replace(value, dtype=b.value.dtype, space=value.space or b.value.space)
                return None
            if value.space is not None and b.value.space is not None and value.space != b.value.space:
                raise self.error(f"on-chip pointer '{node.lhs.parts[0]}' points into {b.value.space}; it cannot be "
                                 f"pointed into {value.space} here", node.rhs.offset)
            if b.value.address != Var(var):
                if b.extra[1] == self._control_level():
                    b.value = replace(b.value, address=value.address)  # still known where it is used
                else:
                    b.value = replace(b.value, address=Var(var))
            return ir.Assign(var, value.address, loc)
        if b is not None and b.kind == "value" and isinstance(b.value, ArrayPointer) and node.op in ("+=", "-="):
            self.eval(node.rhs, scope)
            return None  # a step within the array (see ArrayPointer)
        if b is not None and b.kind == "ptr" and node.op in ("=", "+=", "-="):
            return self.assign_pointer(b, node, scope, loc)
        if b is None or b.kind != "mutable":
            raise self.error(f"cannot assign to '{node.lhs.parts[0]}'", node.offset)
        rhs = self.scalar(node.rhs, scope)
        if node.op != "=":
            rhs = binop(node.op[:-1], Var(b.value), rhs)
        return ir.Assign(b.value, rhs, loc)

    def _assigned_tile(self, lhs: cp.Node, scope: Scope) -> ir.TileDecl | None:
        """The tile `lhs` names (`t`, `tiles[i]`), or None when it names no tile."""
        name = lhs.base if isinstance(lhs, cp.Index) else lhs
        if not isinstance(name, cp.Name) or len(name.parts) != 1:
            return None
        b = scope.lookup(name.parts[0])
        if b is None or b.kind not in ("tile", "ref"):
            return None
        target = self.eval(lhs, scope)
        if isinstance(target, ir.TileRef):
            return target.tile
        return target if isinstance(target, ir.TileDecl) else None

    def conv_elements(self, t: ty.TileType, values: list[Expr]) -> Expr:
        """A ConvTile's element count: its static dimensions times the dynamic ones' values."""
        out: Expr = Const(t.conv_static)
        for v in values:
            out = binop("*", out, v)
        return out

    def reconstruct_tile(self, tile: ir.TileDecl, node: cp.Binary, scope: Scope, loc: ir.SourceRange,
                         out: list[ir.Stmt] | None = None) -> None:
        """`t = TileT(rows);`, `tiles[i] = TileT(rows);`: a tile of the same type gets a new run-time
        valid shape. For a Tile, which value each later instruction sees is not tracked: a valid
        extent the constructor gives counts as the whole capacity extent from then on, in the whole
        kernel (instructions touch at most that much). A ConvTile's element count is tracked per
        slot (`TileDecl.valid_var`): the slot the assignment names gets the new count."""
        value = self.eval(node.rhs, scope)
        if not isinstance(value, TileConstruction):
            raise self.error(f"assigning {describe(value)} to tile '{tile.cpp_name}' is not supported "
                             "(only a construction of its own type, `t = TileT(rows, cols)`)", node.rhs.offset)
        t = value.type
        if (t.tile_type, t.dtype, t.rows, t.cols, t.blayout, t.slayout) != \
                (tile.tile_type, tile.dtype, tile.rows, tile.cols, tile.blayout, tile.slayout):
            raise self.error(f"tile '{tile.cpp_name}' is assigned a tile of another type", node.rhs.offset)
        if tile.valid_var:
            if out is None:  # nowhere to assign the count: every slot counts its capacity from here on
                tile.valid_var = ""
                return
            elements = self.conv_elements(t, list(value.args)) if value.args else Const(tile.cols)
            index = self.scalar(node.lhs.index, scope) if isinstance(node.lhs, cp.Index) else Const(0)
            for k in range(tile.slots):
                var = f"{tile.valid_var}#{k}"
                out.append(ir.Assign(var, select(binop("==", index, Const(k)), elements, Var(var)), loc))
            return
        self.widen_valid_shape(tile, t.valid_rows is None, t.valid_cols is None, loc)

    def widen_valid_shape(self, tile: ir.TileDecl, rows: bool, cols: bool, loc: ir.SourceRange) -> None:
        """A tile's valid rows (`rows`) or columns (`cols`) change at run time here: which value
        each later instruction sees is not tracked, so the valid extent counts as the whole
        capacity extent, in the whole kernel (instructions touch at most that much), with one
        warning per tile and extent."""
        widened = []
        if rows and tile.valid_rows is not None:
            tile.valid_rows, widened = None, [*widened, "rows"]
        if cols and tile.valid_cols is not None:
            tile.valid_cols, widened = None, [*widened, "columns"]
        if widened:
            self.reporter.warn(f"tile '{tile.cpp_name}' gets a new run-time valid shape here; `check` counts "
                               f"all its {' and '.join(widened)} (its capacity) wherever it is used", loc)

    def assign_pointer(self, b: Binding, node: cp.Binary, scope: Scope,
                       loc: ir.SourceRange) -> ir.Assign | list[ir.Assign] | None:
        """`p = base + off;` / `p += n;` / `out = view.data();`: see PtrState."""
        name = node.lhs.parts[0]
        state = b.extra if isinstance(b.extra, PtrState) else PtrState(b.extra or (0, 0))
        rhs = node.rhs if node.op == "=" else cp.Binary(node.offset, node.op[0], node.lhs, node.rhs)
        value = self.eval(rhs, scope)
        if not isinstance(value, Ptr):
            raise self.error("GM pointers must be derived from a kernel argument", node.rhs.offset)
        dtype = b.value.dtype if b.value is not None else value.dtype
        here = state.level == self._control_level()
        if state.null_var is not None and value.param == b.value.param:
            b.value = replace(value, offset_bytes=Var(state.offset_var), dtype=dtype, null_var=state.null_var)
            return [ir.Assign(state.offset_var, value.offset_bytes, loc),
                    ir.Assign(state.null_var, binop("==", Var(value.param), Const(0)), loc)]
        if state.offset_var is not None and b.value is not None and (here or value.param == b.value.param) \
                and state.null_var is None:
            b.value = replace(value, offset_bytes=Var(state.offset_var), dtype=dtype)
            return ir.Assign(state.offset_var, value.offset_bytes, loc)
        if not here and b.value is None and state.offset_var is None:
            # Declared without a target (`T *p = nullptr;`) and first pointed somewhere under a loop
            # or a run-time condition: from here on its offset is a run-time scalar (a later use
            # where the branch did not run would be the kernel's null dereference).
            var = self.unique_name(f"{name}@offset")
            self._mutables.add(var)
            b.value = replace(value, offset_bytes=Var(var))
            b.extra = PtrState(state.level, var)
            return ir.Assign(var, value.offset_bytes, loc)
        if not here:
            what = "pointed at another kernel argument" if state.offset_var else "reassigned"
            raise self.error(f"GM pointer '{name}' is {what} inside a loop or a run-time condition; derive "
                             "a new pointer there instead", node.lhs.offset)
        b.value = replace(value, dtype=dtype)
        return None

    def pointer_binding(self, value: Ptr | None, cursor: Cursor | None, name: str,
                        out: list[ir.Stmt]) -> Binding:
        """A GM pointer variable or by-value parameter; `cursor` declares it (see PtrState)."""
        level = self._control_level()
        if value is None or cursor is None or not self._is_assigned_later(cursor) or \
                not self._assigned_deeper(cursor):
            return Binding("ptr", value, PtrState(level))
        var = self.unique_name(f"{name}@offset")
        out.append(ir.Assign(var, value.offset_bytes, self.range_of(cursor)))
        return Binding("ptr", replace(value, offset_bytes=Var(var)), PtrState(level, var))

    def lower_call(self, node: cp.Call, scope: Scope, loc: ir.SourceRange, out: list[ir.Stmt], c: Cursor) -> None:
        callee = node.callee
        name = callee.last
        user = scope.lookup(name)
        if user is not None and user.kind == "funcs" and not (len(callee.parts) > 1 and callee.parts[0] == "pto"):
            out.extend(self.inline_call(user.value, callee, node, scope, loc))
            return
        if user is not None and user.kind == "closure" and len(callee.parts) == 1:
            out.append(self.call_closure(user.value, node, scope, loc))
            return
        if name == "SYNCALL" or is_comm_call(callee, name):
            self.lower_comm(name, node, scope, loc, out)
            return
        if name in FIFO_CALLS and self.arch.name in ("a5", "a2a3"):
            mpipe = self.mpipe_of_call(node, scope)
            if mpipe is not None:
                self.lower_mpipe_call(name, mpipe, node, scope, loc, out)
            else:
                self.lower_fifo(name, node, scope, loc, out)
            return
        if name in QUANT_REGISTER_CALLS:
            self.lower_quant_register(name, self.lower_event_waits(node, scope, loc, out), scope)
            return
        op = lookup(IMPL_ALIASES.get(name, name), self.arch)
        if op is not None:
            node = self.lower_event_waits(node, scope, loc, out)
            out.append(self.lower_instruction(op, node, scope, loc))
            return
        if name in ("TSYNC", "WaitAllEvents"):
            if callee.targs:
                for t in callee.targs:
                    self.class_barrier(ty.enum_member(self.eval(t, scope), "Op"), t.offset, loc, out)
            rest = self.lower_event_waits(node, scope, loc, out)
            if rest.args:
                raise self.error(f"{name} takes events", rest.args[0].offset)
            return
        if name == "PtoSetWaitFlag":
            self.lower_set_wait_pair(node, scope, loc, out)
            return
        if name in ALIAS_OPS:
            out.append(self.lower_alias(name, node, scope, loc))
            return
        if name in SDMA_CALLS:
            self.sdma_call(name, node, scope)  # modelled before the statement
            return
        if name == "TASSIGN":
            scratch = self.tassign_scratch(node, scope, loc)
            if scratch is not None:
                out.append(scratch)
                return
            if not self.repoint_gm(node, scope, loc):
                out.append(self.lower_tassign(node, scope, loc))
            return
        if name in ("set_flag", "wait_flag", "pipe_barrier"):
            out.append(self.lower_sync(name, node, scope, loc))
            return
        if name in CROSS_CORE_BUILTINS:
            out.append(self.lower_cross_sync(name, node, scope, loc))
            return
        if name == "set_ffts_base_addr" and len(node.args) == 1:
            base = node.args[0]
            while isinstance(base, cp.Cast):
                base = base.operand
            v = self.eval(base, scope)
            self.ffts_base = v.param if isinstance(v, Ptr) else None  # where st_dev raises an ffts flag
            return
        if name in FFTS_CALLS and self.arch.name == "a2a3":
            out.extend(self.lower_ffts_call(name, node, scope, loc))
            return
        if name in FFTS_CALLS:
            raise self.error(f"'{name}' signals across the cores of a cluster through ffts flags (or stores to the "
                             "ffts base address); ptorewrite models those flags only inside the FIFOs it lowers, so a "
                             "kernel that calls it directly is not analysed yet", node.offset)
        if name in CROSS_CORE_OPS:
            self.reporter.warn(f"{name} is a cross-core operation; it is passed through untouched and "
                               "not modelled (version 1 handles single-core-type kernels)", loc)
            return
        if name in MASK_BUILTINS:
            self.note_mask_call(name, node, scope)
            return
        if name in CONFIG_OPS or name in IGNORED_BUILTINS:
            return
        if name in RAW_INTRINSICS:
            out.append(self.lower_raw_intrinsic(name, node, scope, loc))
            return
        if name == "TMovToVecNd2Nz" and self.arch.name == "a5":
            out.append(self.lower_nd_to_nz_step(node, scope, loc))
            return
        if name.startswith("T") and name[1:2].isupper():
            raise self.error(f"unknown PTO instruction '{name}'", node.offset)
        if name in VECTOR_REGISTER_CODE:
            raise self.error(vector_register_refusal(name), node.offset)
        if name in UNMODELLED_INTRINSICS:
            raise self.error(f"'{name}' moves data below the PTO instructions; ptorewrite does not model which "
                             "bytes it touches or on which pipe, so it cannot analyse a kernel that runs it",
                             node.offset)
        raise self.error(f"unsupported call to '{callee.text}'", node.offset)

    def _args(self, node: cp.Call, scope: Scope) -> list[tuple[cp.Node, Any]]:
        return [(a, self.eval(a, scope)) for a in node.args]

    def lower_instruction(self, op, node: cp.Call, scope: Scope, loc: ir.SourceRange) -> ir.Instr:
        args: list[ir.Arg] = []
        tile_types: list[str] = []
        tiles_seen = gm_seen = 0
        evaluated = self._args(node, scope)
        kinds = [(v.tile if isinstance(v, ir.TileRef) else v).tile_type for _, v in evaluated
                 if isinstance(v, (ir.TileRef, ir.TileDecl))]
        n_tiles = len(kinds)
        if op.name in MX_ACCUMULATING_FORMS and n_tiles == 6 and kinds[1] == "Acc":
            op = lookup(MX_ACCUMULATING_FORMS[op.name], self.arch)
        try:
            accesses = tile_accesses(op, kinds, self.arch.name)
        except IndexError:
            raise self.error(f"{op.name} takes {op.tile_counts} tile operands, found {n_tiles}",
                             node.offset) from None
        for a, v in evaluated:
            text = self.node_text(a)
            if isinstance(v, ir.TileDecl):
                if v.count is not None:
                    raise self.error(f"'{v.cpp_name}' is a tile array; index it", a.offset)
                v = ir.TileRef(v, None)
            if isinstance(v, ir.TileRef):
                access = accesses[tiles_seen]
                tiles_seen += 1
                if access == "-":
                    continue  # this architecture's implementation does not touch the operand
                tile_types.append(v.tile.tile_type)
                args.append(ir.Arg("tile", v, access, text))
            elif isinstance(v, ir.GmTensor):
                if gm_seen >= len(op.gm):
                    raise self.error(f"{op.name} does not take a GlobalTensor here", a.offset)
                args.append(ir.Arg("gm", ir.GmRef(v), op.gm[gm_seen], text))
                gm_seen += 1
            elif isinstance(v, Expr):
                args.append(ir.Arg("scalar", v, "", text))
            elif isinstance(v, StructValue):
                continue  # a result the scalar unit reads afterwards (TMRGSORT's executed counts)
            elif isinstance(v, ScalarArray):
                continue  # scalar words that only feed the computed values (TRANDOM's key and counter)
            else:
                raise self.error(f"unsupported operand {describe(v)} for {op.name}", a.offset)
        if op.gm and not gm_seen:  # further GlobalTensors are optional (MGATHER's GM indices)
            raise self.error(f"{op.name} needs a GlobalTensor operand", node.offset)
        try:
            pipe = pipe_of(op, tile_types, self.arch)
        except PipeRuleError as e:
            raise self.error(str(e), node.offset) from None
        targs = tuple(self._template_arg_text(t, scope) for t in (node.callee.targs or ()))
        return ir.Instr(op.name, pipe, tuple(args), targs, loc, self.via, uid=next(self._uid))

    def _template_arg_text(self, t: cp.Node, scope: Scope) -> str:
        """A template argument as written, or the enumerator it names when it is a name bound to
        one (`MGATHER<Coalesce::Elem, Oob>` in a template whose `Oob` is `GatherOOB::Clamp`), so
        the instruction's modes are known wherever the call is written."""
        text = self.node_text(t)
        if text.replace(" ", "").startswith("static_cast<AccToVecMode>"):
            # The destination mode of an accumulator-to-vector move, computed: name it.
            try:
                v = self.eval(t, scope)
            except (LoweringError, cp.ParseError):
                return text
            c = v.const_value() if isinstance(v, Expr) else None
            if isinstance(c, int) and 0 <= c < len(ACC_TO_VEC_MODES):
                return f"AccToVecMode::{ACC_TO_VEC_MODES[c]}"
            if isinstance(c, str) and "::" in c:
                return c
            return text
        if isinstance(t, cp.Name) and "::" not in text:
            try:
                v = self.eval(t, scope)
            except (LoweringError, cp.ParseError):
                return text
            c = v.const_value() if isinstance(v, Expr) else None
            if isinstance(c, str) and "::" in c:
                return c
        return text

    def _tile_arg(self, a: cp.Node, scope: Scope, what: str) -> ir.TileRef:
        v = self.eval(a, scope)
        if isinstance(v, ir.TileDecl) and v.count is None:
            return ir.TileRef(v, None)
        if isinstance(v, ir.TileRef):
            return v
        raise self.error(f"{what} must be a tile", a.offset)

    def lower_alias(self, name: str, node: cp.Call, scope: Scope, loc: ir.SourceRange) -> ir.AliasDef:
        if len(node.args) < 2:
            raise self.error(f"{name} needs a destination and a source tile", node.offset)
        dst = self._tile_arg(node.args[0], scope, f"{name} destination")
        src = self._tile_arg(node.args[1], scope, f"{name} source")
        if name == "TRESHAPE":
            offset = Const(0)
            # pto-isa compares Numel * sizeof(DType): a packed 4-bit tile counts a byte per element.
            if dst.tile.storage_bytes > src.tile.storage_bytes:
                raise self.error(f"TRESHAPE destination '{dst}' ({dst.tile.storage_bytes} B) is larger than its "
                                 f"source '{src}' ({src.tile.storage_bytes} B)", node.offset)
        else:
            if len(node.args) < 4:
                raise self.error("TSUBVIEW needs a destination, a source, a row and a column offset", node.offset)
            r = self.scalar(node.args[2], scope)
            col = self.scalar(node.args[3], scope)
            st = tile_type_of(src.tile)
            elems = binop("+", binop("*", r, Const(st.row_stride)), binop("*", col, Const(st.col_stride)))
            offset = binop("*", elems, Const(src.tile.elem_bytes))
        if dst.tile.tile_type != src.tile.tile_type:
            raise self.error(f"{name} must keep the TileType ({src.tile.tile_type} -> {dst.tile.tile_type})", node.offset)
        alias = ir.Alias(name, src, offset, loc)
        old = dst.tile.alias
        if old is not None and old.kind == name and old.base.tile is src.tile and \
                str(old.base.index) == str(src.index) and str(old.offset_bytes) == str(offset):
            return ir.AliasDef(name, dst, src, offset, loc, self.via)  # the same view again
        if dst.tile.alias is not None and dst.tile.alias.loc != loc:
            raise self.error(f"'{dst.tile.cpp_name}' is already an alias (AUTO mode allows one "
                             f"TRESHAPE/TSUBVIEW per destination)", node.offset)
        dst.tile.alias = alias
        return ir.AliasDef(name, dst, src, offset, loc, self.via)

    def repoint_gm(self, node: cp.Call, scope: Scope, loc: ir.SourceRange) -> bool:
        """`TASSIGN(gmTensor, ptr)` (AUTO and manual mode): the view starts at `ptr` from here on.
        Returns False when the operand is not a GlobalTensor variable."""
        target = node.args[0] if node.args else None
        if node.callee.targs or not (isinstance(target, cp.Name) and len(target.parts) == 1):
            return False
        b = scope.lookup(target.parts[0])
        if b is None or b.kind != "gm":
            return False
        if len(node.args) != 2:
            raise self.error("TASSIGN needs a GlobalTensor and a GM pointer", node.offset)
        ptr = self.eval(node.args[1], scope)
        if not isinstance(ptr, Ptr):
            raise self.error("TASSIGN of a GlobalTensor needs a GM pointer derived from a kernel argument",
                             node.args[1].offset)
        self.rebind_gm(target.parts[0], b, ptr, scope, loc, node.offset)
        return True

    def rebind_gm(self, name: str, b: Binding, ptr: Ptr, scope: Scope, loc: ir.SourceRange, offset: int,
                  exact: bool = False) -> None:
        """The GlobalTensor variable `name` (bound by `b`) views `ptr` from here on. `exact`: the
        view's offset is held in a scalar of its own, assigned here, so the view is right wherever
        program order reaches after this point (a FIFO slot bound by TPOP / TALLOC, also in a loop,
        a branch, or a helper that has the tensor by reference)."""
        old = b.value
        g = replace(old, name=self.unique_name(name), param=ptr.param, offset_bytes=ptr.offset_bytes, loc=loc)
        self.gm_tensors.append(g)
        state = b.extra if isinstance(b.extra, GmState) else None
        level = self._control_level()
        if exact or state is not None and state.level == level:
            b.value = g  # runs once per declaration: later uses see the new origin
            return
        # Inside a loop body or branch: a fresh view for the rest of this block only.
        loops = tuple(self._loop_ids)
        if state is not None and loops and any(u[:len(loops)] == loops for u in state.used_in):
            raise self.error(f"GlobalTensor '{name}' is used in this loop before its TASSIGN; re-point it "
                             "before its first use in the loop body", offset)
        if state is not None:
            state.repointed_at = loc
        scope.define(name, Binding("gm", g, GmState(level)))

    def lower_tassign(self, node: cp.Call, scope: Scope, loc: ir.SourceRange) -> ir.TileAssign:
        targs = node.callee.targs or ()
        if targs:
            addr = self.scalar(targs[0], scope)
            ref = self._tile_arg(node.args[0], scope, "TASSIGN operand")
        else:
            if len(node.args) != 2:
                raise self.error("TASSIGN needs a tile and an address", node.offset)
            ref = self._tile_arg(node.args[0], scope, "TASSIGN operand")
            relative = self._relative_to_tile(node.args[1], scope)
            if relative is not None:
                self.manual = True
                return ir.AliasDef("TASSIGN", ref, relative[0], relative[1], loc, self.via)
            addr = self.scalar(node.args[1], scope)
        self.manual = True
        a, i = addr.const_value(), (ref.index.const_value() if ref.index is not None else 0)
        if isinstance(a, int) and isinstance(i, int):
            ref.tile.fixed_addresses.setdefault(i, a)
        if isinstance(i, int):
            # What `tile.data()` reads later: a TASSIGN where the tile was declared (no loop or
            # run-time condition in between) replaces the address from here on; one deeper leaves
            # it unknown when it disagrees. An address computed from a variable that may change
            # before the read (`offset` of an allocator that goes on counting) is unknown too: the
            # read then takes the tile's address when it runs.
            key = (id(ref.tile), i)
            changing = addr.free_vars() & (self._mutables | set(self._loop_vars))
            if changing:
                self._tile_addresses[key] = None
            elif self._tile_levels.get(id(ref.tile)) == self._control_level():
                self._tile_addresses[key] = addr
            else:
                self._tile_addresses[key] = addr if self._tile_addresses.get(key, addr) == addr else None
        return ir.TileAssign(ref, addr, loc, self.via)

    def _relative_to_tile(self, node: cp.Node, scope: Scope) -> tuple[ir.TileRef, Expr] | None:
        """`TASSIGN(t, (uint64_t)src.data() + off)` where src's address is not known while lowering
        (an element of a tile array picked at run time, a TASSIGN in a loop): t is bound to src's
        bytes at that offset when it runs, as an alias (src, byte offset); None for any other form."""
        def strip(n):
            integral = False
            while isinstance(n, cp.Cast):
                integral = integral or not n.type.pointer
                n = n.operand
            return n, integral

        base, off = node, None
        top, _ = strip(node)
        if isinstance(top, cp.Binary) and top.op == "+":
            base, off = top.lhs, top.rhs
        inner, integral = strip(base)
        if not (isinstance(inner, cp.Call) and isinstance(inner.callee, cp.Member) and inner.callee.name == "data"
                and not inner.args):
            return None
        src = self.eval(inner.callee.base, scope)
        if isinstance(src, ir.TileDecl) and src.count is None:
            src = ir.TileRef(src, None)
        if not isinstance(src, ir.TileRef):
            return None
        i = src.index.const_value() if src.index is not None else 0
        if isinstance(i, int) and self._tile_addresses.get((id(src.tile), i)) is not None:
            return None  # known: the address itself
        offset = self.scalar(off, scope) if off is not None else Const(0)
        if not integral:  # pointer arithmetic counts elements
            offset = binop("*", offset, Const(elem_bytes(src.tile.dtype)))
        return src, offset

    def lower_ffts_call(self, name: str, node: cp.Call, scope: Scope, loc: ir.SourceRange) -> list[ir.Stmt]:
        """a2a3 ffts flags written directly, as the TPipe FIFOs use them (parse.fifo_a2a3):
        `ffts_cross_core_sync(pipe, msg)` raises flag msg's id (bits 8..11) in mode 2 (bits 4..5,
        the cube core and its vector cores) once `pipe`'s earlier work is done; `wait_flag_dev(id)`
        stalls the whole core until it is raised; `st_dev(msg, base, 0)` stored by the scalar unit
        to the ffts base address (`set_ffts_base_addr`) raises it from PIPE_S. Other modes, and
        st_dev to anything else, are located errors."""
        def flag_of(msg_node) -> int:
            msg = self.scalar(msg_node, scope).const_value()
            if not isinstance(msg, int):
                raise self.error(f"'{name}' needs an ffts message known at compile time", msg_node.offset)
            if (msg >> 4) & 0x3 != 2:
                raise self.error(f"'{name}' with ffts mode {(msg >> 4) & 0x3} (a barrier across the cluster's "
                                 "cores of one type or all cores) is not modelled; only mode 2, between the cube "
                                 "core and its vector cores", msg_node.offset)
            return (msg >> 8) & 0xF

        if name == "wait_flag_dev":
            if len(node.args) != 1:
                raise self.error("wait_flag_dev takes a flag id (a5's form with a pipe is not modelled)", node.offset)
            flag = self.scalar(node.args[0], scope).const_value()
            if not isinstance(flag, int) or not 0 <= flag <= 15:
                raise self.error("wait_flag_dev needs a flag id 0..15 known at compile time", node.args[0].offset)
            return self._ffts("wait", "S", flag, loc)
        if name == "ffts_cross_core_sync":
            if len(node.args) != 2:
                raise self.error("ffts_cross_core_sync takes a pipe and an ffts message", node.offset)
            pipe = self.scalar(node.args[0], scope).const_value()
            if pipe not in ("S", "V", "MTE1", "MTE2", "MTE3", "M", "FIX"):
                raise self.error("ffts_cross_core_sync names one pipe of the core", node.args[0].offset)
            return self._ffts("set", pipe, flag_of(node.args[1]), loc)
        # st_dev(value, addr, offset)
        target = self.eval(node.args[1], scope) if len(node.args) == 3 else None
        base = getattr(self, "ffts_base", None)
        if not (isinstance(target, Ptr) and base is not None and target.param == base):
            raise self.error("st_dev stores a word to device memory; only a store of an ffts message to the ffts "
                             "base address (set_ffts_base_addr) is modelled", node.offset)
        return self._ffts("set", "S", flag_of(node.args[0]), loc)

    def lower_cross_sync(self, name: str, node: cp.Call, scope: Scope, loc: ir.SourceRange) -> ir.CrossSync:
        """`set_intra_block(pipe, id)` / `wait_intra_block(pipe, id)`: a flag between the cores of a cluster."""
        if len(node.args) != 2:
            raise self.error(f"{name} takes a pipe and a semaphore id", node.offset)
        pipe = self.scalar(node.args[0], scope).const_value()
        if not isinstance(pipe, str):
            raise self.error("pipes must be PIPE_* constants", node.args[0].offset)
        if pipe not in ("S", "V", "MTE1", "MTE2", "MTE3", "M", "FIX"):
            raise self.error(f"{name} names one pipe of the core (PIPE_S, PIPE_V, PIPE_MTE1/2/3, PIPE_M or "
                             f"PIPE_FIX), not PIPE_{pipe}", node.args[0].offset)
        sem = self.scalar(node.args[1], scope)
        c = sem.const_value()
        if c is not None and not (isinstance(c, int) and 0 <= c < CROSS_CORE_SEMAPHORES):
            raise self.error(f"semaphore id {c} is out of range 0..{CROSS_CORE_SEMAPHORES - 1}", node.args[1].offset)
        # A flag between the cores (an AUTO kernel has them too): it does not make the kernel manual.
        return ir.CrossSync("set" if name.startswith("set") else "wait", pipe, sem, loc, self.via)

    def lower_sync(self, name: str, node: cp.Call, scope: Scope, loc: ir.SourceRange) -> ir.Sync:
        args = [self.scalar(a, scope) for a in node.args]
        pipes = [a.const_value() for a in args[:2 if name != "pipe_barrier" else 1]]
        for p, a in zip(pipes, node.args):
            if not isinstance(p, str):
                raise self.error("pipes must be PIPE_* constants", a.offset)
        self.manual = True
        if name == "pipe_barrier":
            if len(args) != 1:
                raise self.error("pipe_barrier takes one pipe", node.offset)
            if pipes[0] == "S":
                raise self.error("pipe_barrier(PIPE_S) is illegal", node.offset)
            return ir.Sync("barrier", pipes[0], None, None, loc, self.via)
        if len(args) != 3:
            raise self.error(f"{name} takes a source pipe, a destination pipe and an event id", node.offset)
        ev = args[2]
        c = ev.const_value()
        if c is not None and not (isinstance(c, int) and 0 <= c < 8):
            raise self.error(f"event id {c} is out of range 0..7", node.args[2].offset)
        return ir.Sync("set" if name == "set_flag" else "wait", pipes[0], pipes[1], ev, loc, self.via)


_DIRECTIVE_LINE = re.compile(r"^[ \t]*#", re.MULTILINE)


def _gm_element_read(s: ir.Instr) -> bool:
    """A scalar-unit read of one GM element (`p[i]`, `*p`)."""
    return s.op == ir.SCALAR_LOAD and s.args[0].value.space == "GM"


# The fields of pto-isa's Tile that hold a run-time valid shape, and its methods that set them.
VALID_SHAPE_FIELDS = ("RowMaskInternal", "ColMaskInternal")
VALID_SHAPE_SETTERS = frozenset({"SetValidRow", "SetValidCol", "SetValidShape"})


def _names_in(node) -> list[str]:
    """The one-part names an expression mentions, in source order."""
    if isinstance(node, cp.Name):
        return [node.parts[0]] if len(node.parts) == 1 else []
    found: list[str] = []
    for v in vars(node).values():
        for x in (v if isinstance(v, tuple) else (v,)):
            if isinstance(x, cp.Node):
                found += _names_in(x)
    return found


def _assigns(stmts: list[ir.Stmt], var: str) -> bool:
    """Whether a statement among `stmts` (or inside them) assigns the scalar `var`."""
    return any(isinstance(x, ir.Assign) and x.var == var for s in stmts for x in ir.walk(s))


def _has_return(c: Cursor) -> bool:
    """A return statement below `c` (lambdas apart: theirs return from the lambda)."""
    for k in c.get_children():
        if k.kind == CursorKind.RETURN_STMT or (k.kind != CursorKind.LAMBDA_EXPR and _has_return(k)):
            return True
    return False
