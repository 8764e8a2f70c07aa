"""Whether a MultiBuffered body needs its context's phase as a constant.

`MultiBuffered::loop` runs its phases one after the other, each with a context type that carries
the phase as a constant, so `ctx.phase` may be a template argument or decide an `if constexpr`.
The front end lowers such a body once per phase; a body that only compares the phase at run time
is lowered once, with the phase a value of the iteration. The choice is read from clang's tree of
the body (never from its text), so comments, string literals, spacing and names cannot fool it:

- a reference to the context that is not the object of a member access (`helper(ctx)`,
  `auto c = ctx`, `decltype(ctx)`) passes it on whole, and whatever receives it may read its
  phase as a constant;
- a member access on the context whose member is `phase`, or whose member cannot be named
  (it was written by a macro), is a constant use unless every node between it and its
  statement is one that only computes a run-time value: an operator, a call's argument, a
  run-time `if`/loop/`switch` condition, or the initializer of a variable that is not `const`.
  Anything else (a call's callee, where explicit template arguments hang; a type; a
  `static_assert`; an `if constexpr`; a `const` variable, usable in constant expressions; a
  node this list does not know) counts as constant, which only costs a loop per phase.
"""

from __future__ import annotations

from clang.cindex import Cursor, CursorKind, TokenKind

# Nodes whose operands are run-time values: a phase seen through them is compared, not
# instantiated on.
_RUNTIME_EXPRS = frozenset({
    CursorKind.BINARY_OPERATOR, CursorKind.UNARY_OPERATOR, CursorKind.COMPOUND_ASSIGNMENT_OPERATOR,
    CursorKind.PAREN_EXPR, CursorKind.CONDITIONAL_OPERATOR, CursorKind.ARRAY_SUBSCRIPT_EXPR,
    CursorKind.CSTYLE_CAST_EXPR, CursorKind.CXX_STATIC_CAST_EXPR, CursorKind.CXX_FUNCTIONAL_CAST_EXPR,
    CursorKind.INIT_LIST_EXPR, CursorKind.UNEXPOSED_EXPR, CursorKind.RETURN_STMT, CursorKind.DECL_STMT,
    CursorKind.WHILE_STMT, CursorKind.DO_STMT, CursorKind.FOR_STMT, CursorKind.SWITCH_STMT,
})


def needs_constant_phase(body: Cursor, ctx: str, params_start: int, params_end: int) -> bool:
    """Whether `body` (a lambda's compound statement) reads its parameter `ctx`, declared
    between offsets `params_start` and `params_end`, as a constant phase (see the module)."""
    for ref, parents in _walk(body, ()):
        if ref.kind != CursorKind.DECL_REF_EXPR or ref.spelling != ctx or not _is_param(ref, params_start, params_end):
            continue
        parent = parents[-1] if parents else None
        if parent is None or parent.kind != CursorKind.MEMBER_REF_EXPR or _first_child(parent) != ref:
            return True  # the context on whole
        if _member_name(parent, ctx) not in ("phase", None):
            continue  # ctx.iter, ctx.bufferId: values of the iteration
        if _constant_position(parent, parents[:-1]):
            return True
    return False


def _walk(c: Cursor, parents: tuple):
    yield c, parents
    for child in c.get_children():
        yield from _walk(child, parents + (c,))


def _first_child(c: Cursor) -> Cursor | None:
    return next(iter(c.get_children()), None)


def _is_param(ref: Cursor, start: int, end: int) -> bool:
    """A reference to the lambda's own parameter (not an inner name that shadows it)."""
    target = ref.referenced
    if target is None:
        return True  # unresolved: assume it is the context
    return target.kind == CursorKind.PARM_DECL and start <= target.location.offset < end


def _member_name(member: Cursor, ctx: str) -> str | None:
    """The member a `ctx.member` access names, from its own tokens (comments skipped); None
    when they are not `ctx . name` (the access came out of a macro's replacement)."""
    tokens = [t.spelling for t in member.get_tokens() if t.kind != TokenKind.COMMENT]
    if len(tokens) == 3 and tokens[0] == ctx and tokens[1] in (".", "->"):
        return tokens[2]
    return None


def _constant_position(node: Cursor, parents: tuple) -> bool:
    """Whether the value of `node` may be needed as a constant, from the nodes above it up to
    its statement (the first whose parent is a compound statement)."""
    child = node
    for parent in reversed(parents):
        kind = parent.kind
        if kind == CursorKind.COMPOUND_STMT:
            return False
        if kind == CursorKind.CALL_EXPR:
            if _first_child(parent) == child:
                return True  # the callee: explicit template arguments hang below it
        elif kind == CursorKind.IF_STMT:
            if _is_constexpr_if(parent) or _first_child(parent) != child:
                return True
        elif kind == CursorKind.VAR_DECL:
            if parent.type.is_const_qualified() or child.extent.start.offset < parent.location.offset:
                return True  # a `const` variable, or the access is in the declared type
        elif kind not in _RUNTIME_EXPRS:
            return True
        child = parent
    return True


def _is_constexpr_if(stmt: Cursor) -> bool:
    """`if constexpr`, from the statement's first two tokens; an `if` a macro wrote (whose
    tokens do not start with `if`) counts as one."""
    tokens = [t.spelling for t in stmt.get_tokens() if t.kind != TokenKind.COMMENT][:2]
    return tokens[:1] != ["if"] or tokens[1:] == ["constexpr"]
