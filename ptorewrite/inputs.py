"""What the commands take from the user, checked before any work is done.

- An input is a readable regular file of at most MAX_SOURCE_BYTES; a directory, a FIFO or a
  device is named as such (and never opened: reading a FIFO would block).
- An output path is in an existing, writable directory, is not a directory, and is not the
  input (unless the command rewrites in place).
- `-D` names a macro once, or several times with one value: `-D N=1 -D N=2` is an error (a
  compiler would warn and take the last; which one the user meant is not clear).
- Statements nest at most MAX_NESTING deep (loops, branches, blocks, unbraced bodies included):
  the analysis walks the program recursively, and a kernel nested deeper than any real one is
  refused with a located error instead of exhausting Python's stack.

`load_kernels` is the one way the commands read a kernel file: these checks, the front end and the operand
checks of `analysis.operands`. How much a kernel executes is not judged here: a big loop is
fine to parse, print and rewrite; the executions bound themselves (`analysis.execution`'s
instance limit, `--max-instances` of the emulator commands).
"""

from __future__ import annotations

import os
import re
import stat

from ptorewrite.diagnostics import Location, PtoError, Reporter

MAX_SOURCE_BYTES = 1 << 20
MAX_NESTING = 100

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def check_input(path: str) -> None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise PtoError(f"no such file: {path}") from None
    except OSError as e:
        raise PtoError(f"cannot read {path}: {e.strerror}") from None
    kind = next((k for test, k in _KINDS if test(st.st_mode)), None)
    if kind is not None or not stat.S_ISREG(st.st_mode):
        raise PtoError(f"{path} is {kind or 'not a regular file'}; give a kernel source file")
    if st.st_size > MAX_SOURCE_BYTES:
        raise PtoError(f"{path} is {st.st_size / (1 << 20):.1f} MiB; ptorewrite reads kernel sources of at most "
                       f"{MAX_SOURCE_BYTES >> 20} MiB (it executes every instruction the kernel issues: a source "
                       "this large is generated code it cannot analyse in reasonable time)", Location(path, 1, 1))
    try:
        os.close(os.open(path, os.O_RDONLY))
    except OSError as e:
        raise PtoError(f"cannot read {path}: {e.strerror}") from None


def check_output(path: str, input_path: str | None = None, what: str = "output") -> None:
    """Raise PtoError unless `path` can be written (by replacing it) without touching the input."""
    if os.path.isdir(path):
        raise PtoError(f"cannot write {what} {path}: it is a directory")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise PtoError(f"cannot write {what} {path}: directory {os.path.dirname(path) or directory} does not exist")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise PtoError(f"cannot write {what} {path}: directory {os.path.dirname(path) or directory} is not writable")
    if input_path is not None and os.path.exists(path) and os.path.exists(input_path) \
            and os.path.samefile(path, input_path):
        raise PtoError(f"the {what} {path} is the input file; refusing to overwrite it (use -i to rewrite in place)")


def check_defines(defines: list[str]) -> None:
    """`-D N=1 -D N=2`: a located error naming both; repeating one value is fine."""
    seen: dict[str, str] = {}
    for d in defines:
        name, sep, value = d.partition("=")
        name = name.strip()
        value = value.strip() if sep else "1"
        if not re.fullmatch(r"[A-Za-z_]\w*(\([^)]*\))?", name):
            raise PtoError(f"-D {d}: '{name}' is not a macro name")
        if name in seen and seen[name] != value:
            raise PtoError(f"-D {name}={seen[name]} and -D {d} define '{name}' twice with different values; "
                           "give it once")
        seen[name] = value


# Tokens that matter for nesting: comments, literals and preprocessor lines hide their contents.
_NEST_TOKEN = re.compile(
    r"//[^\n]*|/\*.*?(?:\*/|\Z)|\"(?:\\.|[^\"\\\n])*\"?|'(?:\\.|[^'\\\n])*'?|^[ \t]*#(?:\\\r?\n|[^\n])*"
    r"|\b(?:for|while|if|switch)\b\s*\(|\belse\b(?!\s*if\b)|\bdo\b|[{}();]",
    re.DOTALL | re.MULTILINE)


def nesting_error(path: str, text: str) -> PtoError | None:
    """A located error at the first statement nested deeper than MAX_NESTING, or None. Counts
    braces and the headers of unbraced bodies (`for (...) for (...) x;`), lexically."""
    depth = 0  # open braces
    parens = 0
    pending: list[int] = [0]  # per brace level: unbraced bodies open at this level
    header_parens: list[int] = []  # paren depth at which a for/if header's ')' closes it
    construct = 0  # where the innermost loop, branch or block starts
    for m in _NEST_TOKEN.finditer(text):
        tok = m.group()
        if tok.lstrip(" \t").startswith(("//", "/*", '"', "'", "#")):
            continue
        if tok[0] not in "();}":
            construct = m.start()
        if tok.endswith("("):
            if tok[0] != "(":  # for/if/while/switch header
                header_parens.append(parens)
            parens += 1
        elif tok == ")":
            parens = max(0, parens - 1)
            if header_parens and header_parens[-1] == parens:
                header_parens.pop()
                pending[-1] += 1  # a body follows; unbraced until a '{' says otherwise
        elif tok in ("else", "do"):
            pending[-1] += 1
        elif tok == "{":
            if pending[-1]:  # the body is braced
                pending[-1] -= 1
            depth += 1
            pending.append(0)
        elif tok == "}":
            depth = max(0, depth - 1)
            if len(pending) > 1:
                pending.pop()
            pending[-1] = 0
        elif tok == ";" and not parens:
            pending[-1] = 0
        if depth + sum(pending) > MAX_NESTING:
            line = text.count("\n", 0, construct) + 1
            col = construct - (text.rfind("\n", 0, construct) + 1) + 1
            return PtoError(f"statements nest more than {MAX_NESTING} levels deep here (the function body counts as "
                            f"one); ptorewrite analyses kernels nested up to {MAX_NESTING} levels: flatten the loops",
                            Location(path, line, col))
    return None


def check_source(path: str, defines=()) -> None:
    """Everything about an input that can be refused without parsing it; cheap, so the commands
    call it before importing the analysis."""
    check_input(path)
    check_defines(list(defines))
    with open(path, "rb") as f:
        err = nesting_error(path, f.read().decode("latin-1"))
    if err is not None:
        raise err


def load_kernels(path: str, opts, reporter: Reporter, placement_findings: dict | None = None) -> list:
    """Check the input, parse and lower every kernel of it (each instantiation of a kernel
    template, or the one `--entry` names), and check every instruction's operands. With
    `placement_findings`, each kernel's misplaced TASSIGNs are collected there (kernel name ->
    located errors) instead of refusing the file (see `operands.check_operands`)."""
    from ptorewrite.analysis.operands import check_operands
    from ptorewrite.arch import profile
    from ptorewrite.parse.frontend import load_kernels as lower_kernels

    check_source(path, opts.defines)
    kernels = lower_kernels(path, opts, reporter)
    for kernel in kernels:
        found = None if placement_findings is None else placement_findings.setdefault(kernel.name, [])
        check_operands(kernel, profile(opts.arch), reporter, found)
    return kernels
