"""Seeded deletions in pto-isa's hand-written a2a3 flash attention: is each sync reported where it belongs?

    python benchmarks/fa_a2a3_seeded.py --pto-isa-root /path/to/pto-isa

writes benchmarks/fa_a2a3_seeded.md. The kernel is kernels/manual/common/flash_atten/
fa_performance_kernel.cpp, built for a2a3 as pto-isa's CMake build and run.sh build it (the
instantiations from the folder's own scripts/generate_cases.py with run.sh's default
`--qk-preload`; `-I tests/common -D _FORTIFY_SOURCE=2`, as benchmarks/pto_isa_corpus.py passes
them). `check` runs the cube core and both vector cores together in four configurations
(CONFIGS): the first instantiation the default build makes (S0 = 128, head 128, S1 = 1024, block
0); the causal-mask build (`run.sh --mask --cases 128,512,1024,128`: S0 = 512, S1 = 1024,
CAUSAL_MASK true) as blocks 0 and 2, which between them take every causal-mask branch that can
run; and the causal build with S0 = 1024 as block 6, where the P ring's TFREE on a skipped
sub-tile is the one that signals. `--entry` checks one instantiation of the default build
instead; `--config NAME --from-json FILE` runs some configurations again and keeps the others'.

Every line of the kernel file and of the folder's three macro headers that is a synchronization
statement (set_flag, wait_flag, pipe_barrier, and the FIFO steps TALLOC / TPUSH / TPOP / TFREE) and
that the build compiles (a line replaced by `#error` stops the front end; lines under `#if
!UF_ENABLE` do not) is deleted alone, in a copy of the folder (the line left empty, so the other
lines keep their numbers), and `check` runs on the copy. The findings of the unmodified kernel are
the baseline; a finding of the copy that is not in the baseline is new. Each deletion is then:

- `at-line`: a new finding (its line, or a note's that is not "inlined from here") is at the
  deleted line or within 3 lines of it, or at another end of the same flag (a set_flag /
  wait_flag between the same two pipes, in any of the files: the event is often a variable), or,
  for a FIFO step, at another FIFO step, a pipe's declaration (its destructor) or a use of the
  GlobalTensor the step names, or the finding is a race on the GM buffer of the step's ring;
- `elsewhere`: new findings, none at those lines;
- `not run`: no new finding, and the line does not run in this instantiation (a `wait_flag`
  no set satisfies, put in its place, is not reported: the causal-mask branches);
- `missed`: no new finding, though the line runs;
- `error`: `check` stopped with a front-end error (exit 2) at a line the deletion made wrong.

The report gives each line's outcome per configuration and, for every line no configuration
reports at its line, the reason (EXPLAINED).

`--match REGEX` keeps only the lines whose statement matches (`--match T(ALLOC|PUSH|POP|FREE)` with
`--entry 'runTFA<128, 128, 8192, 128, 128, 256, 4, 8, false, false, 4>'` deletes the FIFO steps where
the rings wrap: at S1 = 1024 there are 4 tiles for 8 slots, so no producer ever waits for a free slot).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pto_isa_corpus import run_script_preload

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "fa_a2a3_seeded.md"
FOLDER = "kernels/manual/common/flash_atten"
KERNEL = "fa_performance_kernel.cpp"
FILES = (KERNEL, "pto_macro_matmul.hpp", "pto_macro_fa_softmax.hpp", "pto_macro_fa_gu.hpp")
ENTRY = "runTFA<128, 128, 1024, 128, 128, 256, 4, 8, false, false, 4>"
# The causal-mask build: `run.sh --mask --cases 128,512,1024,128` (HEAD, S0, S1, CUBE_S0), whose
# generator makes the one case S0 = 512, S1 = 1024 with CAUSAL_MASK true; the host launches
# S0 / CUBE_S0 = 4 blocks. Block b runs 1 + b * 128 / 256 tiles of S1: block 0 takes the cube's
# skipped sub-tile (compute_qk's and compute_pv's early returns) and the first tile's mask
# (softmax init with TTRI); block 2 takes the skipped sub-tile and the mask of a later tile
# (softmax update with TTRI).
CAUSAL_CASES = ["--cases", "128,512,1024,128", "--causal-mask", "1"]
CAUSAL_ENTRY = "runTFA<512, 128, 1024, 128, 128, 256, 4, 8, false, true, 4>"


@dataclass(frozen=True)
class Config:
    name: str
    cases: tuple[str, ...]  # the case generator's arguments besides run.sh's --qk-preload
    entry: str
    block: int


CONFIGS = (
    Config("S1 = 1024", (), ENTRY, 0),
    Config("causal, block 0", tuple(CAUSAL_CASES), CAUSAL_ENTRY, 0),
    Config("causal, block 2", tuple(CAUSAL_CASES), CAUSAL_ENTRY, 2),
    # `run.sh --mask --cases 128,1024,1024,128`: block 6 runs 4 tiles and skips the last one's
    # second sub-tile, so the P ring's TFREE on that path (compute_pv) is the fourth, the one that
    # signals the free slots (every CV_FIFO_CONS_SYNC_PERIOD = 4 tiles).
    Config("causal S0 = 1024, block 6", ("--cases", "128,1024,1024,128", "--causal-mask", "1"),
           "runTFA<1024, 128, 1024, 128, 128, 256, 4, 8, false, true, 4>", 6),
)
# Deletions no configuration reports, with the reason (pto-isa commit 3186c381's line numbers).
EXPLAINED = {
    "fa_performance_kernel.cpp:254": (
        "redundant: the cube core's wait for a free slot of the QK ring (8 slots). The cube core writes QK(t) "
        "only after its TPOP of P(t - 5) (compute_pv of tile t - 5 runs before compute_qk of tile t in the "
        "main loop, preload 4), and the vector core pushed P(t - 5) after its MTE2 -> V wait that follows "
        "its loads of QK(t - 5), and so of every earlier QK tile. So the slot QK(t) reuses, QK(t - 8)'s, "
        "was read long before; the TFREE signals it would consume are left raised at the end (a warning). "
        "The same at S1 = 8192, where the ring wraps (fa_a2a3_seeded_fifo_s8192.md)."),
    "fa_performance_kernel.cpp:515": (
        "redundant: the vector core's wait for a free slot of the P ring (8 slots). The vector core writes "
        "P(t) only after its TPOP of QK(t), which the cube core pushes after its fixpipe store of QK(t); "
        "in the cube core's program that store follows the TLOAD of P(t - 5) (compute_pv of tile t - 5), "
        "and MTE2's loads complete before the M -> FIX chain that ends in the store (MTE2 -> MTE1 -> M "
        "flags and the unit flags). So the slot P(t) reuses, P(t - 8)'s, was read long before."),
    "fa_performance_kernel.cpp:259": (
        "runs only in the causal-mask build (compute_qk's early return for a skipped sub-tile), where it is "
        "reported at its line (fa_a2a3_seeded.md)."),
    "fa_performance_kernel.cpp:352": (
        "runs only in the causal-mask build (compute_pv's early return for a skipped sub-tile), where it is "
        "reported at its line when it is the TFREE that signals (fa_a2a3_seeded.md, block 6)."),
    "fa_performance_kernel.cpp:931": (
        "redundant: pipe_barrier(PIPE_ALL) at the end, after the drain of every flag; what follows is the "
        "scalar unit's read of the system counter and its store into the profiling buffer (null here), "
        "which no pipe touches, and the kernel's end waits for every pipe."),
    "pto_macro_fa_softmax.hpp:158": (
        "redundant: the barrier between TMULS (line 156: reads tmp_shw_local_max, the bytes of local_max, "
        "writes tmp_shw_new_global_max) and the next vector instructions (160-170), none of which touches "
        "new_global_max; TROWEXPANDSUB (160) only reads local_max, and its own barrier (the row broadcast's, "
        "between broadcasting the column and computing) orders everything before it anyway."),
    "pto_macro_fa_softmax.hpp:83": (
        "redundant: the barrier after TROWMAX (line 81, writes `new_global_max` and its scratch, reads "
        "`input_x`) before TROWEXPANDSUB (85, reads `new_global_max`, rewrites `input_x`'s bytes as "
        "`p_tile_f32`): pto-isa's a2a3 TROWMAX ends with a pipe_barrier(PIPE_V) of its own."),
    "pto_macro_fa_softmax.hpp:142": (
        "redundant: the barrier after TROWMAX (line 140, writes `local_max`) before TMAX (146, reads and "
        "writes `local_max` as `tmp_shw_local_max`): TROWMAX ends with a barrier of its own."),
    "pto_macro_fa_softmax.hpp:179": (
        "redundant: the barrier after TMUL (line 175, writes `tmp_shw_new_global_sum`) and TROWSUM (176, "
        "writes `local_sum`) before TADD (181, reads both): TROWSUM, issued after the TMUL, ends with a "
        "barrier of its own, which orders both."),
    "pto_macro_fa_softmax.hpp:205": (
        "never runs: the else branch of pto_macro_fa_softmax needs s1_index > s0_index on a vector core, but "
        "a block runs tiles 0 .. b * CUBE_S0 / TILE_S1 only, so s1_index = t * TILE_S1 <= b * CUBE_S0 <= "
        "s0_index for every tile it runs, in every instantiation and block."),
    "pto_macro_fa_softmax.hpp:209": "never runs: the same else branch as line 205.",
    "fa_performance_kernel.cpp:407": (
        "the front end is right to stop: TALLOC is not only a wait, it points `pvSlotGlobal` at the slot "
        "(pto-isa's TALLOC_IMPL assigns the slot's address to the GlobalTensor, whose default constructor "
        "leaves it null). Without it line 408 builds `pvStoreGlobal` from a null pointer and the fixpipe "
        "store writes through it: `check` stops at 408, the line after the deletion, naming the tensor."),
    "fa_performance_kernel.cpp:571": (
        "the front end is right to stop: TPOP points `pvGlobal` at the slot it takes; without it the TLOAD "
        "at line 574 reads through a default-constructed (null) GlobalTensor, and `check` stops there."),
}
SYNC = re.compile(r"^\s*(set_flag|wait_flag|pipe_barrier|TALLOC|TPUSH|TPOP|TFREE)\b")
FLAG = re.compile(r"\b(?:set|wait)_flag\(\s*(\w+),\s*(\w+),")
FIFO = re.compile(r"\b(TALLOC|TPUSH|TPOP|TFREE)<|\bTPipe<|Pipe \w+\(")
PIPE_ARG = re.compile(r"\b(?:TALLOC|TPUSH|TPOP|TFREE)<[^>]*>\(\s*(\w+)")
PROBE = "wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID7);  // seeded probe"
FIFO_TENSOR = re.compile(r"\b(?:TALLOC|TPUSH|TPOP|TFREE)<[^>]*>\(\s*\w+\s*,\s*(\w+)")
FINDING = re.compile(r"^(?P<file>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<kind>error|note): (?P<msg>.*)$")


@dataclass
class Deletion:
    file: str
    line: int
    text: str
    outcome: str = ""
    lines: list[str] = field(default_factory=list)  # where the new findings are (file:line)
    first: str = ""  # the first new finding's message
    seconds: float = 0.0


def findings(stderr: str, folder: Path) -> tuple[set[tuple], list[tuple[str, int, str, list[tuple[str, int]]]]]:
    """The errors of a `check` run: a set of keys (file, line, col, message without its count) and,
    in order, each error's place and message with the places of its notes (not "inlined from here")."""
    keys, errors = set(), []
    for raw in stderr.splitlines():
        m = FINDING.match(raw)
        if not m:
            continue
        name = Path(m["file"]).name if Path(m["file"]).parent == folder else m["file"]
        msg = re.sub(r" \(\d+ occurrences\)$", "", m["msg"])
        if m["kind"] == "error":
            keys.add((name, int(m["line"]), int(m["col"]), msg))
            errors.append((name, int(m["line"]), msg, [], (name, int(m["line"]), int(m["col"]), msg)))
        elif errors and msg != "inlined from here":
            errors[-1][3].append((name, int(m["line"])))
    return keys, errors


def related(d: Deletion, texts: dict[str, list[str]]) -> set[tuple[str, int]]:
    out = {(d.file, n) for n in range(d.line - 3, d.line + 4)}
    flag = FLAG.search(d.text)
    if flag:
        out |= {(name, n) for name, lines in texts.items() for n, t in enumerate(lines, 1)
                if (f := FLAG.search(t)) and f.groups() == flag.groups()}
    elif FIFO.search(d.text):
        tensor = FIFO_TENSOR.search(d.text)
        for name, lines in texts.items():
            for n, t in enumerate(lines, 1):
                if FIFO.search(t) or (tensor and re.search(rf"\b{tensor.group(1)}\b", t)):
                    out.add((name, n))
    return out


def ring_buffer(d: Deletion, texts: dict[str, list[str]]) -> str | None:
    """The GM buffer of the ring a FIFO step uses: the first argument of its pipe's declaration."""
    pipe = PIPE_ARG.search(d.text)
    if not pipe:
        return None
    for t in texts[KERNEL]:
        m = re.search(rf"\b{pipe.group(1)}\((\w+)", t)
        if m and "Pipe" in t:
            return m.group(1)
    return None


class Runner:
    def __init__(self, pto: Path, work: Path, config: Config, timeout: float):
        self.pto, self.work, self.timeout = pto, work, timeout
        self.entry, self.block = config.entry, config.block
        work.mkdir(parents=True, exist_ok=True)
        gen = work / "generated"
        gen.mkdir()
        folder = pto / FOLDER
        subprocess.run([sys.executable, str(folder / "scripts/generate_cases.py"), *run_script_preload(folder),
                        *config.cases, "--output-header", str(gen / "generated_cases.h"),
                        "--output-json", str(gen / "generated_cases.json")], check=True, capture_output=True)
        self.flags = ["-I", str(gen), "-I", str(pto / "tests/common"), "-D", "_FORTIFY_SOURCE=2"]
        self.copies = 0

    def copy(self) -> Path:
        self.copies += 1
        dst = self.work / f"copy{self.copies}"
        shutil.copytree(self.pto / FOLDER, dst, ignore=shutil.ignore_patterns("*.svg", "scripts"))
        return dst

    def run(self, command: str, folder: Path, *extra: str) -> subprocess.CompletedProcess:
        args = ["ptorewrite", command, *self.flags, *extra, str(folder / KERNEL)]
        return subprocess.run(args, check=False, capture_output=True, text=True, timeout=self.timeout)

    def check(self, folder: Path) -> subprocess.CompletedProcess:
        return self.run("check", folder, "--entry", self.entry, "--block-idx", str(self.block))


def edited(runner: Runner, file: str, line: int, replacement: str) -> Path:
    folder = runner.copy()
    lines = (folder / file).read_text().splitlines(True)
    lines[line - 1] = replacement + "\n"
    (folder / file).write_text("".join(lines))
    return folder


def compiled(runner: Runner, file: str, line: int) -> bool:
    """The build compiles this line: `#error` in its place stops the front end."""
    folder = edited(runner, file, line, "#error seeded")
    p = runner.run("ir", folder)
    shutil.rmtree(folder)
    return p.returncode == 2 and "seeded" in p.stderr


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pto-isa-root", type=Path, help="a pto-isa checkout (needed unless --from-json)")
    ap.add_argument("--entry", default="", help="check only this instantiation (non-causal build, block 0) "
                    "instead of the three configurations")
    ap.add_argument("--match", default="", help="delete only the sync lines whose statement matches this regex")
    ap.add_argument("--jobs", "-j", type=int, default=2, help="checks run at a time (default 2)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per check (default 600)")
    ap.add_argument("-o", "--output", type=Path, default=OUT, help=f"the report (default {OUT.relative_to(ROOT)})")
    ap.add_argument("--json", type=Path, help="also write the outcomes here")
    ap.add_argument("--from-json", type=Path, help="render the report from a --json file instead of running")
    ap.add_argument("--config", action="append", default=[],
                    help="run only the configuration of this name (repeatable); with --from-json, the "
                    "others' outcomes are taken from that file")
    args = ap.parse_args()
    saved_results = []
    if args.from_json:
        saved = json.loads(args.from_json.read_text())
        saved_results = [(Config(r["config"]["name"], tuple(r["config"]["cases"]), r["config"]["entry"],
                                 r["config"]["block"]),
                          [Deletion(**d) for d in r["done"]], [Deletion(**d) for d in r["inactive"]],
                          r["base_errors"], r["base_seconds"]) for r in saved["results"]]
        if not args.config:
            args.output.write_text(render(saved_results, saved["commit"], saved["ours"], saved["match"]))
            print(f"wrote {args.output}")
            return 0
    if args.pto_isa_root is None:
        ap.error("--pto-isa-root is needed to run the checks")
    pto = args.pto_isa_root.resolve()
    commit = subprocess.run(["git", "-C", str(pto), "rev-parse", "HEAD"], check=False, capture_output=True,
                            text=True).stdout.strip()
    ours = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], check=False, capture_output=True,
                          text=True).stdout.strip()
    texts = {f: (pto / FOLDER / f).read_text().splitlines() for f in FILES}
    configs = (Config(args.entry, (), args.entry, 0),) if args.entry else \
        tuple(c for c in CONFIGS if not args.config or c.name in args.config)
    results = []
    compiled_lines: dict[tuple[str, int], bool] = {}  # no configuration changes what the build compiles
    with tempfile.TemporaryDirectory(prefix="fa_seeded_") as tmp:
        for k, config in enumerate(configs):
            runner = Runner(pto, Path(tmp) / f"config{k}", config, args.timeout)
            results.append((config, *run_config(runner, texts, args, compiled_lines)))
    if saved_results:  # the configurations run now replace theirs, in CONFIGS order
        fresh = {c.name: (c, *rest) for c, *rest in results}
        kept = {c.name: (c, *rest) for c, *rest in saved_results}
        results = [fresh.get(c.name) or kept[c.name] for c in CONFIGS if c.name in fresh or c.name in kept]
    args.output.write_text(render(results, commit, ours, args.match))
    if args.json:
        args.json.write_text(json.dumps({"commit": commit, "ours": ours, "match": args.match, "results": [
            {"config": asdict(c), "done": [asdict(d) for d in done], "inactive": [asdict(d) for d in inactive],
             "base_errors": [list(e[:3]) for e in errors], "base_seconds": seconds}
            for c, done, inactive, errors, seconds in results]}, indent=1))
    print(f"wrote {args.output}")
    return 0


def run_config(runner: Runner, texts: dict[str, list[str]], args, compiled_lines: dict) -> tuple:
    """Check the unmodified kernel and every deletion in one configuration: (deletions, lines not
    compiled, the baseline's errors, its seconds)."""
    base_folder = runner.copy()
    t0 = time.monotonic()
    base = runner.check(base_folder)
    base_seconds = time.monotonic() - t0
    if base.returncode not in (0, 1):
        sys.exit(f"check of the unmodified kernel failed:\n{base.stderr}")
    baseline, base_errors = findings(base.stderr, base_folder)
    candidates = [Deletion(f, n, t.strip()) for f in FILES for n, t in enumerate(texts[f], 1)
                  if SYNC.match(t) and re.search(args.match, t)]
    unknown = [d for d in candidates if (d.file, d.line) not in compiled_lines]
    with ThreadPoolExecutor(args.jobs) as pool:
        for d, ok in zip(unknown, pool.map(lambda d: compiled(runner, d.file, d.line), unknown)):
            compiled_lines[(d.file, d.line)] = ok
    live = [compiled_lines[(d.file, d.line)] for d in candidates]
    inactive = [d for d, ok in zip(candidates, live) if not ok]
    deletions = [d for d, ok in zip(candidates, live) if ok]

    def one(d: Deletion) -> Deletion:
        folder = edited(runner, d.file, d.line, "")
        t = time.monotonic()
        p = runner.check(folder)
        d.seconds = round(time.monotonic() - t, 1)
        keys, errors = findings(p.stderr, folder)
        new = [e for e in errors if e[4] not in keys & baseline]
        d.lines = sorted({f"{e[0]}:{e[1]}" for e in new}, key=lambda s: (s.split(":")[0], int(s.split(":")[1])))
        d.first = new[0][2] if new else ""
        shutil.rmtree(folder)
        if p.returncode == 2:
            first = p.stderr.strip().splitlines()[0] if p.stderr.strip() else ""
            d.outcome, d.first = "error", first.replace(f"{folder}/", "")
        elif not new:
            probe = edited(runner, d.file, d.line, PROBE)
            ran = f"{d.file}:{d.line}:" in runner.check(probe).stderr
            shutil.rmtree(probe)
            d.outcome = "missed" if ran else "not run"
        else:
            places = {(e[0], e[1]) for e in new} | {n for e in new for n in e[3]}
            ring = ring_buffer(d, texts)
            on_ring = ring is not None and any(
                (m := re.search(r"on GM argument (\w+)", e[2])) and ring.startswith(m.group(1)) for e in new)
            d.outcome = "at-line" if places & related(d, texts) or on_ring else "elsewhere"
        return d

    with ThreadPoolExecutor(args.jobs) as pool:
        done = list(pool.map(one, deletions))
    return done, inactive, base_errors, base_seconds


OUTCOMES = ("at-line", "elsewhere", "not run", "missed", "error")


def render(results, commit, ours, match) -> str:
    first_done = results[0][1]
    out = [
        "# Seeded deletions in pto-isa's hand-written a2a3 flash attention",
        "",
        (f"pto-isa commit `{commit}`, ptorewrite `{ours}`; `ptorewrite check` on `{FOLDER}/{KERNEL}`"
         + (f", lines matching `{match}`" if match else "")
         + " (see benchmarks/fa_a2a3_seeded.py for the build flags and the rules). Configurations:"),
        "",
    ]
    for config, done, inactive, base_errors, base_seconds in results:
        counts = {k: sum(d.outcome == k for d in done) for k in OUTCOMES}
        gen = f", the case generator given `{' '.join(config.cases)}`" if config.cases else ""
        out.append(
            f"- **{config.name}**: `--entry '{config.entry}' --block-idx {config.block}`{gen}. The unmodified kernel: "
            f"{len(base_errors)} finding(s) in {base_seconds:.1f} s (the baseline; judged in "
            f"benchmarks/pto_isa_corpus.py). {len(done)} synchronization lines the build compiles, each deleted "
            "alone: " + ", ".join(f"{v} {k}" for k, v in counts.items()) + ". Not compiled (under `#if "
            "!UF_ENABLE`): " + (", ".join(f"{d.file}:{d.line}" for d in inactive) or "none") + ".")
    names = [c.name for c, *_ in results]
    by_line = [{(d.file, d.line): d for d in r[1]} for r in results]
    best = {}
    for d in first_done:
        key = (d.file, d.line)
        seen = [b[key] for b in by_line if key in b]
        best[key] = next((x for x in seen if x.outcome == "at-line"), None) or \
            next((x for x in seen if x.outcome in ("error", "elsewhere")), None) or \
            next((x for x in seen if x.outcome == "missed"), seen[0])
    totals = {k: sum(b.outcome == k for b in best.values()) for k in OUTCOMES}
    out += [
        "",
        (f"Over the {len(best)} lines, each line's outcome in the configuration that reports it best: "
         + ", ".join(f"{v} {k}" for k, v in totals.items()) + ". Every line not reported at its line is "
         "explained below the table."),
        "",
        "| line | deleted | " + " | ".join(names) + " | new findings at | first new finding |",
        "|---|---|" + "---|" * len(names) + "---|---|",
    ]
    for d in first_done:
        key = (d.file, d.line)
        b = best[key]
        cells = [x[key].outcome if key in x else "" for x in by_line]
        where = ", ".join(b.lines[:6]) + (f" (+{len(b.lines) - 6})" if len(b.lines) > 6 else "")
        first = b.first.replace("|", "\\|")[:160]
        out.append(f"| {d.file}:{d.line} | `{d.text}` | " + " | ".join(cells) + f" | {where} | {first} |")
    notes = [(f"{d.file}:{d.line}", EXPLAINED.get(f"{d.file}:{d.line}", "not explained yet"))
             for d in first_done if best[(d.file, d.line)].outcome != "at-line"]
    if notes:
        out += ["", ("Lines no configuration reports at their line (the explanations hold for pto-isa "
                     "commit 3186c381):"), ""]
        out += [f"- {where}: {why}" for where, why in notes]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
