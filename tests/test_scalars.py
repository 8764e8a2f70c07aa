"""Runtime values: those that steer control flow or addresses must be given; those that only feed
data are not needed by check and simulate, and verify draws them from --seed."""

from __future__ import annotations

import re
from pathlib import Path

from ptorewrite.analysis.scalars import data_values, steering_values
from ptorewrite.cli import main
from ptorewrite.parse.frontend import FrontendOptions, load_kernel

REGRESS = Path(__file__).resolve().parent / "kernels" / "regress"

SCALED = """\
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void scaled(__gm__ float *out, __gm__ float *in, int n, float scale, int shift)
{
    TileT x;
    TileT y;
    int last = n - 1;
    for (int i = 0; i <= last; ++i) {
        GmT g(in + i * 512);
        GmT o(out + i * 512);
        TLOAD(x, g);
        TMULS(y, x, scale);
        TADDS(y, y, (float)shift);
        TSTORE(o, y);
    }
}
"""


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def write(tmp_path, text=SCALED, name="scaled.cpp"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_steering_and_data_values_are_told_apart(tmp_path):
    kernel = load_kernel(write(tmp_path), FrontendOptions())
    # `n` bounds the loop (through the local `last`); scale and shift only feed data.
    assert steering_values(kernel) == {"n"}
    assert data_values(kernel) == ["scale", "shift"]


def test_check_and_simulate_need_only_steering_values(capsys, tmp_path):
    src = write(tmp_path)
    manual = tmp_path / "manual.cpp"
    assert run(capsys, "auto2manual", src, "-o", manual)[0] == 0
    status, out, _ = run(capsys, "check", manual, "--set", "n=3")
    assert status == 0 and "12 instructions" in out
    status, out, _ = run(capsys, "simulate", manual, "--set", "n=3")
    assert status == 0 and "cycles" in out
    status, _, err = run(capsys, "check", manual)
    assert status == 2 and "runtime value(s) n " in err and "scale" not in err


def test_verify_draws_data_values_from_the_seed(capsys, tmp_path):
    src = write(tmp_path)
    status, out, _ = run(capsys, "verify", src, "--set", "n=3", "--seed", "4")
    assert status == 0 and "outputs equivalent" in out
    drawn = re.search(r"data-only runtime values drawn from seed 4: scale=(\S+), shift=(-?\d+) ", out)
    assert drawn, out
    # The same seed draws the same values; another seed others; a given value is used as given.
    assert run(capsys, "verify", src, "--set", "n=3", "--seed", "4")[1] == out
    other = run(capsys, "verify", src, "--set", "n=3", "--seed", "5")[1]
    assert re.search(r"seed 5: scale=(\S+),", other).group(1) != drawn.group(1)
    given = run(capsys, "verify", src, "--set", "n=3", "--set", "scale=0.5")[1]
    assert "drawn from seed 0: shift=" in given and "scale" not in given.split("drawn")[1].split("(")[0]
    # What was printed is what was used: giving it back draws nothing.
    again = run(capsys, "verify", src, "--set", "n=3", "--set", f"scale={drawn.group(1)}", "--set",
                f"shift={drawn.group(2)}", "--seed", "4")
    assert again[0] == 0 and "drawn" not in again[1] and out.splitlines()[-1] == again[1].splitlines()[-1]


def test_verify_data_values_reach_the_outputs(tmp_path):
    """Drawn values are used: a manual kernel that ignores the scale is caught."""
    from ptorewrite.arch import profile
    from ptorewrite.diagnostics import Reporter
    from ptorewrite.emulator.verify import verify
    from ptorewrite.transform.rewrite import rewrite

    auto = load_kernel(write(tmp_path), FrontendOptions())
    text = rewrite(auto, profile("a2a3"), Reporter()).text.decode().replace("TMULS(y, x, scale)", "TMULS(y, x, 1.0f)")
    manual = load_kernel(write(tmp_path, text, "manual.cpp"), FrontendOptions(auto_mode=False))
    v = verify(auto, manual, profile("a2a3"), {"n": 2}, seed=1)
    assert not v.equivalent and set(v.drawn) == {"scale", "shift"}


def test_verify_rewrites_with_the_values_it_verifies_with(capsys, tmp_path):
    src = REGRESS / "verify_rewrites_with_set.cpp"
    kept = run(capsys, "verify", src, "--set", "n=3", "--set", "mode=0", "--keep-rewrite")
    assert kept[0] == 0 and "0 race(s)" in kept[1], kept
    path = re.search(r"rewritten kernel kept at (\S+)", kept[1]).group(1)
    expected = tmp_path / "expected.cpp"
    assert run(capsys, "auto2manual", src, "--set", "n=3", "--set", "mode=0", "-o", expected)[0] == 0
    assert Path(path).read_text() == expected.read_text()


def test_a_value_that_reaches_an_address_through_a_local_steers(tmp_path):
    text = SCALED.replace("int n, float scale, int shift)", "int n, float scale, int shift, int step)").replace(
        "        GmT g(in + i * 512);", "        GmT g(in + row * 512);").replace(
        "        TSTORE(o, y);", "        TSTORE(o, y);\n        row = row + step;").replace(
        "    int last = n - 1;", "    int last = n - 1;\n    int row = 0;")
    kernel = load_kernel(write(tmp_path, text), FrontendOptions())
    assert steering_values(kernel) == {"n", "step"} and data_values(kernel) == ["scale", "shift"]
