"""Kernels that move tiles between the cube core and the vector cores.

TPUSH/TPOP through a cross-core pipe (`TPipe`, `TMPipe`) or cross-core flag objects
(`TSync_Custom`) order work on two core types at once. ptorewrite analyses the pipes of one
core type, so it cannot yet place addresses or synchronization around such transfers: a kernel
that uses them stops with a located error at the first use, before its statements are lowered
(whatever else in the kernel would not lower yet, the reason given is this one).

The scan follows the kernel's body and the bodies of the user's functions it names, by name
(a call in a template may not be resolved until instantiation); functions of the PTO headers
are not entered.
"""

from __future__ import annotations

from clang.cindex import Cursor, CursorKind

CROSS_CORE_CALLS = frozenset({"TPUSH", "TPOP"})
CROSS_CORE_TYPES = frozenset({"TPipe", "TMPipe", "TSync_Custom"})

_NAMING = (CursorKind.CALL_EXPR, CursorKind.DECL_REF_EXPR, CursorKind.OVERLOADED_DECL_REF,
           CursorKind.MEMBER_REF_EXPR)
_TYPES = (CursorKind.TEMPLATE_REF, CursorKind.TYPE_REF)
_FUNCTIONS = (CursorKind.FUNCTION_DECL, CursorKind.FUNCTION_TEMPLATE, CursorKind.CXX_METHOD)
_SCOPES = (CursorKind.NAMESPACE, CursorKind.UNEXPOSED_DECL, CursorKind.LINKAGE_SPEC, CursorKind.STRUCT_DECL,
           CursorKind.CLASS_DECL, CursorKind.CLASS_TEMPLATE)


def user_functions(tu_cursor: Cursor, user_files: set[str]) -> dict[str, list[Cursor]]:
    """Function definitions of the user's files, by name."""
    out: dict[str, list[Cursor]] = {}
    stack = list(tu_cursor.get_children())
    while stack:
        c = stack.pop()
        if c.kind not in _SCOPES and c.kind not in _FUNCTIONS:
            continue  # before the file check: asking libclang for a cursor's file is slow
        if c.location.file is None or c.location.file.name not in user_files:
            continue
        if c.kind in _SCOPES:
            stack.extend(c.get_children())
        elif c.is_definition():
            out.setdefault(c.spelling, []).append(c)
    return out


def first_cross_core_use(entry: Cursor, functions: dict[str, list[Cursor]]) -> tuple[Cursor, str] | None:
    """The first TPUSH/TPOP or cross-core pipe/flag the kernel reaches, with its name."""
    seen: set[int] = set()
    todo = [entry]
    while todo:
        fn = todo.pop(0)
        if fn.hash in seen:
            continue
        seen.add(fn.hash)
        stack = [fn]
        while stack:
            c = stack.pop()
            k = c.kind
            name = c.spelling
            if k in _NAMING:
                if name in CROSS_CORE_CALLS:
                    return c, name
                todo.extend(functions.get(name, ()))
            elif k in _TYPES:
                bare = name.rsplit("::", 1)[-1].split("<", 1)[0].removeprefix("struct ").strip()
                if bare in CROSS_CORE_TYPES:
                    return c, bare
            stack.extend(reversed(list(c.get_children())))
    return None


# Device builtins that only read the scalar unit's own registers (a cycle counter, the block index),
# and pipe_barrier, which with no other pipe's work waits for nothing and cannot hang.
SCALAR_BUILTINS = frozenset({"get_sys_cnt", "get_block_idx", "get_block_num", "GetBlockIdx", "GetBlockNum",
                             "get_subblockid", "get_subblockdim", "pipe_barrier"})
_ASM = tuple(k for k in (getattr(CursorKind, n, None) for n in ("ASM_STMT", "GCC_ASM_STMT", "MS_ASM_STMT")) if k)


def first_pipe_work(entry: Cursor, functions: dict[str, list[Cursor]]) -> Cursor | None:
    """The first call the kernel reaches that may give work to a pipe other than the scalar unit's
    or signal one: any call of a function the user's files do not define (a PTO instruction, a
    flag, an intrinsic), except the scalar builtins, or inline assembly. None when the kernel is
    scalar code only (the user's own functions, followed by name, run on the scalar unit)."""
    seen: set[int] = set()
    todo = [entry]
    while todo:
        fn = todo.pop(0)
        if fn.hash in seen:
            continue
        seen.add(fn.hash)
        stack = [fn]
        while stack:
            c = stack.pop()
            if c.kind in _ASM:
                return c
            if c.kind == CursorKind.CALL_EXPR:
                name = c.spelling
                if name in functions:
                    todo.extend(functions[name])
                elif name not in SCALAR_BUILTINS and not _builtin_operation(c):
                    return c
            stack.extend(reversed(list(c.get_children())))
    return None


def _builtin_operation(call: Cursor) -> bool:
    """A call clang lists that runs no code of a function: an implicit conversion, or a
    constructor or assignment the compiler generates for a struct (`a = b` of two records)."""
    if call.spelling == "":
        return True
    ref = call.referenced
    if ref is None or ref.kind not in (CursorKind.CONSTRUCTOR, CursorKind.CXX_METHOD):
        return False
    if ref.kind == CursorKind.CXX_METHOD and ref.spelling != "operator=":
        return False
    # An implicit member stands where its class is declared; one the user wrote has a place of its own.
    parent = ref.semantic_parent
    return parent is not None and ref.location.file is not None and parent.location.file is not None and \
        (ref.location.file.name, ref.location.offset) == (parent.location.file.name, parent.location.offset)
