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


# What the front end lowers itself on a5 and a2a3 for `check` (parse.fifo).
FIFO_MODELLED = frozenset({"TPUSH", "TPOP", "TPipe"})
# The a5 flag pairs and explicit-index FIFOs it lowers too (parse.mpipe).
A5_SYNC_OBJECTS = frozenset({"TMPipe", "TSync_Custom"})


def first_cross_core_use(entry: Cursor, functions: dict[str, list[Cursor]],
                         modelled: frozenset[str] = frozenset()) -> tuple[Cursor, str] | None:
    """The first TPUSH/TPOP or cross-core pipe/flag the kernel reaches, with its name (those in
    `modelled` are left to the lowering)."""
    return first_use(entry, functions, CROSS_CORE_CALLS - modelled, CROSS_CORE_TYPES - modelled)


def first_use(entry: Cursor, functions: dict[str, list[Cursor]], calls: frozenset[str],
              types: frozenset[str]) -> tuple[Cursor, str] | None:
    """The first call or type of these names the kernel reaches, with its name."""
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
                if name in calls:
                    return c, name
                todo.extend(functions.get(name, ()))
            elif k in _TYPES:
                bare = name.rsplit("::", 1)[-1].split("<", 1)[0].removeprefix("struct ").strip()
                if bare in types:
                    return c, bare
            stack.extend(reversed(list(c.get_children())))
    return None
