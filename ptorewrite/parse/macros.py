"""Macro expansion inside the expressions the front end parses from source text.

Clang expands macros in the code it compiles, but the front end reads expressions from the text
(templates leave them dependent), so the object-like and function-like macros a kernel uses in a
value (`PTO_CEIL(cols, 16)`, `BLOCK_BYTES`) are expanded here, over the expression's tokens.
Expanded tokens take the place of the macro use, so errors inside them point at the use.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptorewrite.parse import cparse as cp

# Expansion depth bound: a macro that (indirectly) names itself stops here instead of looping.
MAX_DEPTH = 8


@dataclass(frozen=True)
class FunctionMacro:
    params: tuple[str, ...]
    body: str
    variadic: bool = False


def function_macro(definition: str) -> FunctionMacro | None:
    """A function-like macro from the text after its name: `(a, b) replacement`. None when the
    replacement stringizes or pastes tokens (`#x`, `a##b`): those build declarations and names,
    never the values an expression needs."""
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
    if any(t.kind == "op" and t.text in ("#", "##") for t in tokens):
        return None
    return FunctionMacro(tuple(params), body.strip(), variadic)


def expand(tokens: list[cp.Token], objects: dict[str, str],
           functions: dict[str, FunctionMacro | None], depth: int = 0) -> list[cp.Token]:
    """`tokens` with the macros they use expanded (recursively, up to MAX_DEPTH levels)."""
    out: list[cp.Token] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.kind == "id" and depth < MAX_DEPTH and t.text not in cp.QUALIFIER_WORDS:
            # Qualifiers stay as written (`__cbuf__` says what a pointer points into), whatever
            # the headers define them to.
            if t.text in objects:
                body = [cp.Token(b.kind, b.text, t.offset, t.end) for b in cp.tokenize(objects[t.text])]
                out += expand(body, objects, functions, depth + 1)
                i += 1
                continue
            macro = functions.get(t.text)
            if macro is not None and i + 1 < len(tokens) and tokens[i + 1].text == "(":
                use = _arguments(tokens, i + 1)
                if use is not None:
                    args, after = use
                    end = tokens[after - 1].end
                    out += expand(_substitute(macro, args, t.offset, end), objects, functions, depth + 1)
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
