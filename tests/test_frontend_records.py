"""User structs in hand-written kernels: by-value struct arguments, structs in GM read and written
through pointers, structs a compile-time helper fills (tests/kernels/lang/records.cpp)."""

from __future__ import annotations

from pathlib import Path

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const, Var
from ptorewrite.cli import main as cli_main
from ptorewrite.parse.frontend import FrontendOptions, load_kernel

LANG = Path(__file__).resolve().parent / "kernels" / "lang"
RECORDS = LANG / "records.cpp"


def load(entry: str) -> ir.Kernel:
    return load_kernel(str(RECORDS), FrontendOptions(auto_mode=False, entry=entry))


def run(capsys, *argv) -> tuple[int, str, str]:
    rc = cli_main([str(a) for a in argv])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def test_struct_argument_fields_are_run_time_values_and_gm_members_are_scalar_reads():
    k = load("copy_planned")
    assert [p.name for p in k.params] == ["out", "in", "problem", "progress"]
    # problem.rows bounds the loop; prog->start[1] is read from GM at its member's offset; the
    # plan's step is chosen by a run-time test inside the compile-time helper.
    assert set(k.runtime_values) == {"problem.rows", "problem.skip", "prog->start[1]"}
    loop = next(s for s in ir.walk(k.body) if isinstance(s, ir.For))
    assert loop.stop == Var("problem.rows")
    src = next(g for g in k.gm_tensors if g.name == "src")
    # offsetof(Progress, start) / sizeof(int32_t) = 64 / 4 = 16 ints; the step is 128 or 64.
    assert str(src.offset_bytes) == \
        f"(((64 + (((problem.skip > 0) ? 128 : 64) * {loop.var})) + (prog->start[1] + 16)) * 4)"


def test_struct_kernel_checks_with_the_values_given(capsys):
    rc, out, err = run(capsys, "check", RECORDS, "--entry", "copy_planned", "--set", "problem.rows=3",
                       "--set", "problem.skip=1", "--set", "prog->start[1]=2")
    assert rc == 0 and "0 race(s), 0 flag problem(s) (6 instructions" in out, out + err
    # The GM record's members are read and written by the scalar unit only: no instruction
    # touches `progress`, so nothing is refused.
    assert "scalar unit" not in err


def test_pointer_member_of_a_struct_argument_is_an_opaque_region_with_a_warning(capsys):
    k = load("copy_to_scratch")
    dst = next(g for g in k.gm_tensors if g.name == "dst")
    assert dst.param == "problem.scratch"
    rc, out, err = run(capsys, "check", RECORDS, "--entry", "copy_to_scratch")
    assert rc == 0, out + err
    assert f"{RECORDS}:75:13: warning: 'problem.scratch' is a pointer field of the struct argument 'problem'" in err
    assert "no other pointer aliases" in err


def test_scalar_read_of_a_gm_struct_the_kernel_writes_is_a_scalar_load(capsys):
    path = LANG / "record_read_of_output.cpp"
    rc, out, err = run(capsys, "ir", path)
    assert rc == 0, err
    assert "runtime values: block->count" in out
    assert "ScalarLoad(raw block+0[1x4B/4B])  [S]  @18:5" in out  # the member's 4 bytes, on PIPE_S
    rc, out, err = run(capsys, "check", "--set", "block->count=0", path)
    assert rc == 0 and "0 race(s), 0 flag problem(s)" in out, out + err


def test_address_computed_from_window_bases_read_from_gm_is_a_peer_region(capsys):
    k = load("push_to_peer")
    remote = next(g for g in k.gm_tensors if g.name == "remote")
    # (uint64_t)mine counts bytes: buf + 64 floats is 256 bytes on, then moved by the window bases.
    assert remote.param == "buf@peer"
    assert str(remote.offset_bytes) == "((256 - w->base[w->rank]) + w->base[peer])"
    # `reinterpret_cast<uint64_t>(buf) & 31`: the argument's address, a run-time value.
    assert "buf" in k.runtime_values
    rc, out, err = run(capsys, "check", RECORDS, "--entry", "push_to_peer", "--set", "buf=64",
                       "--set", "w->base[w->rank]=0", "--set", "w->base[peer]=0")
    assert rc == 0 and "0 race(s), 0 flag problem(s) (2 instructions" in out, out + err
    assert (f"{RECORDS}:90:12: warning: 'buf@peer' is a GM address computed from values read from GM (another "
            "rank's memory, for one)") in err


def test_helper_filling_a_struct_returns_early_on_a_run_time_value(capsys):
    """LoadSegment, run at compile time: its early `return false` under `rows <= 0` makes its value
    and every later assignment a selection on that test."""
    k = load("copy_segment")
    assert set(k.runtime_values) == {"counts[index]"}
    for count, rows in ((0, 0), (-3, 0), (2, 2), (7, 4)):
        rc, out, err = run(capsys, "check", RECORDS, "--entry", "copy_segment", "--set", f"counts[index]={count}")
        assert rc == 0 and f"({2 * rows} instructions" in out, out + err


def test_structs_passed_or_copied_by_value_are_copies():
    k = load("copy_by_value")
    src = next(g for g in k.gm_tensors if g.name == "src")
    # Widened(plan) = 128 leaves plan.step at 64; StepOfCopy = 64 + 1: 257 floats in.
    assert src.offset_bytes == Const(257 * 4)


def test_a_reference_to_a_struct_in_gm_reads_its_members_where_they_are_used(capsys):
    """`const __gm__ Group &group = tiling->group;`: the reference is the GM location of the
    nested struct (offset 4 in `Tiling`); `group.rows` is a scalar read there, a run-time value."""
    path = LANG / "gm_struct_reference.cpp"
    k = load_kernel(str(path), FrontendOptions(auto_mode=False))
    loop = next(s for s in ir.walk(k.body) if isinstance(s, ir.For))
    assert str(loop.stop) == "tilingGm+4->rows"
    assert cli_main(["check", "--set", "tilingGm+4->rows=3", "--set", "tilingGm+4->stride=64", str(path)]) == 0
    assert "0 race(s), 0 flag problem(s) (6 instructions" in capsys.readouterr().out


def test_reads_spelled_alike_are_one_value_only_where_they_read_the_same_bytes(capsys):
    """A helper's `*count`, inlined for two count arguments, is two run-time values (`*count`,
    `*count#2`), each given on its own; the helper's second read of the same count is the first's
    value again (no third name)."""
    path = LANG / "gm_reads_alike.cpp"
    k = load_kernel(str(path), FrontendOptions(auto_mode=False))
    assert k.runtime_values == ("*count", "*count#2")
    assert cli_main(["check", "--set", "*count=2", "--set", "*count#2=3", str(path)]) == 0
    assert "(10 instructions and 22 syncs issued)" in capsys.readouterr().out  # 2 + 3 rows, a barrier each
    assert cli_main(["check", "--set", "*count=2", "--set", "*count#2=0", str(path)]) == 0
    assert "(4 instructions and 9 syncs issued)" in capsys.readouterr().out  # the second call copies nothing
