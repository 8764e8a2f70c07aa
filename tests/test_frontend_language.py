"""The C++ the front end reads inside kernel bodies, end to end.

Each kernel under tests/kernels/lang/ is written in the shape of a construct pto-isa's own kernels
use. The tests assert the IR it lowers to (statements, loop forms, values worked out by hand from
the source) and that it runs as it should: AUTO kernels through `auto2manual` and `verify`, manual
kernels through `check` and `verify` against an AUTO twin, with edited copies that must fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("clang.cindex")

from ptorewrite.analysis import execution, ir
from ptorewrite.analysis.expr import Const, Var
from ptorewrite.arch import profile
from ptorewrite.cli import main as cli_main
from ptorewrite.diagnostics import PtoError
from ptorewrite.emulator import pipes
from ptorewrite.parse.frontend import FrontendOptions, load_kernel

LANG = Path(__file__).resolve().parent / "kernels" / "lang"
REPRO = Path(__file__).resolve().parents[2] / "shared" / "repro"


def load(path, auto: bool = True, **kw) -> ir.Kernel:
    return load_kernel(str(path), FrontendOptions(auto_mode=auto, **kw))


def run(capsys, *argv) -> tuple[int, str, str]:
    rc = cli_main([str(a) for a in argv])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def steps(kernel: ir.Kernel, **values) -> list[execution.Step]:
    vals = {"block_idx": 0, "block_num": 1, **values}
    return execution.unroll(kernel, profile(kernel.arch), vals, require_semantics=False).steps


def ops(kernel: ir.Kernel, **values) -> list[str]:
    return [s.name for s in steps(kernel, **values) if s.kind == "op"]


def flags(kernel: ir.Kernel, **values) -> list[str]:
    """Issued syncs as `set MTE2->V 0`, `wait ...`, `barrier V`."""
    out = []
    for s in steps(kernel, **values):
        if s.kind == "barrier":
            out.append(f"barrier {s.pipe}")
        elif s.kind in ("set", "wait"):
            out.append(f"{s.kind} {s.src}->{s.dst} {s.event}")
    return out


def loops(kernel: ir.Kernel) -> list[ir.For]:
    return [s for s in ir.walk(kernel.body) if isinstance(s, ir.For)]


def rewrite_and_verify(capsys, tmp_path, path, *value_args, verify_values=((),)):
    """auto2manual, then verify the rewrite for each set of runtime values; the rewritten text."""
    manual = tmp_path / f"{Path(path).stem}_manual.cpp"
    rc, _, err = run(capsys, "auto2manual", path, "-o", manual, *value_args)
    assert rc == 0, err
    for extra in verify_values:
        rc, out, err = run(capsys, "verify", path, manual, *value_args, *extra)
        assert rc == 0 and "outputs equivalent" in out and "0 race(s), 0 flag problem(s)" in out, out + err
    return manual.read_text()


def check(path) -> pipes.CheckResult:
    k = load(path, auto=False)
    assert k.mode == "manual"
    return pipes.check(execution.unroll(k, profile(k.arch), {"block_idx": 0, "block_num": 1},
                                        require_semantics=False))


def assigns_of(k: ir.Kernel) -> dict:
    return {s.ref.tile.cpp_name: s.address for s in ir.walk(k.body) if isinstance(s, ir.TileAssign)}


def edited(tmp_path, path, old: str, new: str) -> Path:
    text = Path(path).read_text()
    assert text.count(old) == 1, old
    out = tmp_path / Path(path).name
    out.write_text(text.replace(old, new))
    return out


# ---------------------------------------------------------------- typed events


def test_events_lower_to_flags_between_their_classes_pipes():
    k = load(LANG / "events_manual.cpp", auto=False)
    assert k.mode == "manual"
    # Two TLOAD->TADD events take ids 0 and 1 of MTE2->V; TADD->TMULS is vector to vector (a
    # barrier before the wait's instruction, no set); TMULS->TSTORE_VEC is V->MTE3 id 0. In the
    # loop each iteration constructs new events: MTE3->MTE2 ids 0, 1 and MTE2->V ids 2, 3.
    assert flags(k) == [
        "set MTE2->V 0", "set MTE2->V 1", "wait MTE2->V 0", "wait MTE2->V 1",
        "barrier V",
        "set V->MTE3 0", "wait V->MTE3 0",
        "set MTE3->MTE2 0", "wait MTE3->MTE2 0", "set MTE2->V 2", "wait MTE2->V 2", "set V->MTE3 0", "wait V->MTE3 0",
        "set MTE3->MTE2 1", "wait MTE3->MTE2 1", "set MTE2->V 3", "wait MTE2->V 3", "set V->MTE3 0", "wait V->MTE3 0",
    ]
    # The wait comes right before the instruction it is passed to, the set right after the recording one.
    order = [s.name for s in steps(k)][:13]
    assert order == ["TLOAD", "set_flag(MTE2->V, 0)", "TLOAD", "set_flag(MTE2->V, 1)", "wait_flag(MTE2->V, 0)",
                     "wait_flag(MTE2->V, 1)", "TADD", "pipe_barrier(PIPE_V)", "TMULS", "set_flag(V->MTE3, 0)",
                     "wait_flag(V->MTE3, 0)", "TSTORE", "set_flag(MTE3->MTE2, 0)"]
    # Ids of events constructed in the loop come from a counter the kernel starts past the two
    # constructed before it.
    counters = [s for s in k.body.stmts if isinstance(s, ir.Assign)]
    assert [(s.var, s.value) for s in counters] == [("Event<MTE3,MTE2>.next", Const(0)),
                                                   ("Event<MTE2,V>.next", Const(2))]


def test_events_manual_kernel_checks_and_verifies(capsys, tmp_path):
    assert check(LANG / "events_manual.cpp").clean
    rc, out, err = run(capsys, "verify", LANG / "events_auto.cpp", LANG / "events_manual.cpp")
    assert rc == 0 and "outputs equivalent" in out and "0 race(s), 0 flag problem(s)" in out, err
    rc, out, _ = run(capsys, "ir", LANG / "events_manual.cpp")
    assert rc == 0 and "mode manual" in out and "set_flag(MTE2 -> V, event reloaded.token)" in out
    # Without the event on the loop's TMULS, the reload races with it.
    broken = edited(tmp_path, LANG / "events_manual.cpp", "TMULS(sum, sum, 2.0f, reloaded);", "TMULS(sum, sum, 2.0f);")
    result = check(broken)
    assert any(r.first.name == "TLOAD" and r.second.name == "TMULS" for r in result.races)
    assert any(p.kind != "race" for p in result.flags)  # and the recorded event is never consumed


def test_events_compile_to_nothing_in_auto_mode():
    k = load(LANG / "events_manual.cpp", auto=True)
    assert not any(isinstance(s, ir.Sync) for s in ir.walk(k.body))


def test_event_naming_no_instruction_class_is_refused(capsys):
    path = LANG / "bad" / "event_class.cpp"
    rc, out, err = run(capsys, "ir", path)
    assert rc == 2 and out == ""
    assert err.startswith(f"{path}:9:39: error: Op::OP_COUNT is not an instruction class an event can name")


# ---------------------------------------------------------------- flag helpers


def test_flag_helpers_reference_toggle_and_guarded_flags():
    k = load(LANG / "flag_helpers_manual.cpp", auto=False)
    loop = loops(k)[0]
    body = [type(s).__name__ for s in ir.walk(loop.body)]
    assert "If" in body  # the guarded barrier and the guarded set stay conditional
    # The slot the helper toggles through `uint8_t &slot` is the kernel's own variable.
    toggles = [s for s in ir.walk(loop.body) if isinstance(s, ir.Assign)]
    assert [s.var for s in toggles] == ["slot"]
    ids = [(s.src, s.dst, s.event) for s in steps(k) if s.kind == "wait" and s.src == "V" and s.dst == "MTE2"]
    assert [e for _, _, e in ids] == [0, 1, 0, 1, 0, 1, 0, 1]  # six iterations alternate, then the drain
    assert flags(k).count("barrier V") == 5  # every iteration but the first
    assert check(LANG / "flag_helpers_manual.cpp").clean


def test_flag_helpers_kernel_verifies_and_broken_copies_fail(capsys, tmp_path):
    rc, out, err = run(capsys, "verify", LANG / "flag_helpers_auto.cpp", LANG / "flag_helpers_manual.cpp")
    assert rc == 0 and "outputs equivalent" in out, err
    rc, out, _ = run(capsys, "simulate", LANG / "flag_helpers_manual.cpp")
    assert rc == 0 and "14 instructions" in out
    no_drain = edited(tmp_path, LANG / "flag_helpers_manual.cpp", "    DrainSlots();\n", "")
    assert any("still set" in d.message for d in check(no_drain).diagnostics())
    no_wait = edited(tmp_path, LANG / "flag_helpers_manual.cpp", "    WaitFlag<PIPE_MTE2, PIPE_V>(slot);\n", "")
    assert any(r.second.name == "TADD" for r in check(no_wait).races)


# ---------------------------------------------------------------- loops


def test_loops_counted_and_general_forms():
    k = load(LANG / "loops.cpp")
    first, down, shift, grid = loops(k)
    # `for (; width * 2 <= COLS; width *= 4)`: the variable is declared before the loop.
    assert not first.counted and first.keeps_var and first.start == Var("width") and first.stop is None
    assert str(first.cond) == "((width * 2) <= 512)" and str(first.update) == "(width * 4)"
    assert not down.counted and str(down.update) == "(half / 2)"
    assert not shift.counted and str(shift.update) == "(shift >> 1)"
    # The grid-stride loop keeps the counted form: start block_idx, step block_num.
    assert grid.counted and grid.start == Var("block_idx") and grid.step == Var("block_num")
    assert grid.keeps_var and grid.stop == Var("rows")
    assert first.trip_count() is None and grid.trip_count({"block_idx": 1, "block_num": 2, "rows": 5}) == 2
    # Widths 16, 64, 256; then 1024 / 2 halved to 8: 512..8 (7 passes); shifts 256..1 (9 passes).
    run_ops = ops(k, rows=5, block_idx=1, block_num=2)
    assert run_ops[:1 + 3] == ["TLOAD", "TADDS", "TADDS", "TADDS"]
    assert run_ops[4:4 + 7] == ["TMULS"] * 7 and run_ops[11:11 + 9] == ["TADDS"] * 9
    assert run_ops[20:] == ["TSTORE"] + ["TLOAD", "TADDS", "TSTORE"] * 2  # rows 1 and 3 of 5
    widths = [st.operands[0].valid for st in steps(k, rows=0) if st.kind == "op" and st.name == "TADDS"]
    assert widths[:3] == [(1, 16), (1, 64), (1, 256)]


def test_loops_rewrite_and_verify(capsys, tmp_path):
    text = rewrite_and_verify(capsys, tmp_path, LANG / "loops.cpp", "--set", "rows=5",
                              verify_values=(("--block-idx", "1", "--block-num", "2"),
                                             ("--block-idx", "0", "--block-num", "3"),
                                             ("--block-idx", "4", "--block-num", "5")))
    assert "for (; width * 2 <= COLS; width *= 4) {" in text  # the user's lines keep their text


def test_loop_without_condition_is_refused(capsys):
    path = LANG / "bad" / "endless_loop.cpp"
    rc, out, err = run(capsys, "ir", path)
    assert rc == 2 and out == ""
    assert err.startswith(f"{path}:8:5: error: a loop without a condition is not supported")


# ---------------------------------------------------------------- compile-time values


def test_values_helpers_arrays_and_traits():
    k = load(LANG / "values.cpp")
    tiles = {t.cpp_name: t for t in k.tiles}
    # RoundUp(200, 64) = 256 columns of capacity, 200 valid.
    assert (tiles["x"].cols, tiles["x"].valid_cols) == (256, Const(200))
    # The view starts at offsets[1] = 256 floats.
    src = next(g for g in k.gm_tensors if g.name == "src")
    assert src.param == "in" and src.offset_bytes == Const(1024)
    # `first` leaves its loop at 128 (32, 128; 512 > 200), so SplitRuns<200>(runs, 128) = 3 runs
    # of 128, 32, 32 at compile time; the loop over them is counted with 3 trips.
    counted = [lp for lp in loops(k) if lp.counted]
    assert [lp.trip_count() for lp in counted] == [3]
    views = [(st.operands[0].valid, st.operands[0].place.address)
             for st in steps(k) if st.kind == "op" and st.name == "TMULS"]
    base = views[0][1]
    assert views == [((1, 128), base), ((1, 32), base + 128 * 4), ((1, 32), base + 160 * 4)]
    assert ops(k) == ["TLOAD", "TMULS", "TMULS", "TMULS", "TADDS", "TSTORE"]  # is_same_v<T, float>
    assert tiles["whole"].valid_cols == Const(200)  # x.GetValidCol()


def test_values_rewrite_and_verify(capsys, tmp_path):
    rewrite_and_verify(capsys, tmp_path, LANG / "values.cpp")


def test_value_helper_needing_a_runtime_value_runs_where_it_is_called(capsys, tmp_path):
    # It cannot run at compile time (its loop depends on n): its statements are inlined at the
    # declaration, the parameter it halves is its own local, and its result is a variable.
    path = LANG / "runtime_helper.cpp"
    rc, out, err = run(capsys, "ir", path)
    assert rc == 0, err
    body = out[out.index("body:"):].splitlines()
    assert body[1:3] == ["  n@Halvings = n  @4:28", "  k = 0  @6:5"]
    assert "  Halvings@return = k  @10:5" in body
    assert "  for n@Halvings = n@Halvings; (n@Halvings > 1); n@Halvings = (n@Halvings / 2):  (trips ?)  @7:5" in body
    assert "  for i = 0; i < Halvings@return; i += 1:  (trips ?)  @17:5" in body
    rewrite_and_verify(capsys, tmp_path, path, verify_values=(("--set", "n=9"), ("--set", "n=1")))


def test_scalar_array_written_in_a_loop_is_refused(capsys):
    path = LANG / "bad" / "array_in_loop.cpp"
    rc, out, err = run(capsys, "ir", path)
    assert rc == 2 and out == ""
    assert err.startswith(f"{path}:10:9: error: 'lens' is written inside a loop")


# ---------------------------------------------------------------- declarations and pointers


def test_declarations_each_declarator_is_its_own_tile(capsys, tmp_path):
    k = load(LANG / "declarations.cpp")
    tiles = {t.cpp_name: t for t in k.tiles}
    assert tiles["acc"].loc == tiles["scaled"].loc == tiles["shifted"].loc  # one statement ...
    assert len({t.declarator for t in tiles.values()}) == len(tiles)  # ... three declarators
    assert tiles["shifted"].valid_cols == Const(48)
    # The helper advances its copy of the pointer each iteration; the slot toggles through a reference.
    g = next(g for g in k.gm_tensors if g.name == "g")
    assert g.offset_bytes == Var("src@offset")
    loaded = [st.operands[1].offset for st in steps(k) if st.kind == "op" and st.name == "TLOAD"]
    assert loaded == [0, 4096, 8192, 12288]
    slots = [st.operands[0].slot for st in steps(k) if st.kind == "op" and st.name == "TLOAD"]
    assert slots == [0, 1, 0, 1]
    text = rewrite_and_verify(capsys, tmp_path, LANG / "declarations.cpp")
    for name in ("acc", "scaled", "shifted", "a", "b"):
        assert f"TASSIGN({name}, 0x" in text


def test_two_tiles_in_one_declaration_repro(capsys, tmp_path):
    path = REPRO / "two-tiles-one-declaration.cpp"
    if not path.exists():
        pytest.skip("shared reproducers not present")
    text = rewrite_and_verify(capsys, tmp_path, path)
    assert "TASSIGN(x, 0x" in text and "TASSIGN(y, 0x" in text


def test_ir_reads_pointer_reassigned_in_loop():
    path = Path(__file__).resolve().parent / "kernels" / "bad" / "pointer_in_loop.cpp"
    with pytest.raises(PtoError) as e:
        load(path)
    assert "pointed at another kernel argument inside a loop" in str(e.value)


def test_type_selector_class_template(capsys, tmp_path):
    k = load(LANG / "selector.cpp")
    tiles = {t.cpp_name: (t.rows, t.cols, t.valid_rows, t.valid_cols) for t in k.tiles}
    # Narrow = true picks the second specialization: Cols / 2 = 64 columns, 64 - 8 = 56 valid.
    assert tiles == {"x": (16, 64, Const(16), Const(56)), "y": (16, 64, Const(16), Const(56))}
    assert next(g for g in k.gm_tensors if g.name == "src").shape[4] == Const(56)
    rewrite_and_verify(capsys, tmp_path, LANG / "selector.cpp")
    wide = edited(tmp_path, LANG / "selector.cpp", "Select<float, true>", "Select<float, false>")
    assert {t.cpp_name: t.cols for t in load(wide).tiles} == {"x": 128, "y": 128}


def test_api_surface_names_lower_to_instructions():
    k = load(LANG / "api_surface.cpp", auto=False)
    got = [(i.op, i.pipe, tuple(a.access for a in i.args if a.kind == "tile")) for i in k.instructions()]
    assert got == [
        ("TLOAD", "MTE2", ("w",)), ("TLOAD", "MTE2", ("w",)),
        ("TFILLPAD", "MTE2", ("w", "r")),  # the padding of an L1 tile is written by MTE2
        ("TGATHER", "V", ("w", "r")), ("TSCATTER", "V", ("w", "r")),
        ("TCONCAT", "V", ("w", "r", "r")),  # TCONCAT_IMPL is TCONCAT
        ("TFUSEDMULADD", "V", ("rw", "r", "r")), ("TMULADDDST", "V", ("rw", "r", "r")),
        ("TCMPS", "V", ("w", "r")), ("TADDS", "V", ("w", "r")),
        ("TCI", "V", ("w", "rw")),  # the scratch tile of the three-operand form is written
        ("TSTORE", "MTE3", ("r",)),
    ]
    # `TASSIGN(row, (uint64_t)c.data() + ...)`: c's own TASSIGN address plus two rows.
    assert assigns_of(k)["row"] == Const(2 * 4096 + 2 * 64 * 4)
    assert [t.template_args[-1] for t in k.instructions() if t.op in ("TGATHER", "TSCATTER")] == [
        "GatherAxis::GATHER_COL", "ScatterAxis::SCATTER_COL"]
    # __SIZE_TYPE__ / __UINT32_TYPE__ typedefs and a constexpr enumeration value.
    assigns = assigns_of(k)
    assert assigns["b"] == Const(4096) and assigns["r"] == Const(3 * 4096 + 2048)
    cmps = next(i for i in k.instructions() if i.op == "TCMPS")
    assert cmps.args[-1].value == Const("CmpMode::GT")
    assert check(LANG / "api_surface.cpp").clean


def test_a_return_leaves_the_function_it_is_in(capsys):
    """From the kernel's loop: no later iteration and nothing after the loop; from a helper's loop:
    the rest of the helper only."""
    k = load(LANG / "returns.cpp")
    assert ops(k, n=3, stop=9) == ["TLOAD", *["TMULS"] * 4, "TABS", *["TADDS", "TSUBS"] * 3, "TSTORE"]
    assert ops(k, n=3, stop=1) == ["TLOAD", "TMULS", "TADDS", "TSUBS", "TADDS"]
    assert ops(k, n=3, stop=0) == ["TLOAD", "TADDS"]
    assert ops(k, n=0, stop=0) == ["TLOAD", "TSTORE"]
    # auto2manual cannot yet drain the pipes at such a return: refused where it is, nothing written.
    rc, out, err = run(capsys, "auto2manual", LANG / "returns.cpp")
    assert rc == 2 and not out and "Traceback" not in err
    assert err.startswith(f"{LANG / 'returns.cpp'}:12:13: error: a return inside a loop or a branch is not supported")


def test_a_return_in_a_dropped_constexpr_branch_guards_nothing(capsys, tmp_path):
    """`if constexpr (false) { ... return; }` returns on no run: the helper's later statements are
    lowered as written, not under a test of a return flag (which kept the planner's flags next
    to the whole test instead of next to the instruction they order)."""
    k = load(LANG / "constexpr_return.cpp")
    assert not [s for s in ir.walk(k.body) if isinstance(s, ir.If)]
    assert not [s for s in ir.walk(k.body) if isinstance(s, ir.Assign) and s.value != Const(0)]
    assert ops(k) == ["TLOAD", *["TMULS", "TLOAD", "TADD"] * 3, "TSTORE"]
    rewrite_and_verify(capsys, tmp_path, LANG / "constexpr_return.cpp")


# ---------------------------------------------------------------- AUTO helpers called from a MultiBuffered body


def test_lane_helpers_own_multibuffer_copy_shared_tiles_and_subview_past_the_end(capsys, tmp_path):
    path = LANG / "own_helper" / "lane_helpers.cpp"
    k = load(path)
    tiles = {t.cpp_name: t for t in k.tiles}
    # The folder's own MultiBuffered is read as the modelled loop: one loop of 6 iterations, 2 lanes.
    (mb,) = loops(k)
    assert (mb.kind, mb.buffers, mb.trip_count()) == ("MultiBuffered", 2, 6)
    # A tile declared in the body gets a copy per lane; one declared in a helper the body calls
    # has no lane in scope: the front end gives it one copy for every lane, and a counter the
    # rewrite may declare in the helper instead.
    assert tiles["row"].per_lane and tiles["row"].count == 2
    assert tiles["wide"].count is None and tiles["wide"].lanes_shared and tiles["wide"].lane_counter
    # The scratch row past `keys` is reserved with it: 256 B of capacity plus 256 B reached.
    assert tiles["scratch"].alias.base.tile is tiles["keys"]
    assert (tiles["keys"].capacity_bytes, tiles["keys"].nbytes) == (256, 512)
    # Helper calls inside the loop stay one statement each (syncs go where the lane is named).
    body = mb.body.stmts
    assert [type(s).__name__ for s in body] == ["Instr", "Block", "Block"]
    assert all(b.inlined for b in body[1:])
    rc, _, err = run(capsys, "auto2manual", path, "-o", tmp_path / "m.cpp")
    assert rc == 0
    assert f"{path}:24:5: warning: TSUBVIEW 'scratch' reaches 256 B past its base tile 'keys'" in err
    assert "tile 'wide' is declared in a helper called from a MultiBuffered body" not in err
    assert "'head'" not in err and "tile 'scratch' is declared" not in err  # aliases own no bytes
    text = rewrite_and_verify(capsys, tmp_path, path)
    assert "TASSIGN(keys, 0x0);  // UB 512 B" in text
    assert "TASSIGN(row, 0x200 + step.bufferId * 0x100);" in text
    # The helper's tile alternates two copies by a counter the helper keeps, stepped per call.
    assert "    static uint32_t wideCopy = 1;" in text and "    wideCopy = (wideCopy + 1) % 2;" in text
    assert "TASSIGN(wide, 0x400 + wideCopy * 0x100);" in text
    assert "wait_flag(PIPE_MTE3, PIPE_V, (event_t)(wideCopy));" in text
    # No flag inside a helper names the lane: the helpers' text is outside the lambda.
    helpers = text.split("__global__")[0]
    assert "step." not in helpers


def test_fp16_values_are_passed_and_returned_as_the_device_compiler_does(capsys):
    """`__fp16` by value (a helper parameter, a tile-scalar operand, a tile accessor's value) is
    accepted: clang's host targets refuse it unless told the device compiler's rule."""
    path = Path(__file__).resolve().parent / "kernels" / "shapes" / "fp16_scalars.cpp"
    k = load_kernel(str(path), FrontendOptions(auto_mode=False))
    assert [t.dtype for t in k.tiles] == ["fp16", "fp16"]
    muls = next(s for s in k.instructions() if s.op == "TMULS")
    assert muls.args[2].value.const_value() == 0.5
    assert cli_main(["check", str(path)]) == 0
    assert "0 race(s), 0 flag problem(s) (3 instructions and 4 syncs issued)" in capsys.readouterr().out


def test_launches_in_the_file_give_the_run_time_values_check_runs_with(capsys):
    """A launcher template passing its own template parameters as the kernel's scalar arguments:
    each kernel specialization (also one named with --entry) is checked once per distinct launch;
    a launch passing a launcher's run-time value gives none (the user sets it); `--set` replaces
    the file's values."""
    path = Path(__file__).resolve().parent / "kernels" / "shapes" / "launch_values.cpp"
    ks = load_kernels_of(path)
    assert [(k.name, k.launches) for k in ks] == [
        ("scale_part<float, 16, 64>", ((("cols", 64), ("rows", 16)), (("cols", 40), ("rows", 9)))),
        ("scale_part<half, 8, 128>", ((("cols", 100), ("rows", 8)),)),
        ("scale_part<float, 32, 32>", ()),
    ]
    assert cli_main(["kernels", str(path)]) == 0
    assert "scale_part<float, 16, 64> [vec] instantiated at" in capsys.readouterr().out
    assert cli_main(["check", "--entry", "scale_part<float, 32, 32>", str(path)]) == 2
    assert "needs runtime value(s) cols, rows to run; give them with --set cols=VALUE" in capsys.readouterr().err
    assert cli_main(["check", "--entry", "scale_part<half, 8, 128>", str(path)]) == 0
    assert "(as launched in the file with cols=100, rows=8): 0 race(s)" in capsys.readouterr().out
    assert cli_main(["check", str(path)]) == 2  # the third specialization needs --set
    out = capsys.readouterr().out
    assert "scale_part<float, 16, 64> (as launched in the file with cols=40, rows=9): 0 race(s)" in out
    assert "scale_part<half, 8, 128> (as launched in the file with cols=100, rows=8): 0 race(s)" in out
    assert cli_main(["check", str(path), "--set", "rows=4", "--set", "cols=8"]) == 0
    out = capsys.readouterr().out
    assert "as launched" not in out and out.count("0 race(s), 0 flag problem(s) (3 instructions") == 3


def test_launches_in_the_file_give_plain_kernels_their_run_time_values(capsys):
    """Plain kernels launched with literal sizes, from a launcher template's `if constexpr`
    branches and from a host function: each is checked once per distinct launch; a launch passing
    a run-time value gives none."""
    path = Path(__file__).resolve().parent / "kernels" / "shapes" / "plain_launch_values.cpp"
    ks = load_kernels_of(path)
    assert [(k.name, k.launches) for k in ks] == [
        ("part_1", ((("cols", 64), ("rows", 16)), (("cols", 40), ("rows", 9)))),
        ("part_2", ((("cols", 100), ("rows", 8)), (("cols", 128), ("rows", 4)))),
        ("part_3", ()),
    ]
    assert cli_main(["check", "--entry", "part_2", str(path)]) == 0
    out = capsys.readouterr().out  # one kernel: named by its file
    assert f"{path} (as launched in the file with cols=100, rows=8): 0 race(s)" in out
    assert f"{path} (as launched in the file with cols=128, rows=4): 0 race(s)" in out
    assert cli_main(["check", "--entry", "part_3", str(path)]) == 2
    assert "needs runtime value(s) cols, rows to run" in capsys.readouterr().err
    assert cli_main(["check", str(path), "--set", "rows=4", "--set", "cols=8"]) == 0
    out = capsys.readouterr().out
    assert "as launched" not in out and out.count("0 race(s), 0 flag problem(s) (2 instructions") == 3


def load_kernels_of(path: Path):
    from ptorewrite.diagnostics import Reporter
    from ptorewrite.parse.frontend import load_kernels

    return load_kernels(str(path), FrontendOptions(auto_mode=False), Reporter())


MX_VIEW = """#include <pto/pto-inst.hpp>
using namespace pto;
extern "C" __global__ AICORE void k(__gm__ float8_e8m0_t *in)
{
    using S = TileShape2D<float8_e8m0_t, ROWS, 4, Layout::LAYOUT>;
    using B = BaseShape2D<float8_e8m0_t, ROWS, 4, Layout::LAYOUT>;
    using T = Tile<TileType::Vec, float8_e8m0_t, 16, 32, BLayout::RowMajor>;
    T t;
    TASSIGN(t, 0x0);
    GlobalTensor<float8_e8m0_t, S, B, Layout::LAYOUT> g(in);
    TLOAD(t, g);
}
"""


@pytest.mark.parametrize("layout, shape, stride", [
    ("MX_A_ZZ", (1, 8, 2, 16, 2), (512, 64, 32, 2, 1)),
    ("MX_A_ND", (1, 1, 128, 2, 2), (512, 512, 4, 2, 1)),
    ("MX_A_DN", (1, 1, 2, 128, 2), (512, 512, 256, 2, 1)),
    ("MX_B_NN", (1, 0, 64, 16, 2), (512, 2048, 32, 2, 1)),
    ("MX_B_ND", (1, 1, 64, 4, 2), (512, 512, 8, 2, 1)),
    ("MX_B_DN", (1, 1, 4, 64, 2), (512, 512, 128, 2, 1)),
])
def test_mx_scale_views_have_their_layouts_shape_and_stride(tmp_path, layout, shape, stride):
    """TileShape2D / BaseShape2D of the a5 MX scale layouts (a 128 x 4 scale matrix)."""
    path = tmp_path / "mx.cpp"
    path.write_text(MX_VIEW.replace("LAYOUT", layout).replace("ROWS", "128"))
    g = load_kernel(str(path), FrontendOptions(auto_mode=False, arch="a5")).gm_tensors[0]
    assert tuple(x.const_value() for x in g.shape) == shape
    assert tuple(x.const_value() for x in g.stride) == stride


def test_an_mx_scale_view_of_run_time_extent_is_refused(capsys, tmp_path):
    path = tmp_path / "mx.cpp"
    path.write_text(MX_VIEW.replace("LAYOUT", "MX_A_ZZ").replace("ROWS", "DYNAMIC"))
    assert cli_main(["ir", "--arch", "a5", str(path)]) == 2
    assert "an MX scale layout with a run-time extent is not supported" in capsys.readouterr().err


VIEW_2D_BY_CONSTRUCTOR = """#include <pto/pto-inst.hpp>
using namespace pto;
extern "C" __global__ AICORE void k(__gm__ float *in)
{
    using VS = TileShape2D<float, -1, -1, Layout::LAYOUT>;
    using WS = BaseShape2D<float, -1, -1, Layout::LAYOUT>;
    VS validShape(16, 32);
    WS wholeShape(32, 64);
    using T = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor>;
    T t;
    TASSIGN(t, 0x0);
    GlobalTensor<float, VS, WS, Layout::LAYOUT> g(in, validShape, wholeShape);
    TLOAD(t, g);
}
"""


@pytest.mark.parametrize("layout, shape, stride", [
    ("ND", (1, 1, 1, 16, 32), (2048, 2048, 2048, 64, 1)),
    ("DN", (1, 1, 1, 16, 32), (2048, 2048, 2048, 1, 32)),
    # NZ: 8 floats per 32-byte row of a 16-row fractal.
    ("NZ", (1, 4, 1, 16, 8), (2048, 256, 128, 8, 1)),
])
def test_2d_views_whose_constructors_give_the_extents(tmp_path, layout, shape, stride):
    """`BaseShape2D<T, -1, -1, L> s(rows, cols)`: every stride that depends on the extents is
    worked out from the constructor's values (not one value per -1 entry of the 5-D stride)."""
    path = tmp_path / "view.cpp"
    path.write_text(VIEW_2D_BY_CONSTRUCTOR.replace("LAYOUT", layout))
    g = load_kernel(str(path), FrontendOptions(auto_mode=False, arch="a5")).gm_tensors[0]
    assert tuple(x.const_value() for x in g.shape) == shape
    assert tuple(x.const_value() for x in g.stride) == stride


def test_2d_views_with_one_fixed_extent_take_rows_and_cols_from_their_constructor(capsys):
    """`BaseShape2D<T, 16, DYNAMIC> s(16, rowLen)` (and TileShape2D likewise): the two values are
    rows and cols whichever of them the template fixes; only the entries the template leaves
    dynamic take them."""
    path = Path(__file__).resolve().parent / "kernels" / "shapes" / "two_value_strides.cpp"
    k = load_kernel(str(path), FrontendOptions(auto_mode=False))
    ga, gb, gc = (next(g for g in k.gm_tensors if g.name == n) for n in ("ga", "gb", "gc"))
    row_len = 100
    def at(xs):
        return tuple(x.eval({"rowLen": row_len}) for x in xs)
    assert at(ga.stride) == (16 * row_len,) * 3 + (row_len, 1)
    assert at(gb.stride) == (64 * row_len,) * 3 + (1, row_len)
    assert at(gc.shape) == (1, 1, 1, 16, 64) and at(gc.stride) == at(ga.stride)
    assert cli_main(["check", "--set", f"rowLen={row_len}", str(path)]) == 0
    assert "0 race(s), 0 flag problem(s)" in capsys.readouterr().out


def test_conv_tiles_are_whole_tiles_to_check_and_refused_by_the_emulator(capsys):
    """ConvTile<Vec, half, 256, NCHW, ConvTileShape<1, 16, 2, 8>>: one row of its 256 elements,
    touched whole; `check` finds the race of the unordered store; `simulate` does not compute it."""
    path = Path(__file__).resolve().parent / "kernels" / "shapes" / "conv_tiles.cpp"
    k = load_kernel(str(path), FrontendOptions(auto_mode=False, entry="conv_tiles<true>"))
    src, dst = k.tile("src"), k.tile("dst")
    assert (src.tile_type, src.dtype, src.rows, src.cols, src.slayout) == ("Vec", "fp16", 1, 256, "ConvNCHW")
    assert (dst.rows, dst.cols, dst.slayout, dst.nbytes) == (1, 256, "ConvNC1HWC0", 512)
    assert cli_main(["check", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "conv_tiles<true>: 0 race(s), 0 flag problem(s)" in out and "conv_tiles<false>: 1 race(s)" in out
    assert "data race (RAW) on UB bytes [0x200, 0x400): TSTORE [MTE3] reads flatOut while TTRANS [V]" in err
    assert cli_main(["simulate", "--entry", "conv_tiles<true>", str(path)]) == 2
    assert "33:5: error: ConvTile 'dst': the emulator does not compute N-D (NC1HWC0) tiles" in capsys.readouterr().err


def test_conv_tile_with_a_run_time_dimension_touches_the_elements_it_holds(capsys):
    """ConvTile<Mat, half, 4096, NC1HWC0, ConvTileShape<1, 2, -1, 16, 16>>: room for 4096 elements
    (BufferSize counts elements), of which each slot holds 2 x rows x 16 x 16, as constructed last
    for that slot (`fmap[i] = Fmap(rows)` in a loop). Back-to-back buffers do not overlap in the
    short last block; buffers that share a row do, also when the other slot is built shorter."""
    path = Path(__file__).resolve().parent / "kernels" / "shapes" / "conv_tile_rows.cpp"
    k = load_kernel(str(path), FrontendOptions(auto_mode=False, entry="conv_tile_rows<0, 0>"))
    fmap = k.tile("fmap")
    assert (fmap.rows, fmap.cols, fmap.valid_cols, fmap.conv_static, fmap.nbytes) == (1, 4096, None, 512, 8192)
    assert fmap.valid_var
    assert cli_main(["check", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "conv_tile_rows<0, 0>: 0 race(s), 0 flag problem(s)" in out
    assert "conv_tile_rows<-1, 0>: 1 race(s)" in out and "conv_tile_rows<-1, 3>: 1 race(s)" in out
    assert "data race (WAW) on L1 bytes [0x1c00, 0x2000): TLOAD [MTE2] writes fmap[1] while TLOAD [MTE2] at 29:9 " \
           "writes fmap[0]" in err

def test_img2col_configuration_and_timg2col(capsys):
    """A ConvTile's img2col setters are configuration only; TIMG2COL writes its Left tile on MTE1."""
    path = Path(__file__).resolve().parent / "kernels" / "shapes" / "img2col.cpp"
    k = load_kernel(str(path), FrontendOptions(auto_mode=False, entry="img2col<true>"))
    ops = [(s.op, s.pipe) for s in k.instructions()]
    assert ("TIMG2COL", "MTE1") in ops and ops.index(("TIMG2COL", "MTE1")) < ops.index(("TMATMUL", "M"))
    assert cli_main(["check", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "img2col<true>: 0 race(s), 0 flag problem(s)" in out and "img2col<false>: 2 race(s)" in out
    assert "data race (RAW) on L0A bytes [0x0, 0x200): TMATMUL [M] reads a while TIMG2COL [MTE1] at 49:5" in err


def test_mx_matmul_scale_tiles_and_packed_cube_tiles(capsys, tmp_path):
    """a5 MX: scale tiles in the L0A / L0B scale buffers, moved on MTE1, read by TMATMUL_MX; the
    accumulating call (acc named twice) needs no barrier after the first; 4-bit cube tiles take
    two values a byte (the pong tiles after 8 KiB pings do not overlap them)."""
    path = Path(__file__).resolve().parent / "kernels" / "shapes" / "mx_matmul.cpp"
    k = load_kernel(str(path), FrontendOptions(auto_mode=False, arch="a5", entry="mx_matmul<true>"))
    assert (k.tile("leftScale").tile_type, k.tile("rightScale").tile_type) == ("ScaleLeft", "ScaleRight")
    assert k.tile("left").storage_bytes == 64 * 256 // 2
    ops = [(s.op, s.pipe) for s in k.instructions()]
    assert ("TMOV", "MTE1") in ops and ops[-3:-1] == [("TMATMUL_MX", "M"), ("TMATMUL_MX_ACC", "M")]
    assert cli_main(["check", "--arch", "a5", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "mx_matmul<true>: 0 race(s), 0 flag problem(s)" in out and "mx_matmul<false>: 8 race(s)" in out
    assert "data race (RAW) on L0A_SCALE bytes [0x0, 0x200): TMATMUL_MX [M] reads leftScale while TMOV [MTE1]" in err
    assert "two values a byte" in err
    assert cli_main(["check", "--arch", "a2a3", "--entry", "mx_matmul<true>", str(path)]) == 2
    assert "tiles of type ScaleLeft have no buffer on a2a3" in capsys.readouterr().err


def test_compact_tiles_store_their_valid_region(capsys):
    """TileLeftCompact<half, 256, 256, 32, 64>: 4 KiB of fractals, not the 128 KiB its declared shape
    would take; the tile right after it does not overlap it; the emulator refuses compact tiles."""
    path = Path(__file__).resolve().parent / "kernels" / "shapes" / "compact_tiles.cpp"
    k = load_kernel(str(path), FrontendOptions(auto_mode=False, entry="compact_tiles<true>"))
    assert (k.tile("left0").compact, k.tile("left0").nbytes, k.tile("acc").nbytes) == (True, 4096, 4096)
    assert cli_main(["check", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "compact_tiles<true>: 0 race(s), 0 flag problem(s)" in out and "compact_tiles<false>: 4 race(s)" in out
    assert "data race (RAW) on L0A bytes [0x1000, 0x2000): TMATMUL_ACC [M] reads left1" in err
    assert "outside" not in err
    assert cli_main(["simulate", "--entry", "compact_tiles<true>", str(path)]) == 2
    assert "compact tile 'left0': the emulator does not lay out compact-mode tiles" in capsys.readouterr().err


def test_compact_mx_scale_tiles_store_fractals_of_16_by_2(capsys, tmp_path):
    """A compact a5 MX scale tile rounds its valid rows to 16 and its columns to 2 (left scales),
    or its rows to 2 and its columns to 16 (right scales): 256 x 8 one-byte scales take 2 KiB and
    8 x 64 take 512 B, so ping and pong fit their buffers side by side; a pong placed inside the
    ping is still reported."""
    path = Path(__file__).resolve().parent / "kernels" / "shapes" / "compact_mx_scales.cpp"
    k = load_kernel(str(path), FrontendOptions(auto_mode=False, arch="a5"))
    assert (k.tile("leftScale").nbytes, k.tile("rightScale").nbytes) == (2048, 512)
    assert cli_main(["check", "--arch", "a5", str(path)]) == 0
    assert "compact_mx_scales.cpp: 0 race(s), 0 flag problem(s)" in capsys.readouterr().out
    inside = tmp_path / "compact_mx_scales.cpp"
    inside.write_text(path.read_text().replace("TASSIGN(leftScale[1], 0x800);", "TASSIGN(leftScale[1], 0x400);"))
    assert cli_main(["check", "--arch", "a5", str(inside)]) == 1
    err = capsys.readouterr().err
    assert "data race (WAW) on L0A_SCALE bytes [0x400, 0x800): TEXTRACT [MTE1] writes leftScale[1]" in err
    assert "past the end" not in err


# ---------------------------------------------------------------- scalar operands


def test_scalar_operands_macros_enumerators_gm_reads_and_nullptr():
    k = load(LANG / "scalar_operands.cpp", auto=False, entry="scale_rows")
    tiles = {t.cpp_name: t for t in k.tiles}
    # ROUND_TO(20, 32 / 4) = 24 columns; Half::HIGH is 1, so the rows start SCALED(24) = 48 floats in.
    assert (tiles["x"].cols, tiles["x"].valid_cols) == (24, Const(20))
    assert {g.name: g.offset_bytes for g in k.gm_tensors} == {"src": Const(192), "dst": Const(192)}
    # scale[0] is data the scalar unit reads: a run-time value, not a steering one.
    tmuls = next(i for i in k.instructions() if i.op == "TMULS")
    assert tmuls.scalars == [Var("scale[0]")]
    # The bias helper got nullptr: `bias != nullptr` is false at compile time, no TLOAD of it.
    assert [i.op for i in k.instructions()] == ["TLOAD", "TMULS", "TSTORE"]
    assert {"subblock_idx", "subblock_num", "scale[0]"} <= set(k.runtime_values)


def test_pointer_argument_tested_against_nullptr_is_a_runtime_condition(capsys):
    k = load(LANG / "scalar_operands.cpp", auto=False, entry="scale_rows_bias")
    assert "bias" in k.runtime_values
    sub = {"subblock_idx": 0, "subblock_num": 2}
    assert ops(k, bias=0, **sub) == ["TLOAD", "TMULS", "TSTORE"]
    assert ops(k, bias=1, **sub) == ["TLOAD", "TLOAD", "TMULS", "TSTORE"]
    rc, out, err = run(capsys, "check", LANG / "scalar_operands.cpp", "--set", "bias=1",
                       "--set", "subblock_idx=0", "--set", "subblock_num=2")
    assert rc == 0 and out.count("0 race(s), 0 flag problem(s)") == 3, out + err


def test_scalar_read_of_a_pointer_the_kernel_writes_is_ordered_by_its_flags(capsys, tmp_path):
    # A GM element read of an argument an instruction writes is an access on PIPE_S.
    path = LANG / "scalar_read_of_output.cpp"
    rc, out, err = run(capsys, "check", path)
    assert rc == 0 and "0 race(s), 0 flag problem(s) (6 instructions and 6 syncs issued)" in out, out + err
    racy = edited(tmp_path, path, "    set_flag(PIPE_MTE3, PIPE_S, EVENT_ID0);\n    wait_flag(PIPE_MTE3, PIPE_S, EVENT_ID0);\n",
                  "")
    rc, out, err = run(capsys, "check", racy)
    assert rc == 1 and "3 race(s)" in out, out + err
    assert f"{racy}:23:5: error: data race (RAW) on GM argument out bytes [0xfc, 0x100): ScalarLoad [S] reads " \
           "out[63] while TSTORE [MTE3] at 22:5 writes dst, and nothing orders them; needs MTE3 -> S" in err
    # Read in a loop condition it is not issued, and the front end still refuses it.
    cond = edited(tmp_path, path, "    float last = out[63];\n    TADDS(x, x, last);\n",
                  "    for (int i = 0; out[i] < 0.0f; i += 1) {\n        TADDS(x, x, 1.0f);\n    }\n")
    rc, out, err = run(capsys, "check", cond)
    assert rc == 2 and "the scalar unit reads GM through 'out', which TSTORE at line 22 writes" in err, err


def test_scalar_stores_to_gm_arguments_no_instruction_uses(capsys):
    k = load(LANG / "scalar_operands.cpp", auto=False, entry="scale_rows_report")
    assert [i.op for i in k.instructions()] == ["TLOAD", "TMULS", "TSTORE"]
    path = LANG / "bad" / "scalar_store_to_input.cpp"
    rc, out, err = run(capsys, "check", path)
    assert rc == 2 and out == ""
    assert err.startswith(f"{path}:15:5: error: the scalar unit stores to GM through 'in', which TLOAD at line 16 "
                          "reads")


def test_cube_tile_mode_setters(capsys, tmp_path):
    path = LANG / "tile_modes.cpp"
    rc, out, err = run(capsys, "check", path)
    assert rc == 0 and "0 race(s), 0 flag problem(s) (6 instructions and 6 syncs issued)" in out, out + err
    assert err.count("warning:") == 1
    assert f"{path}:39:5: warning: '.SetMadTF32Mode()' changes the arithmetic of later cube instructions" in err
    # A setter on a tile without fractal boxes could change which bytes later instructions touch.
    vec = edited(tmp_path, path, "aLeft.SetKAligned(true);",
                 "Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor> v;\n    TASSIGN(v, 0x0);\n"
                 "    v.SetKAligned(true);")
    rc, out, err = run(capsys, "check", vec)
    assert rc == 2 and "error: '.SetKAligned()' on 'v', a tile without fractal boxes, is not supported" in err


def test_bits_of_a_scalar_read_through_a_pointer_cast(capsys):
    k = load(LANG / "scalar_bits.cpp", auto=False)
    tmuls = next(i for i in k.instructions() if i.op == "TMULS")
    assert tmuls.scalars == [Var("*reinterpret_cast<float *>(&scaleBits)")]
    rc, out, err = run(capsys, "check", LANG / "scalar_bits.cpp")
    assert rc == 0 and "0 race(s), 0 flag problem(s)" in out, out + err


def test_view_shape_read_back_and_decltype(capsys):
    k = load(LANG / "gm_shape.cpp", auto=False)
    views = {g.name: g for g in k.gm_tensors}
    assert views["src"].shape == tuple(Const(d) for d in (1, 1, 1, 4, 64))
    assert views["src"].stride == tuple(Const(d) for d in (1, 1, 1, 128, 1))
    assert views["src"].offset_bytes == Const(128)
    rc, out, err = run(capsys, "check", LANG / "gm_shape.cpp")
    assert rc == 0 and "0 race(s), 0 flag problem(s)" in out, out + err


def test_on_chip_pointer_from_a_tile_counts_in_elements(capsys):
    k = load(LANG / "onchip_pointer.cpp", auto=False)
    # x at 0x100; `x.data() + 64` is 64 floats further, 0x200, and y goes there.
    assert assigns_of(k) == {"x": Const(0x100), "y": Const(0x200)}
    rc, out, err = run(capsys, "check", LANG / "onchip_pointer.cpp")
    assert rc == 0 and "0 race(s), 0 flag problem(s)" in out, out + err


def test_scalar_read_through_a_pointer_to_a_tile(capsys, tmp_path):
    """`p[i]` with `p = (T *)t.data()`: a scalar-unit load of the element's bytes (the tile's
    placed address plus the index), ordered by MTE2 -> S flags; a pointer moved off the tile's
    start reads the bytes it points at."""
    path = LANG / "onchip_pointer_read.cpp"
    rc, out, err = run(capsys, "check", path)
    assert rc == 1 and "scale_by_first<true>: 0 race(s)" in out and "scale_by_first<false>: 1 race(s)" in out
    assert "28:5: error: data race (RAW) on UB bytes [0x100, 0x104): ScalarLoad [S] reads first[0] while TLOAD " \
           "[MTE2] at 20:5 writes s" in err
    moved = tmp_path / "moved.cpp"
    moved.write_text(path.read_text().replace("float scale = first[0];", "float scale = (first + 1)[0];"))
    rc, out, err = run(capsys, "check", moved)
    assert rc == 1 and "28:5: error: data race (RAW) on UB bytes [0x104, 0x108)" in err, err
    handle = tmp_path / "handle.cpp"  # the address behind a tile handle, as pto-isa's __tf__ helpers take it
    handle.write_text(path.read_text().replace("auto &raw = s.data();", "auto raw = __cce_get_tile_ptr(s.data());"))
    rc, out, err = run(capsys, "check", handle)
    assert rc == 1 and "scale_by_first<false>: 1 race(s)" in out, out + err
    raw = tmp_path / "raw_mx.cpp"
    raw.write_text(path.read_text().replace("float scale = first[0];",
                                            "load_cbuf_to_ca_mx(0, (void *)raw, 0, 0, 1, 1, 1, 1); float scale = 1.0f;"))
    rc, out, err = run(capsys, "check", raw)
    assert rc == 2 and "28:5: error: 'load_cbuf_to_ca_mx' moves MX scales, which this architecture has no buffer " \
                       "for" in err, err


def test_entries_written_by_a_macro_use(capsys):
    k = load(LANG / "macro_entries.cpp", auto=False, entry="scaleCase2")
    assert [p.name for p in k.params] == ["out", "in", "scale"]
    assert {t.cpp_name: (t.rows, t.cols) for t in k.tiles} == {"x": (8, 128)}
    dst = next(g for g in k.gm_tensors if g.name == "dst")
    assert dst.param == "out" and dst.dtype == "fp32"  # `(__gm__ float *)out` retypes the bytes
    rc, out, err = run(capsys, "check", LANG / "macro_entries.cpp")
    assert rc == 0 and out.count("0 race(s), 0 flag problem(s)") == 2, out + err
    path = LANG / "bad" / "macro_entry_block.cpp"
    rc, out, err = run(capsys, "check", path)
    assert rc == 2 and err.startswith(f"{path}:15:1: error: the body of 'blockCase1' comes from a macro "
                                      "expansion; ptorewrite reads such a body only when it is a list of "
                                      "expression statements")


def test_macro_uses_defining_a_kernel_and_its_launcher(capsys):
    # The launcher each use also defines is host code, not a kernel; a macro forwarding to the
    # kernel-defining one is expanded again.
    path = LANG / "macro_launchers.cpp"
    rc, out, err = run(capsys, "check", path)
    assert rc == 0, out + err
    assert [ln.split(": ")[1] for ln in out.splitlines() if "race(s)" in ln] == \
        ["addOne_wide", "addOneBytes_narrow", "addOne_square", "addOne_both", "addOneBytes_both"], out
    k = load(path, auto=False, entry="addOne_square")
    assert {t.cpp_name: (t.rows, t.cols) for t in k.tiles} == {"x": (16, 16)}
    k = load(path, auto=False, entry="addOneBytes_both")
    assert {t.cpp_name: (t.rows, t.cols) for t in k.tiles} == {"x": (2, 128)}


def test_tiles_given_a_new_valid_shape_and_defaulted_template_parameters(capsys):
    """`tiles[i] = T(rows)` / `single = T(rows)`: a re-shaped tile counts its whole capacity (with a
    warning where its declaration gave a valid extent); `ScaleAndStore(dst, tiles, ...)` deduces
    the types after its defaulted `Factor`."""
    path = LANG / "tile_reconstruct.cpp"
    k = load(path, auto=False)
    assert k.tile("single").valid_rows is None and k.tile("tiles").valid_rows is None
    assert [s.op for s in k.instructions()] == ["TLOAD", "TMULS", "TSTORE", "TLOAD", "TSTORE"]
    rc, out, err = run(capsys, "check", "--set", "rows=4", "--set", "ordered=1", path)
    assert rc == 1 and "1 race(s)" in out, out + err
    assert "41:5: warning: tile 'single' gets a new run-time valid shape here; `check` counts all its rows" in err
    assert "45:5: error: data race (RAW) on UB bytes [0x2000, 0x3000): TSTORE [MTE3] reads single" in err
    rc, out, err = run(capsys, "check", "--set", "rows=4", "--set", "ordered=0", path)
    assert rc == 1 and "3 race(s)" in out, out + err


def test_register_level_vector_code_outside_a_vec_scope_is_refused_by_name(capsys, tmp_path):
    """Register-level vector code is read only as a whole `__VEC_SCOPE__` block (tests/test_opaque.py);
    outside one, the first register-level construct the kernel runs gets a located error (an
    intrinsic call, or a vector-register variable)."""
    path = LANG / "bad" / "vector_registers.cpp"
    rc, _, err = run(capsys, "check", "--arch", "a5", path)
    assert rc == 2 and err.startswith(f"{path}:31:9: error: 'mem_bar' is register-level vector code outside a "
                                      "`__VEC_SCOPE__` block"), err
    helper_first = tmp_path / "helper_first.cpp"
    helper_first.write_text(path.read_text().replace("        mem_bar(VST_VLD);\n", ""))
    rc, _, err = run(capsys, "check", "--arch", "a5", helper_first)
    assert rc == 2 and f"{helper_first}:9:5: error: 'RegTensor' is register-level vector code" in err, err


def test_spec_struct_of_the_kernels_namespace(capsys):
    """`add_spec<spec_tests::AddSpec<float, 4, 20>>` (as clang names it): the spec's member alias
    names its static member `padded` (32), the parameters read `Spec::Global::RawDType`."""
    path = LANG / "spec_struct.cpp"
    k = load(path, auto=False)
    t = k.tile("t")
    assert (t.rows, t.cols, t.valid_cols.const_value(), t.dtype) == (4, 32, 20, "fp32")
    assert [p.dtype for p in k.params] == ["fp32", "fp32"]
    rc, out, err = run(capsys, "check", path)
    assert rc == 0 and "0 race(s), 0 flag problem(s)" in out, out + err


def test_scalar_only_kernels_have_nothing_to_check(capsys, tmp_path):
    """A kernel whose code runs only on the scalar unit (records behind raw addresses, a struct
    copy, a barrier) cannot race: `check` says so with a warning instead of stopping on C++ it does
    not read. One flag to another pipe is enough to need the body read."""
    path = LANG / "scalar_only.cpp"
    rc, out, err = run(capsys, "check", path)
    assert rc == 0 and "0 race(s), 0 flag problem(s) (0 instructions and 0 syncs issued)" in out, out + err
    assert f"{path}:22:24: warning: kernel 'scalar_only' runs scalar code only" in err
    assert "Recursion" not in err and "Traceback" not in err  # `struct Node *next` is laid out once
    signalling = tmp_path / "signalling.cpp"
    signalling.write_text(path.read_text().replace("pipe_barrier(PIPE_ALL);", "set_flag(PIPE_S, PIPE_V, EVENT_ID0);"))
    rc, out, err = run(capsys, "check", signalling)
    assert rc == 2 and "24:18: error: integer-to-pointer casts are supported only into an on-chip buffer" in err \
        and "warning" not in err, err


def test_macro_expansion_pastes_and_stringizes():
    from ptorewrite.parse.macros import expand_use, function_macro

    m = function_macro('(N, T) void run_##N(T *x) { f<T, N>(x); } const char *s = #T;')
    assert m.pastes and m.params == ("N", "T")
    assert expand_use(m, ["3", " float"]) == 'void run_3 ( float * x ) { f < float , 3 > ( x ) ; } ' \
        'const char * s = "float" ;'


def test_tile_returned_by_a_helper_is_declared_where_it_initializes(capsys):
    dyn = load(LANG / "tile_factory.cpp", auto=False, entry="scale_rows<true>")
    fixed = load(LANG / "tile_factory.cpp", auto=False, entry="scale_rows<false>")
    assert [(t.cpp_name, t.valid_rows, t.valid_cols) for t in dyn.tiles] == [("x", Const(6), Const(48))]
    assert [(t.cpp_name, t.valid_rows, t.valid_cols) for t in fixed.tiles] == [("x", Const(8), Const(64))]
    rc, out, err = run(capsys, "check", LANG / "tile_factory.cpp")
    assert rc == 0 and out.count("0 race(s), 0 flag problem(s)") == 2, out + err


def test_character_literals_are_numbers(capsys):
    from ptorewrite.parse.cparse import char_value

    assert [char_value(t) for t in ("'a'", r"'\x01'", r"'\n'", r"'\017'", '"a"', "'ab'")] == [97, 1, 10, 15, None, None]
    rc, out, err = run(capsys, "check", LANG / "byte_template_arg.cpp")
    assert rc == 0, err
    # Mode 1 adds; mode 'A' (65) does not.
    assert "add_mode<(unsigned char)'\\x01'>: 0 race(s), 0 flag problem(s) (3 instructions" in out
    assert "add_mode<(unsigned char)'A'>: 0 race(s), 0 flag problem(s) (2 instructions" in out


def test_tile_element_read_by_the_scalar_unit(capsys, tmp_path):
    path = LANG / "tile_element.cpp"
    k = load(path, auto=False)
    read = next(i for i in k.instructions() if i.op == "GetValue")
    assert read.pipe == "S" and [a.access for a in read.args] == ["r", ""]
    assert read.loc.line == 24 and read.loc.col == 5  # the whole declaration it is written in
    tmuls = next(i for i in k.instructions() if i.op == "TMULS")
    assert tmuls.scalars == [Var("f.GetValue(0)")]
    rc, out, err = run(capsys, "check", path)
    assert rc == 0 and "0 race(s), 0 flag problem(s)" in out, out + err
    unsynced = edited(tmp_path, path, "    set_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);\n", "")
    unsynced.write_text(unsynced.read_text().replace("    wait_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);\n", ""))
    rc, out, err = run(capsys, "check", unsynced)
    assert rc == 1 and "error: data race (RAW) on UB bytes [0x100, 0x200): GetValue [S] reads f while TLOAD" in err
    # In AUTO mode the planner orders the load before the read, before the whole declaration.
    auto = tmp_path / "auto.cpp"
    auto.write_text("".join(ln for ln in path.read_text().splitlines(True) if "TASSIGN" not in ln and "_flag" not in ln))
    rc, _, err = run(capsys, "auto2manual", auto, "-o", tmp_path / "manual.cpp")
    assert rc == 0, err
    text = (tmp_path / "manual.cpp").read_text()
    assert "wait_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);  // RAW f: MTE2 -> S\n    float scale = f.GetValue(0);" in text


def test_unknown_library_template_call_is_named(capsys):
    path = LANG / "bad" / "unknown_library_template.cpp"
    rc, out, err = run(capsys, "check", "-isystem", LANG / "library", path)
    assert rc == 2 and out == ""
    assert err.startswith(f"{path}:14:5: error: unknown PTO instruction 'TBLEND'")


def test_texpands_of_an_l1_tile_runs_on_mte2(capsys):
    """TEXPANDS fills an L1 tile on MTE2 (a Vec tile on V): the move that reads it needs
    MTE2 -> MTE1; a V -> MTE1 flag orders nothing."""
    path = LANG / "expands_l1.cpp"
    k = load(path, auto=False, entry="expands_l1<false>")
    assert [(i.op, i.pipe) for i in k.instructions()] == [("TEXPANDS", "MTE2"), ("TMOV", "MTE1")]
    rc, out, err = run(capsys, "check", path)
    assert rc == 1 and "expands_l1<false>: 0 race(s)" in out and "expands_l1<true>: 1 race(s)" in out
    assert f"{path}:26:5: error: data race (RAW) on L1 bytes [0x0, 0x2000): TMOV [MTE1] reads aMat while " \
           "TEXPANDS [MTE2] at 18:5 writes aMat" in err


def test_a_dependent_type_constructed_in_an_expression_parses():
    # `typename G::Shape(rows)`, as a GlobalTensor's run-time shape argument in a template.
    from ptorewrite.parse.cparse import Call, Name, parse_expression

    node = parse_expression("typename GlobalBias::Shape(validM)")
    assert isinstance(node, Call) and isinstance(node.callee, Name)
    assert node.callee.parts == ("GlobalBias", "Shape") and len(node.args) == 1


NULL_KERNEL = LANG / "null_pointers.cpp"


def test_a_pointer_declared_null_and_set_in_a_loop_points_into_its_argument(capsys):
    """`T *p = nullptr;` set deeper: based on the argument its assignments derive it from, with
    its offset and nullness in scalars; the race through it is found."""
    k = load_kernel(str(NULL_KERNEL), FrontendOptions(auto_mode=False))
    last = next(g for g in k.gm_tensors if g.name == "last")
    assert last.param == "out" and str(last.offset_bytes) == "pending@offset"
    tests = [s.cond for s in ir.walk(k.body) if isinstance(s, ir.If)]
    assert "(stamp@null != 1)" in {str(c) for c in tests}  # `stamp != nullptr`
    assert cli_main(["check", "--set", "rows=3", str(NULL_KERNEL)]) == 0
    assert "0 race(s), 0 flag problem(s) (9 instructions" in capsys.readouterr().out
    assert cli_main(["check", "-D", "RACY", "--set", "rows=3", str(NULL_KERNEL)]) == 1
    err = capsys.readouterr().err
    assert "54:9: error: data race (RAW) on GM argument out bytes [0x400, 0x600): TLOAD [MTE2] reads back while " \
           "TSTORE [MTE3] at 51:9 writes last" in err


def test_a_null_pointer_set_from_another_argument_later_is_refused(capsys, tmp_path):
    bad = tmp_path / "two_bases.cpp"
    bad.write_text(NULL_KERNEL.read_text().replace("        havePending = true;\n",
                                                   "        havePending = true;\n        pending = in + r;\n", 1))
    assert cli_main(["check", "--set", "rows=3", str(bad)]) == 2
    assert "error: GM pointer 'pending' is pointed at another kernel argument inside a loop" in capsys.readouterr().err


def test_a_tile_chosen_at_run_time_is_used_under_its_condition(capsys):
    """`auto &cur = parity ? pong : ping;`: every statement naming `cur` runs once per choice
    under `if (cur@choice)`; `cur.RowMaskInternal = n` and `cur.SetValidCol(n)` widen both
    tiles' valid shapes to their capacity with a warning; the race on the pong tile is found."""
    path = LANG / "tile_choice.cpp"
    k = load_kernel(str(path), FrontendOptions(auto_mode=False))
    loads = [s for s in ir.walk(k.body) if isinstance(s, ir.If) and str(s.cond) == "(cur@choice != 0)"]
    assert [(x.then.stmts[0].op, [str(a.value) for a in x.then.stmts[0].tile_args],
             [str(a.value) for a in x.other.stmts[0].tile_args]) for x in loads] == \
        [("TLOAD", ["pong"], ["ping"]), ("TSTORE", ["pong"], ["ping"])]
    assert all(t.valid_rows is None and t.valid_cols is None for t in k.tiles)
    values = ["--set", "chunks=5", "--set", "lastRows=3"]
    assert cli_main(["check", *values, str(path)]) == 0
    captured = capsys.readouterr()
    assert "0 race(s), 0 flag problem(s) (10 instructions" in captured.out
    assert "tile 'pong' gets a new run-time valid shape here; `check` counts all its rows" in captured.err
    assert cli_main(["check", "-D", "RACY", *values, str(path)]) == 1
    assert "38:9: error: data race (WAR) on UB bytes [0x800, 0x1000): TLOAD [MTE2] writes cur while TSTORE [MTE3] " \
           "at 41:9 reads cur" in capsys.readouterr().err


def test_helpers_that_issue_work_and_return_a_value(capsys, tmp_path):
    """`if (!RowsFit(rows)) return;`, `int loaded = LoadRows(x, src);`: the helper runs before the
    statement that uses its value, its `return v;` assigning a result the statement reads."""
    path = LANG / "value_helper_with_work.cpp"
    rc, out, err = run(capsys, "check", "--set", "rows=4", path)
    assert rc == 0 and "0 race(s), 0 flag problem(s) (3 instructions and 4 syncs issued)" in out, out + err
    rc, out, err = run(capsys, "check", "--set", "rows=0", path)
    assert rc == 0 and "(0 instructions and 1 syncs issued)" in out, out + err
    k = load(path, auto=False)
    assigns = [(s.var, str(s.value)) for s in ir.walk(k.body) if isinstance(s, ir.Assign) and "@return" in s.var]
    assert assigns == [("RowsFit@return", "false"), ("RowsFit@return", "true"), ("LoadRows@return", "16")], assigns
    racy = tmp_path / "racy.cpp"
    text = path.read_text()
    racy.write_text(text.replace("    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n",
                                 ""))
    rc, out, err = run(capsys, "check", "--set", "rows=4", racy)
    assert rc == 1 and f"{racy}:36:9: error: data race (WAW) on UB bytes [0x0, 0x1000): TMULS [V] writes x while " \
        "TLOAD [MTE2] at 21:5 via 34:18 writes t" in err, err
    # On the right of `&&` the helper runs only when the left side holds.
    guarded = tmp_path / "guarded.cpp"
    guarded.write_text(text.replace("    if (!RowsFit(rows)) {", "    if (rows > 0 && !RowsFit(rows)) {"))
    k = load(guarded, auto=False)
    first = k.body.stmts[0]
    assert isinstance(first, ir.If) and str(first.cond) == "(rows > 0)", first


def test_template_arguments_that_compare_and_choose():
    from ptorewrite.parse import cparse as cp

    node = cp.parse_expression("Shape<1, cols<cap ? cols : cap>", is_template=lambda n: n == "Shape")
    assert isinstance(node, cp.Name) and len(node.targs) == 2
    chosen = node.targs[1]
    assert isinstance(chosen, cp.Conditional) and isinstance(chosen.cond, cp.Binary) and chosen.cond.op == "<"
    k = load(LANG / "compare_in_template_args.cpp", auto=False)
    views = {g.name: g.shape for g in k.gm_tensors}
    assert views["src"][-1] == Const(48) and views["dst"][-1] == Const(48), views
    assert k.tiles[0].valid_cols == Const(48)


# ---------------------------------------------------------------- helpers that issue work and return values


def test_helpers_with_effects_statics_switch_and_enumerators(capsys, tmp_path):
    """A static local keeps its value between calls (buffers alternate), a helper that issues
    TASSIGNs returns a value used in an expression, a switch on a run-time value picks a struct."""
    path = LANG / "helpers_with_effects.cpp"
    k = load(path, auto=False)
    waits = [f for f in flags(k, profile=0) if f.startswith("wait MTE3->MTE2")]
    assert waits == ["wait MTE3->MTE2 0", "wait MTE3->MTE2 1"] * 2 + ["wait MTE3->MTE2 0", "wait MTE3->MTE2 1"]
    # The switch: tile 0 adds (its first case with first == true), the others scale.
    assert [o for o in ops(k, profile=0) if o in ("TMULS", "TADDS")] == ["TADDS", "TMULS", "TMULS", "TMULS"]
    # placeAll(spare, 0x2000) returns the byte after both spare tiles.
    rc, out, err = run(capsys, "ir", path)
    assert rc == 0, err
    assert "placeAll@return = 16384" in out and "next = placeAll@return" in out and "TASSIGN(sum, next)" in out
    rc, out, err = run(capsys, "check", path)
    assert (rc, err) == (0, ""), err
    assert "0 race(s), 0 flag problem(s)" in out
    # Without `static` the helper starts from 0 at every call: always the first buffer.
    plain = tmp_path / "helpers_plain.cpp"
    plain.write_text(path.read_text().replace("    static int next = 0;", "    int next = 0;"))
    waits = [f for f in flags(load(plain, auto=False), profile=0) if f.startswith("wait MTE3->MTE2")]
    assert waits[:4] == ["wait MTE3->MTE2 0"] * 4


def test_ternary_template_argument():
    from ptorewrite.parse import cparse as cp

    node = cp.Parser(cp.tokenize("TSTORE<UF ? STPhase::Final : STPhase::Unspecified>(g, t)"),
                     is_template=lambda name: name == "TSTORE").expression()
    assert isinstance(node, cp.Call) and isinstance(node.callee.targs[0], cp.Conditional)


def test_a_static_local_in_a_loop_keeps_its_value_across_iterations(capsys, tmp_path):
    path = tmp_path / "static_loop.cpp"
    path.write_text(
        "#include <pto/pto-inst.hpp>\nusing namespace pto;\n"
        "extern \"C\" __global__ AICORE void k(__gm__ float *out)\n{\n"
        "    using TileT = Tile<TileType::Vec, float, 16, 64>;\n    TileT x;\n"
        "    for (int i = 0; i < 3; ++i) {\n        static int n = 0;\n        TASSIGN(x, n * 4096);\n"
        "        n++;\n        TEXPANDS(x, 1.0f);\n    }\n}\n")
    rc, out, err = run(capsys, "ir", path)
    assert rc == 0, err
    body = out.split("body:")[1]
    # Set once when the kernel starts, then counted across the iterations.
    assert body.index("n@static = 0") < body.index("for i = 0")
    assert "TASSIGN(x, (n@static * 4096))" in body and "n@static = (n@static + 1)" in body


def test_the_same_reshape_written_again_is_one_view(capsys, tmp_path):
    head = ("#include <pto/pto-inst.hpp>\nusing namespace pto;\n"
            "extern \"C\" __global__ AICORE void k(__gm__ float *out)\n{\n"
            "    using ColT = Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor, 16, 1>;\n"
            "    using RowT = Tile<TileType::Vec, float, 1, 16, BLayout::RowMajor, 1, 16>;\n"
            "    ColT col;\n    ColT other;\n    RowT row;\n    TASSIGN(col, 0x0);\n    TASSIGN(other, 0x100);\n"
            "    TRESHAPE(row, col);\n    TEXPANDS(row, 1.0f);\n")
    path = tmp_path / "reshape_again.cpp"
    path.write_text(head + "    pipe_barrier(PIPE_V);\n    TRESHAPE(row, col);\n    TADDS(row, row, 1.0f);\n}\n")
    rc, _, err = run(capsys, "check", path)
    assert rc == 0, err
    # Another source for the same destination is still refused.
    path.write_text(head + "    pipe_barrier(PIPE_V);\n    TRESHAPE(row, other);\n    TADDS(row, row, 1.0f);\n}\n")
    rc, _, err = run(capsys, "check", path)
    assert rc == 2 and f"{path}:15:5: error: 'row' is already an alias" in err, err


def test_a_tile_names_its_fractal_size_through_tile_config(capsys, tmp_path):
    """`Tile<..., SLayout::NoneBox, TileConfig::fractalABSize, pad>`: the qualified constant is the
    fractal size in bytes (512), not a value the type cannot read."""
    path = LANG / "tile_config_fractal.cpp"
    rc, out, err = run(capsys, "check", path)
    assert rc == 0, err
    assert out.count("0 race(s), 0 flag problem(s) (2 instructions and 2 syncs issued)") == 2, out
    racy = tmp_path / "racy.cpp"
    racy.write_text(path.read_text().replace("    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);\n", "\n"))
    rc, out, err = run(capsys, "check", "--entry", "fill_rows<float, 8, 32, 1>", racy)
    assert rc == 1 and f"{racy}:19:5: error: data race (RAW) on UB bytes [0x0, 0x400): TSTORE [MTE3] reads rows " \
        "while TEXPANDS [V] at 15:5 writes rows" in err, err
