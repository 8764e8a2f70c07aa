"""Bad inputs a user can give, each with the answer the command line must give: exit status 2,
one clear message (located where the input has a location), nothing written, no traceback.

Shared by tests/test_bad_input.py and benchmarks/bad_input.py (which times them).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

KERNEL = """\
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void k(__gm__ float *out, __gm__ float *in)
{
    TileT x;
    GmT g(in);
    GmT o(out);
    TLOAD(x, g);
%s
    TSTORE(o, x);
}
"""


def kernel(body: str = "    TADDS(x, x, 1.0f);") -> str:
    return KERNEL % body


NAMES = ("missing output directory", "directory as input", "FIFO as input", "missing input",
         "missing --timeline directory", "malformed compile_commands.json", "compile_commands.json not a list",
         "200 nested loops", "5 MB input", "conflicting -D", "output path equal to the input",
         "loop of 1e9 iterations", "loop of 1e9 iterations from --set")


@dataclass
class Case:
    name: str
    argv: list[str]
    message: str  # a regular expression the first error line matches
    watch: Path  # a directory that must look the same afterwards (nothing written)
    notes: list[str] = field(default_factory=list)


def cases(tmp: Path) -> list[Case]:
    """Build every case's files under `tmp`."""
    tmp = Path(tmp)
    good = tmp / "good.cpp"
    good.write_text(kernel())
    out: list[Case] = []

    def case(name, argv, message):
        out.append(Case(name, [str(a) for a in argv], message, tmp))

    case("missing output directory", ["auto2manual", good, "-o", tmp / "nodir" / "out.cpp"],
         r"^ptorewrite: error: cannot write output .*nodir/out\.cpp: directory .*nodir does not exist")
    (tmp / "adir.cpp").mkdir()
    case("directory as input", ["auto2manual", tmp / "adir.cpp"],
         r"^ptorewrite: error: .*adir\.cpp is a directory; give a kernel source file")
    fifo = tmp / "fifo.cpp"
    os.mkfifo(fifo)
    case("FIFO as input", ["check", fifo], r"^ptorewrite: error: .*fifo\.cpp is a FIFO; give a kernel source file")
    case("missing input", ["verify", tmp / "missing.cpp"], r"^ptorewrite: error: no such file: .*missing\.cpp")
    case("missing --timeline directory", ["simulate", good, "--timeline", tmp / "nodir" / "t.svg"],
         r"^ptorewrite: error: cannot write timeline .*t\.svg: directory .*nodir does not exist")
    build = tmp / "build"
    build.mkdir()
    (build / "compile_commands.json").write_text('[\n  {"file": "good.cpp",\n')
    case("malformed compile_commands.json", ["auto2manual", good, "-p", build],
         r"^.*build/compile_commands\.json:3:1: error: malformed JSON: ")
    listless = tmp / "listless"
    listless.mkdir()
    (listless / "compile_commands.json").write_text(json.dumps({"file": str(good), "command": "cc good.cpp"}))
    case("compile_commands.json not a list", ["ir", good, "-p", listless],
         r"^.*listless/compile_commands\.json:1:1: error: a compilation database is a JSON list of objects")
    deep = tmp / "deep.cpp"
    loops = "".join(f"    for (int i{d} = 0; i{d} < 1; ++i{d}) {{\n" for d in range(200))
    deep.write_text(kernel(loops + "    TADDS(x, x, 1.0f);\n" + "    }\n" * 200))
    case("200 nested loops", ["auto2manual", deep],
         r"^.*deep\.cpp:110:5: error: statements nest more than 100 levels deep here")
    huge = tmp / "huge.cpp"
    huge.write_text(kernel("    TADDS(x, x, 1.0f);\n" * 240_000))
    case("5 MB input", ["auto2manual", huge, "-o", tmp / "huge.out.cpp"],
         r"^.*huge\.cpp:1:1: error: .*huge\.cpp is 5\.3 MiB; ptorewrite reads kernel sources of at most 1 MiB")
    case("conflicting -D", ["auto2manual", good, "-D", "ROWS_A=1", "-D", "ROWS_A=2"],
         r"^ptorewrite: error: -D ROWS_A=1 and -D ROWS_A=2 define 'ROWS_A' twice with different values")
    case("output path equal to the input", ["auto2manual", good, "-o", good],
         r"^ptorewrite: error: the output .*good\.cpp is the input file; refusing to overwrite it \(use -i")
    long_loop = tmp / "long_loop.cpp"
    long_loop.write_text(kernel("    for (int i = 0; i < 1000000000; ++i) {\n        TADDS(x, x, 1.0f);\n    }"))
    case("loop of 1e9 iterations", ["simulate", long_loop, "--serialize"],
         r"^.*long_loop\.cpp:11:5: error: this run would execute at least 2,000,000,002 instances \(instructions, "
         r"syncs and loop iterations\), more than the limit of 2,000,000;")
    runtime_loop = tmp / "runtime_loop.cpp"
    runtime_loop.write_text(kernel("    for (int i = 0; i < n; ++i) {\n        TADDS(x, x, 1.0f);\n    }").replace(
        "__gm__ float *in)", "__gm__ float *in, int n)"))
    case("loop of 1e9 iterations from --set", ["verify", runtime_loop, "--set", "n=1000000000"],
         r"^.*runtime_loop\.cpp:11:5: error: this run would execute at least [\d,]+ instances .*more than the limit "
         r"of 2,000,000; try --set n=\d+")
    return out


def snapshot(directory: Path) -> dict[str, float]:
    """Every file and directory under `directory`, with modification times."""
    return {str(p): p.lstat().st_mtime for p in Path(directory).rglob("*")}
