"""benchmarks/run.py: the stripping of hand-written kernels, and one tiny run of the suite."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from _samples import sample_folders

ROOT = Path(__file__).resolve().parents[1]


def _runner():
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "benchmarks" / "run.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def test_strip_removes_placement_and_every_kind_of_sync_and_keeps_the_rest():
    before = """\
    TASSIGN(a[0], 0x0);
    if (k % 4 == 0)
        WaitFlag<PIPE_MTE2, PIPE_MTE1>(0);
    TEXTRACT(l, a[cur], 0, 0);
    SetFlag<PIPE_MTE1, PIPE_M>(slot);
    wait_flag(PIPE_MTE1, PIPE_M, (event_t)slot);
    pipe_barrier(PIPE_V);
    if (last) { set_flag(PIPE_M, PIPE_FIX, EVENT_ID0); }
    TMATMUL(c, l, r);
"""
    after = _runner().strip_manual(before)
    kept = [" ".join(line.split()) for line in after.splitlines() if line.strip()]
    assert kept == ["TEXTRACT(l, a[cur], 0, 0);", "if (last) { }", "TMATMUL(c, l, r);"]
    assert after.count("\n") == before.count("\n")  # line structure kept


def test_tiny_run_writes_every_section(tmp_path):
    out = tmp_path / "RESULTS.md"
    pto_isa = Path("/work/pto-isa")
    args = ["--tiny", "--out", str(out)] + (["--pto-isa", str(pto_isa)] if pto_isa.is_dir() else [])
    assert _runner().main(args) == 0
    text = out.read_text()
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| sample |")
            and not line.startswith("| kernel |")]
    assert any(r.startswith("| gemm_double |") for r in rows)
    assert any(r.startswith("| samples/vec_add/manual.cpp |") for r in rows)
    for r in rows:
        cells = [c.strip() for c in r.strip("|").split("|")]
        ratio = float(cells[5] if r.startswith(("| gemm_double", "| vec_add")) else cells[4])
        assert 0.5 < ratio < 1.1, r
    if pto_isa.is_dir():
        assert "gemm_performance" in text and "commit `" in text
    else:
        pytest.skip("no pto-isa checkout: the corpus section has the twins only")


def test_every_sample_runs_at_two_sizes_its_default_first():
    sizes = _runner().SIZES
    samples = sample_folders()  # the cluster samples are not rewritten yet
    assert samples
    for sample in samples:
        runs = sizes.get(sample.name, [])
        assert len(runs) >= 2 and len({tuple(r) for r in runs}) == len(runs), sample.name
        for define in runs[0]:  # the first size is what the sources build without -D
            name, value = define.split("=")
            for form in ("auto.cpp", "manual.cpp"):
                text = (sample / form).read_text()
                assert f"#ifndef {name}\n#define {name} {value}\n" in text, (sample.name, form, define)


def test_the_cluster_sample_is_timed_as_a_cluster_against_its_twin():
    # One row per instantiation of the flash-attention sample: the rewrite and the twin timed with
    # their three cores at once. The large one's ratio was 1.291 while every cross-core flag
    # guarded every ring.
    rows = _runner().cluster_sample_rows({})
    assert len(rows) == 2 and all("(cluster)" in r for r in rows)
    cells = [[c.strip() for c in r.strip("|").split("|")] for r in rows]
    big = next(c for c in cells if "<128, 128, 1024, 128, 2>" in c[0])
    ours, twin = (int(x.replace(",", "")) for x in big[3:5])
    assert twin == 20159 and ours < 1.25 * twin
