"""`auto2manual` of cluster kernels: an AUTO file with code for the cube and the vector cores that
moves tiles between them (TPipe FIFOs, TSync_Custom flag pairs, a2a3 pipes through GM) is planned
once per core type around its cross-core operations and written as one file for every core type.

Each kernel of tests/kernels/cluster_auto/ has its expected rewrite beside it (`X.manual.cpp`),
and that rewrite is checked as a cluster (`check`: the cube core and both vector cores at once)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptorewrite.analysis import ir
from ptorewrite.arch import profile
from ptorewrite.cli import main
from ptorewrite.diagnostics import PtoError, Reporter
from ptorewrite.parse.frontend import FrontendOptions, load_kernels
from ptorewrite.transform.rewrite import RewriteOptions, planned_clusters, rewrite_kernels

KERNELS = Path(__file__).parent / "kernels" / "cluster_auto"
CASES = [("a5_c2v_fifo", "a5"), ("a5_c2v_store_slot", "a5"), ("a5_v2c_fifo", "a5"), ("a5_gm_handoff", "a5"),
         ("a5_shared_helper", "a5"), ("a2a3_gm_fifo", "a2a3"), ("a2a3_two_rings", "a2a3"),
         ("a2a3_ring_lags", "a2a3"), ("a2a3_unit_flag_push", "a2a3"), ("a2a3_fold_pops", "a2a3"),
         ("a2a3_first_pop_in_helper", "a2a3"), ("a5_gm_round_trip", "a5")]


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def sides_beside(folder: Path) -> None:
    """A copy of the header the a2a3 kernels include (a2a3_sides.hpp) in `folder`, for a kernel
    or a rewrite written there."""
    (folder / "a2a3_sides.hpp").write_text((KERNELS / "a2a3_sides.hpp").read_text())


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize("name, arch", CASES)
def test_a_cluster_kernel_rewrites_to_its_expected_text(capsys, tmp_path, name, arch):
    out = tmp_path / f"{name}.cpp"
    status, _, err = run(capsys, "auto2manual", "--arch", arch, KERNELS / f"{name}.cpp", "-o", out)
    assert status == 0, err
    assert out.read_text() == (KERNELS / f"{name}.manual.cpp").read_text()


@pytest.mark.parametrize("name, arch", CASES)
def test_the_expected_rewrite_checks_clean_on_every_core(capsys, name, arch):
    status, out, err = run(capsys, "check", "--arch", arch, KERNELS / f"{name}.manual.cpp")
    assert status == 0, out + err
    assert "(cluster: cube, vec0, vec1 run together): 0 race(s), 0 flag problem(s)" in out
    assert "error" not in err


@pytest.mark.parametrize("name, arch", [c for c in CASES if c[1] == "a2a3"])
def test_the_expected_rewrite_computes_what_the_auto_kernel_computes(capsys, name, arch):
    status, out, err = run(capsys, "verify", "--arch", arch, KERNELS / f"{name}.cpp", KERNELS / f"{name}.manual.cpp")
    assert status == 0, out + err
    assert "outputs equivalent" in out and "0 race(s), 0 flag problem(s)" in out


def _vector_lines(text: str) -> list[str]:
    body = text[text.index("if constexpr (VEC_SIDE)"):]
    return [line.strip().split("  //")[0] for line in body.splitlines() if "_flag(" in line]


def test_a_rings_local_slots_get_an_event_id_each_from_the_pipes_count():
    # The vector core's pop fills local slot n % 2 of the ring (n: the tiles popped before it):
    # the pop waits only until the slot it fills was read, two pops ago, and the reads after the
    # pop name the slot the pop filled, one count back. So the next pop runs while the
    # exponent of this tile is still being taken.
    lines = _vector_lines((KERNELS / "a2a3_gm_fifo.manual.cpp").read_text())
    assert "wait_flag(PIPE_V, PIPE_MTE2, (event_t)(pipe.cons.getTileId() % 2));" in lines
    assert "set_flag(PIPE_MTE2, PIPE_V, (event_t)((pipe.cons.getTileId() - 1) % 2));" in lines
    assert "set_flag(PIPE_V, PIPE_MTE2, (event_t)((pipe.cons.getTileId() - 1) % 2));" in lines
    # Both slots primed and drained (the declared local slot count: TPipe's default of 2).
    assert lines.count("set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);") == 1
    assert lines.count("set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);") == 1
    assert lines.count("wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);") == 1


def test_a_tile_read_two_pops_behind_its_ring_names_its_slot_two_counts_back():
    lines = _vector_lines((KERNELS / "a2a3_ring_lags.manual.cpp").read_text())
    assert "set_flag(PIPE_V, PIPE_MTE2, (event_t)((pairs.cons.getTileId() - 2) % 2));" in lines
    # The scale tile is popped on even panels only and read on every one: how many pops lie
    # between its pop and a read depends on the path, so its ring's slots share one id.
    assert not any("scales.cons" in line for line in lines)
    assert "wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);" in lines


def test_a_wrong_slot_in_the_rewrite_is_found(capsys, tmp_path):
    # `check` evaluates the pipe's count where the rewrite reads it: the pop's wait naming the
    # other slot breaks the rotation of the two ids.
    sides_beside(tmp_path)
    text = (KERNELS / "a2a3_gm_fifo.manual.cpp").read_text()
    good = "wait_flag(PIPE_V, PIPE_MTE2, (event_t)(pipe.cons.getTileId() % 2));"
    assert good in text
    path = tmp_path / "gm_fifo.cpp"
    path.write_text(text.replace(good, "wait_flag(PIPE_V, PIPE_MTE2, (event_t)((pipe.cons.getTileId() + 1) % 2));"))
    status, out, err = run(capsys, "check", "--arch", "a2a3", path)
    # The slot-0 wait of the second pop is gone: the read's set for slot 0 then finds its flag
    # still set (a lost signal).
    n = line_of(text, "set_flag(PIPE_V, PIPE_MTE2, (event_t)((pipe.cons.getTileId() - 1) % 2));")
    assert status == 1 and f"gm_fifo.cpp:{n}:13: error: deadlock: set_flag(PIPE_V, PIPE_MTE2, 0)" in err, out + err


def test_a_ring_flag_hands_over_its_own_ring_only(capsys, tmp_path):
    # The cube core pushes into one ring on FIX and pops from the other on MTE2: the two rings'
    # slots (in GM, and in the consumers' buffers) are apart, so nothing orders the pop after the
    # push on this core; the vector core's pop of the next product does not wait for its push
    # (MTE3) either. The rewrite still checks clean (above).
    out = tmp_path / "two_rings.cpp"
    status, _, err = run(capsys, "auto2manual", "--arch", "a2a3", KERNELS / "a2a3_two_rings.cpp", "-o", out)
    assert status == 0, err
    text = out.read_text()
    assert "PIPE_FIX, PIPE_MTE2" not in text and "PIPE_MTE3, PIPE_MTE2" not in text
    assert "both core types access it" not in text


@pytest.mark.parametrize("panels", [3, 5])
def test_consecutive_pushes_into_a_gm_ring_write_different_slots(capsys, tmp_path, panels):
    # Push n stores into GM slot n % 2: the next push's store is to the other slot (no barrier
    # between the two stores on FIX), and the push two later, into the same slot, waits for the
    # ring's free signal first (the pipe's protocol orders them). `check` of the rewrite agrees.
    sides_beside(tmp_path)
    out = tmp_path / "gm_fifo.cpp"
    status, _, err = run(capsys, "auto2manual", "--arch", "a2a3", f"-DPANELS={panels}",
                         KERNELS / "a2a3_gm_fifo.cpp", "-o", out)
    assert status == 0, err
    assert "pipe_barrier" not in out.read_text()
    status, text, err = run(capsys, "check", "--arch", "a2a3", f"-DPANELS={panels}", out)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in text, text + err


def test_a_deleted_line_of_the_rewrite_is_found(capsys, tmp_path):
    # The same check fails once one of the planned waits is gone.
    text = (KERNELS / "a5_gm_handoff.manual.cpp").read_text()
    n = line_of(text, "wait_flag(PIPE_MTE2, PIPE_V")
    lines = text.splitlines(True)
    path = tmp_path / "handoff.cpp"
    path.write_text("".join(lines[:n - 1] + ["\n"] + lines[n:]))
    status, _, err = run(capsys, "check", "--arch", "a5", path)
    assert status == 1 and "data race (RAW)" in err and "vec0:UB" in err


@pytest.mark.parametrize("rounds", [2, 3, 4])
def test_a_flag_objects_wait_and_set_order_only_their_own_side(capsys, tmp_path, rounds):
    # Two GM workspaces, each guarded by a flag object: the vector core's wait for the next
    # product needs nothing of its own earlier store (a wait orders only what comes after it),
    # and what comes after a set needs nothing of it (a set orders only what came before). So
    # the vector core's next load is not held behind its last store (no MTE3 -> MTE2 flag is set
    # after the store; what the load does wait for on MTE3 is the wait for the cube to have read
    # that slot), nor the cube core's wait for the weights behind its store of the scores.
    out = tmp_path / "round_trip.cpp"
    status, _, err = run(capsys, "auto2manual", "--arch", "a5", f"-DROUNDS={rounds}",
                         KERNELS / "a5_gm_round_trip.cpp", "-o", out)
    assert status == 0, err
    text = out.read_text()
    vec = [line.strip().split("  //")[0] for line in text[text.index("__DAV_VEC__"):].splitlines()]
    assert not vec[vec.index("scored.wait();") - 1].startswith("wait_flag")
    after_store = vec[vec.index("TSTORE(gWeight, weight);"):vec.index("weighed.record();")]
    assert not any(line.startswith("set_flag(PIPE_MTE3, PIPE_MTE2") for line in after_store), after_store
    cube = [line.strip().split("  //")[0] for line in text[:text.index("__DAV_VEC__")].splitlines()]
    between = cube[cube.index("scored.record();"):cube.index("weighed.wait();")]
    assert not any("PIPE_MTE2" in line for line in between), between
    status, report, err = run(capsys, "verify", "--arch", "a5", f"-DROUNDS={rounds}",
                              KERNELS / "a5_gm_round_trip.cpp", out)
    assert status == 0 and "outputs equivalent" in report and "0 race(s), 0 flag problem(s)" in report, report + err


def test_a_popped_slot_read_on_another_pipe_waits_for_the_pop_and_is_read_before_the_free(capsys):
    # The pop waits on PIPE_V; the store reads the slot on MTE3 and the free signals from PIPE_V.
    text = (KERNELS / "a5_c2v_store_slot.manual.cpp").read_text()
    body = text[text.index("TPOP<"):text.index("#endif", text.index("TPOP<"))]
    assert [line.strip().split("  //")[0] for line in body.splitlines()[1:] if line.strip() and "}" not in line] == [
        "set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);",
        "wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);",
        "TSTORE(gOut, received);",
        "set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);",
        "wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);",
        "TFREE<Ring, TileSplitAxis::TILE_UP_DOWN>(ring);",
    ]


def _vector_core(defines: list[str]) -> ir.Kernel:
    kernels = load_kernels(KERNELS / "a5_c2v_fifo.cpp", FrontendOptions(arch="a5", defines=defines))
    return next(k for k in planned_clusters(kernels) if k.core == "vec")


@pytest.mark.parametrize("slots", [2, 4])
def test_the_fifo_slot_region_is_its_declared_count_of_slots(capsys, tmp_path, slots):
    # The ring the vector core pops from is SLOTS x 2 KiB of UB from the address the pipe names;
    # the kernel's own tiles are placed around it, not inside and not further out.
    vec = _vector_core([f"SLOTS={slots}"])
    assert [(r.buffer, r.lo, r.hi) for r in vec.cluster.rings] == [("UB", 0, slots * 2048)]
    out = tmp_path / "c2v.cpp"
    status, _, err = run(capsys, "auto2manual", "--arch", "a5", f"-DSLOTS={slots}", KERNELS / "a5_c2v_fifo.cpp",
                         "-o", out)
    assert status == 0, err
    text = out.read_text()
    assert "TPipe<4, Direction::DIR_C2V, 16 * 32 * sizeof(float), SLOTS>" in text  # the count as written
    assert f"TASSIGN(result, 0x{slots * 2048:x});  // UB 2 KiB (vec core's plan)" in text
    assert "TASSIGN(received" not in text  # the pop points it at its slot
    status, out_text, err = run(capsys, "check", "--arch", "a5", f"-DSLOTS={slots}", out)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in out_text, out_text + err


def test_a_cluster_kernel_needs_every_core_type(capsys, tmp_path):
    path = KERNELS / "a5_c2v_fifo.cpp"
    out = tmp_path / "x.cpp"
    status, _, err = run(capsys, "auto2manual", "--arch", "a5", "--core", "cube", path, "-o", out)
    assert status == 2 and not out.exists()
    assert err.startswith(f"{path}:{line_of(path.read_text(), 'TPUSH<')}:13: error: the cube core signals the other "
                          "cores of its cluster here, but the other core type's code was not read"), err


def test_a_manual_cluster_kernel_is_refused(capsys, tmp_path):
    path = Path(__file__).parent / "kernels" / "cluster" / "fifo_c2v.cpp"
    status, _, err = run(capsys, "auto2manual", "--arch", "a5", path, "-o", tmp_path / "x.cpp")
    assert status == 2 and "already a manual-mode kernel" in err


def test_a_tile_of_the_other_core_type_used_by_a_core_is_a_located_error(tmp_path):
    # The cube core writing a vector tile outside a FIFO: its address would have to be one both
    # core types agree on.
    text = (KERNELS / "a5_c2v_store_slot.cpp").read_text().replace(
        "        TPUSH<Ring, Acc, TileSplitAxis::TILE_UP_DOWN>(ring, acc);",
        "        TPUSH<Ring, Acc, TileSplitAxis::TILE_UP_DOWN>(ring, acc);\n        TMOV(spare, acc);").replace(
        "    Acc acc;\n", "    Acc acc;\n    Part spare;\n")
    path = tmp_path / "foreign.cpp"
    path.write_text(text)
    kernels = load_kernels(path, FrontendOptions(arch="a5"))
    with pytest.raises(PtoError) as e:
        rewrite_kernels(kernels, profile("a5"), Reporter(), RewriteOptions())
    d = e.value.diagnostics[0]
    assert d.loc.line == line_of(text, "TMOV(spare, acc)")
    assert "a tile in the other core type's UB" in d.message


def test_the_explanation_and_memory_report_of_a_cluster_rewrite(capsys, tmp_path):
    record = tmp_path / "why.json"
    status, out, err = run(capsys, "auto2manual", "--arch", "a5", KERNELS / "a5_c2v_fifo.cpp", "-o",
                           tmp_path / "x.cpp", "--explain", record, "--memory-report")
    assert status == 0, err
    assert "memory plan for kernel c2v_fifo (a5, vec core)" in out and "memory plan for kernel c2v_fifo (a5, cube core)" in out
    assert "0x00000-0x00fff      4 KiB  (reserved)" in out  # the ring of two 2 KiB slots
    assert record.stat().st_size > 0


def test_a_ring_past_its_buffer_is_a_located_error(capsys, tmp_path):
    text = (KERNELS / "a5_c2v_fifo.cpp").read_text().replace("Ring ring((__gm__ void *)nullptr, 0x0, 0x0);",
                                                               "Ring ring((__gm__ void *)nullptr, 0x3f800, 0x0);")
    path = tmp_path / "past.cpp"
    path.write_text(text)
    status, _, err = run(capsys, "auto2manual", "--arch", "a5", path, "-o", tmp_path / "x.cpp")
    assert status == 2 and not (tmp_path / "x.cpp").exists()
    assert err.startswith(f"{path}:{line_of(text, 'TPOP<')}:13: error: the FIFO slots of received take UB bytes "
                          "0x3f800-0x40800, past the UB capacity (0x40000)"), err


def test_a_helper_both_core_types_call_gets_a_branch_per_core_type():
    text = (KERNELS / "a5_shared_helper.manual.cpp").read_text()
    helper = text[text.index("TLOAD(src, g);"):text.index("TMOV(dst, src);")]
    assert [line.strip().split("  //")[0] for line in helper.splitlines()[1:]] == [
        "#if defined(__DAV_CUBE__)",
        "set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);",
        "#elif defined(__DAV_VEC__)",
        "set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);",
        "#endif",
        "#if defined(__DAV_CUBE__)",
        "wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);",
        "#elif defined(__DAV_VEC__)",
        "wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);",
        "#endif",
        "",
    ]


@pytest.mark.parametrize("name, entries", [("mpipe_c2v", ("0x0", "0x800")), ("mpipe_v2c", ("0x0", "0x800"))])
def test_an_explicit_index_fifo_rewrites_with_its_entries_placed_for_both_core_types(capsys, tmp_path, name, entries):
    # The hand-written explicit-index FIFO kernels without their TASSIGN and sync lines: the
    # consumer places its entry tiles, and the producer, whose move writes at an entry, compiles
    # the same placement.
    manual = Path(__file__).parent / "kernels" / "cluster" / f"{name}.cpp"
    kept = [line for line in manual.read_text().splitlines(True)
            if not line.strip().startswith(("TASSIGN(", "set_flag(", "wait_flag(", "pipe_barrier("))]
    auto, out = tmp_path / f"{name}.cpp", tmp_path / f"{name}.manual.cpp"
    auto.write_text("".join(kept))
    (tmp_path / "cluster_preambles.hpp").write_text((manual.parent / "cluster_preambles.hpp").read_text())
    status, _, err = run(capsys, "auto2manual", "--arch", "a5", auto, "-o", out)
    assert status == 0, err
    text = out.read_text()
    before = text[:text.index("Fifo fifo(")]
    assert "#if" not in before.split("entries[2];")[1]
    for k, addr in enumerate(entries):
        assert f"TASSIGN(entries[{k}], {addr});" in before
    status, out_text, err = run(capsys, "check", "--arch", "a5", out)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in out_text, out_text + err


UNIT_FLAG_PUSH = KERNELS / "a2a3_unit_flag_push.cpp"


def test_a_push_through_a_unit_flag_fifo_is_a_phased_store(capsys):
    # pto-isa's TMPipe built with EN_UNIT_FLAG stores the accumulator it pushes with
    # STPhase::Final: the store waits for the final matmul's unit flag and clears it.
    text = UNIT_FLAG_PUSH.read_text()
    push = line_of(text, "TPUSH(acc, fifo);")
    status, out, err = run(capsys, "ir", "--core", "cube", UNIT_FLAG_PUSH)
    assert status == 0, err
    assert f"TSTORE<STPhase::Final>(out gm fifo.entry, acc)  [FIX]  @{push}:13" in out


def test_the_unit_flags_order_a_pushed_accumulator_with_its_matmuls(capsys, tmp_path):
    # The final matmul publishes the accumulator and the push's phased store reads it out, so
    # the rewrite has no M -> FIX flag before the push and no FIX -> M flag before the next
    # panel's matmul (the unit flags are the hardware's handshake, whatever syncs are added).
    sides_beside(tmp_path)
    text = (KERNELS / "a2a3_unit_flag_push.manual.cpp").read_text()
    assert "PIPE_M, PIPE_FIX" not in text and "PIPE_FIX, PIPE_M" not in text
    status, out, err = run(capsys, "verify", "--arch", "a2a3", UNIT_FLAG_PUSH, KERNELS / "a2a3_unit_flag_push.manual.cpp")
    assert status == 0 and "outputs equivalent" in out and "0 race(s), 0 flag problem(s)" in out, out + err
    # The same rewrite through a FIFO without EN_UNIT_FLAG: its push is a plain store, nothing
    # orders it with the matmuls, and the final matmuls' flags are never cleared.
    plain = tmp_path / "plain_push.cpp"
    plain.write_text(text.replace("Product, Half, true, 0>", "Product, Half, false, 0>"))
    status, out, err = run(capsys, "check", "--arch", "a2a3", plain)
    assert status == 1, out + err
    push = line_of(text, "TPUSH(acc, fifo);")
    assert f"plain_push.cpp:{push}:13: error: data race (RAW) on cube:L0C" in err
    assert "needs cube.M -> cube.FIX" in err
    assert f"the TSTORE at {push}:13 that reads the earlier result has no STPhase::Final" in err
    # Without EN_UNIT_FLAG and phases, the same kernel is planned with both flags.
    auto = tmp_path / "plain_auto.cpp"
    auto.write_text(UNIT_FLAG_PUSH.read_text().replace("Product, Half, true, 0>", "Product, Half, false, 0>")
                    .replace("<AccPhase::Partial>", "").replace("<AccPhase::Final>", ""))
    out_path = tmp_path / "plain_auto.manual.cpp"
    status, _, err = run(capsys, "auto2manual", "--arch", "a2a3", auto, "-o", out_path)
    assert status == 0, err
    rewritten = out_path.read_text()
    assert "// RAW acc: M -> FIX" in rewritten and "// WAR acc: FIX -> M (next iteration)" in rewritten


def test_a_push_through_a_unit_flag_ring_is_a_phased_store(capsys, tmp_path):
    # pto-isa's a2a3 TPipe takes EN_UNIT_FLAG too (its seventh argument): an accumulator's plain
    # push is then a store with STPhase::Final, and the rewrite leaves the M <-> FIX order to it.
    sides_beside(tmp_path)
    src = (KERNELS / "a2a3_gm_fifo.cpp").read_text()
    kernel = tmp_path / "ring_unit_flag.cpp"
    kernel.write_text(src.replace("32 * 32 * sizeof(float), 2>", "32 * 32 * sizeof(float), 2, 2, false, true>")
                      .replace("TMATMUL(acc, lhs, rhs);", "TMATMUL<AccPhase::Final>(acc, lhs, rhs);"))
    push = line_of(src, "TPUSH<Ring")
    status, out, err = run(capsys, "ir", "--core", "cube", "--arch", "a2a3", kernel)
    assert status == 0, err
    assert f"TSTORE<STPhase::Final>(out gm pipe.slot, acc)  [FIX]  @{push}:13" in out, out
    out_path = tmp_path / "ring_unit_flag.manual.cpp"
    status, _, err = run(capsys, "auto2manual", "--arch", "a2a3", kernel, "-o", out_path)
    assert status == 0, err
    assert "PIPE_M, PIPE_FIX" not in out_path.read_text() and "PIPE_FIX, PIPE_M" not in out_path.read_text()
    status, out, err = run(capsys, "check", "--arch", "a2a3", out_path)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in out, out + err


def test_verify_without_a_manual_kernel_runs_the_auto_kernel_as_read(capsys, tmp_path):
    # The cube side's product in a helper that declares its L0 tiles: the rewrite gives them
    # copies counted by the helper, a counter its statements step and the planned cube core's
    # body starts. Planned on the kernels verify had read, the AUTO cluster then stepped a counter
    # nothing started ("'lhsCopy' has no value here"); the rewrite plans a reading of its own.
    sides_beside(tmp_path)
    src = (KERNELS / "a2a3_gm_fifo.cpp").read_text()
    helper = ("template <typename Panel, typename Acc>\n"
              "AICORE inline void panel_product(Panel &l1a, Panel &l1b, Acc &acc)\n{\n"
              "    for (int k = 0; k < 1; ++k) {\n"
              "        TileLeft<half, 32, 32> lhs;\n        TileRight<half, 32, 32> rhs;\n"
              "        TMOV(lhs, l1a);\n        TMOV(rhs, l1b);\n        TMATMUL(acc, lhs, rhs);\n    }\n}\n\n")
    body = "            TMOV(lhs, lhsL1);\n            TMATMUL(acc, lhs, rhs);\n"
    assert body in src and "        TMOV(rhs, rhsL1);\n" in src
    kernel = tmp_path / "helper_l0.cpp"
    kernel.write_text(src.replace("        TileLeft<half, 32, 32> lhs;\n        TileRight<half, 32, 32> rhs;\n", "")
                      .replace("        TMOV(rhs, rhsL1);\n", "")
                      .replace(body, "            panel_product(lhsL1, rhsL1, acc);\n")
                      .replace('extern "C"', helper + 'extern "C"', 1))
    out_path = tmp_path / "helper_l0.manual.cpp"
    status, _, err = run(capsys, "auto2manual", "--arch", "a2a3", kernel, "-o", out_path)
    assert status == 0, err
    assert "static uint32_t lhsCopy = 1;" in out_path.read_text()
    status, out, err = run(capsys, "verify", "--arch", "a2a3", kernel)
    assert status == 0, out + err
    assert "vs the rewrite: outputs equivalent" in out and "0 race(s), 0 flag problem(s)" in out, out
