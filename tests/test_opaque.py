"""Constructs read from the outside (parse/opaque.py, parse/sdma.py): a5 `__VEC_SCOPE__` blocks of
register-level vector code, a5 SIMT launches (`cce::async_invoke`) and the SDMA engine's L2
prefetch (`TPREFETCH_ASYNC`) with its session calls.

Each kernel in tests/kernels/opaque/ checks clean with its flags; with a flag pair deleted, `check`
reports the race with the construct, at the construct."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("clang.cindex")

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const
from ptorewrite.cli import main as cli_main
from ptorewrite.parse.frontend import FrontendOptions, load_kernel

OPAQUE = Path(__file__).resolve().parent / "kernels" / "opaque"


def run(capsys, *argv) -> tuple[int, str, str]:
    rc = cli_main([str(a) for a in argv])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def edited(tmp_path: Path, path: Path, old: str, new: str) -> Path:
    text = path.read_text()
    assert text.count(old) == 1, old
    out = tmp_path / path.name
    out.write_text(text.replace(old, new))
    return out


def without_flag(tmp_path: Path, path: Path, pipes: str) -> Path:
    """The kernel with its set_flag / wait_flag pair on `pipes` (e.g. "PIPE_MTE2, PIPE_V") deleted."""
    lines = path.read_text().splitlines(keepends=True)
    kept = [ln for ln in lines if f"_flag({pipes}," not in ln]
    assert len(lines) - len(kept) == 2, pipes
    out = tmp_path / path.name
    out.write_text("".join(kept))
    return out


def accesses(s: ir.Instr) -> list[tuple[str, str]]:
    return [(a.value.param or a.value.space, a.access) for a in s.args]


# ---- __VEC_SCOPE__


def test_a_vec_scope_block_is_one_vector_instruction_on_all_of_ub(capsys):
    path = OPAQUE / "vec_scope_a5.cpp"
    rc, out, err = run(capsys, "check", "--arch", "a5", path)
    assert rc == 0 and "0 race(s), 0 flag problem(s) (3 instructions and 4 syncs issued)" in out, out + err
    assert f"{path}:32:5: warning: __VEC_SCOPE__ block: its register-level vector code is not analysed; the block " \
           "counts as one vector-pipe (V) instruction that reads and writes all of UB" in err, err
    k = load_kernel(path, FrontendOptions(arch="a5", auto_mode=False))
    scope = [s for s in k.instructions() if s.op == "VEC_SCOPE"]
    assert len(scope) == 1 and scope[0].pipe == "V" and accesses(scope[0]) == [("UB", "rw")]
    region = scope[0].args[0].value
    assert (region.base, region.length) == (Const(0), Const(256 * 1024))


@pytest.mark.parametrize(("pipes", "race"), [
    ("PIPE_MTE2, PIPE_V", ("30:5: error: data race (RAW) on UB bytes [0x0, 0x100): VEC_SCOPE [V] reads __VEC_SCOPE__ "
                          "while TLOAD [MTE2] at 28:5 writes src")),
    ("PIPE_V, PIPE_MTE3", ("36:5: error: data race (RAW) on UB bytes [0x100, 0x200): TSTORE [MTE3] reads dst while "
                          "VEC_SCOPE [V] at 32:5 writes __VEC_SCOPE__")),
])
def test_a_vec_scope_block_races_without_its_flags(capsys, tmp_path, pipes, race):
    path = without_flag(tmp_path, OPAQUE / "vec_scope_a5.cpp", pipes)
    rc, out, err = run(capsys, "check", "--arch", "a5", path)
    assert rc == 1 and "1 race(s)" in out, out + err
    assert f"{path}:{race}" in err, err


def test_a_vec_scope_marker_behind_a_comment_still_opens_the_block(capsys, tmp_path):
    path = edited(tmp_path, OPAQUE / "vec_scope_a5.cpp", "    __VEC_SCOPE__\n    {",
                  "    __VEC_SCOPE__ // one vector function\n    /* { not this one */ {")
    rc, out, err = run(capsys, "check", "--arch", "a5", path)
    assert rc == 0 and "(3 instructions and 4 syncs issued)" in out, out + err


# ---- SIMT


def test_a_simt_launch_is_one_vector_instruction_on_ub_and_its_gm_arguments(capsys):
    path = OPAQUE / "simt_a5.cpp"
    rc, out, err = run(capsys, "check", "--arch", "a5", path)
    assert rc == 0 and "0 race(s), 0 flag problem(s) (5 instructions and 6 syncs issued)" in out, out + err
    assert f"{path}:37:5: warning: cce::async_invoke: the SIMT function's accesses are not analysed" in err, err
    assert "(read only through a const pointer; here: 'gathered', 'table')" in err, err
    k = load_kernel(path, FrontendOptions(arch="a5", auto_mode=False))
    launch = next(s for s in k.instructions() if s.op == "SIMT_INVOKE")
    # `table` is a const pointee in the SIMT function: read only; the row index is a scalar.
    assert launch.pipe == "V" and accesses(launch) == [("UB", "rw"), ("gathered", "rw"), ("table", "r")]


@pytest.mark.parametrize(("pipes", "race"), [
    ("PIPE_MTE2, PIPE_V", ("35:5: error: data race (RAW) on UB bytes [0x400, 0x500): SIMT_INVOKE [V] reads UB while "
                          "TLOAD [MTE2] at 32:5 writes x")),
    ("PIPE_V, PIPE_MTE3", ("38:5: error: data race (RAW) on UB bytes [0x400, 0x500): TSTORE [MTE3] reads x while "
                          "SIMT_INVOKE [V] at 37:5 writes UB")),
])
def test_a_simt_launch_races_without_its_flags(capsys, tmp_path, pipes, race):
    path = without_flag(tmp_path, OPAQUE / "simt_a5.cpp", pipes)
    rc, out, err = run(capsys, "check", "--arch", "a5", path)
    assert rc == 1, out + err
    assert f"{path}:{race}" in err, err


def test_a_gm_argument_passed_twice_to_a_simt_launch_is_written_if_either_is(tmp_path):
    path = edited(tmp_path, OPAQUE / "simt_a5.cpp", "(cce::dim3{64, 1}, gathered, table, 3);",
                  "(cce::dim3{64, 1}, table + 64, table, 3);")
    k = load_kernel(path, FrontendOptions(arch="a5", auto_mode=False))
    launch = next(s for s in k.instructions() if s.op == "SIMT_INVOKE")
    assert accesses(launch) == [("UB", "rw"), ("table", "rw")]


# ---- TPREFETCH_ASYNC and the SDMA session calls


def test_an_l2_prefetch_is_a_scalar_access_of_its_scratch_block_and_workspace(capsys):
    path = OPAQUE / "prefetch_l2.cpp"
    rc, out, err = run(capsys, "check", path)
    assert rc == 0, out + err
    # The event's validity steers the kernel: both outcomes are checked.
    assert f"{path} (TPREFETCH_ASYNC@38 invalid): 0 race(s), 0 flag problem(s) (7 instructions" in out, out
    assert f"{path} (TPREFETCH_ASYNC@38 valid): 0 race(s), 0 flag problem(s) (8 instructions" in out, out
    assert f"{path}:38:31: warning: TPREFETCH_ASYNC and the SDMA session calls: each counts as one scalar-unit " \
           "access" in err, err
    k = load_kernel(path, FrontendOptions(auto_mode=False))
    calls = [s for s in k.instructions() if s.op in ("TPREFETCH_ASYNC", "AsyncEvent::Wait")]
    assert [s.op for s in calls] == ["TPREFETCH_ASYNC", "AsyncEvent::Wait"]
    for s in calls:
        assert s.pipe == "S" and accesses(s) == [("UB", "rw"), ("UB", "rw"), ("workspace", "rw")]
        assert str(s.args[0].value.base) == "0" and s.args[0].value.length == Const(32)


def test_an_l2_prefetch_races_with_the_store_of_the_tile_sharing_its_scratch_block(capsys, tmp_path):
    path = without_flag(tmp_path, OPAQUE / "prefetch_l2.cpp", "PIPE_MTE3, PIPE_S")
    rc, out, err = run(capsys, "check", "--set", "TPREFETCH_ASYNC@36=1", path)
    assert rc == 1, out + err
    assert f"{path}:38:9: error: data race (WAR) on UB bytes [0x0, 0x20): AsyncEvent::Wait [S] writes scratch while " \
           "TSTORE [MTE3] at 21:5 via 35:5 reads row" in err, err


def test_an_sdma_call_orders_nothing_around_it(capsys, tmp_path):
    """A call may return before its closing barrier: a load and an add on either side of it
    still need their own flag."""
    path = edited(tmp_path, OPAQUE / "prefetch_l2.cpp", "    DoubleRow(second, secondIn, secondOut);\n",
                  "    TLOAD(second, secondIn);\n    warmed.Wait(ctx.GetSession());\n    TADD(second, second, second);\n")
    rc, out, err = run(capsys, "check", "--set", "TPREFETCH_ASYNC@38=1", path)
    assert rc == 1 and "1 race(s)" in out, out + err
    assert f"{path}:44:5: error: data race (WAW) on UB bytes [0x100, 0x200): TADD [V] writes second while TLOAD " \
           "[MTE2] at 42:5 writes second" in err, err


def test_sdma_calls_in_expressions_run_where_their_operand_is_evaluated(capsys, tmp_path):
    path = edited(tmp_path, OPAQUE / "prefetch_l2.cpp",
                  "    if (warmed.valid()) {\n        warmed.Wait(ctx.GetSession());\n    }\n",
                  "    bool ready = warmed.valid() && warmed.Wait(ctx.GetSession());\n"
                  "    if (!ready) {\n        pipe_barrier(PIPE_ALL);\n    }\n")
    k = load_kernel(path, FrontendOptions(auto_mode=False))
    guarded = [s for s in ir.walk(k.body) if isinstance(s, ir.If) and
               any(isinstance(x, ir.Instr) and x.op == "AsyncEvent::Wait" for x in ir.walk(s.then))]
    assert len(guarded) == 1 and "warmed.handle" in str(guarded[0].cond)
    assert "Wait@39" in k.runtime_values and "TPREFETCH_ASYNC@38" in k.runtime_values
    rc, out, err = run(capsys, "check", path)
    assert rc == 0, out + err
    assert "(TPREFETCH_ASYNC@38 valid; Wait@39 fails)" in out and "(TPREFETCH_ASYNC@38 valid; Wait@39 succeeds)" \
        in out, out


def test_a_shared_session_touches_the_scratch_tiles_the_kernel_gave_it(capsys, tmp_path):
    path = edited(tmp_path, OPAQUE / "prefetch_l2.cpp", "    PrefetchAsyncContext ctx(workspace);\n",
                  "    comm::AsyncSession shared;\n    PrefetchAsyncContext ctx(workspace, &shared);\n"
                  "    TASSIGN(ctx.scratchTile, 0x200);\n"
                  "    bool built = comm::BuildAsyncSession(ctx.scratchTile, workspace, shared, 1);\n")
    k = load_kernel(path, FrontendOptions(auto_mode=False))
    build = next(s for s in k.instructions() if s.op == "BuildAsyncSession")
    assert [str(a.value.base) for a in build.args if a.value.space == "UB"] == ["0", "ctx.scratchTile@address"]
    assert any(isinstance(s, ir.Assign) and s.var == "ctx.scratchTile@address" and s.value == Const(0x200)
               for s in ir.walk(k.body))
    rc, out, err = run(capsys, "check", path)
    assert rc == 0, out + err


def test_an_sdma_call_in_a_loop_condition_is_refused(capsys, tmp_path):
    path = edited(tmp_path, OPAQUE / "prefetch_l2.cpp",
                  "    if (warmed.valid()) {\n        warmed.Wait(ctx.GetSession());\n    }\n",
                  "    for (int i = 0; i < 2 && !warmed.Test(ctx.GetSession()); ++i) {\n        pipe_barrier(PIPE_V);\n"
                  "    }\n")
    rc, out, err = run(capsys, "check", path)
    assert rc == 2 and out == ""
    assert f"{path}:39:5: error: an SDMA call (TPREFETCH_ASYNC, Wait, ...) or a call to a helper that issues work and returns a " \
           "value, in a loop's condition or step, is not supported" in err, err
