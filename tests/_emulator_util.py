"""Shared helpers of the emulator tests: loading samples, editing kernel text, running the checker."""

from __future__ import annotations

import re
from pathlib import Path

from ptorewrite.analysis import execution
from ptorewrite.arch import profile
from ptorewrite.emulator import pipes
from ptorewrite.parse.frontend import FrontendOptions, load_kernel

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
SAMPLE_NAMES = ("vec_add", "softmax", "rmsnorm", "gemm_single", "gemm_double", "reshape_subview")
VALUES = {"block_idx": 1, "block_num": 2}

SYNC_LINE = re.compile(r"^\s*(set_flag|wait_flag)\(\s*(PIPE_\w+)\s*,\s*(PIPE_\w+)\s*,\s*(.*?)\);")
BARRIER_LINE = re.compile(r"^\s*pipe_barrier\(\s*(PIPE_\w+)\s*\);")


def load(path, auto: bool, defines=()):
    return load_kernel(str(path), FrontendOptions(auto_mode=auto, defines=list(defines)))


def sample(name: str, which: str):
    return load(SAMPLES / name / f"{which}.cpp", auto=(which == "auto"))


def trace_of(kernel, arch="a2a3", values=VALUES):
    return execution.unroll(kernel, profile(arch), values)


def check_text(text: str, tmp_path: Path, name="manual.cpp", arch="a2a3") -> pipes.CheckResult:
    path = tmp_path / name
    path.write_text(text)
    return pipes.check(trace_of(load(path, auto=False), arch))


def sync_lines(text: str) -> list[tuple[int, str, str, str, str]]:
    """(line, set_flag|wait_flag, src pipe, dst pipe, event text) for every sync line."""
    out = []
    for i, line in enumerate(text.split("\n"), 1):
        m = SYNC_LINE.match(line)
        if m:
            out.append((i, *m.groups()))
    return out


def barrier_lines(text: str) -> list[tuple[int, str]]:
    return [(i, m.group(1)) for i, line in enumerate(text.split("\n"), 1) if (m := BARRIER_LINE.match(line))]


def blank_lines(text: str, lines) -> str:
    """Delete the given 1-based lines' contents, keeping line numbers."""
    out = text.split("\n")
    for n in lines:
        out[n - 1] = ""
    return "\n".join(out)


def kernel_line(step_or_instr, depth: int) -> int:
    """The line of an instruction in the function at call depth `depth` (its call site there)."""
    via = step_or_instr.via
    return via[depth].line if len(via) > depth else step_or_instr.loc.line
