"""One benchmark suite: ptorewrite's output against hand-written synchronization.

    python benchmarks/run.py [--pto-isa DIR] [--out benchmarks/RESULTS.md] [--tiny]

Samples: every sample's AUTO kernel rewritten three ways (`--conservative`, ptorewrite's own
plan) next to its hand-written twin, at every size the sample takes (`SIZES`), with emulated
cycles (a2a3 timing model, one core, block_idx 0), set/wait pairs, barriers and PIPE_ALL per run,
and the peak live bytes per buffer of ptorewrite's memory plan.

Stripped-expert corpus: hand-written kernels with every TASSIGN and every flag removed by this
script (`strip_manual`), rewritten by ptorewrite, and timed against the original: the twins of
the samples, and pto-isa's hand-written GEMM (`kernels/manual/a2a3/gemm_performance`) when a
checkout is given, at the problem sizes of the calibration data. `--tiny` runs one small size of
each, for the tests.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout without installing the package

from ptorewrite.analysis import execution, ir
from ptorewrite.analysis.unit_flags import is_unit_flag_event
from ptorewrite.arch import profile
from ptorewrite.diagnostics import Reporter
from ptorewrite.emulator import schedule
from ptorewrite.parse.frontend import FrontendOptions, load_kernel, load_kernels
from ptorewrite.transform.rewrite import RewriteOptions, rewrite_kernels

VALUES = {"block_idx": 0, "block_num": 1}
# Sizes per sample (-D defines), the sample's default first; a sample not listed runs at its default.
# tmax_launch's tile shape is its template argument (both instantiations run at every size).
SIZES: dict[str, list[list[str]]] = {
    "gemm_double": [["GEMM_M=256", "GEMM_K=512", "GEMM_N=256"], ["GEMM_M=128", "GEMM_K=64", "GEMM_N=256"],
                    ["GEMM_M=256", "GEMM_K=4096", "GEMM_N=256"]],
    "gemm_single": [["GEMM1_K=512"], ["GEMM1_K=2048"]],
    "reshape_subview": [["RS_BLOCKS=8"], ["RS_BLOCKS=32"]],
    "rmsnorm": [["RMSNORM_BLOCKS=8"], ["RMSNORM_BLOCKS=32"]],
    "softmax": [["SOFTMAX_BLOCKS=8"], ["SOFTMAX_BLOCKS=32"]],
    "tmax_launch": [["TMAX_TILES_PER_BLOCK=8"], ["TMAX_TILES_PER_BLOCK=32"]],
    "vec_add": [["VEC_ADD_TILES_PER_CORE=16"], ["VEC_ADD_TILES_PER_CORE=64"]],
}
TINY: dict[str, list[list[str]]] = {"gemm_double": [["GEMM_M=128", "GEMM_K=64", "GEMM_N=256"]],
                                    "vec_add": [["VEC_ADD_TILES_PER_CORE=4"]]}
GEMM_PATH = "kernels/manual/a2a3/gemm_performance/gemm_performance_kernel.cpp"
GEMM_SIZES = [(256, 4096, 256), (512, 512, 512), (1536, 256, 1024)]  # per-core M x K x N
TINY_GEMM_SIZES = [(128, 256, 256)]

# A statement that only synchronizes or places a tile: gone from an AUTO kernel. Helper calls
# in the style `SetFlag<PIPE_A, PIPE_B>(id)` count, and so does an `if` whose unbraced body is one.
_SYNC_CALL = r"(?:SetFlag|WaitFlag|set_flag|wait_flag|pipe_barrier|TASSIGN)\b(?:<[^;{}]*?>)?\s*\([^;{}]*?\)\s*;"
_GUARDED_SYNC = r"\bif\s*\((?:[^()]|\([^()]*\))*\)\s*" + _SYNC_CALL


def strip_manual(text: str) -> str:
    """A hand-written kernel with its TASSIGNs and synchronization removed (what a user writes in
    AUTO mode). Line structure is kept (removed statements leave blank space)."""
    def blank(m: re.Match) -> str:
        return re.sub(r"[^\n]", " ", m.group(0))
    text = re.sub(_GUARDED_SYNC, blank, text)
    return re.sub(_SYNC_CALL, blank, text)


@dataclass
class Measure:
    cycles: int
    pairs: int
    barriers: int
    full: int


def measure(kernel: ir.Kernel) -> Measure:
    arch = profile(kernel.arch)
    trace = execution.unroll(kernel, arch, VALUES)
    # The a2a3 L0C unit-flag steps are the hardware's own handshake, not syncs of the kernel.
    dyn = [s for s in trace.steps if s.kind in ("set", "barrier") and not is_unit_flag_event(s.event)]
    return Measure(schedule.simulate(trace).total, sum(1 for d in dyn if d.kind == "set"),
                   sum(1 for d in dyn if d.kind == "barrier"),
                   sum(1 for d in dyn if d.kind == "barrier" and d.pipe == "ALL"))


def _rewrite(path: Path, defines: list[str], entry: str | None, tmp: Path, conservative: bool = False,
             include: list[str] | None = None):
    """(manual kernel of `entry`, memory plan) of ptorewrite's rewrite of the AUTO kernel at path."""
    opts = FrontendOptions(defines=defines, include_dirs=include or [])
    autos = load_kernels(path, opts)
    done = rewrite_kernels(autos, profile(autos[0].arch), Reporter(), RewriteOptions(conservative=conservative))
    out = tmp / ("conservative.cpp" if conservative else "ours.cpp")
    out.write_bytes(done.text)
    pick = next((n for n, k in enumerate(autos) if (k.name if k.instance is not None else None) == entry), 0)
    kernel = load_kernel(out, FrontendOptions(auto_mode=False, defines=defines, entry=entry,
                                              include_dirs=[str(path.parent)] + (include or [])))
    return kernel, done.results[pick].plan


def _peaks(plan) -> str:
    return ", ".join(f"{name} {use.peak_live // 1024} KiB" for name, use in plan.buffers.items() if use.peak_live)


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.3f}"


ABOVE: list[tuple[str, str, int, int]] = []  # (kernel, size, ours, reference) where ours is slower
# Why a row is slower than its reference, where that is understood.
REASONS = {
    "gemm_performance": "the output tile's L0C is released by a reverse FIX -> M flag primed before the "
                        "loops and drained after them (two more scalar statements, one cycle each) where the "
                        "hand-written kernel sets and waits FIX -> M right after each store",
}


def _note(name: str, size: str, ours: int, ref: int) -> None:
    if ours > ref:
        ABOVE.append((name, size, ours, ref))


def single_core_samples(form: str = "auto.cpp", cluster: bool = False) -> list[Path]:
    """The sample folders holding `form` whose AUTO kernel is for one core type (with `cluster`:
    for both, a cube core and vector cores, timed as a whole cluster by `cluster_sample_rows`)."""
    def is_cluster(p: Path) -> bool:
        text = (p / "auto.cpp").read_text()
        return "__DAV_CUBE__" in text and "__DAV_VEC__" in text
    return sorted(p for p in (ROOT / "samples").iterdir()
                  if (p / form).is_file() and (p / "auto.cpp").is_file() and is_cluster(p) == cluster)


def sample_rows(sizes: dict[str, list[list[str]]], only: set[str] | None = None) -> list[str]:
    rows = []
    for sample in single_core_samples():
        if only is not None and sample.name not in only:
            continue
        for defines in sizes.get(sample.name, [[]]):
            autos = load_kernels(sample / "auto.cpp", FrontendOptions(defines=defines))
            for auto in autos:
                entry = auto.name if auto.instance is not None else None
                with tempfile.TemporaryDirectory() as tmp:
                    ours, plan = _rewrite(sample / "auto.cpp", defines, entry, Path(tmp))
                    cons, _ = _rewrite(sample / "auto.cpp", defines, entry, Path(tmp), conservative=True)
                    o, c = measure(ours), measure(cons)
                twin = measure(load_kernel(sample / "manual.cpp",
                                           FrontendOptions(auto_mode=False, defines=defines, entry=entry)))
                size = " ".join(defines) or "default"
                name = sample.name + (f" `{entry}`" if entry else "")
                _note(name, size, o.cycles, twin.cycles)
                rows.append(f"| {name} | {size} | {c.cycles:,} | {o.cycles:,} | {twin.cycles:,} | "
                            f"{_ratio(o.cycles, twin.cycles)} | {_ratio(c.cycles, twin.cycles)} | "
                            f"{o.pairs} / {twin.pairs} | {o.barriers} / {twin.barriers} | {o.full} / {twin.full} | "
                            f"{_peaks(plan)} |")
    return rows


def _cluster_measures(path: Path, defines: list[str], include: list[str] | None = None) -> dict[str, Measure]:
    """Measure per kernel name of the manual cluster kernel at path: its cores run at once."""
    from ptorewrite.emulator import cluster, pipes

    kernels = load_kernels(path, FrontendOptions(auto_mode=False, defines=defines, include_dirs=include or []))
    units: dict[str, dict[str, ir.Kernel]] = {}
    for k in kernels:
        units.setdefault(k.name, {})[k.core] = k
    out = {}
    for name, unit in units.items():
        trace = cluster.cluster_trace(unit, profile(next(iter(unit.values())).arch), dict(VALUES), None)
        matches, _ = pipes.match_flags(trace)
        dyn = [s for s in trace.steps if s.kind in ("set", "barrier")]
        out[name] = Measure(schedule.simulate(trace, matches=matches).total, sum(1 for d in dyn if d.kind == "set"),
                            sum(1 for d in dyn if d.kind == "barrier"),
                            sum(1 for d in dyn if d.kind == "barrier" and d.pipe == "ALL"))
    return out


def cluster_sample_rows(sizes: dict[str, list[list[str]]], only: set[str] | None = None) -> list[str]:
    """The cluster samples (code for the cube and the vector cores): the whole cluster timed, the
    rewrite against the twin (no conservative column: `--conservative` drains every pipe at each
    cross-core flag of every core, which is not a plan worth timing)."""
    rows = []
    for sample in single_core_samples(cluster=True):
        if only is not None and sample.name not in only:
            continue
        for defines in sizes.get(sample.name, [[]]):
            autos = load_kernels(sample / "auto.cpp", FrontendOptions(defines=defines))
            done = rewrite_kernels(autos, profile(autos[0].arch), Reporter(), RewriteOptions())
            with tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp) / "ours.cpp"
                out.write_bytes(done.text)
                ours = _cluster_measures(out, defines, [str(sample)])
            twin = _cluster_measures(sample / "manual.cpp", defines)
            for name, o in ours.items():
                t = twin[name]
                size = " ".join(defines) or "default"
                label = f"{sample.name} `{name}` (cluster)"
                _note(label, size, o.cycles, t.cycles)
                rows.append(f"| {label} | {size} | - | {o.cycles:,} | {t.cycles:,} | {_ratio(o.cycles, t.cycles)} | - | "
                            f"{o.pairs} / {t.pairs} | {o.barriers} / {t.barriers} | {o.full} / {t.full} | - |")
    return rows


def _sized_gemm(text: str, m: int, k: int, n: int) -> str:
    """pto-isa's GEMM launched on one core for one per-core problem M x K x N."""
    for name, v in (("blockDim", 1), ("m", m), ("k", k), ("n", n), ("singleCoreM", m), ("singleCoreK", k),
                    ("singleCoreN", n)):
        text, count = re.subn(rf"(constexpr uint32_t {name} = )\d+;", rf"\g<1>{v};", text)
        if count != 1:
            raise SystemExit(f"{GEMM_PATH}: cannot set {name} (the kernel's launcher changed)")
    return text


def corpus_rows(pto_isa: Path | None, gemm_sizes, twins: list[str]) -> tuple[list[str], str | None]:
    """Stripped hand-written kernels, rewritten, against the originals."""
    rows = []
    commit = None
    with tempfile.TemporaryDirectory() as tmpname:
        tmp = Path(tmpname)
        for name in twins:
            sample = ROOT / "samples" / name
            for auto in load_kernels(sample / "manual.cpp", FrontendOptions(auto_mode=False)):
                entry = auto.name if auto.instance is not None else None
                stripped = tmp / f"{name}.stripped.cpp"
                stripped.write_text(strip_manual((sample / "manual.cpp").read_text()))
                ours, _ = _rewrite(stripped, [], entry, tmp, include=[str(sample)])
                o = measure(ours)
                h = measure(load_kernel(sample / "manual.cpp", FrontendOptions(auto_mode=False, entry=entry)))
                _note(f"samples/{name}/manual.cpp (stripped)", "default", o.cycles, h.cycles)
                rows.append(f"| samples/{name}/manual.cpp{f' `{entry}`' if entry else ''} | default | {h.cycles:,} | "
                            f"{o.cycles:,} | {_ratio(o.cycles, h.cycles)} | {o.pairs} / {h.pairs} | "
                            f"{o.barriers} / {h.barriers} | {o.full} |")
        if pto_isa is not None:
            commit = subprocess.run(["git", "-C", str(pto_isa), "rev-parse", "HEAD"], capture_output=True,
                                    text=True, check=False).stdout.strip() or "unknown"
            src = (pto_isa / GEMM_PATH).read_text()
            for m, k, n in gemm_sizes:
                hand = tmp / f"gemm_{m}x{k}x{n}.cpp"
                hand.write_text(_sized_gemm(src, m, k, n))
                stripped = tmp / f"gemm_{m}x{k}x{n}.stripped.cpp"
                stripped.write_text(strip_manual(hand.read_text()))
                ours, _ = _rewrite(stripped, [], None, tmp)
                o = measure(ours)
                h = measure(load_kernel(hand, FrontendOptions(auto_mode=False)))
                _note(f"pto-isa {GEMM_PATH} (stripped)", f"{m}x{k}x{n}", o.cycles, h.cycles)
                rows.append(f"| pto-isa {GEMM_PATH} | {m}x{k}x{n} | {h.cycles:,} | {o.cycles:,} | "
                            f"{_ratio(o.cycles, h.cycles)} | {o.pairs} / {h.pairs} | {o.barriers} / {h.barriers} "
                            f"| {o.full} |")
    return rows, commit


def report(pto_isa: Path | None, tiny: bool) -> str:
    sizes = TINY if tiny else SIZES
    ABOVE.clear()
    only = {"gemm_double", "vec_add"} if tiny else None
    lines = [
        "# Benchmark results",
        "",
        "Regenerate: `python benchmarks/run.py --pto-isa /path/to/pto-isa` (writes this file).",
        "",
        "Cycles: the emulator's pipe timing model (a2a3, one core, block_idx 0). Counts are per run of",
        "the kernel. Ratios below 1 are faster than the hand-written synchronization.",
        "",
        "## Samples: conservative, ptorewrite and the hand-written twin",
        "",
        "Size: the `-D` defines of the run (the first row of a sample is its default). Each sample's",
        "source says which values its tiles take and refuses others with a `static_assert`. tmax_launch's",
        "tile shape is its template argument (both instantiations at every size); its size is the tile",
        "count per block. A cluster sample (a cube core and two vector cores) is timed as its whole",
        "cluster, the three cores at once with their cross-core flags real (`simulate` of the file); its",
        "rows have no conservative plan and no memory peaks (one plan per core type).",
        "",
        ("| sample | size | conservative cycles | ours cycles | twin cycles | ours / twin | conservative / twin "
         "| set/wait pairs ours / twin | barriers ours / twin | PIPE_ALL ours / twin | peak live per buffer (ours) |"),
        "|---|---|---:|---:|---:|---:|---:|---|---|---|---|",
    ]
    lines += sample_rows(sizes, only)
    lines += cluster_sample_rows(sizes, only)
    twins = ["vec_add"] if tiny else [p.name for p in single_core_samples("manual.cpp")]
    rows, commit = corpus_rows(pto_isa, TINY_GEMM_SIZES if tiny else GEMM_SIZES, twins)
    lines += [
        "",
        "## Stripped-expert corpus",
        "",
        "Each hand-written kernel with every TASSIGN, set_flag/wait_flag/pipe_barrier (and pto-isa's",
        "`SetFlag`/`WaitFlag` helpers, with the `if` guarding one) removed by `strip_manual`, rewritten",
        "by ptorewrite and timed against the original."
        + (f" pto-isa checkout at commit `{commit}`; its GEMM is launched on one core at each per-core "
           "problem size M x K x N." if commit else " No pto-isa checkout was given."),
        "",
        ("| kernel | size | hand-written cycles | ours cycles | ours / hand | set/wait pairs ours / hand "
         "| barriers ours / hand | PIPE_ALL ours |"),
        "|---|---|---:|---:|---:|---|---|---|",
    ] + rows
    lines += ["", "## Slower than the reference", ""]
    if not ABOVE:
        lines.append("None: every rewrite takes at most the cycles of its reference.")
    for name, size, ours, ref in ABOVE:
        why = next((r for key, r in REASONS.items() if key in name), "not analysed")
        lines.append(f"- {name} at {size}: {ours - ref:,} cycles more ({ours / ref - 1:.4%}): {why}.")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pto-isa", type=Path, default=None, help="a pto-isa checkout (adds its hand-written GEMM)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "RESULTS.md")
    ap.add_argument("--tiny", action="store_true", help="one small size of a few kernels (for tests)")
    args = ap.parse_args(argv)
    text = report(args.pto_isa, args.tiny)
    args.out.write_text(text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
