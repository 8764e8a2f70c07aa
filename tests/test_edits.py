"""Statement-level edits: new statements land next to the statement of the parsed tree they belong
to, whatever the formatting (unbraced and one-line bodies, several statements on a line, comments,
`#pragma` lines, tabs, CRLF), and the user's own text keeps its tokens.

The first tests are literal before/after pairs: the insertions are made by hand at statements
picked by their text, so they test the edits alone. The last ones rewrite formatting variants of a
kernel with the whole pipeline and prove each rewrite equivalent and race free on the emulator.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ptorewrite.analysis import ir
from ptorewrite.arch import profile
from ptorewrite.cli import main
from ptorewrite.diagnostics import Reporter
from ptorewrite.emulator.verify import verify
from ptorewrite.parse.frontend import FrontendOptions, load_kernel
from ptorewrite.transform.edits import Insertion, edit_kernel
from ptorewrite.transform.rewrite import rewrite

REGRESS = Path(__file__).resolve().parent / "kernels" / "regress"

HEAD = """\
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void k(__gm__ float *out, __gm__ float *in, int n)
{
    TileT x;
    GmT g(in);
    GmT o(out);
"""


def _statements(kernel: ir.Kernel):
    for s in ir.walk(kernel.body):
        if s.loc is not None and not isinstance(s, ir.Block):
            yield s.loc
    for t in kernel.tiles:
        yield t.loc


def edit(tmp_path: Path, body: str, *wanted: tuple[str, str, str], whole: bool = False, newline: str = "\n") -> str:
    """`body` (the kernel body after HEAD, or the whole file) with each `(statement, where, code)`
    inserted; a statement is named by the start of its text, `TADDS#1` for the second one."""
    src = (body if whole else HEAD + body + "}\n").replace("\n", newline)
    path = tmp_path / "k.cpp"
    path.write_bytes(src.encode())
    kernel = load_kernel(path, FrontendOptions())
    text = kernel.source.decode("latin-1")
    insertions = []
    for name, where, code in wanted:
        name, _, nth = name.partition("#")
        found = sorted({(loc.offset, loc.end_offset) for loc in _statements(kernel)
                        if text.startswith(name, loc.offset)})
        start, end = found[int(nth or 0)]
        insertions.append(Insertion(start, end, where, code, "why"))
    out = edit_kernel(kernel, insertions).decode("latin-1")
    return out if whole else out[len(HEAD.replace("\n", newline)):]


def test_unbraced_loop_body_on_the_next_line_gets_braces(tmp_path):
    before = """\
    for (int i = 0; i < 4; ++i)
        TADDS(x, x, 1.0f);
    TSTORE(o, x);
"""
    after = """\
    for (int i = 0; i < 4; ++i) {
        wait();  // why
        TADDS(x, x, 1.0f);
        set();  // why
    }
    TSTORE(o, x);
}
"""
    assert edit(tmp_path, before, ("TADDS", "before", "wait()"), ("TADDS", "after", "set()")) == after


def test_unbraced_loop_body_on_the_header_line_is_split(tmp_path):
    before = "    for (int i = 0; i < 4; ++i) TADDS(x, x, 1.0f);  // add one\n"
    after = """\
    for (int i = 0; i < 4; ++i) {
        wait();  // why
        TADDS(x, x, 1.0f);  // add one
        set();  // why
    }
}
"""
    assert edit(tmp_path, before, ("TADDS", "before", "wait()"), ("TADDS", "after", "set()")) == after


def test_braced_body_on_the_header_line_is_split(tmp_path):
    before = "    for (int i = 0; i < 4; ++i) { TADDS(x, x, 1.0f); }\n"
    after = """\
    for (int i = 0; i < 4; ++i) {
        wait();  // why
        TADDS(x, x, 1.0f);
        set();  // why
    }
}
"""
    assert edit(tmp_path, before, ("TADDS", "before", "wait()"), ("TADDS", "after", "set()")) == after
    # Only a line break where something is inserted: the closing brace stays where it was.
    assert edit(tmp_path, before, ("TADDS", "before", "wait()")) == """\
    for (int i = 0; i < 4; ++i) {
        wait();  // why
        TADDS(x, x, 1.0f); }
}
"""


def test_statement_after_the_loop_is_not_pulled_into_new_braces(tmp_path):
    before = """\
    for (int i = 0; i < 4; ++i)
        TADDS(x, x, 1.0f);
    TSTORE(o, x);
"""
    after = """\
    for (int i = 0; i < 4; ++i)
        TADDS(x, x, 1.0f);
    set();  // why
    wait();  // why
    TSTORE(o, x);
}
"""
    # Before and after the loop as a whole: the body needs no braces.
    assert edit(tmp_path, before, ("for", "after", "set()"), ("TSTORE", "before", "wait()")) == after


def test_nested_unbraced_bodies(tmp_path):
    before = """\
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < 2; ++j)
            TADDS(x, x, 1.0f);
    TSTORE(o, x);
"""
    after = """\
    for (int i = 0; i < n; ++i) {
        prime();  // why
        for (int j = 0; j < 2; ++j) {
            wait();  // why
            TADDS(x, x, 1.0f);
        }
        drain();  // why
    }
    TSTORE(o, x);
}
"""
    assert edit(tmp_path, before, ("TADDS", "before", "wait()"), ("for (int j", "before", "prime()"),
                ("for (int j", "after", "drain()")) == after
    # Only the inner body: the outer loop's body stays one (now braced) statement.
    assert edit(tmp_path, before, ("TADDS", "before", "wait()")) == """\
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < 2; ++j) {
            wait();  // why
            TADDS(x, x, 1.0f);
        }
    TSTORE(o, x);
}
"""


def test_unbraced_if_and_else_on_one_line(tmp_path):
    before = "    if (n > 1) TADDS(x, x, 1.0f); else TMULS(x, x, 2.0f);\n"
    after = """\
    if (n > 1) {
        wait();  // why
        TADDS(x, x, 1.0f);
    } else {
        TMULS(x, x, 2.0f);
        set();  // why
    }
}
"""
    assert edit(tmp_path, before, ("TADDS", "before", "wait()"), ("TMULS", "after", "set()")) == after


def test_unbraced_if_and_else_on_their_own_lines(tmp_path):
    before = """\
    if (n > 1)
        TADDS(x, x, 1.0f);
    else if (n > 0)
        TMULS(x, x, 2.0f);
    else
        TADDS(x, x, 3.0f);
"""
    after = """\
    if (n > 1) {
        wait();  // why
        TADDS(x, x, 1.0f);
    }
    else if (n > 0)
        TMULS(x, x, 2.0f);
    else {
        TADDS(x, x, 3.0f);
        set();  // why
    }
}
"""
    assert edit(tmp_path, before, ("TADDS", "before", "wait()"), ("TADDS#1", "after", "set()")) == after


def test_several_statements_on_one_line(tmp_path):
    before = "    TLOAD(x, g); TADDS(x, x, 1.0f); TSTORE(o, x);\n"
    after = """\
    TLOAD(x, g);
    set();  // why
    wait();  // why
    TADDS(x, x, 1.0f); TSTORE(o, x);
}
"""
    assert edit(tmp_path, before, ("TLOAD", "after", "set()"), ("TADDS", "before", "wait()")) == after


def test_comments_stay_with_their_statements(tmp_path):
    before = """\
    TLOAD(x, g); /* load */ TADDS(x, x, 1.0f);
    // the loop
    for (int i = 0; i < 4; ++i) // four times (x)
        TADDS(x, x, 1.0f);
    TSTORE(o, x); /* a comment
    over two lines */ TSTORE(o, x);
"""
    after = """\
    TLOAD(x, g);
    set();  // why
    /* load */
    wait();  // why
    TADDS(x, x, 1.0f);
    // the loop
    for (int i = 0; i < 4; ++i) // four times (x)
    {
        barrier();  // why
        TADDS(x, x, 1.0f);
    }
    TSTORE(o, x);
    last();  // why
    /* a comment
    over two lines */ TSTORE(o, x);
}
"""
    # A `)` inside the header's line comment is not the header's: the brace goes on its own line.
    assert edit(tmp_path, before, ("TLOAD", "after", "set()"), ("TADDS", "before", "wait()"),
                ("TADDS#1", "before", "barrier()"), ("TSTORE", "after", "last()")) == after


def test_pragma_lines_stay_with_their_loop(tmp_path):
    before = """\
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) TADDS(x, x, 1.0f);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        TADDS(x, x, 1.0f);
    }
"""
    after = """\
    for (int i = 0; i < 4; ++i) {
        prime();  // why
#pragma unroll
        for (int j = 0; j < 2; ++j) TADDS(x, x, 1.0f);
    }
    prime();  // why
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        TADDS(x, x, 1.0f);
    }
}
"""
    assert edit(tmp_path, before, ("for (int j", "before", "prime()"), ("for (int i#1", "before", "prime()")) == after


def test_preprocessor_conditionals_around_a_statement(tmp_path):
    before = """\
#if 1
    TADDS(x, x, 1.0f);
#endif
    TSTORE(o, x);
"""
    after = """\
#if 1
    wait();  // why
    TADDS(x, x, 1.0f);
    set();  // why
#endif
    TSTORE(o, x);
}
"""
    assert edit(tmp_path, before, ("TADDS", "before", "wait()"), ("TADDS", "after", "set()")) == after


def test_tabs_are_kept(tmp_path):
    before = "\tfor (int i = 0; i < 4; ++i)\n\t\tTADDS(x, x, 1.0f);\n\tfor (int i = 0; i < 4; ++i) TADDS(x, x, 1.0f);\n"
    after = ("\tfor (int i = 0; i < 4; ++i) {\n\t\twait();  // why\n\t\tTADDS(x, x, 1.0f);\n\t}\n"
             "\tfor (int i = 0; i < 4; ++i) {\n\t\twait();  // why\n\t\tTADDS(x, x, 1.0f);\n\t}\n}\n")
    assert edit(tmp_path, before, ("TADDS", "before", "wait()"), ("TADDS#1", "before", "wait()")) == after


def test_crlf_line_endings_are_kept(tmp_path):
    before = "    for (int i = 0; i < 4; ++i) TADDS(x, x, 1.0f);\n    TSTORE(o, x);\n"
    out = edit(tmp_path, before, ("TADDS", "before", "wait()"), ("TSTORE", "after", "set()"), newline="\r\n")
    assert out == ("    for (int i = 0; i < 4; ++i) {\r\n        wait();  // why\r\n        TADDS(x, x, 1.0f);\r\n"
                   "    }\r\n    TSTORE(o, x);\r\n    set();  // why\r\n}\r\n")
    assert "\n" not in out.replace("\r\n", "")


def test_kernel_on_one_line(tmp_path):
    before = HEAD.split("{")[0] + "{ TileT x; GmT g(in); GmT o(out); TLOAD(x, g); TSTORE(o, x); }"
    after = HEAD.split("{")[0] + """{ TileT x;
    TASSIGN(x, 0x0);  // why
    GmT g(in); GmT o(out); TLOAD(x, g);
    set();  // why
    wait();  // why
    TSTORE(o, x); }"""
    assert edit(tmp_path, before, ("TileT x", "after", "TASSIGN(x, 0x0)"), ("TLOAD", "after", "set()"),
                ("TSTORE", "before", "wait()"), whole=True) == after


def test_tassign_after_declarations_in_odd_places(tmp_path):
    before = """\
    for (int i = 0; i < 2; ++i) { TileT t; TLOAD(t, g); }
    TileT  // spans
        y; TLOAD(y, g);
"""
    after = """\
    for (int i = 0; i < 2; ++i) { TileT t;
        TASSIGN(t, 0x0);  // why
        TLOAD(t, g); }
    TileT  // spans
        y;
    TASSIGN(y, 0x800);  // why
    TLOAD(y, g);
}
"""
    assert edit(tmp_path, before, ("TileT t", "after", "TASSIGN(t, 0x0)"), ("TileT  //", "after", "TASSIGN(y, 0x800)")) \
        == after


def test_user_tokens_are_unchanged(tmp_path):
    """Whatever is inserted, deleting the inserted text and the whitespace gives the input back."""
    before = """\
    for (int i = 0; i < n; ++i) for (int j = 0; j < 2; ++j) { TADDS(x, x, 1.0f); TMULS(x, x, 2.0f); }
    if (n > 1) TADDS(x, x, 1.0f); else if (n) TMULS(x, x, 2.0f); else { TADDS(x, x, 3.0f); }
"""
    wanted = [(name, where, f"S{i}()") for i, (name, where) in enumerate(
        (n, w) for n in ("for", "for (int j", "TADDS", "TMULS", "if", "TADDS#1", "TMULS#1", "TADDS#2")
        for w in ("before", "after"))]
    out = edit(tmp_path, before, *wanted)

    def tokens(s):
        import re
        s = re.sub(r"S\d+\(\);  // why", "", s)
        return "".join(s.split()).replace("{", "").replace("}", "")

    assert tokens(out) == tokens(before + "}\n")
    assert out.count("{") - out.count("}") == -1  # the kernel's closing brace


# ---------------------------------------------------------------- the whole pipeline, on the emulator

KERNEL = """\
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void k(__gm__ float *out, __gm__ float *in, int n)
{
%s
}
"""

FORMATS = {
    "unbraced_body": """\
    TileT x;
    GmT g(in);
    GmT o(out);
    TLOAD(x, g);
    for (int i = 0; i < 4; ++i)
        TADDS(x, x, 1.0f);
    TSTORE(o, x);""",
    "body_on_header_line": """\
    TileT x; GmT g(in); GmT o(out);
    TLOAD(x, g);
    for (int i = 0; i < 4; ++i) TADDS(x, x, 1.0f);
    TSTORE(o, x);""",
    "one_line_braced_body": """\
    TileT x; GmT g(in); GmT o(out); TLOAD(x, g);
    for (int i = 0; i < 4; ++i) { TADDS(x, x, 1.0f); TMULS(x, x, 0.5f); } TSTORE(o, x);""",
    "nested_unbraced": """\
    TileT x[2];
    GmT g(in);
    GmT o(out);
    TLOAD(x[0], g);
    TLOAD(x[1], g);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < 2; ++j)
            if (i > 0) TADDS(x[j], x[j], 1.0f); else TMULS(x[j], x[1 - j], 2.0f);
    TSTORE(o, x[1]);""",
    "if_else_unbraced": """\
    TileT x;
    TileT y;
    GmT g(in);
    GmT o(out);
    TLOAD(x, g);
    if (n > 2)
        TADDS(x, x, 1.0f);
    else
        TMULS(x, x, 3.0f);
    TADDS(y, x, 2.0f);
    TSTORE(o, y);""",
    "tabs": "\tTileT x;\n\tGmT g(in);\n\tGmT o(out);\n\tTLOAD(x, g);\n"
            "\tfor (int i = 0; i < 4; ++i)\n\t\tTADDS(x, x, 1.0f);\n\tTSTORE(o, x);",
    "declaration_in_one_line_body": """\
    GmT g(in);
    GmT o(out);
    for (int i = 0; i < 2; ++i) { TileT t; TLOAD(t, g); TADDS(t, t, 1.0f); TSTORE(o, t); }""",
    "declaration_then_use_on_one_line": """\
    GmT g(in); GmT o(out);
    TileT x; TLOAD(x, g); TileT y; TADDS(y, x, 1.0f); TSTORE(o, y);""",
}


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_formatting_rewrites_to_an_equivalent_race_free_kernel(tmp_path, name, newline):
    auto_path = tmp_path / "auto.cpp"
    auto_path.write_bytes((KERNEL % FORMATS[name]).replace("\n", newline).encode())
    auto = load_kernel(auto_path, FrontendOptions())
    text = rewrite(auto, profile("a2a3"), Reporter()).text
    assert (b"\r\n" in text) == (newline == "\r\n") and (newline == "\n" or b"\n" not in text.replace(b"\r\n", b""))
    manual_path = tmp_path / "manual.cpp"
    manual_path.write_bytes(text)
    manual = load_kernel(manual_path, FrontendOptions(auto_mode=False))
    for n in (0, 1, 3):
        v = verify(auto, manual, profile("a2a3"), {"n": n, "block_idx": 0, "block_num": 1}, seed=n)
        assert v.ok, (n, v.mismatches, v.check.diagnostics(), text.decode())


@pytest.mark.parametrize("name", ["unbraced_loop_body.cpp", "one_line_loop_body.cpp"])
def test_regression_kernels_rewrite_and_verify(capsys, tmp_path, name):
    out = tmp_path / name
    assert main(["auto2manual", str(REGRESS / name), "-o", str(out)]) == 0
    text = out.read_text()
    assert """\
    for (int i = 0; i < 4; ++i) {
        pipe_barrier(PIPE_V);  // RAW x: TADDS -> TADDS on PIPE_V
        TADDS(x, x, 1.0f);""" in text
    capsys.readouterr()
    assert main(["verify", str(REGRESS / name), str(out)]) == 0
    assert "outputs equivalent" in capsys.readouterr().out
    assert main(["verify", str(REGRESS / name)]) == 0
