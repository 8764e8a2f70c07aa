"""Kernels of scalar code only: found before their statements are lowered.

A kernel whose code calls no PTO instruction, flag or intrinsic runs in program order on the
scalar unit, so nothing in it can race or wait; `frontend` checks such a kernel as an empty one
where its body cannot be read. The scan follows the kernel's body and the user's functions it
names, by name, as `cross_core` does.
"""

from __future__ import annotations

from clang.cindex import Cursor, CursorKind

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
    """A call clang lists that runs no code of a function: a constructor or assignment the
    compiler generates for a struct (`a = b` of two records). A call it cannot resolve (a member
    of a dependent type in a template) is not one."""
    ref = call.referenced
    if ref is None or ref.kind not in (CursorKind.CONSTRUCTOR, CursorKind.CXX_METHOD):
        return False
    if ref.kind == CursorKind.CXX_METHOD and ref.spelling != "operator=":
        return False
    # An implicit member stands where its class is declared; one the user wrote has a place of its own.
    parent = ref.semantic_parent
    return parent is not None and ref.location.file is not None and parent.location.file is not None and \
        (ref.location.file.name, ref.location.offset) == (parent.location.file.name, parent.location.offset)
