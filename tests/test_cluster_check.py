"""`check` on cluster kernels: the cube core and both vector cores of one source run together, with
set_intra_block / wait_intra_block as real synchronisation between them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ptorewrite.cli import main

CLUSTER = Path(__file__).parent / "kernels" / "cluster"
HANDOFF = CLUSTER / "handoff.cpp"


@pytest.fixture(autouse=True)
def _preambles_beside_copies(tmp_path):
    """The cluster kernels include "cluster_preambles.hpp" from their own folder: an edited copy a
    test writes into tmp_path finds it beside it there too."""
    shutil.copy(CLUSTER / "cluster_preambles.hpp", tmp_path)


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def without(tmp_path, needle: str) -> tuple[Path, str]:
    text = HANDOFF.read_text()
    lines = text.splitlines(True)
    n = line_of(text, needle)
    out = tmp_path / "handoff.cpp"
    out.write_text("".join(lines[:n - 1] + ["\n"] + lines[n:]))  # blanked: the other lines keep their numbers
    return out, text


def test_clean_cluster_kernel_runs_every_core(capsys):
    status, out, err = run(capsys, "check", "--arch", "a5", HANDOFF)
    assert status == 0 and not err
    assert "(cluster: cube, vec0, vec1 run together): 0 race(s), 0 flag problem(s)" in out


@pytest.mark.parametrize("deleted, reported, message", [
    # The cube core overwrites the workspace before the second vector core has read it.
    ("wait_intra_block(PIPE_FIX, 17);  //", "TLOAD(x, gPart);",
     ("data race (RAW or WAR, across cores) on GM argument ws bytes [0x800, 0x1000): TLOAD [vec1.MTE2] reads gPart, and TSTORE "
      "[cube.FIX]")),
    ("set_intra_block(PIPE_FIX, 16);", "wait_intra_block(PIPE_MTE2, 0);",
     "deadlock: wait_intra_block(PIPE_MTE2, 0) on vec1 is never satisfied"),
    ("set_intra_block(PIPE_MTE2, 1);", "wait_intra_block(PIPE_FIX, 1);   //",
     "deadlock: wait_intra_block(PIPE_FIX, 1) on cube is never satisfied"),
    ("wait_intra_block(PIPE_MTE2, 0);", "TLOAD(x, gPart);",
     "data race (RAW or WAR, across cores) on GM argument ws bytes [0x0, 0x800): TLOAD [vec0.MTE2] reads gPart, and TSTORE [cube.FIX]"),
    # An intra-core flag of one vector core: both vector cores run the code, both race.
    ("wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);", "TSTORE(gOut, x);",
     "data race (RAW) on vec0:UB bytes [0x0, 0x800): TSTORE [vec0.MTE3] reads x while TMULS [vec0.V]"),
])
def test_a_deleted_flag_is_reported_at_its_line(capsys, tmp_path, deleted, reported, message):
    path, text = without(tmp_path, deleted)
    status, _, err = run(capsys, "check", "--arch", "a5", path)
    assert status == 1
    assert f"{path}:{line_of(text, reported)}:" in err
    assert message in err


def test_deleted_wait_leaves_a_signal_raised_at_the_end(capsys, tmp_path):
    path, text = without(tmp_path, "wait_intra_block(PIPE_FIX, 17);  //")
    _, _, err = run(capsys, "check", "--arch", "a5", path)
    n = line_of(text, "set_intra_block(PIPE_MTE2, 1);")
    # Nothing of this kernel hangs on it: a warning, not a flag problem.
    assert (f"{path}:{n}:9: warning: set_intra_block(PIPE_MTE2, 1) on vec1 raises a semaphore no "
            "wait_intra_block of the other core takes") in err


def test_waits_in_a_cycle_are_a_deadlock(capsys):
    path = CLUSTER / "crossed_waits.cpp"
    text = path.read_text()
    status, out, err = run(capsys, "check", "--arch", "a5", path)
    assert status == 1 and "0 race(s), 2 flag problem(s)" in out
    cube = line_of(text, "wait_intra_block(PIPE_MTE2, 3);")
    vec = line_of(text, "wait_intra_block(PIPE_MTE2, 2);")
    assert f"{path}:{cube}:5: error: deadlock: wait_intra_block(PIPE_MTE2, 3) on cube waits for a signal" in err
    assert f"{path}:{vec}:5: error: deadlock: wait_intra_block(PIPE_MTE2, 2) on vec0 waits for a signal" in err


def test_a_core_without_instructions_still_takes_part(capsys):
    # The cube side of crossed_waits.cpp only signals: its kernel is kept for the cluster and `ir` shows it.
    status, out, _ = run(capsys, "ir", "--arch", "a5", CLUSTER / "crossed_waits.cpp")
    assert status == 0 and "core cube" in out and "set_intra_block(MTE2, semaphore 18)" in out
    assert "# kernel 1 of 2: crossed (core vec)" in out and "# kernel 2 of 2: crossed (core cube)" in out


def test_one_core_type_chosen_checks_that_core_alone_with_a_warning(capsys):
    status, out, err = run(capsys, "check", "--arch", "a5", "--core", "vec", "--set", "subblock_idx=1", HANDOFF)
    assert status == 0 and "run together" not in out
    assert "warning: --core vec: only this core's pipes are checked (core vec)" in err


def test_simulate_with_one_core_type_times_that_core_alone_and_says_so(capsys):
    status, out, err = run(capsys, "simulate", "--arch", "a5", "--core", "cube", HANDOFF)
    assert status == 0 and "cycles" in out and "cores run at once" not in out
    assert "warning: --core cube: only this core's pipes are timed (core cube)" in err


OVERFLOW = """\
#include <pto/pto-inst.hpp>
using namespace pto;

extern "C" __global__ AICORE void many(__gm__ float *out, __gm__ float *in)
{
#if defined(__DAV_CUBE__)
    for (int i = 0; i < SIGNALS; ++i) {
        wait_intra_block(PIPE_MTE2, 5);
        wait_intra_block(PIPE_MTE2, 21);
    }
#endif
#if defined(__DAV_VEC__)
    using RowT = Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, 8, 64>;
    using GmRow = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
    RowT x;
    TASSIGN(x, 0x0);
    GmRow src(in + get_subblockid() * 8 * 64);
    TLOAD(x, src);
    for (int i = 0; i < SIGNALS; ++i) {
        set_intra_block(PIPE_MTE2, 5);
    }
#endif
}
"""


@pytest.mark.parametrize("signals, clean", [(15, True), (16, False)])
def test_a_semaphore_holds_fifteen_signals(capsys, tmp_path, signals, clean):
    path = tmp_path / "many.cpp"
    path.write_text(OVERFLOW)
    status, _, err = run(capsys, "check", "--arch", "a5", f"-DSIGNALS={signals}", path)
    assert status == (0 if clean else 1)
    if not clean:
        assert f"{path}:20:9: error: deadlock: set_intra_block(PIPE_MTE2, 5) on vec0 can raise its semaphore a " \
               "16th time" in err


def test_semaphore_ids_name_the_receiving_core():
    from ptorewrite.analysis.execution import Step
    from ptorewrite.emulator.pipes import semaphore

    def step(core, kind, sem):
        return Step(0, kind, "MTE2", None, 0, event=sem, core=core)

    assert semaphore(step("cube", "xset", 3)) == ("vec0", 3)
    assert semaphore(step("cube", "xset", 19)) == ("vec1", 3)
    assert semaphore(step("cube", "xwait", 19)) == ("cube", 19)
    assert semaphore(step("vec1", "xset", 3)) == ("cube", 19)
    assert semaphore(step("vec0", "xset", 3)) == ("cube", 3)
    assert semaphore(step("vec1", "xwait", 3)) == ("vec1", 3)


@pytest.mark.parametrize("mode, races", [(0, 0), (1, 2), (2, 2), (3, 2)])
def test_an_accumulator_move_writes_the_ub_its_mode_names(capsys, mode, races):
    # Only the first vector core signals that its UB tile is free: a move into it is ordered, a
    # move into the second core's UB (SingleModeVec1, or a dual mode's other half) is not.
    path = CLUSTER / "acc_to_ub.cpp"
    status, out, err = run(capsys, "check", "--arch", "a5", f"-DMODE={mode}", path)
    assert status == (1 if races else 0) and f"{races} race(s), 0 flag problem(s)" in out
    if races:
        assert "data race (WAW, across cores) on vec1:UB bytes [0x0, 0x400): TLOAD [vec1.MTE2] writes y, and TMOV [cube.FIX]" in err
        assert "vec0:UB" not in err


FIFO = CLUSTER / "fifo_c2v.cpp"


def test_a_fifo_without_slot_reuse_is_clean(capsys):
    # Two tiles through two slots: each vector core pops its half, the cube core's TMOV and the
    # pops are ordered by the FIFO's "filled" signals.
    status, out, err = run(capsys, "check", "--arch", "a5", "-DTILES=2", FIFO)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in out
    assert "error" not in err


def test_a_fifo_push_past_its_depth_without_pops_deadlocks(capsys):
    # Six tiles through two slots, but each vector core pops (and frees) only two: the cube core
    # runs out of free slots, and its wait for one never returns.
    status, _, err = run(capsys, "check", "--arch", "a5", "-DTILES=6", "-DPOPS=2", FIFO)
    assert status == 1
    decl = line_of(FIFO.read_text(), "Fifo fifo(")
    assert f"{FIFO}:{decl}:5: error: deadlock: wait_intra_block(PIPE_FIX, 1) on cube is never satisfied" in err


def test_a_reused_fifo_slot_races_with_the_construction_credits(capsys):
    # pto-isa's a5 TPipe gives the producer SlotNum/period free signals when it is constructed, on
    # top of the first SlotNum pushes that never wait; with counting semaphores the producer's first
    # wait takes one of those, so the third push overwrites slot 0 while a vector core may still be
    # reading the first tile.
    status, out, err = run(capsys, "check", "--arch", "a5", "-DTILES=4", FIFO)
    text = FIFO.read_text()
    assert status == 1 and "1 race(s), 0 flag problem(s)" in out
    assert (f"{FIFO}:{line_of(text, 'TMULS(y, slot')}:13: error: data race (RAW or WAR, across cores) on vec0:UB bytes [0x0, 0x800): "
            f"TMULS [vec0.V] reads slot, and TMOV [cube.FIX] at {line_of(text, 'TPUSH<')}:13 writes fifo's slot") in err


def test_a_vector_to_cube_fifo_meets_both_halves_in_one_slot(capsys, tmp_path):
    path = CLUSTER / "fifo_v2c.cpp"
    status, out, err = run(capsys, "check", "--arch", "a5", path)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in out and "error" not in err
    # Without the pop's wait the cube core reads the slot while the vector cores write it.
    text = path.read_text()
    broken = tmp_path / "fifo_v2c.cpp"
    broken.write_text(text.replace("TPOP<Fifo, Whole, TileSplitAxis::TILE_UP_DOWN>(fifo, m);",
                                   "TASSIGN(m, 0x20000);"))
    status, out, err = run(capsys, "check", "--arch", "a5", broken)
    assert status == 1
    push, use = line_of(text, "TPUSH<"), line_of(text, "TMOV(aLeft, m);")
    # Reported at the reader: across cores neither access comes first.
    assert (f"{broken}:{use}:9: error: data race (RAW or WAR, across cores) on cube:L1 bytes [0x20000, 0x20040): "
            f"TMOV [cube.MTE1] reads m, and TINSERT [vec0.MTE3] at {push}:9 writes fifo's slot") in err


@pytest.mark.parametrize("old, new, message", [
    ("set_intra_block(PIPE_FIX, 16);", "set_intra_block(PIPE_ALL, 16);",
     "set_intra_block names one pipe of the core (PIPE_S, PIPE_V, PIPE_MTE1/2/3, PIPE_M or PIPE_FIX), not PIPE_ALL"),
    ("set_intra_block(PIPE_FIX, 16);", "set_intra_block(PIPE_FIX, 32);", "semaphore id 32 is out of range 0..31"),
    ("set_intra_block(PIPE_MTE2, 1);", "set_intra_block(PIPE_MTE2, 17);",
     "semaphore id 17 is outside 0..15: a vector core names its cluster's semaphores 0..15"),
])
def test_bad_cross_core_flags_are_located_errors(capsys, tmp_path, old, new, message):
    text = HANDOFF.read_text()
    path = tmp_path / "handoff.cpp"
    path.write_text(text.replace(old, new))
    status, out, err = run(capsys, "check", "--arch", "a5", path)
    assert status == 2 and out == ""
    assert err.startswith(f"{path}:{line_of(text, old)}:") and message in err


OPTIONAL_LEFT = CLUSTER / "optional_left.cpp"


def test_a_null_tested_pointer_is_checked_null_and_not_null(capsys):
    status, out, err = run(capsys, "check", "--arch", "a5", OPTIONAL_LEFT)
    assert status == 0 and not err
    assert "(a2 null) (cluster: cube, vec0, vec1 run together): 0 race(s)" in out
    assert "(a2 not null) (cluster: cube, vec0, vec1 run together): 0 race(s)" in out


def test_a_sync_only_the_non_null_outcome_needs_is_still_checked(capsys, tmp_path):
    text = OPTIONAL_LEFT.read_text()
    path = tmp_path / "optional_left.cpp"
    path.write_text(text.replace("pipe_barrier(PIPE_MTE2);", ""))
    status, out, err = run(capsys, "check", "--arch", "a5", path)
    assert status == 1
    assert (f"{path}:{line_of(text, 'TLOAD(aMat, gA2);')}:9: error: data race (WAW) on cube:L1 bytes [0x0, 0x800)"
            in err)
    assert "(a2 null) (cluster: cube, vec0, vec1 run together): 0 race(s)" in out
    assert "(a2 not null) (cluster: cube, vec0, vec1 run together): 1 race(s)" in out
    # The user's value chooses one outcome.
    status, out, _ = run(capsys, "check", "--arch", "a5", "--set", "a2=0", path)
    assert status == 0 and "(a2 " not in out


FIFO_FIXPIPE = CLUSTER / "fifo_fixpipe.cpp"


def test_a_fixpipe_push_writes_its_converted_type_and_reads_the_scales(capsys, tmp_path):
    status, out, err = run(capsys, "check", "--arch", "a5", FIFO_FIXPIPE)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in out and "error" not in err
    text = FIFO_FIXPIPE.read_text()
    push = line_of(text, "TPUSH<")
    # The per-channel scales are an operand of the push: without the barrier it reads them
    # while the move that writes them may still run.
    path = tmp_path / "fifo_fixpipe.cpp"
    path.write_text(text.replace("pipe_barrier(PIPE_FIX);", ""))
    status, _, err = run(capsys, "check", "--arch", "a5", path)
    assert status == 1
    assert (f"{path}:{push}:9: error: data race (RAW) on cube:FB bytes [0x0, 0x100): TMOV [cube.FIX] reads "
            f"scales while TMOV [cube.FIX] at {line_of(text, 'TMOV(scales, scaleMat);')}:9 writes scales") in err
    # The slot holds the 16x32 halves the fixpipe converts to, not the accumulator's floats.
    status, out, _ = run(capsys, "ir", "--arch", "a5", FIFO_FIXPIPE)
    assert f"fifo.slot: Vec fp16 16x32 RowMajor, 1024 B  @{push}:9" in out
    # A per-channel quantization needs the scales named first.
    path.write_text(text.replace("SET_QUANT_VECTOR(scales);", ""))
    status, _, err = run(capsys, "check", "--arch", "a5", path)
    assert status == 2
    assert f"{path}:{push}:9: error: TPUSH with VDEQF16 reads per-channel scales: SET_QUANT_VECTOR" in err


FIFO_GM = CLUSTER / "fifo_gm.cpp"


def test_a_fifo_through_gm_orders_the_stores_into_its_slot(capsys, tmp_path):
    status, out, err = run(capsys, "check", "--arch", "a5", FIFO_GM)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in out and "error" not in err
    text = FIFO_GM.read_text()
    path = tmp_path / "fifo_gm.cpp"
    # Each vector core's view is its half of the slot the cube core allocated (slot 0).
    status, out, _ = run(capsys, "ir", "--arch", "a5", FIFO_GM)
    assert "at ring + slot@slot B" in out and "at ring + part@slot B" in out
    # Reading the slot without popping it: nothing orders the cube core's store before the load.
    path.write_text(text.replace("TPOP<Fifo, HalfView, TileSplitAxis::TILE_UP_DOWN>(fifo, part);",
                                 "TASSIGN(part, ring + get_subblockid() * 16 * 32);"))
    status, _, err = run(capsys, "check", "--arch", "a5", path)
    assert status == 1
    assert (f"{path}:{line_of(text, 'TLOAD(x, part);')}:9: error: data race (RAW or WAR, across cores) on GM argument ring bytes "
            f"[0x0, 0x800): TLOAD [vec0.MTE2] reads part, and TSTORE [cube.FIX] at "
            f"{line_of(text, 'TSTORE(slot, product);')}:9 writes slot") in err
    # A push never made: the pop waits forever.
    path.write_text(text.replace("TPUSH<Fifo, SlotView, TileSplitAxis::TILE_UP_DOWN>(fifo, slot);", ""))
    status, _, err = run(capsys, "check", "--arch", "a5", path)
    assert status == 1
    assert (f"{path}:{line_of(text, 'TPOP<')}:9: error: deadlock: wait_intra_block(PIPE_MTE2, 0) on vec0 is never "
            "satisfied") in err
    # A GlobalTensor declared without a pointer views nothing until it is pointed at GM.
    path.write_text(text.replace("TALLOC<Fifo, SlotView, TileSplitAxis::TILE_UP_DOWN>(fifo, slot);", ""))
    status, _, err = run(capsys, "check", "--arch", "a5", path)
    assert status == 2
    assert f"{path}:{line_of(text, 'TSTORE(slot, product);')}:16: error: GlobalTensor 'slot' is used before" in err


def test_l1_to_ub_copy_writes_the_vector_core_it_names(capsys, tmp_path):
    """a5 `copy_cbuf_to_ubuf(dst, src, core, ...)`: the third argument picks the vector core whose
    UB the cube core writes; two copies to the same address of different cores do not meet."""
    path = CLUSTER / "l1_to_each_ub.cpp"
    status, out, err = run(capsys, "check", "--arch", "a5", path)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in out, out + err
    same = tmp_path / "l1_to_each_ub.cpp"
    same.write_text(path.read_text().replace("(__cbuf__ void *)from, 1, 1, 128", "(__cbuf__ void *)from, 0, 1, 128"))
    status, out, err = run(capsys, "check", "--arch", "a5", same)
    assert status == 1 and f"{same}:24:5: error: data race (WAW) on vec0:UB bytes [0x0, 0x1000): copy_cbuf_to_ubuf " \
                           "[cube.MTE1]" in err, err


def test_gather_into_l1_writes_l1_on_the_cube_core_only(capsys, tmp_path):
    """MGATHER into a Mat tile, called on every core: the vector cores write no L1. With the SIMT
    executor the first vector core fills the staging area and signals the cube core on semaphore
    2, which orders the cube core's copy into L1 after it; a kernel that raises semaphore 2 itself
    from another pipe collides with that signal."""
    path = CLUSTER / "gather_into_l1.cpp"
    status, out, err = run(capsys, "check", "--arch", "a5", path)
    assert status == 0, out + err
    assert "gather_scalar (cluster: cube, vec0, vec1 run together): 0 race(s), 0 flag problem(s) " \
           "(5 instructions and 6 syncs issued)" in out
    # vec0's gather into the staging area, its signal, and the cube core's wait and copy.
    assert "gather_simt (cluster: cube, vec0, vec1 run together): 0 race(s), 0 flag problem(s) " \
           "(6 instructions and 8 syncs issued)" in out
    clash = tmp_path / "gather_into_l1.cpp"
    clash.write_text(path.read_text().replace("    TSTORE(mine, got);\n",
                                              "    TSTORE(mine, got);\n    set_intra_block(PIPE_MTE3, 2);\n"))
    status, out, err = run(capsys, "check", "--arch", "a5", "--entry", "gather_simt", clash)
    assert status == 2 and "semaphore 2 of cube is raised or taken on several pipes" in err, out + err


A2A3_C2V = CLUSTER / "a2a3_fifo_c2v.cpp"
A2A3_GM = CLUSTER / "a2a3_fifo_gm.cpp"
A2A3_V2C = CLUSTER / "a2a3_fifo_v2c.cpp"


def edited(tmp_path, kernel: Path, old: str, new: str, after: str = "") -> tuple[Path, str]:
    """The kernel with `old` (the first one after `after`) replaced; the file keeps its name."""
    text = kernel.read_text()
    start = text.index(after) if after else 0
    assert old in text[start:]
    path = tmp_path / kernel.name
    path.write_text(text[:start] + text[start:].replace(old, new, 1))
    return path, text


@pytest.mark.parametrize("kernel", [A2A3_C2V, A2A3_GM, A2A3_V2C], ids=["tiles", "global-tensors", "vector-to-cube"])
def test_an_a2a3_fifo_through_its_gm_slots_is_clean(capsys, kernel):
    status, out, err = run(capsys, "check", "--arch", "a2a3", kernel)
    assert status == 0 and not err
    assert "(cluster: cube, vec0, vec1 run together): 0 race(s), 0 flag problem(s)" in out


def test_an_a2a3_pop_loads_the_slot_on_mte2(capsys, tmp_path):
    pair = "            set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n            wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n"
    path, text = edited(tmp_path, A2A3_C2V, pair, "\n\n")
    status, _, err = run(capsys, "check", "--arch", "a2a3", path)
    assert status == 1
    tadds, tpop = line_of(text, "TADDS(y, x, 1.0f);"), line_of(text, "TPOP<Fifo")
    assert f"{path}:{tadds}:13: error: data race (RAW) on vec0:UB" in err
    assert f"TLOAD [vec0.MTE2] at {tpop}:13 writes x" in err


def test_an_a2a3_push_stores_the_accumulator_on_fix(capsys, tmp_path):
    pair = "            set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);\n            wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);\n"
    path, text = edited(tmp_path, A2A3_C2V, pair, "\n\n")
    status, _, err = run(capsys, "check", "--arch", "a2a3", path)
    assert status == 1
    assert (f"{path}:{line_of(text, 'TPUSH<Fifo')}:13: error: data race (RAW) on cube:L0C bytes [0x0, 0x1000): "
            "TSTORE [cube.FIX] reads product while TMATMUL [cube.M]") in err


@pytest.mark.parametrize("bound", ["3", "(get_subblockid() == 0 ? 4 : 3)"], ids=["both", "second-only"])
def test_an_a2a3_producer_waits_for_the_free_signals_of_both_vector_cores(capsys, tmp_path, bound):
    # Three pops of four tiles: the second free signal is never raised, and the pipe's end waits
    # for it (a cube-core wait passes only once both vector cores signalled).
    path, text = edited(tmp_path, A2A3_C2V, "i < 4", f"i < {bound}", after="if constexpr (ON_VEC)")
    status, _, err = run(capsys, "check", "--arch", "a2a3", path)
    assert status == 1
    decl = line_of(text, "Fifo fifo(")
    assert (f"{path}:{decl}:5: error: deadlock: wait_flag_dev(1) on cube is never satisfied: no "
            "ffts_cross_core_sync of the other core raises that semaphore for it, so the core hangs here") in err
    push = line_of(text, "TPUSH<Fifo")
    assert f"{path}:{push}:13: warning: ffts_cross_core_sync(PIPE_FIX, 0) on cube raises a semaphore" in err


def test_an_a2a3_tfree_deleted_hangs_the_talloc_that_reuses_the_slot(capsys, tmp_path):
    path, text = edited(tmp_path, A2A3_GM, "TFREE<Fifo, GmHalf, TileSplitAxis::TILE_UP_DOWN>(fifo, part);", "")
    status, _, err = run(capsys, "check", "--arch", "a2a3", path)
    assert status == 1
    assert (f"{path}:{line_of(text, 'TALLOC<Fifo')}:13: error: deadlock: wait_flag_dev(3) on cube is never "
            "satisfied") in err


def test_an_a2a3_slot_freed_before_its_load_races_on_gm(capsys, tmp_path):
    load, free = "            TLOAD(x, part);\n", "            TFREE<Fifo, GmHalf, TileSplitAxis::TILE_UP_DOWN>(fifo, part);\n"
    path, text = edited(tmp_path, A2A3_GM, load + free, free + load)
    status, _, err = run(capsys, "check", "--arch", "a2a3", path)
    assert status == 1
    store = line_of(text, "TSTORE(slot, product);")
    assert "data race (RAW or WAR, across cores) on GM argument ring bytes [0x1000, 0x1800): TLOAD [vec0.MTE2] reads part, and " \
           f"TSTORE [cube.FIX] at {store}:13 writes slot" in err


def test_an_a2a3_cube_pop_waits_for_both_vector_cores(capsys, tmp_path):
    # The second vector core pushes three tiles of four: the cube core's fourth pop hangs.
    path, text = edited(tmp_path, A2A3_V2C, "i < 4", "i < (get_subblockid() == 0 ? 4 : 3)",
                        after="if constexpr (ON_VEC)")
    status, _, err = run(capsys, "check", "--arch", "a2a3", path)
    assert status == 1
    assert (f"{path}:{line_of(text, 'TPOP<Fifo')}:13: error: deadlock: wait_flag_dev(4) on cube is never "
            "satisfied") in err


def test_an_a2a3_cube_pop_loads_its_local_l1_slots(capsys, tmp_path):
    pair = "            set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);\n            wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);\n"
    path, text = edited(tmp_path, A2A3_V2C, pair, "\n\n")
    status, _, err = run(capsys, "check", "--arch", "a2a3", path)
    assert status == 1
    assert (f"{path}:{line_of(text, 'TMOV(bRight, bMat);')}:13: error: data race (RAW) on cube:L1 bytes "
            f"[0x10000, 0x10800): TMOV [cube.MTE1] reads bMat while TLOAD [cube.MTE2] at "
            f"{line_of(text, 'TPOP<Fifo')}:13 writes bMat") in err


UNSIGNALLED = CLUSTER / "unsignalled.cpp"


def test_cores_that_never_signal_each_other_run_together(capsys, tmp_path):
    status, out, err = run(capsys, "check", "--arch", "a5", UNSIGNALLED)
    assert status == 0 and not err
    assert "(cluster: cube, vec0, vec1 run together): 0 race(s), 0 flag problem(s)" in out
    # The cube core's product stored over the vector cores' output: nothing orders the stores.
    text = UNSIGNALLED.read_text()
    path = tmp_path / "unsignalled.cpp"
    path.write_text(text.replace("GmP gP(prod);", "GmP gP(out);"))
    status, out, err = run(capsys, "check", "--arch", "a5", path)
    assert status == 1 and "1 race(s)" in out
    assert f"{path}:{line_of(text, 'TSTORE(gOut, x);')}:5: error: data race (WAW, across cores) on GM argument out bytes " \
           "[0x0, 0x800): TSTORE [vec0.MTE3] writes gOut, and TSTORE [cube.FIX]" in err, err
    # A rewrite needs one core type.
    status, out, err = run(capsys, "auto2manual", "--arch", "a5", UNSIGNALLED)
    assert status == 2 and "code for both the vector and the cube core; choose one with --core" in err, err


def test_the_same_code_for_both_cores_is_read_once_for_the_core_its_tiles_name(capsys, tmp_path):
    # A core-type guard that selects the same code for both cores (here around a scalar no-op).
    path = tmp_path / "same_code.cpp"
    path.write_text(
        "#include <pto/pto-inst.hpp>\nusing namespace pto;\n"
        "extern \"C\" __global__ AICORE void same_code(__gm__ float *out, __gm__ float *in)\n{\n"
        "    int spins = 0;\n#if defined(__DAV_C220_CUBE__) || defined(__DAV_C220_VEC__)\n    spins += 1;\n#endif\n"
        "    Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor> x;\n    TASSIGN(x, 0x0);\n"
        "    GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>> src(in);\n"
        "    GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>> dst(out);\n"
        "    TLOAD(x, src);\n    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);\n"
        "    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);\n    TSTORE(dst, x);\n}\n")
    status, out, err = run(capsys, "check", path)
    assert status == 0 and out == f"{path}: 0 race(s), 0 flag problem(s) (2 instructions and 2 syncs issued)\n", \
        out + err
    status, out, err = run(capsys, "ir", path)
    assert status == 0 and out.startswith("kernel same_code ") and " core vec " in out.splitlines()[0], out + err


# ---------------------------------------------------------------- a5 flag pairs and explicit-index FIFOs

SYNC_CUSTOM = CLUSTER / "sync_custom.cpp"
MPIPE_C2V = CLUSTER / "mpipe_c2v.cpp"


def _edited(tmp_path, source: Path, old: str, new: str = "") -> tuple[Path, str]:
    """`source` with the line that is exactly `old` replaced by `new` (a blank line when empty),
    so every other line keeps its number."""
    text = source.read_text()
    lines = text.splitlines(True)
    hits = [i for i, line in enumerate(lines) if line.rstrip("\n") == old]
    assert len(hits) == 1, old
    lines[hits[0]] = new + "\n"
    path = tmp_path / source.name
    path.write_text("".join(lines))
    return path, text


def test_flag_pair_objects_and_explicit_index_fifos_are_clean(capsys):
    for path in (SYNC_CUSTOM, MPIPE_C2V):
        status, out, err = run(capsys, "check", "--arch", "a5", path)
        assert status == 0 and not err, err
        assert "(cluster: cube, vec0, vec1 run together): 0 race(s), 0 flag problem(s)" in out


def test_flag_pair_steps_lower_to_their_semaphores(capsys):
    # record on FIX for each vector core, wait on the vector core's MTE2; allocate and free on id + 1.
    status, out, err = run(capsys, "ir", "--arch", "a5", "--core", "cube", SYNC_CUSTOM)
    assert status == 0, err
    assert out.count("set_intra_block(FIX, semaphore 0)") == 1 and out.count("set_intra_block(FIX, semaphore 16)") == 1
    assert out.count("wait_intra_block(FIX, semaphore 1)") == 2 and out.count("wait_intra_block(FIX, semaphore 17)") == 2
    status, out, err = run(capsys, "ir", "--arch", "a5", "--core", "vec", SYNC_CUSTOM)
    assert "wait_intra_block(MTE2, semaphore 0)" in out and "set_intra_block(MTE2, semaphore 1)" in out


@pytest.mark.parametrize("deleted, reported, message", [
    ("        ready.wait();", "TLOAD(x, gPart);",
     "data race (RAW or WAR, across cores) on GM argument ws bytes [0x0, 0x800): TLOAD [vec0.MTE2] reads gPart, and TSTORE [cube.FIX]"),
    ("        ready.free();", "ready.allocate();  // both",
     "deadlock: wait_intra_block(PIPE_FIX, 1) on cube is never satisfied"),
    ("        ready.record();", "ready.wait();",
     "deadlock: wait_intra_block(PIPE_MTE2, 0) on vec0 is never satisfied"),
    ("            ready.allocate();  // both vector cores have read the last product", "TLOAD(x, gPart);",
     "data race (RAW or WAR, across cores) on GM argument ws bytes [0x0, 0x800): TLOAD [vec0.MTE2] reads gPart, and TSTORE [cube.FIX]"),
])
def test_a_deleted_flag_pair_step_is_reported_at_its_line(capsys, tmp_path, deleted, reported, message):
    path, text = _edited(tmp_path, SYNC_CUSTOM, deleted)
    status, _, err = run(capsys, "check", "--arch", "a5", path)
    assert status == 1
    assert f"{path}:{line_of(text, reported)}:9: error: {message}" in err or \
        f"{path}:{line_of(text, reported)}:13: error: {message}" in err, err


@pytest.mark.parametrize("old, new, reported, message", [
    ("        TFREE(fifo);", "", "TPUSH(product, fifo);",
     "deadlock: wait_intra_block(PIPE_FIX, 1) on cube is never satisfied"),
    ("        TPOP(entries[t % 2], fifo);", "", "TMULS(y, entries[t % 2], 0.5f);",
     "data race (RAW or WAR, across cores) on vec0:UB bytes [0x0, 0x800): TMULS [vec0.V] reads entries[t % 2], and TMOV [cube.FIX]"),
    # The producer never waits for a free entry: the third tile overwrites the first one's entry.
    ("        fifo.prod.setAllocateStatus(t >= 1);  // the constructor's credit covers the second tile",
     "        fifo.prod.setAllocateStatus(false);", "TMULS(y, entries[t % 2], 0.5f);",
     "on vec0:UB bytes [0x0, 0x800): TMULS [vec0.V] reads entries[t % 2], and TMOV [cube.FIX]"),
])
def test_a_broken_explicit_index_fifo_is_reported_at_its_line(capsys, tmp_path, old, new, reported, message):
    path, text = _edited(tmp_path, MPIPE_C2V, old, new)
    status, _, err = run(capsys, "check", "--arch", "a5", path)
    assert status == 1
    assert f"{path}:{line_of(text, reported)}:9: error: " in err and message in err, err


def test_explicit_index_fifo_moves_into_the_entry_the_kernel_names(capsys):
    # The push's move is a row split of the accumulator into entry t % 2 (2 KiB per vector core's half).
    status, out, err = run(capsys, "ir", "--arch", "a5", "--core", "cube", MPIPE_C2V)
    assert status == 0, err
    assert "TASSIGN(fifo.entry, (((fifo.prod.tile_id % 2) * 2048) + fifo.prod.entryOffset))" in out
    assert "TMOV<AccToVecMode::DualModeSplitM>(out fifo.entry, product)  [FIX]" in out
    # The constructor's credit is one free on the consumer; the destructor one allocate on the producer.
    status, out, err = run(capsys, "ir", "--arch", "a5", "--core", "vec", MPIPE_C2V)
    assert out.split("body:")[1].count("set_intra_block(V, semaphore 1)") == 2  # the constructor's and TFREE's


def test_flag_pair_on_the_wrong_core_is_a_located_error_and_a2a3_reads_it(capsys, tmp_path):
    path, text = _edited(tmp_path, SYNC_CUSTOM, "        ready.free();", "        ready.record();")
    status, _, err = run(capsys, "check", "--arch", "a5", path)
    assert status == 2
    assert (f"{path}:{line_of(text, 'ready.free();')}:9: error: 'ready.record()' of a cube-to-vector flag runs on "
            "the cube core; here it is compiled for the vector core") in err
    # On a2a3 the same object signals with ffts flags, and the handoff is as well ordered.
    status, out, err = run(capsys, "check", SYNC_CUSTOM)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in out and "error" not in err


def test_two_vector_cores_fill_one_l1_tile_through_an_explicit_index_fifo(capsys, tmp_path):
    """Each vector core inserts its 16 rows into one 32x32 L1 tile of fractal boxes: the bytes each
    half covers (a run per strip of box columns) do not meet, so the two inserts need no order."""
    path = CLUSTER / "mpipe_v2c.cpp"
    status, out, err = run(capsys, "check", "--arch", "a5", path)
    assert status == 0 and not err, err
    assert "0 race(s), 0 flag problem(s)" in out
    status, out, err = run(capsys, "ir", "--arch", "a5", "--core", "vec", path)
    assert "TINSERT(out fifo.entry, xNz, (16 * subblock_idx), 0)  [MTE3]" in out, out
    edited, text = _edited(tmp_path, path, "        TFREE(fifo);")
    status, _, err = run(capsys, "check", "--arch", "a5", edited)
    assert status == 1
    assert (f"{edited}:{line_of(text, 'TPUSH(xNz, fifo);')}:9: error: deadlock: wait_intra_block(PIPE_MTE3, 3) on "
            "vec0 is never satisfied") in err, err


def test_flag_pairs_in_a_file_with_the_auto_helpers_are_read_as_a_manual_kernel(capsys, tmp_path):
    # pto-isa's AUTO kernels define their MultiBuffered helpers in namespace pto_auto: their
    # cross-core objects are read like a hand-written kernel's. auto2manual refuses the file for
    # its intra-core flags, not for its cross-core objects.
    path = tmp_path / "sync_custom_auto.cpp"
    text = SYNC_CUSTOM.read_text().replace("using namespace pto;\n", "using namespace pto;\nnamespace pto_auto {\n"
                                           "struct Stage {};\n}\n")
    path.write_text(text)
    status, out, err = run(capsys, "check", "--arch", "a5", path)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in out
    status, _, err = run(capsys, "auto2manual", "--arch", "a5", path, "-o", tmp_path / "x.cpp")
    assert status == 2
    assert "error: already a manual-mode kernel" in err and "cross-core" not in err, err


def test_ffts_flags_written_directly_on_a2a3(capsys, tmp_path):
    """ffts_cross_core_sync / wait_flag_dev in mode 2 written by the kernel itself, as the a2a3
    FIFOs lower them: the cube core's wait passes once both vector cores raised the flag."""
    path = CLUSTER / "ffts_handoff.cpp"
    status, out, err = run(capsys, "check", path)
    assert status == 0 and not err, err
    assert "(cluster: cube, vec0, vec1 run together): 0 race(s), 0 flag problem(s)" in out
    # The vector cores raise another flag: the cube core's wait is never satisfied.
    edited, text = _edited(tmp_path, path, "    ffts_cross_core_sync(PIPE_MTE3, getFFTSMsg(0x2, 0));",
                           "    ffts_cross_core_sync(PIPE_MTE3, getFFTSMsg(0x2, 1));")
    status, _, err = run(capsys, "check", edited)
    assert status == 1
    assert f"{edited}:{line_of(text, 'wait_flag_dev(0);')}:5: error: deadlock: wait_flag_dev(0) on cube is never " \
        "satisfied" in err, err


A2A3_SYNC_CUSTOM = CLUSTER / "a2a3_sync_custom.cpp"


def test_a2a3_flag_pair_is_read_as_ffts_flags(capsys, tmp_path):
    status, out, err = run(capsys, "ir", "--core", "cube", A2A3_SYNC_CUSTOM)
    body = out.split("body:")[1]
    # record: one ffts set on FIX per vector core; allocate: the whole-core wait for both.
    assert body.count("set_intra_block(FIX, semaphore 0)") == 1 and body.count("set_intra_block(FIX, semaphore 16)") == 1
    assert body.count("wait_intra_block(S, semaphore 1)") == 2 and body.count("wait_intra_block(S, semaphore 17)") == 2
    status, out, err = run(capsys, "check", A2A3_SYNC_CUSTOM)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in out and "error" not in err
    # Without the vector cores' free the cube core's allocate waits for ever, at both its lines.
    text = A2A3_SYNC_CUSTOM.read_text()
    path = tmp_path / "no_free.cpp"
    path.write_text(text.replace("        ready.free();\n", ""))
    status, out, err = run(capsys, "check", path)
    assert status == 1 and "2 flag problem(s)" in out
    for line in (line_of(text, "ready.allocate();  // both"), line_of(text, "ready.allocate();  // the last")):
        assert f"{path}:{line}:" in err and "wait_flag_dev(1) on cube is never satisfied" in err


AUTO_STAGES = CLUSTER / "auto_stages.cpp"


def test_an_auto_cluster_kernel_is_read_with_its_stages_loop_helper_and_flag_pair(capsys, tmp_path):
    # The two MultiStaged lambdas are lowered in turn, at their lines, with the flag pair's flags.
    status, out, err = run(capsys, "ir", "--arch", "a5", "--core", "cube", AUTO_STAGES)
    assert status == 0 and "mode auto" in out
    text = AUTO_STAGES.read_text()
    body = [ln.strip() for ln in out.split("body:")[1].splitlines()]
    at = line_of(text, "TMATMUL(product")
    i = body.index(f"TMATMUL(out product, aLeft, bRight)  [M]  @{at}:21")
    assert body[i + 1:i + 7] == [
        f"if (r > 0):  @{line_of(text, 'if (r > 0)')}:17",
        f"wait_intra_block(FIX, semaphore 1)  @{line_of(text, 'ready.allocate();  // both')}:21",
        f"wait_intra_block(FIX, semaphore 17)  @{line_of(text, 'ready.allocate();  // both')}:21",
        f"TSTORE(out gm gW, product)  [FIX]  @{line_of(text, 'TSTORE(gW, product)')}:17",
        f"set_intra_block(FIX, semaphore 0)  @{line_of(text, 'ready.record()')}:17",
        f"set_intra_block(FIX, semaphore 16)  @{line_of(text, 'ready.record()')}:17"]
    # The vector rounds: the helper's loop, the lambda's statements inside it (the helper's
    # `round` is the lambda's `r`), each located at its line, inlined from the call `body(round)`.
    status, out, err = run(capsys, "ir", "--arch", "a5", "--core", "vec", AUTO_STAGES)
    body = [ln.strip() for ln in out.split("body:")[1].strip().splitlines()]
    call = f"via {line_of(text, 'ForEachRound<ROUNDS>')}:5 via {line_of(text, 'body(round);')}:9"
    assert body == [
        f"for round = 0; round < 2; round += 1:  (trips 2)  @{line_of(text, 'for (int round')}:5",
        f"wait_intra_block(MTE2, semaphore 0)  @{line_of(text, 'ready.wait();')}:9 {call}",
        f"TLOAD(out x, gm gPart)  [MTE2]  @{line_of(text, 'TLOAD(x, gPart);')}:9 {call}",
        f"set_intra_block(MTE2, semaphore 1)  @{line_of(text, 'ready.free();')}:9 {call}",
        f"TMULS(out x, x, 3.0)  [V]  @{line_of(text, 'TMULS(x, x')}:9 {call}",
        f"TSTORE(out gm gOut, x)  [MTE3]  @{line_of(text, 'TSTORE(gOut, x);')}:9 {call}"]
    assert "gOut: fp32 shape<1,1,1,16,32> stride<1,1,1,32,1> at out + ((((round * 2) + subblock_idx) * 512) * 4) B" \
        in out
    # `check` runs the cluster: no sync within a core, so races there; the flags order the GM handoff.
    status, out, err = run(capsys, "check", "--arch", "a5", AUTO_STAGES)
    assert status == 1 and "(cluster: cube, vec0, vec1 run together): 13 race(s), 0 flag problem(s)" in out
    assert "GM" not in err
    # Without the record the vector cores' waits are never satisfied.
    path = tmp_path / "no_record.cpp"
    path.write_text(text.replace("                ready.record();\n", ""))
    status, out, err = run(capsys, "check", "--arch", "a5", path)
    assert f"{path}:{line_of(text, 'ready.wait();') - 1}:9: error: deadlock" in err  # one line less above it
    # A rewrite stops where the helper calls the lambda, and so does verify's own rewrite.
    status, out, err = run(capsys, "auto2manual", "--arch", "a5", AUTO_STAGES, "-o", tmp_path / "x.cpp")
    assert status == 2 and not (tmp_path / "x.cpp").exists()
    assert err.startswith(f"{AUTO_STAGES}:{line_of(text, 'body(round);')}:9: error: a helper calls a lambda"), err
    status, out, err = run(capsys, "verify", "--arch", "a5", "--set", "subblock_idx=0", AUTO_STAGES)
    assert status == 2 and "error: a helper calls a lambda of the kernel here" in err, err


A2A3_MPIPE = CLUSTER / "a2a3_mpipe_c2v.cpp"


def test_a_fifo_ends_switches_are_read_through_its_getters(capsys, tmp_path):
    # A rewrite's guard on a FIFO switch is written with the end's getter (the state the front
    # end keeps is not a member of pto-isa's TMPipe), and reading it back gives the switch.
    from ptorewrite.transform.sync_emit import _state_spelling

    assert _state_spelling("qkPipe.cons.free") == "qkPipe.cons.getFreeStatus()"
    assert _state_spelling("p.prod.allocate") == "p.prod.getAllocateStatus()"
    assert _state_spelling("slot") == "slot"
    path = tmp_path / "getters.cpp"
    path.write_text(A2A3_MPIPE.read_text().replace(
        "        TPOP(x, fifo);", "        fifo.cons.setFreeStatus(fifo.cons.getWaitStatus());\n        TPOP(x, fifo);"))
    status, out, _ = run(capsys, "ir", "--core", "vec", path)
    assert status == 0 and f"fifo.cons.free = fifo.cons.wait  @{line_of(path.read_text(), 'setFreeStatus')}:9" in out


def test_a2a3_explicit_index_fifo_through_gm(capsys, tmp_path):
    text = A2A3_MPIPE.read_text()
    pop = line_of(text, "TPOP(x, fifo);")
    status, out, err = run(capsys, "ir", "--core", "vec", A2A3_MPIPE)
    body = [ln.strip() for ln in out.split("body:")[1].splitlines()]
    # The constructor's credit; then per pop: the whole-core wait, this core's rows of both blocks
    # into the two column strips of x, the index stepped, the free on MTE2.
    assert "set_intra_block(MTE2, semaphore 3)  @18:5" in body
    i = body.index(f"wait_intra_block(S, semaphore 2)  @{pop}:9")
    assert body[i + 1:i + 10] == [
        f"fifo@entry = (((fifo.cons.tile_id % 2) * 8192) + fifo.cons.entryOffset)  @{pop}:9",
        f"TMPipe strip(fifo.strip, x, +0 B)  [S]  @{pop}:9",
        f"TLOAD(out fifo.strip, gm fifo.entry)  [MTE2]  @{pop}:9",
        f"fifo@entry#2 = ((((fifo.cons.tile_id % 2) * 8192) + fifo.cons.entryOffset) + 4096)  @{pop}:9",
        f"TMPipe strip(fifo.strip#2, x, +128 B)  [S]  @{pop}:9",
        f"TLOAD(out fifo.strip#2, gm fifo.entry#2)  [MTE2]  @{pop}:9",
        f"fifo.cons.tile_id = (fifo.cons.tile_id + 1)  @{pop}:9",
        f"if (fifo.cons.free != 0):  @{pop}:9",
        f"set_intra_block(MTE2, semaphore 3)  @{pop}:9"]
    status, out, err = run(capsys, "ir", "--core", "cube", A2A3_MPIPE)
    push = line_of(text, "TPUSH(product, fifo);")
    assert f"TSTORE(out gm fifo.entry, product)  [FIX]  @{push}:13" in out
    # The whole-core wait for a free entry names both vector cores' flags.
    assert f"wait_intra_block(S, semaphore 3)  @{push}:13" in out and f"wait_intra_block(S, semaphore 19)  @{push}:13" in out
    status, out, err = run(capsys, "check", A2A3_MPIPE)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in out and "error" not in err
    # The hand-written "filled" deleted: each vector core hangs at its pop.
    path = tmp_path / "no_record.cpp"
    path.write_text(text.replace("        fifo.prod.record();  // both blocks of the entry are stored\n", ""))
    status, out, err = run(capsys, "check", path)
    assert status == 1 and "0 race(s), 1 flag problem(s)" in out
    assert f"{path}:{pop - 1}:9: error: deadlock: wait_flag_dev(2) on vec0 is never satisfied" in err
    # An intra-core pair deleted: the vector work reads x before the pop's load is done.
    path = tmp_path / "no_pair.cpp"
    path.write_text(text.replace("        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n", "")
                    .replace("        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n", ""))
    status, out, err = run(capsys, "check", path)
    assert status == 1
    assert (f"{path}:{line_of(text, 'TMULS(y, x')  - 2}:9: error: data race (RAW) on vec0:UB bytes [0x0, 0x80): TMULS "
            f"[vec0.V] reads x while TLOAD [vec0.MTE2] at {pop}:9 writes x") in err
    # Written as an AUTO kernel (no TASSIGN, no intra-core sync): read as a cluster, mode auto;
    # check finds what the missing syncs leave inside each core, nothing across the cores.
    auto = "\n".join(ln for ln in text.splitlines() if not ln.strip().startswith(("TASSIGN", "set_flag", "wait_flag")))
    path = tmp_path / "auto.cpp"
    path.write_text(auto + "\n")
    status, out, err = run(capsys, "ir", "--core", "vec", path)
    assert "mode auto" in out
    status, out, err = run(capsys, "check", path)
    assert status == 1 and "(cluster: cube, vec0, vec1 run together)" in out and "0 flag problem(s)" in out
    assert "GM" not in err
    # The rewrite plans both core types around the FIFO, and its cluster checks clean.
    status, out, err = run(capsys, "auto2manual", path, "-o", tmp_path / "x.cpp")
    assert status == 0, err
    status, out, err = run(capsys, "check", tmp_path / "x.cpp")
    assert status == 0 and "0 race(s), 0 flag problem(s)" in out, out + err


def test_a_lambda_called_through_a_helper_stops_a_rewrite_at_the_call(capsys, tmp_path):
    # One core type, no cross-core operation: the lambda's statements are read, and the rewrite
    # stops where the helper calls it (the helper cannot name the tiles the lambda captures).
    text = AUTO_STAGES.read_text()
    path = tmp_path / "vec_only.cpp"
    path.write_text(text.replace("        ready.wait();\n", "").replace("        ready.free();\n", "")
                    .replace("    constexpr TSync_Custom<SyncOpType::TSTORE_C2GM, SyncOpType::TLOAD> ready = {PRODUCT_READY};\n",
                             ""))
    status, _, err = run(capsys, "auto2manual", "--arch", "a5", "--core", "vec", path, "-o", tmp_path / "x.cpp")
    assert status == 2 and not (tmp_path / "x.cpp").exists()
    assert err.startswith(f"{path}:{line_of(text, 'body(round);')}:9: error: a helper calls a lambda of the kernel "
                          "here"), err
