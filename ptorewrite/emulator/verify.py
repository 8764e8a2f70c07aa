"""Equivalence of an AUTO kernel and a manual kernel on the same random inputs, plus the race and
deadlock check of the manual one.

The random inputs are the GM arguments and the runtime values that only feed data (a scale factor
given to TMULS): both come from the seed unless given. Values that steer control flow or addresses
must be given: they decide what runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ptorewrite.analysis import ir
from ptorewrite.analysis.execution import GmOperand, Number, Trace, unroll
from ptorewrite.analysis.scalars import data_values
from ptorewrite.arch import ArchProfile
from ptorewrite.emulator import DEFAULT_MAX_INSTANCES, cluster, data, pipes

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
    # A cluster: the AUTO original's cross-core waits that never pass (its cores in program order).
    auto_flags: list[pipes.FlagProblem] = field(default_factory=list)

    @property
    def equivalent(self) -> bool:
        return not self.mismatches

    @property
    def ok(self) -> bool:
        return self.equivalent and self.check.clean and not self.auto_flags


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


def verify_cluster(autos: Mapping[str, ir.Kernel], manuals: Mapping[str, ir.Kernel], arch: ArchProfile,
                   values: Mapping[str, Number], seed: int = 0, rtol: float | None = DEFAULT_RTOL,
                   atol: float | None = DEFAULT_ATOL,
                   max_instances: int | None = DEFAULT_MAX_INSTANCES) -> Verdict:
    """`verify` of a kernel with code for both core types (by core type: "cube", "vec"): every core
    of the cluster runs at once, on the same random inputs. The AUTO original runs each core in
    program order with its cross-core flags real (`cluster.program_order`); the manual kernel runs
    its pipes concurrently, in the order `pipes.check` found for every queue, flag and stall of the
    cluster (a FIFO push to a full ring waits for the consumer's free, a pop waits for the push).
    The manual kernel is checked as `check` checks a cluster."""
    drawn = draw_data_values([*autos.values(), *manuals.values()], values, seed)
    values = {**drawn, **values}
    ta = cluster.cluster_trace(dict(autos), arch, values, max_instances, require_semantics=True)
    tm = cluster.cluster_trace(dict(manuals), arch, values, max_instances, require_semantics=True)
    ga, dtypes = initial_gm([ta, tm], seed)
    written = {o.param for t in (ta, tm) for s in t.steps for o in s.operands
               if isinstance(o, GmOperand) and "w" in o.access}
    gm_manual = {k: (v.copy() if k in written else v) for k, v in ga.items()}
    matches, auto_flags = pipes.match_flags(ta)
    auto_order, auto_stuck = cluster.program_order(ta, matches)
    reported = {p.steps[0].index for p in auto_flags}
    auto_flags += [pipes.FlagProblem("stuck", (ta.steps[i], ta.steps[matches[i]])) for i in auto_stuck
                   if i not in reported and i in matches]
    auto_flags = [p for p in auto_flags if p.kind != "left-raised"]
    check = pipes.check(tm)
    data.run(ta, ga, order=auto_order, space_of=cluster.space_of, dual_split=cluster.dual_split)
    data.run(tm, gm_manual, order=check.order, space_of=cluster.space_of, dual_split=cluster.dual_split)
    mismatches = data.compare(ga, gm_manual, dtypes, rtol, atol)
    return Verdict(ta, tm, mismatches, check, drawn, auto_flags)
