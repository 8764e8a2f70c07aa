"""Seeded deletions in pto-isa's hand-written a2a3 flash attention: is each sync reported where it belongs?

    python benchmarks/fa_a2a3_seeded.py --pto-isa-root /path/to/pto-isa

writes benchmarks/fa_a2a3_seeded.md. The kernel is kernels/manual/common/flash_atten/
fa_performance_kernel.cpp, built for a2a3 as pto-isa's CMake build and run.sh build it (the
instantiations from the folder's own scripts/generate_cases.py with run.sh's default
`--qk-preload`; `-I tests/common -D _FORTIFY_SOURCE=2`, as benchmarks/pto_isa_corpus.py passes
them). `check` runs on one instantiation (`--entry`, default the first the build makes:
S0 = 128, head 128, S1 = 1024), the cube core and both vector cores together.

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

`--match REGEX` keeps only the lines whose statement matches (`--match T(ALLOC|PUSH|POP|FREE)` with
`--entry 'runTFA<128, 128, 8192, 128, 128, 256, 4, 8, false, false, 4>'` deletes the FIFO steps where
the rings wrap: at S1 = 1024 there are 4 tiles for 8 slots, so no producer ever waits for a free slot).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pto_isa_corpus import run_script_preload

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "fa_a2a3_seeded.md"
FOLDER = "kernels/manual/common/flash_atten"
KERNEL = "fa_performance_kernel.cpp"
FILES = (KERNEL, "pto_macro_matmul.hpp", "pto_macro_fa_softmax.hpp", "pto_macro_fa_gu.hpp")
ENTRY = "runTFA<128, 128, 1024, 128, 128, 256, 4, 8, false, false, 4>"
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
    def __init__(self, pto: Path, work: Path, entry: str, timeout: float):
        self.pto, self.work, self.entry, self.timeout = pto, work, entry, timeout
        gen = work / "generated"
        gen.mkdir()
        folder = pto / FOLDER
        subprocess.run([sys.executable, str(folder / "scripts/generate_cases.py"), *run_script_preload(folder),
                        "--output-header", str(gen / "generated_cases.h"),
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
        return self.run("check", folder, "--entry", self.entry)


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
    ap.add_argument("--pto-isa-root", required=True, type=Path, help="a pto-isa checkout")
    ap.add_argument("--entry", default=ENTRY, help=f"the instantiation checked (default '{ENTRY}')")
    ap.add_argument("--match", default="", help="delete only the sync lines whose statement matches this regex")
    ap.add_argument("--jobs", "-j", type=int, default=2, help="checks run at a time (default 2)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per check (default 600)")
    ap.add_argument("-o", "--output", type=Path, default=OUT, help=f"the report (default {OUT.relative_to(ROOT)})")
    args = ap.parse_args()
    pto = args.pto_isa_root.resolve()
    commit = subprocess.run(["git", "-C", str(pto), "rev-parse", "HEAD"], check=False, capture_output=True,
                            text=True).stdout.strip()
    ours = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], check=False, capture_output=True,
                          text=True).stdout.strip()
    texts = {f: (pto / FOLDER / f).read_text().splitlines() for f in FILES}
    with tempfile.TemporaryDirectory(prefix="fa_seeded_") as tmp:
        runner = Runner(pto, Path(tmp), args.entry, args.timeout)
        base_folder = runner.copy()
        t0 = time.monotonic()
        base = runner.check(base_folder)
        base_seconds = time.monotonic() - t0
        if base.returncode not in (0, 1):
            sys.exit(f"check of the unmodified kernel failed:\n{base.stderr}")
        baseline, base_errors = findings(base.stderr, base_folder)
        candidates = [Deletion(f, n, t.strip()) for f in FILES for n, t in enumerate(texts[f], 1)
                      if SYNC.match(t) and re.search(args.match, t)]
        with ThreadPoolExecutor(args.jobs) as pool:
            live = list(pool.map(lambda d: compiled(runner, d.file, d.line), candidates))
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
    args.output.write_text(render(done, inactive, base_errors, base_seconds, commit, ours, args.entry, args.match))
    print(f"wrote {args.output}")
    return 0


def render(done, inactive, base_errors, base_seconds, commit, ours, entry, match) -> str:
    counts = {k: sum(d.outcome == k for d in done) for k in ("at-line", "elsewhere", "not run", "missed", "error")}
    out = [
        "# Seeded deletions in pto-isa's hand-written a2a3 flash attention",
        "",
        (f"pto-isa commit `{commit}`, ptorewrite `{ours}`; `ptorewrite check --entry '{entry}'` on "
          f"`{FOLDER}/{KERNEL}`" + (f", lines matching `{match}`" if match else "")
         + " (see benchmarks/fa_a2a3_seeded.py for the build flags and the rules)."),
        "",
        (f"The unmodified kernel: {len(base_errors)} finding(s) in {base_seconds:.1f} s (the baseline; judged in "
         "benchmarks/pto_isa_corpus.py)."),
        "",
        (f"{len(done)} synchronization lines the build compiles, each deleted alone: "
         + ", ".join(f"{v} {k}" for k, v in counts.items()) + ". Not compiled (under `#if !UF_ENABLE`): "
         + (", ".join(f"{d.file}:{d.line}" for d in inactive) or "none") + "."),
        "",
        "| line | deleted | outcome | new findings at | first new finding |",
        "|---|---|---|---|---|",
    ]
    for d in done:
        where = ", ".join(d.lines[:6]) + (f" (+{len(d.lines) - 6})" if len(d.lines) > 6 else "")
        first = d.first.replace("|", "\\|")[:160]
        out.append(f"| {d.file}:{d.line} | `{d.text}` | {d.outcome} | {where} | {first} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
