"""A small parser for the C++ expressions and type-ids that appear in PTO kernels.

libclang gives the statement structure; the expressions inside statements are parsed
here from source text, because inside templates clang leaves them dependent and
unevaluated. The result is a syntax tree that `lower.py` evaluates in its own scopes
(template parameters bound to concrete values, loop variables symbolic).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

# ---------------------------------------------------------------- tokens


@dataclass(frozen=True)
class Token:
    kind: str  # "id", "num", "op", "str"
    text: str
    offset: int  # byte offset in the file
    source_end: int = -1  # end of the source text it came from, when that differs (macro expansions)

    @property
    def end(self) -> int:
        return self.source_end if self.source_end >= 0 else self.offset + len(self.text)


_TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+|//[^\n]*|/\*.*?\*/)
  | (?P<num>(?:0[xX][0-9a-fA-F']+|0[bB][01']+|(?:\d[\d']*\.?[\d']*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?))[uUlLfF]*)
  | (?P<id>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<str>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])+')
  | (?P<op><<=|>>=|->\*|\.\.\.|::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||\+=|-=|\*=|/=|%=|&=|\|=|\^=|[-+*/%<>=!~&|^?:;,.()\[\]{}#])
    """,
    re.VERBOSE | re.DOTALL,
)


_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "a": 7, "b": 8, "f": 12, "v": 11, "\\": 92, "'": 39, '"': 34,
            "?": 63}


def char_value(text: str) -> int | None:
    """The value of a one-character literal (`'a'`, `'\\x00'`, `'\\n'`, `'\\017'`); None for
    anything else (strings, wide or multi-character literals)."""
    if len(text) < 3 or text[0] != "'" or text[-1] != "'":
        return None
    body = text[1:-1]
    if len(body) == 1 and body != "\\":
        return ord(body)
    if body[:1] != "\\":
        return None
    rest = body[1:]
    if rest[:1] in ("x", "X") and len(rest) > 1:
        try:
            return int(rest[1:], 16)
        except ValueError:
            return None
    if rest.isdigit() and len(rest) <= 3 and set(rest) <= set("01234567"):
        return int(rest, 8)
    return _ESCAPES.get(rest) if len(rest) == 1 else None


class ParseError(Exception):
    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.offset = offset


def tokenize(text: str, base_offset: int = 0) -> list[Token]:
    """Tokenize source text; offsets are absolute (base_offset + position in text)."""
    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if not m:
            raise ParseError(f"unexpected character {text[pos]!r}", base_offset + pos)
        kind = m.lastgroup
        if kind != "ws":
            tokens.append(Token(kind, m.group(), base_offset + pos))
        pos = m.end()
    return tokens


# ---------------------------------------------------------------- syntax tree


@dataclass(frozen=True)
class Node:
    offset: int


@dataclass(frozen=True)
class Num(Node):
    value: int | float


@dataclass(frozen=True)
class Name(Node):
    """A possibly qualified name with optional template arguments: `pto::Tile<...>`."""

    parts: tuple[str, ...]
    targs: tuple[Node, ...] | None = None

    @property
    def last(self) -> str:
        return self.parts[-1]

    @property
    def text(self) -> str:
        return "::".join(self.parts)


@dataclass(frozen=True)
class TypeId(Node):
    """A type used as a template argument, cast target or declaration type."""

    base: Name
    pointer: int = 0
    reference: bool = False
    qualifiers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Call(Node):
    callee: Node
    args: tuple[Node, ...]


@dataclass(frozen=True)
class Index(Node):
    base: Node
    index: Node


@dataclass(frozen=True)
class Member(Node):
    base: Node
    name: str
    arrow: bool = False
    targs: tuple[Node, ...] | None = None


@dataclass(frozen=True)
class Unary(Node):
    op: str
    operand: Node
    postfix: bool = False


@dataclass(frozen=True)
class Binary(Node):
    op: str
    lhs: Node
    rhs: Node


@dataclass(frozen=True)
class Conditional(Node):
    cond: Node
    then: Node
    other: Node


@dataclass(frozen=True)
class Cast(Node):
    type: TypeId
    operand: Node
    style: str = "c"  # "c", "static_cast", "reinterpret_cast", "functional"


@dataclass(frozen=True)
class SizeOf(Node):
    operand: Node  # TypeId or expression


@dataclass(frozen=True)
class Lambda(Node):
    params: tuple[tuple[TypeId | None, str], ...]
    body_start: int  # offset of '{'
    body_end: int  # offset one past '}'


@dataclass(frozen=True)
class InitList(Node):
    items: tuple[Node, ...]


@dataclass(frozen=True)
class StringLit(Node):
    text: str


BUILTIN_TYPE_WORDS = frozenset(
    ["void", "bool", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "auto"]
)
QUALIFIER_WORDS = frozenset(
    ["const", "volatile", "constexpr", "static", "inline", "__gm__", "__ubuf__", "__cbuf__", "__ca__", "__cb__", "__cc__", "__fbuf__", "__aicore__", "AICORE", "__global__", "typename", "struct", "class", "__restrict__", "restrict", "__inline__", "__attribute__"]
)

_BINARY_PREC = {
    "||": 4, "&&": 5, "|": 6, "^": 7, "&": 8, "==": 9, "!=": 9,
    "<": 10, "<=": 10, ">": 10, ">=": 10, "<<": 11, ">>": 11,
    "+": 12, "-": 12, "*": 13, "/": 13, "%": 13,
}
_ANGLE_OPS = frozenset({"<", ">", "<=", ">=", ">>"})
ASSIGN_OPS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="})


@dataclass
class Parser:
    """Recursive-descent/precedence parser over a token list.

    `is_template(name)` says whether `<` after a name opens template arguments;
    `is_type(name)` says whether a name starts a type-id (for casts and sizeof).
    """

    tokens: list[Token]
    is_template: Callable[[str], bool] = lambda name: False
    is_type: Callable[[str], bool] = lambda name: False
    pos: int = 0
    end_offset: int = 0
    # Where each argument, template argument, name and type-id ends in the source (keyed by
    # the node, which compares by value and so by offset too): for spelling them back.
    ends: dict = field(default_factory=dict)

    # -- token helpers
    def peek(self, k: int = 0) -> Token | None:
        i = self.pos + k
        return self.tokens[i] if i < len(self.tokens) else None

    def at(self, text: str, k: int = 0) -> bool:
        t = self.peek(k)
        return t is not None and t.kind in ("op", "id") and t.text == text

    def next(self) -> Token:
        t = self.peek()
        if t is None:
            raise ParseError("unexpected end of expression", self.end_offset)
        self.pos += 1
        return t

    def expect(self, text: str) -> Token:
        t = self.peek()
        if t is None or t.text != text:
            where = t.offset if t else self.end_offset
            got = repr(t.text) if t else "end of input"
            raise ParseError(f"expected {text!r}, found {got}", where)
        self.pos += 1
        return t

    def offset(self) -> int:
        t = self.peek()
        return t.offset if t else self.end_offset

    def done(self) -> bool:
        return self.pos >= len(self.tokens)

    # -- expressions
    def expression(self) -> Node:
        """A full expression including assignment and the comma-free conditional."""
        lhs = self.conditional()
        t = self.peek()
        if t is not None and t.kind == "op" and t.text in ASSIGN_OPS:
            self.next()
            rhs = self.expression()
            return Binary(t.offset, t.text, lhs, rhs)
        return lhs

    def conditional(self) -> Node:
        cond = self.binary(4)
        if self.at("?"):
            off = self.next().offset
            then = self.expression()
            self.expect(":")
            other = self.conditional()
            return Conditional(off, cond, then, other)
        return cond

    def binary(self, min_prec: int, exclude: frozenset[str] = frozenset()) -> Node:
        lhs = self.unary()
        while True:
            t = self.peek()
            if t is None or t.kind != "op":
                return lhs
            op = t.text
            prec = _BINARY_PREC.get(op)
            if prec is None or prec < min_prec or op in exclude:
                return lhs
            self.next()
            rhs = self.binary(prec + 1, exclude)
            lhs = Binary(t.offset, op, lhs, rhs)

    def unary(self) -> Node:
        t = self.peek()
        if t is not None and t.kind == "op" and t.text in ("-", "+", "!", "~", "*", "&", "++", "--"):
            self.next()
            return self._ended(Unary(t.offset, t.text, self.unary()))
        if t is not None and t.kind == "op" and t.text == "(" and self._looks_like_cast():
            off = self.next().offset
            ty = self.type_id()
            self.expect(")")
            return self._ended(Cast(off, ty, self.unary()))
        return self.postfix(self.primary())

    def _looks_like_cast(self) -> bool:
        t = self.peek(1)
        if t is None or t.kind != "id":
            return False
        if t.text in QUALIFIER_WORDS or t.text in BUILTIN_TYPE_WORDS:
            return True
        if not self.is_type(t.text):
            return False
        # `(T)x` versus a parenthesised expression such as `(N)`: find the matching ')'.
        depth, i = 0, self.pos
        while i < len(self.tokens):
            tx = self.tokens[i].text
            if tx in ("(", "[", "<"):
                depth += 1
            elif tx in (")", "]", ">"):
                depth -= 1
                if depth == 0:
                    nxt = self.tokens[i + 1] if i + 1 < len(self.tokens) else None
                    return nxt is not None and (nxt.kind in ("id", "num") or nxt.text in ("(", "-", "!", "~"))
            i += 1
        return False

    def postfix(self, node: Node) -> Node:
        while True:
            t = self.peek()
            if t is None or t.kind != "op":
                return node
            if t.text == "(":
                self.next()
                node = Call(node.offset, node, tuple(self.arguments(")")))
            elif t.text == "[":
                self.next()
                idx = self.expression()
                self.expect("]")
                node = self._ended(Index(node.offset, node, idx))
            elif t.text in (".", "->"):
                self.next()
                name = self.next()
                if name.text == "template":
                    name = self.next()
                targs = None
                if self.at("<") and self.is_template(name.text):
                    self.next()
                    targs = tuple(self.template_arguments())
                node = self._ended(Member(node.offset, node, name.text, t.text == "->", targs))
            elif t.text in ("++", "--"):
                self.next()
                node = Unary(node.offset, t.text, node, postfix=True)
            elif t.text == "{" and isinstance(node, Name):
                self.next()
                node = Call(node.offset, node, tuple(self.arguments("}")))
            else:
                return node

    def arguments(self, close: str) -> list[Node]:
        args: list[Node] = []
        if self.at(close):
            self.next()
            return args
        while True:
            args.append(self._ended(self.expression()))
            if self.at(","):
                self.next()
                continue
            self.expect(close)
            return args

    def primary(self) -> Node:
        t = self.peek()
        if t is None:
            raise ParseError("expected an expression", self.end_offset)
        if t.kind == "num":
            self.next()
            return Num(t.offset, parse_number(t.text))
        if t.kind == "str":
            self.next()
            code = char_value(t.text)
            return Num(t.offset, code) if code is not None else StringLit(t.offset, t.text)
        if t.text == "(":
            self.next()
            e = self.expression()
            self.expect(")")
            return e
        if t.text == "[":
            return self.lambda_expr()
        if t.text == "{":
            self.next()
            return InitList(t.offset, tuple(self.arguments("}")))
        if t.kind == "id" and t.text == "sizeof":
            self.next()
            self.expect("(")
            if self._starts_type():
                operand: Node = self.type_id()
            else:
                operand = self.expression()
            self.expect(")")
            return SizeOf(t.offset, operand)
        if t.kind == "id" and t.text in ("static_cast", "reinterpret_cast", "const_cast"):
            self.next()
            self.expect("<")
            ty = self.type_id()
            self.close_angle()
            self.expect("(")
            e = self.expression()
            self.expect(")")
            return self._ended(Cast(t.offset, ty, e, t.text))
        if t.kind == "id" and t.text in ("true", "false"):
            self.next()
            return Num(t.offset, t.text == "true")
        if t.text == "typename" and self.peek(1) is not None and self.peek(1).kind == "id":
            self.next()  # `typename T::Shape(n)`: a dependent type constructed in an expression
            return self.name()
        if t.kind == "id" or t.text == "::":
            return self.name()
        raise ParseError(f"unexpected {t.text!r}", t.offset)

    def _starts_type(self) -> bool:
        t = self.peek()
        return t is not None and t.kind == "id" and (
            t.text in BUILTIN_TYPE_WORDS or t.text in QUALIFIER_WORDS or self.is_type(t.text)
        )

    def name(self) -> Name:
        off = self.offset()
        parts: list[str] = []
        targs = None
        if self.at("::"):
            self.next()
        while True:
            t = self.next()
            if t.kind != "id":
                raise ParseError(f"expected a name, found {t.text!r}", t.offset)
            if t.text == "template" and self.peek() and self.peek().kind == "id":
                continue
            parts.append(t.text)
            if self.at("<") and self.is_template(t.text):
                self.next()
                targs = tuple(self.template_arguments())
            if self.at("::") and self.peek(1) is not None and self.peek(1).kind == "id":
                self.next()
                if targs is not None:
                    # `A<...>::B`: keep the arguments of the last templated part only.
                    parts[-1] = parts[-1]
                continue
            return self._ended(Name(off, tuple(parts), targs))

    def template_arguments(self) -> list[Node]:
        args: list[Node] = []
        if self.at(">") or self.at(">>"):
            self.close_angle()
            return args
        while True:
            if self._starts_type() and not self._is_value_name():
                args.append(self.type_id())  # records its own end
            else:
                # No bare `<`, `>` or `>>` inside template arguments: they would close the list.
                arg = self.binary(4, _ANGLE_OPS)
                if self.at("?"):  # `TSTORE<UF ? STPhase::Final : STPhase::Unspecified>`
                    off = self.next().offset
                    then = self.binary(4, _ANGLE_OPS)
                    self.expect(":")
                    arg = Conditional(off, arg, then, self.binary(4, _ANGLE_OPS))
                args.append(self._ended(arg))
            if self.at(","):
                self.next()
                continue
            self.close_angle()
            return args

    def _is_value_name(self) -> bool:
        """A name that is a type but used with `::` (e.g. `TileT::Rows`) is a value."""
        i = self.pos
        while i + 2 < len(self.tokens) and self.tokens[i + 1].text == "::":
            i += 2
        return i != self.pos and not self.is_type(self.tokens[i].text)

    def close_angle(self) -> None:
        t = self.peek()
        if t is not None and t.text == ">>":
            # Split `>>` closing two template argument lists.
            self.tokens[self.pos] = Token("op", ">", t.offset + 1)
            return
        self.expect(">")

    def type_id(self) -> TypeId:
        off = self.offset()
        quals: list[str] = []
        while self.peek() is not None and self.peek().text in QUALIFIER_WORDS:
            quals.append(self.next().text)
        words: list[str] = []
        while self.peek() is not None and self.peek().text in BUILTIN_TYPE_WORDS:
            words.append(self.next().text)
        if words:
            base = Name(off, (" ".join(words),))
        else:
            base = self.name()
        pointer = 0
        reference = False
        while self.peek() is not None:
            tx = self.peek().text
            if tx == "*":
                pointer += 1
            elif tx in ("&", "&&"):
                reference = True
            elif tx in QUALIFIER_WORDS:
                quals.append(tx)
            else:
                break
            self.next()
        return self._ended(TypeId(off, base, pointer, reference, tuple(quals)))

    def _ended(self, node: Node) -> Node:
        """Record where `node` ends: just past the last token consumed for it."""
        if self.pos > 0:
            self.ends[node] = self.tokens[self.pos - 1].end
        return node

    def lambda_expr(self) -> Lambda:
        off = self.expect("[").offset
        depth = 1
        while depth:
            tx = self.next().text
            depth += {"[": 1, "]": -1}.get(tx, 0)
        params: list[tuple[TypeId | None, str]] = []
        if self.at("("):
            self.next()
            while not self.at(")"):
                ty = self.type_id()
                pname = self.next().text if self.peek() and self.peek().kind == "id" else ""
                params.append((ty, pname))
                if self.at(","):
                    self.next()
            self.expect(")")
        while not self.at("{"):
            self.next()  # mutable, noexcept, attributes, trailing return type
        start = self.peek().offset
        depth = 0
        while True:
            t = self.next()
            if t.text == "{":
                depth += 1
            elif t.text == "}":
                depth -= 1
                if depth == 0:
                    return Lambda(off, tuple(params), start, t.offset + 1)


def parse_number(text: str) -> int | float:
    t = text.replace("'", "")
    t = t.rstrip("uUlL")
    if t.lower().startswith("0x"):
        return int(t, 16)
    if t.lower().startswith("0b"):
        return int(t, 2)
    if any(c in t for c in ".eE") and not t.lower().startswith("0x"):
        return float(t.rstrip("fF"))
    if len(t) > 1 and t.startswith("0"):
        return int(t, 8)
    return int(t)


def parse_expression(text: str, base_offset: int = 0, **preds) -> Node:
    tokens = tokenize(text, base_offset)
    p = Parser(tokens, end_offset=base_offset + len(text), **preds)
    node = p.expression()
    if not p.done():
        raise ParseError(f"unexpected {p.peek().text!r}", p.peek().offset)
    return node
