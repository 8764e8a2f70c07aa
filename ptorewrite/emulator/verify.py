"""Equivalence of an AUTO kernel and a manual kernel on the same random inputs, plus the race and
deadlock check of the manual one.

The random inputs are the GM arguments and the runtime values that only feed data (a scale factor
given to TMULS): both come from the seed unless given. Values that steer control flow or addresses
must be given: they decide what runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ptorewrite.analysis import ir
from ptorewrite.analysis.execution import GmOperand, Number, Trace, unroll
from ptorewrite.analysis.scalars import data_values
from ptorewrite.arch import ArchProfile
from ptorewrite.emulator import DEFAULT_MAX_INSTANCES, data, pipes

# Default float tolerance: the twins run the same operations in the same per-element order, so
# only a changed accumulation order may differ, by a few ulps of fp32.
DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-6


@dataclass
class Verdict:
    auto: Trace
    manual: Trace
    mismatches: list[data.Mismatch]
    check: pipes.CheckResult
    drawn: dict[str, Number]  # data-only runtime values drawn from the seed

    @property
    def equivalent(self) -> bool:
        return not self.mismatches

    @property
    def ok(self) -> bool:
        return self.equivalent and self.check.clean


def initial_gm(traces: list[Trace], seed: int) -> dict:
    extents: dict[str, int] = {}
    dtypes: dict[str, str] = {}
    for t in traces:
        for p, e in t.gm_extent.items():
            extents[p] = max(extents.get(p, 0), e)
        for p, d in t.gm_dtype.items():
            dtypes.setdefault(p, d)
    return data.random_gm(extents, dtypes, seed), dtypes


def draw_data_values(kernels: list[ir.Kernel], given: Mapping[str, Number], seed: int) -> dict[str, Number]:
    """A value, drawn from `seed`, for every data-only runtime value not given: floats uniform in
    [-1, 1) as the GM inputs, integers small."""
    from ptorewrite.parse.types import DTYPE_NAMES

    rng = np.random.default_rng([seed, 1])  # a stream of its own: the GM inputs do not change
    out: dict[str, Number] = {}
    for k in kernels:
        types = {p.name: p.type_text for p in k.params}
        for name in data_values(k):
            if name in given or name in out:
                continue
            words = [w for w in types.get(name, "").replace("&", " ").split() if w not in ("const", "volatile")]
            dtype = DTYPE_NAMES.get(" ".join(words), "fp32")
            if dtype == "bool":
                out[name] = bool(rng.integers(0, 2))
            elif dtype.startswith(("int", "uint")):
                out[name] = int(rng.integers(0, 16) if dtype.startswith("u") else rng.integers(-8, 8))
            else:
                out[name] = float(np.float32(rng.uniform(-1.0, 1.0)))
    return out


def verify(auto: ir.Kernel, manual: ir.Kernel, arch: ArchProfile, values: Mapping[str, Number],
           seed: int = 0, rtol: float | None = DEFAULT_RTOL, atol: float | None = DEFAULT_ATOL,
           max_instances: int | None = DEFAULT_MAX_INSTANCES) -> Verdict:
    drawn = draw_data_values([auto, manual], values, seed)
    values = {**drawn, **values}
    ta = unroll(auto, arch, values, max_instances=max_instances)
    tm = unroll(manual, arch, values, max_instances=max_instances)
    ga, dtypes = initial_gm([ta, tm], seed)
    # Arguments neither kernel writes are shared by both runs; the others get their own copy.
    written = {o.param for t in (ta, tm) for s in t.steps for o in s.operands
               if isinstance(o, GmOperand) and "w" in o.access}
    gm_manual = {k: (v.copy() if k in written else v) for k, v in ga.items()}
    data.run(ta, ga)
    data.run(tm, gm_manual)
    mismatches = data.compare(ga, gm_manual, dtypes, rtol, atol)
    return Verdict(ta, tm, mismatches, pipes.check(tm), drawn)
