"""Instruction forms pto-isa's single-instruction kernels use: what each call lowers to (pipe and
operand accesses) and that `check` sees the orderings they need.

The kernels are in tests/kernels/lang/ (`indexed_gm*.cpp`, `a2a3_instruction_forms.cpp`,
`a5_instruction_forms.cpp`). Each clean kernel is also checked with one sync taken out: the race
that sync prevented must be reported, so the accesses modelled are the ones that matter.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("clang.cindex")

from ptorewrite.analysis import execution, ir
from ptorewrite.analysis.expr import Const
from ptorewrite.analysis.instructions import INSTRUCTIONS, tile_accesses, window_position
from ptorewrite.arch import profile
from ptorewrite.cli import main as cli_main
from ptorewrite.emulator import pipes
from ptorewrite.parse.frontend import FrontendOptions, load_kernel

LANG = Path(__file__).resolve().parent / "kernels" / "lang"


def load(path, **kw) -> ir.Kernel:
    return load_kernel(str(path), FrontendOptions(auto_mode=False, **kw))


def lowered(k: ir.Kernel) -> list[tuple]:
    """(op, pipe, tile accesses, GM accesses) of every instruction."""
    return [(i.op, i.pipe, tuple(a.access for a in i.args if a.kind == "tile"),
             tuple(a.access for a in i.args if a.kind == "gm")) for i in k.instructions()]


def check(k: ir.Kernel, **values) -> pipes.CheckResult:
    return pipes.check(execution.unroll(k, profile(k.arch), {"block_idx": 0, "block_num": 1, **values},
                                        require_semantics=False))


def without(tmp_path, path: Path, *lines: str) -> Path:
    """A copy of `path` without the given lines (each must occur once)."""
    text = path.read_text()
    for line in lines:
        assert text.count(line + "\n") == 1, line
        text = text.replace(line + "\n", "")
    out = tmp_path / path.name
    out.write_text(text)
    return out


def race_texts(result: pipes.CheckResult) -> list[str]:
    return [d.message for d in result.diagnostics()]


# ---------------------------------------------------------------- MGATHER / MSCATTER


def test_row_gather_and_scatter_lower_with_the_whole_table():
    k = load(LANG / "indexed_gm.cpp")
    assert lowered(k) == [
        ("TLOAD", "MTE2", ("w",), ("r",)),
        ("MGATHER", "V", ("w", "r"), ("r",)),  # dst <- table rows picked by idx
        ("MSCATTER", "V", ("r", "r"), ("rw",)),  # rows -> table at idx: bytes known at run time
        ("TLOAD", "MTE2", ("w",), ("r",)),
    ]
    assert check(k).clean


def test_mode_given_as_a_template_parameter_is_the_enumerator_it_names():
    k = load(LANG / "indexed_gm.cpp")
    gather = next(i for i in k.instructions() if i.op == "MGATHER")
    # Written `MGATHER<Coalesce::Row, Oob>` in a helper called with Oob = GatherOOB::Clamp.
    assert gather.template_args == ("Coalesce::Row", "GatherOOB::Clamp")


def test_gather_and_scatter_are_rewritten_and_verified(capsys):
    # The AUTO twin: auto2manual orders the scatter before the reload of its table, and the
    # emulator runs both kernels on random tables and indices.
    rc = cli_main(["verify", str(LANG / "indexed_gm_auto.cpp")])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "outputs equivalent" in out and "0 race(s), 0 flag problem(s)" in out


def test_scatter_then_reload_of_its_table_needs_the_flag(tmp_path):
    # The scattered rows may land anywhere in the table: the reload reads bytes it writes.
    bad = without(tmp_path, LANG / "indexed_gm.cpp", "    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);",
                  "    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);")
    result = check(load(bad))
    assert not result.clean
    assert any("MSCATTER" in m and "TLOAD" in m and "GM" in m for m in race_texts(result)), race_texts(result)


def test_gather_waits_for_its_index_tile(tmp_path):
    bad = without(tmp_path, LANG / "indexed_gm.cpp", "    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);",
                  "    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);")
    assert any("MGATHER" in m and "idx" in m for m in race_texts(check(load(bad))))


def test_gather_into_l1_runs_on_mte2_and_writes_its_gm_staging():
    k = load(LANG / "indexed_gm_l1.cpp")
    # (dst, table, indices in GM, staging in GM): the staging area is written, then read back.
    assert lowered(k) == [("MGATHER", "MTE2", ("w",), ("r", "r", "rw")), ("TLOAD", "MTE2", ("w",), ("r",))]
    assert check(k).clean


def test_gather_into_l1_then_reload_needs_the_mte2_barrier(tmp_path):
    bad = without(tmp_path, LANG / "indexed_gm_l1.cpp", "    pipe_barrier(PIPE_MTE2);")
    assert any("WAW" in m and "MGATHER" in m for m in race_texts(check(load(bad))))


def test_gather_into_l1_refuses_other_access_to_what_its_scalar_walk_touches(tmp_path, capsys):
    # The indices (and an element table) are read, and the staging area written, by the scalar
    # unit: no flag orders them, so a kernel touching the staging area elsewhere cannot be checked.
    bad = tmp_path / "staging_reloaded.cpp"
    bad.write_text((LANG / "indexed_gm_l1.cpp").read_text().replace("TLOAD(dst, src);", "TLOAD(dst, stage);"))
    rc = cli_main(["check", str(bad)])
    err = capsys.readouterr().err
    assert rc == 2
    assert f"{bad}:19:5: error: TLOAD at 21:5 touches its staging area 'stage'" in err


def test_only_the_first_global_tensor_is_required():
    op = INSTRUCTIONS["MGATHER"]
    assert op.gm == ("r", "r", "rw") and op.accesses(1) == ("w",) and op.accesses(2) == ("w", "r")


# ---------------------------------------------------------------- a2a3 forms


def test_a2a3_quant_with_scratch_and_two_window_extract():
    k = load(LANG / "a2a3_instruction_forms.cpp", entry="a2a3_forms")
    got = lowered(k)
    # TQUANT(dst, src, scale, tmp, &offset): five tiles read as either five-tile form, so the
    # operands that may be written are written.
    assert ("TQUANT", "V", ("w", "r", "rw", "rw", "rw"), ()) in got
    # TEXTRACT(dst0, dst1, src, r0, c0, r1, c1): both windows written, the source read.
    assert ("TEXTRACT", "V", ("w", "w", "r"), ()) in got
    # The window positions are run-time values the trace does not depend on (the source is read whole).
    assert check(k).clean


def test_two_window_extract_reads_the_whole_source(tmp_path):
    bad = without(tmp_path, LANG / "a2a3_instruction_forms.cpp", "    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);",
                  "    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);")
    texts = race_texts(check(load(bad, entry="a2a3_forms")))
    assert any("TEXTRACT" in m and "src" in m for m in texts), texts
    assert any("TQUANT" in m and "offset" in m for m in texts), texts


def test_a2a3_compare_gather_writes_counts_and_scratch(tmp_path):
    k = load(LANG / "a2a3_instruction_forms.cpp", entry="a2a3_compare_gather")
    assert ("TGATHER", "V", ("w", "r", "r", "w", "rw"), ()) in lowered(k)
    assert check(k).clean
    bad = without(tmp_path, LANG / "a2a3_instruction_forms.cpp", "    TASSIGN(mask, 0x4C0);")
    with pytest.raises(Exception, match="mask"):  # a2a3 uses the scratch tile: it needs a place
        check(load(bad, entry="a2a3_compare_gather"))


def test_block_size_is_the_block():
    k = load(LANG / "a2a3_instruction_forms.cpp", entry="a2a3_forms")
    assert {t.cpp_name: t.cols for t in k.tiles}["src"] == 64


def test_third_tile_of_a_move_is_read_when_it_is_the_fixpipe_scaling_tile():
    k = load(LANG / "fixpipe_scaling.cpp")
    assert lowered(k) == [("TMOV", "FIX", ("w", "r", "r"), ())]
    # The same counts with other tile types: a scratch (TMOV) or a second destination (TEXTRACT).
    assert tile_accesses(INSTRUCTIONS["TMOV"], ["Vec", "Vec", "Vec"]) == ("w", "r", "rw")
    assert tile_accesses(INSTRUCTIONS["TEXTRACT"], ["Vec", "Vec", "Vec"]) == ("w", "w", "r")
    assert tile_accesses(INSTRUCTIONS["TEXTRACT"], ["Vec", "Acc", "Scaling"]) == ("w", "r", "r")


def race_lines(result: pipes.CheckResult) -> dict[int, str]:
    return {d.loc.line: d.message for d in result.diagnostics()}


@pytest.mark.parametrize("arch", ["a2a3", "a5"])
def test_fixpipe_quantisation_forms_read_their_scaling_tile_on_the_fixpipe(arch):
    k = load(LANG / "fixpipe_fp_forms.cpp", arch=arch)
    assert lowered(k) == [
        ("TLOAD", "MTE2", ("w",), ("r",)),
        ("TMOV", "FIX", ("w", "r"), ()),  # L1 -> fixpipe buffer
        ("TSTORE_FP", "FIX", ("r", "r"), ("w",)),
        ("TMOV_FP", "FIX", ("w", "r", "r"), ()),
        ("TEXTRACT_FP", "FIX", ("w", "r", "r"), ()),
        ("TINSERT_FP", "FIX", ("w", "r", "r"), ()),
    ]
    assert check(k).clean


@pytest.mark.parametrize("arch, deleted, ops", [
    ("a5", (), ("TSTORE_FP", "TMOV_FP", "TEXTRACT_FP", "TINSERT_FP")),
    # a2a3's TSTORE_FP drains PIPE_FIX before it stores (pto-isa's implementation does): without
    # the barrier it still waits for the parameters, and so does every fixpipe instruction after it.
    ("a2a3", (), ()),
    ("a2a3", ("    TSTORE_FP(outGlobal, acc, scale);",), ("TMOV_FP", "TEXTRACT_FP", "TINSERT_FP")),
])
def test_fixpipe_quantisation_forms_wait_for_their_parameters(tmp_path, arch, deleted, ops):
    bad = without(tmp_path, LANG / "fixpipe_fp_forms.cpp", "    pipe_barrier(PIPE_FIX);", *deleted)
    got = race_lines(check(load(bad, arch=arch)))
    # Each form reads the parameters the TMOV at line 39 writes; the lines after it start at 40
    # once the barrier (and any deleted line) is gone.
    assert sorted(got) == list(range(40, 40 + len(ops))), got
    for line, op in zip(sorted(got), ops):
        assert got[line].startswith("data race (RAW) on FB") and f"{op} [FIX] reads scale" in got[line], got[line]


def test_fixpipe_quantisation_is_not_emulated(capsys):
    rc = cli_main(["simulate", str(LANG / "fixpipe_fp_forms.cpp")])
    err = capsys.readouterr().err
    assert rc == 2
    assert "fixpipe_fp_forms.cpp:41:5: error: the emulator does not implement TSTORE_FP" in err


def test_interleave_forms_write_both_destinations():
    k = load(LANG / "interleave.cpp", arch="a5")
    got = lowered(k)
    assert ("TINTERLEAVE", "V", ("w", "w", "r", "r"), ()) in got
    assert ("TDEINTERLEAVE", "V", ("w", "w", "r", "r"), ()) in got
    assert check(k).clean
    with pytest.raises(Exception, match="TINTERLEAVE"):  # pto-isa offers them on a5 only
        load(LANG / "interleave.cpp", arch="a2a3", core="vec")


def test_interleave_waits_for_both_loads(tmp_path):
    bad = without(tmp_path, LANG / "interleave.cpp", "    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);",
                  "    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);")
    got = [(d.loc.line, d.message) for d in check(load(bad, arch="a5")).diagnostics()]
    assert [line for line, _ in got] == [21, 21], got  # TINTERLEAVE, two lines up
    assert all("TINTERLEAVE [V] reads" in m for _, m in got), got
    assert {m.split(" reads ")[1].split()[0] for _, m in got} == {"a", "b"}, got


# ---------------------------------------------------------------- a5 forms


def test_a5_mx_quant_and_zz_move():
    k = load(LANG / "a5_instruction_forms.cpp", arch="a5", entry="a5_forms")
    got = lowered(k)
    assert ("TQUANT", "V", ("w", "r", "rw", "rw", "rw"), ()) in got
    assert ("TMOV", "V", ("w", "r", "rw"), ()) in got  # TMOV<0>(zz, exp, tmp)
    # CCE_VL / sizeof(float) rounded up to a BLOCK_SIZE multiple.
    assert {t.cpp_name: t.cols for t in k.tiles}["src"] == 64
    assert check(k).clean


def test_a5_mx_quant_and_move_results_are_stored_after_the_flag(tmp_path):
    bad = without(tmp_path, LANG / "a5_instruction_forms.cpp", "    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);",
                  "    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);")
    texts = race_texts(check(load(bad, arch="a5", entry="a5_forms")))
    assert any("TSTORE" in m and "TQUANT" in m and "fp8" in m for m in texts), texts
    assert any("TSTORE" in m and "TMOV" in m and "zz" in m for m in texts), texts


def test_a5_compare_gather_drops_its_unused_scratch():
    k = load(LANG / "a5_instruction_forms.cpp", arch="a5", entry="a5_gather_random")
    got = lowered(k)
    # The scratch tile is never placed: a5's form does not touch it, so it is no operand.
    assert ("TGATHER", "V", ("w", "r", "r", "w"), ()) in got
    assert ("TRANDOM", "V", ("w",), ()) in got  # key and counter are scalar words
    assert check(k).clean
    a2a3 = INSTRUCTIONS["TGATHER"]
    assert a2a3.accesses(5, "a2a3") == ("w", "r", "r", "w", "rw") and a2a3.accesses(5, "a5")[-1] == "-"


def test_scale_address_is_the_data_address_in_16_byte_units():
    k = load(LANG / "a5_instruction_forms.cpp", arch="a5", entry="a5_scale_addresses")
    assigns = {s.ref.tile.cpp_name: s.address for s in ir.walk(k.body) if isinstance(s, ir.TileAssign)}
    assert assigns == {"a": Const(0x4000), "b": Const(0x400)}


@pytest.mark.parametrize("path,arch", [
    ("indexed_gm.cpp", "a2a3"), ("indexed_gm_l1.cpp", "a2a3"), ("a2a3_instruction_forms.cpp", "a2a3"),
    ("a5_instruction_forms.cpp", "a5")])
def test_check_command_reads_them_clean(path, arch, capsys):
    rc = cli_main(["check", "--arch", arch, str(LANG / path)])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "0 race(s), 0 flag problem(s)" in out


def test_local_computed_from_a_data_only_argument_needs_no_value(tmp_path, capsys):
    k = load(LANG / "data_only_local.cpp")
    assert check(k).clean  # no value for `scale` given
    # TEXTRACT(dst, src, preQuantScalar, indexRow, indexCol): the window is the last two.
    assert window_position(["q", 0, 16]) == [0, 16] and window_position([3, 5]) == [3, 5]
    # The same local steering a branch makes the argument steer: a value is asked for.
    text = (LANG / "data_only_local.cpp").read_text()
    steer = text.replace("    TSTORE<Acc, G, AtomicType::AtomicNone>(outGlobal, acc, quant);",
                         "    if (quant > 7) {\n        TSTORE<Acc, G, AtomicType::AtomicNone>(outGlobal, acc, quant);\n    }")
    assert steer != text
    (tmp_path / "steer.cpp").write_text(steer)
    with pytest.raises(Exception, match="needs runtime value"):
        check(load(tmp_path / "steer.cpp"))
