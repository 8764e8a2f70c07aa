"""Macro expansion inside the expressions the front end parses from source text.

Clang expands macros in the code it compiles, but the front end reads expressions from the text
(templates leave them dependent), so the object-like and function-like macros a kernel uses in a
value (`PTO_CEIL(cols, 16)`, `BLOCK_BYTES`) are expanded here, over the expression's tokens.
Expanded tokens take the place of the macro use, so errors inside them point at the use.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from ptorewrite.parse import cparse as cp

# Expansion depth bound: a macro that (indirectly) names itself stops here instead of looping.
MAX_DEPTH = 8


@dataclass(frozen=True)
class FunctionMacro:
    params: tuple[str, ...]
    body: str
    variadic: bool = False
    # The replacement stringizes or pastes tokens (`#x`, `a##b`): it builds declarations and
    # names, never the values an expression needs, so expressions leave it unexpanded.
    pastes: bool = False


def function_macro(definition: str) -> FunctionMacro | None:
    """A function-like macro from the text after its name: `(a, b) replacement`."""
    close = definition.find(")")
    if not definition.startswith("(") or close < 0:
        return None
    params = [p.strip() for p in definition[1:close].split(",") if p.strip()]
    body = definition[close + 1:].replace("\\\r\n", " ").replace("\\\n", " ")
    variadic = bool(params) and params[-1] == "..."
    if variadic:
        params[-1] = "__VA_ARGS__"
    try:
        tokens = cp.tokenize(body)
    except cp.ParseError:
        return None
    pastes = any(t.kind == "op" and t.text in ("#", "##") for t in tokens)
    return FunctionMacro(tuple(params), body.strip(), variadic, pastes)


def expand(tokens: list[cp.Token], objects: dict[str, str],
           functions: dict[str, FunctionMacro | None], depth: int = 0,
           keep: Collection[str] = ()) -> list[cp.Token]:
    """`tokens` with the macros they use expanded (recursively, up to MAX_DEPTH levels); the names
    in `keep` stay as written."""
    out: list[cp.Token] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.kind == "id" and depth < MAX_DEPTH and t.text not in cp.QUALIFIER_WORDS and t.text not in keep:
            # Qualifiers stay as written (`__cbuf__` says what a pointer points into), whatever
            # the headers define them to.
            if t.text in objects:
                body = [cp.Token(b.kind, b.text, t.offset, t.end) for b in cp.tokenize(objects[t.text])]
                out += expand(body, objects, functions, depth + 1, keep)
                i += 1
                continue
            macro = functions.get(t.text)
            if macro is not None and not macro.pastes and i + 1 < len(tokens) and tokens[i + 1].text == "(":
                use = _arguments(tokens, i + 1)
                if use is not None:
                    args, after = use
                    end = tokens[after - 1].end
                    out += expand(_substitute(macro, args, t.offset, end), objects, functions, depth + 1, keep)
                    i = after
                    continue
        out.append(t)
        i += 1
    return out


def _arguments(tokens: list[cp.Token], open_at: int) -> tuple[list[list[cp.Token]], int] | None:
    """The arguments of a macro use whose `(` is tokens[open_at], and the index after its `)`."""
    args: list[list[cp.Token]] = [[]]
    depth = 0
    for j in range(open_at, len(tokens)):
        text = tokens[j].text
        if text in ("(", "[", "{"):
            depth += 1
            if depth == 1:
                continue
        elif text in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return ([] if args == [[]] else args), j + 1
        elif text == "," and depth == 1:
            args.append([])
            continue
        args[-1].append(tokens[j])
    return None


def _substitute(macro: FunctionMacro, args: list[list[cp.Token]], offset: int, end: int) -> list[cp.Token]:
    if macro.variadic and len(args) >= len(macro.params):
        fixed = len(macro.params) - 1
        rest: list[cp.Token] = []
        for k, a in enumerate(args[fixed:]):
            if k:
                rest.append(cp.Token("op", ",", offset, end))
            rest += a
        args = args[:fixed] + [rest]
    if len(args) != len(macro.params):
        raise cp.ParseError(f"macro use with {len(args)} arguments for {len(macro.params)} parameters", offset)
    bound = dict(zip(macro.params, args))
    out: list[cp.Token] = []
    for b in cp.tokenize(macro.body):
        if b.kind == "id" and b.text in bound:
            out += bound[b.text]  # an argument's tokens keep their own place in the source
        else:
            out.append(cp.Token(b.kind, b.text, offset, end))
    return out


def expand_use(macro: FunctionMacro, args: list[str]) -> str:
    """The text a use of `macro` with argument texts `args` expands to, stringizing (`#p`) and
    pasting (`a ## b`) as the preprocessor does; macros inside are left as written."""
    if macro.variadic and len(args) >= len(macro.params):
        fixed = len(macro.params) - 1
        args = args[:fixed] + [", ".join(a.strip() for a in args[fixed:])]
    if len(args) != len(macro.params):
        raise cp.ParseError(f"macro use with {len(args)} arguments for {len(macro.params)} parameters", 0)
    bound = {p: a.strip() for p, a in zip(macro.params, args)}
    pieces: list[str] = []  # token texts; "##" pastes its neighbours
    tokens: list[cp.Token] = []
    for t in cp.tokenize(macro.body):  # the tokenizer reads `##` as two `#`
        if t.text == "#" and tokens and tokens[-1].text == "#" and tokens[-1].end == t.offset:
            tokens[-1] = cp.Token("op", "##", tokens[-1].offset)
        else:
            tokens.append(t)
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.text == "#" and i + 1 < len(tokens) and tokens[i + 1].text in bound:
            value = bound[tokens[i + 1].text].replace("\\", "\\\\").replace('"', '\\"')
            pieces.append(f'"{value}"')
            i += 2
            continue
        pieces.append(bound.get(t.text, t.text) if t.kind == "id" else t.text)
        i += 1
    out: list[str] = []
    paste = False
    for piece in pieces:
        if piece == "##":
            paste = True
            continue
        if paste and out:
            out[-1] += piece
        else:
            out.append(piece)
        paste = False
    return " ".join(out)


@dataclass(frozen=True)
class ExpandedFunction:
    """A function definition a macro use expands to, in a source text where the expansion stands
    at the use (one line: offsets into it keep the use's line)."""

    text: str  # the source text up to the use, then the expansion
    params: tuple[tuple[str, int], ...]  # each parameter's declaration text and offset
    # Each statement of the body (without its `;`); None when the body holds more than a list of
    # simple statements (a block, a loop).
    statements: tuple[tuple[str, int], ...] | None
    head: str = ""  # the declaration before the function's name (`extern "C" __global__ void`)


def expand_function_at(text: str, offset: int, name: str,
                       functions: dict[str, FunctionMacro | None]) -> ExpandedFunction | None:
    """The definition of function `name` that the function-like macro used at `offset` expands to
    (`DEF_CASE(1, 32)` defining `launchCase1`); None when `offset` holds no such use. Only bodies made
    of statements that end in `;` at top level are split into statements (no nested blocks)."""
    expansion, fm = _expand_leading_use(text[offset:], functions), None
    for _ in range(MAX_DEPTH):  # a macro whose expansion uses others (`DEF_ALL(x)` -> `DEF_A(x) DEF_B(x)`)
        if expansion is None:
            return None
        fm = re.search(rf"\b{re.escape(name)}\s*\(", expansion)
        if fm is not None:
            break
        expansion = _expand_uses(expansion, functions)
    if fm is None:
        return None
    full = text[:offset] + expansion
    p_open = offset + fm.end() - 1
    p_close = _matching(full, p_open, "(", ")")
    b_open = full.find("{", p_close)
    if p_close < 0 or b_open < 0 or full[p_close + 1:b_open].strip():
        return None
    b_close = _matching(full, b_open, "{", "}")
    if b_close < 0:
        return None
    params = tuple((t, p_open + 1 + o) for t, o in _split_top(full[p_open + 1:p_close]) if t.strip())
    head = re.split(r"[;{}]", expansion[:fm.start()])[-1].strip()
    body = full[b_open + 1:b_close]
    stmts, start = [], 0
    for i, ch in enumerate(body):
        if ch == ";":
            if body[start:i].strip():
                stmts.append((body[start:i], b_open + 1 + start))
            start = i + 1
    if "{" in body or body[start:].strip():
        return ExpandedFunction(full, params, None, head)
    return ExpandedFunction(full, params, tuple(stmts), head)


def _expand_leading_use(text: str, functions: dict[str, FunctionMacro | None]) -> str | None:
    """The expansion of the function-like macro use `text` starts with (the rest of `text` dropped);
    None when it starts with none."""
    m = re.match(r"\s*([A-Za-z_]\w*)", text)
    macro = functions.get(m.group(1)) if m else None
    if macro is None:
        return None
    open_at = text.find("(", m.end())
    if open_at < 0 or text[m.end():open_at].strip():
        return None
    close = _matching(text, open_at, "(", ")")
    if close < 0:
        return None
    args = _split_top(text[open_at + 1:close])
    return expand_use(macro, [a for a, _ in args] if args != [("", 0)] else [])


def _expand_uses(text: str, functions: dict[str, FunctionMacro | None]) -> str | None:
    """`text` with every function-like macro use in it expanded once; None when it has none."""
    out, at, found = [], 0, False
    for m in re.finditer(r"[A-Za-z_]\w*", text):
        if m.start() < at or functions.get(m.group()) is None:
            continue
        expanded = _expand_leading_use(text[m.start():], functions)
        if expanded is None:
            continue
        close = _matching(text, text.index("(", m.end()), "(", ")")
        out += [text[at:m.start()], " ", expanded, " "]
        at, found = close + 1, True
    return "".join(out) + text[at:] if found else None


def _matching(text: str, open_at: int, opening: str, closing: str) -> int:
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == opening:
            depth += 1
        elif text[i] == closing:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _split_top(text: str) -> list[tuple[str, int]]:
    """Comma-separated pieces at bracket depth 0 (template angle brackets of arguments count too)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append((text[start:i], start))
            start = i + 1
    parts.append((text[start:], start))
    return parts
