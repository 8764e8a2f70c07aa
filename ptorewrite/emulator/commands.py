"""The emulator's subcommands: `check`, `simulate` and `verify` (registered by ptorewrite.cli).

Exit status: 0 clean, 1 problems found (races, deadlocks, output mismatches), 2 bad input.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

from ptorewrite.arch import profile
from ptorewrite.diagnostics import PtoError, Reporter
from ptorewrite.emulator import DEFAULT_MAX_INSTANCES
from ptorewrite.inputs import check_output, check_source, load_kernels

MAX_PLACEMENT_FINDINGS = 20


def _value(text: str):
    for conv in (lambda t: int(t, 0), float):
        try:
            return conv(text)
        except ValueError:
            pass
    if text in ("true", "false"):
        return text == "true"
    raise argparse.ArgumentTypeError(f"not a number: '{text}'")


def _setting(text: str) -> tuple[str, object]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got '{text}'")
    return name.strip(), _value(value.strip())


def _count(text: str) -> int:
    try:
        n = int(text.replace("_", "").replace(",", ""), 0)
    except ValueError:
        n = -1
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive count, got '{text}'")
    return n


def _runtime_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("runtime values")
    g.add_argument("--set", dest="settings", action="append", default=[], type=_setting, metavar="NAME=VALUE",
                   help="value of a scalar kernel argument (repeatable)")
    g.add_argument("--block-idx", type=int, default=0, metavar="N", help="get_block_idx() (default 0)")
    g.add_argument("--block-num", type=int, default=1, metavar="N", help="get_block_num() (default 1)")
    g.add_argument("--max-instances", type=_count, default=DEFAULT_MAX_INSTANCES, metavar="N",
                   help="stop a run that would execute more than N instances: instructions, syncs and loop "
                        f"iterations (default {DEFAULT_MAX_INSTANCES:,})")


def runtime_values(args: argparse.Namespace) -> dict:
    values = {"block_idx": args.block_idx, "block_num": args.block_num}
    values.update(dict(args.settings))
    return values


def _load(path: str, args, reporter: Reporter, frontend_options, want: str | None = None,
          placement_findings: dict | None = None):
    """Parse a kernel (every instantiation of a kernel template) as manual (auto_mode=False);
    re-parse as AUTO when it turns out to be one."""
    kernels = load_kernels(path, frontend_options(args, auto_mode=(want == "auto")), reporter, placement_findings)
    if want is None and kernels[0].mode == "auto":
        kernels = load_kernels(path, frontend_options(args, auto_mode=True), reporter)
    return kernels


def launch_runs(kernel, args: argparse.Namespace, unit=(), supplied=()) -> list[tuple[str, dict]]:
    """(label, runtime values) for each run of `kernel` (with the other cores of its cluster in
    `unit`, which supply the values named in `supplied` themselves): the user's values, or, when
    the user sets none of the values the file's own launches pass, one run per distinct launch;
    each of those once per outcome of the null tests (`p != nullptr`) of pointer arguments the
    user does not --set, and once per outcome of the conditions decided both ways
    (decided_conditions)."""
    values = runtime_values(args)
    given = {name for name, _ in args.settings}
    if not kernel.launches or any(name in given for launch in kernel.launches for name, _ in launch):
        runs = [("", values)]
    else:
        runs = [("as launched in the file with " + ", ".join(f"{n}={v}" for n, v in launch), {**values, **dict(launch)})
                for launch in kernel.launches]
    for name in null_tested_pointers(unit or (kernel,), given, accessed=True):
        runs = [(label, {**vals, name: 1}) for label, vals in runs]  # not null: a test on it is decided
    for name in null_tested_pointers(unit or (kernel,), given):
        runs = [("; ".join(x for x in (label, f"{name} {what}") if x), {**vals, name: bit})
                for label, vals in runs for what, bit in (("null", 0), ("not null", 1))]
    for name in sdma_outcomes(unit or (kernel,), given):
        outcomes = (("invalid", 0), ("valid", 1)) if name.startswith("TPREFETCH_ASYNC@") else \
            (("fails", 0), ("succeeds", 1))
        runs = [("; ".join(x for x in (label, f"{name} {what}") if x), {**vals, name: bit})
                for label, vals in runs for what, bit in outcomes]
    from ptorewrite.analysis.scalars import decided_condition_key

    out = []
    for label, vals in runs:
        branches = [(label, vals)]
        for cond in decided_conditions(unit or (kernel,), vals, supplied):
            key = decided_condition_key(cond)
            branches = [("; ".join(x for x in (lb, f"if {cond} {what}") if x), {**vs, key: bit})
                        for lb, vs in branches for what, bit in (("taken", 1), ("not taken", 0))]
        out += branches
    return out


def decided_conditions(kernels, values: dict, supplied=()) -> list:
    """Conditions (of ifs outside loops) over runtime values not given that steer nothing else
    (scalars.branch_only_values): `check` runs each both ways rather than asking for the values,
    when they are all that is missing and there are at most MAX_DECIDED_CONDITIONS of them. The
    cores of a cluster take one outcome together, so a condition that also reads a value each core
    has its own of (`supplied`: the vector core's subblock) is not decided this way."""
    from ptorewrite.analysis.scalars import MAX_DECIDED_CONDITIONS, branch_only_values, steering_values

    conds: dict[str, object] = {}
    for k in kernels:
        missing = {n for n in steering_values(k) if n not in values and n not in supplied}
        if not missing:
            continue
        free, mine = branch_only_values(k)
        if missing - free:
            return []  # another value is needed: the run asks for all of them
        for c in mine:
            if c.free_vars() & missing:
                if c.free_vars() & set(supplied):
                    return []
                conds.setdefault(str(c), c)
    return list(conds.values()) if len(conds) <= MAX_DECIDED_CONDITIONS else []


# Results of SDMA calls (parse/sdma.py) whose outcomes `check` runs one by one (2**N runs).
MAX_SDMA_OUTCOMES = 4


def sdma_outcomes(kernels, given) -> list[str]:
    """Results of SDMA calls (an event's validity, a wait's success) that steer the kernel and
    that the user does not --set: each is known only at run time, and either outcome can happen."""
    from ptorewrite.analysis.scalars import steering_values
    from ptorewrite.parse.sdma import is_sdma_result

    names: list[str] = []
    for k in kernels:
        names += [n for n in sorted(steering_values(k)) if is_sdma_result(n) and n not in given and n not in names]
    if len(names) > MAX_SDMA_OUTCOMES:
        raise PtoError(f"the kernel's control flow depends on the results of {len(names)} SDMA calls "
                       f"({', '.join(names)}); check runs every outcome for at most {MAX_SDMA_OUTCOMES}: give the "
                       "others with --set NAME=0 (failed, or an invalid event) or --set NAME=1")
    return names


# Pointer arguments tested against nullptr whose outcomes `check` runs one by one (2**N runs).
MAX_NULL_TESTED = 4


def null_tested_pointers(kernels, given, accessed: bool = False) -> list[str]:
    """Pointer arguments whose nullness steers the kernel (`if (bias != nullptr)`): the front end
    reads such a test as the argument's name compared with 0, the argument being known only at run
    time. Both outcomes are possible for any launch, so each is checked; except for an argument
    the kernel accesses on every run (see _accessed_on_every_run): those are listed apart
    (`accessed`), to be taken as not null."""
    from ptorewrite.analysis.scalars import steering_values

    names: list[str] = []
    touched = _accessed_on_every_run(*kernels)
    for k in kernels:
        pointers = {p.name for p in k.params if p.is_pointer}
        pointers = pointers & touched if accessed else pointers - touched
        names += [n for n in sorted(steering_values(k) & pointers) if n not in given and n not in names]
    if not accessed and len(names) > MAX_NULL_TESTED:
        raise PtoError(f"the kernel tests {len(names)} pointer arguments against nullptr ({', '.join(names)}); "
                       f"check runs every outcome for at most {MAX_NULL_TESTED}: give the others with "
                       "--set NAME=0 (null) or --set NAME=1 (not null)")
    return names


def _accessed_on_every_run(*kernels) -> set[str]:
    """Pointer arguments whose memory the kernel accesses outside every loop and condition: a
    launch that passed nullptr for one would fault, so it is not null in any run worth checking
    (pto-isa's SYNCALL mix tests test a slot derived from `flags` against nullptr, yet always
    write through `flags`)."""
    from ptorewrite.analysis import ir

    out: set[str] = set()
    todo = [k.body for k in kernels]
    while todo:
        s = todo.pop()
        if isinstance(s, ir.Block):
            todo += s.stmts
        elif isinstance(s, ir.Instr):
            for a in s.args:
                if a.kind == "gm":
                    out.add(a.value.tensor.param)
                elif a.kind == "raw" and a.value.space == "GM" and a.value.param:
                    out.add(a.value.param)
    return out


def _print_diagnostics(diags) -> None:
    for d in diags:
        print(d.format(), file=sys.stderr)


def _units(kernels, args, reporter: Reporter, verb: str = "checked") -> list[dict]:
    """What `check` runs, in file order: one kernel, or the cores of one cluster together (a kernel
    with code for both core types: whether its cores signal each other or not, they run at once
    and may touch the same GM), by core type."""
    from ptorewrite.parse.frontend import is_cluster_kernel

    units: list[dict] = []
    by_name: dict[str, dict] = {}
    cores_of: dict[str, set[str]] = {}
    for k in kernels:
        cores_of.setdefault(k.name, set()).add(k.core)
    for k in kernels:
        if (is_cluster_kernel(k) or len(cores_of[k.name]) > 1) and not args.core:
            if k.name not in by_name:
                by_name[k.name] = {}
                units.append(by_name[k.name])
            by_name[k.name][k.core] = k
        else:
            if is_cluster_kernel(k):
                _warn_cores_alone([k], reporter, f"--core {args.core}: only this core's pipes are {verb}")
            units.append({k.core: k})
    return units


def _warn_cores_alone(kernels, reporter: Reporter, what: str) -> None:
    from ptorewrite.analysis import ir

    for k in kernels:
        first = next((s for s in ir.walk(k.body) if isinstance(s, ir.CrossSync) and s.channel == "intra_block"), None)
        if first is not None:
            flags = ("ffts_cross_core_sync / wait_flag_dev" if first.ffts else
                     "set_intra_block / wait_intra_block")
            reporter.warn(f"{what} (core {k.core}): its {flags} are not modelled "
                          "(without --core the cores of the cluster run together)", first.loc)


def cmd_check(args, reporter: Reporter, frontend_options) -> int:
    check_source(args.kernel, args.defines)  # refuse bad input before importing the analysis
    from ptorewrite.analysis import execution
    from ptorewrite.emulator import cluster, pipes
    from ptorewrite.parse.frontend import is_cluster_kernel, signals_within_cluster

    # A manual tile placed past its buffer's end or misaligned is a bug of the kernel: reported as
    # an error, and the races and flags of the rest are still checked (exit 1, not a refusal).
    static_findings: dict = {}
    kernels = _load(args.kernel, args, reporter, frontend_options, want="manual", placement_findings=static_findings)
    units = _units(kernels, args, reporter)
    status = 0
    for i, unit in enumerate(units):
        kernel = next(iter(unit.values()))
        if kernel.mode != "manual" and (args.core or not (len(unit) > 1 or is_cluster_kernel(kernel))):
            # (an AUTO cluster runs too: its cores signal each other; races within a core are
            # what its missing syncs leave)
            raise PtoError(f"{args.kernel} is an AUTO-mode kernel (no TASSIGN or sync); check takes manual kernels "
                           "(use `verify` to check an AUTO kernel's rewrite)")
        if len(units) > 1:
            print(f"{'' if i == 0 else chr(10)}# kernel {i + 1} of {len(units)}: {kernel.name}")
        # (a kernel for one core type whose only cross-core signals are SYNCALL's runs alone)
        is_cluster = not args.core and (len(unit) > 1 or signals_within_cluster(unit.values()))
        supplied = cluster.CORE_VALUES if is_cluster else ()
        for label, values in launch_runs(kernel, args, tuple(unit.values()), supplied):
            # The check needs only what each instruction touches, not its arithmetic.
            found = list(static_findings.get(kernel.name, []))
            run_findings: list = []
            if is_cluster:
                trace = cluster.cluster_trace(unit, profile(args.arch), values, args.max_instances, run_findings)
            else:
                trace = execution.unroll(kernel, profile(args.arch), values, max_instances=args.max_instances,
                                         require_semantics=False, placement_findings=run_findings)
            result = pipes.check(trace)
            reporter.print()
            reporter.diagnostics.clear()
            seen = {d.loc for d in found}
            found += [d for d in run_findings if d.loc not in seen]  # the static message said it already
            found = found[:MAX_PLACEMENT_FINDINGS]
            _print_diagnostics(trace.warnings + found + result.diagnostics())
            ops = sum(1 for s in trace.steps if s.kind == "op")
            what = args.kernel if len(units) == 1 else f"{args.kernel}: {kernel.name}"
            if label:
                what += f" ({label})"
            if trace.cores:
                what += f" (cluster: {', '.join(trace.cores)} run together)"
            misplaced = f"{len(found)} misplaced tile(s), " if found else ""
            print(f"{what}: {misplaced}{len(result.races)} race(s), {len(result.flags)} flag problem(s) "
                  f"({ops} instructions and {len(trace.steps) - ops} syncs issued)")
            status = max(status, 0 if result.clean and not found else 1)
    return status


def cmd_simulate(args, reporter: Reporter, frontend_options) -> int:
    if args.timeline:
        check_output(args.timeline, args.kernel, what="timeline")
    check_source(args.kernel, args.defines)
    from ptorewrite.analysis import execution
    from ptorewrite.emulator import cluster, pipes, schedule, timeline

    kernels = _load(args.kernel, args, reporter, frontend_options)
    # A kernel with code for both core types is timed as its cluster: the cores run at once and a
    # cross-core wait holds its pipe until the other core's set. `--core` times one core alone.
    units = _verify_units(kernels, args, reporter, "timed")
    if args.timeline and len(units) > 1:
        raise PtoError(f"--timeline draws one kernel; the file instantiates {len(units)} "
                       f"({'; '.join(_name(k) for k in units)}): choose one with --entry")
    status = 0
    for i, unit in enumerate(units):
        if len(units) > 1:
            print(f"{'' if i == 0 else chr(10)}# kernel {i + 1} of {len(units)}: {_name(unit)}")
        kernel = next(iter(unit.values())) if isinstance(unit, dict) else unit
        serial = args.serialize
        if kernel.mode == "auto" and not serial:
            reporter.note("an AUTO kernel has no syncs: timing it fully serialized (--serialize)")
            serial = True
        if isinstance(unit, dict):
            trace = cluster.cluster_trace(unit, profile(args.arch), runtime_values(args), args.max_instances)
        else:
            trace = execution.unroll(kernel, profile(args.arch), runtime_values(args),
                                     max_instances=args.max_instances)
        matches, problems = pipes.match_flags(trace)
        problems = [p for p in problems if p.kind != "left-raised"]
        sched = schedule.simulate(trace, serial=serial, matches=matches)
        reporter.print()
        reporter.diagnostics.clear()
        _print_diagnostics(p.diagnostic() for p in problems)
        sys.stdout.write(schedule.format_report(sched, path_limit=args.path_limit))
        if args.timeline:
            svg = timeline.render_svg(sched)
            if args.timeline.endswith((".html", ".htm")):
                svg = f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{kernel.name}</title></head>" \
                      f"<body>\n{svg}</body></html>\n"
            with open(args.timeline, "w", encoding="utf-8") as f:
                f.write(svg)
            print(f"timeline written to {args.timeline}")
        status = max(status, 1 if (problems or sched.stuck) else 0)
    return status


def _rewrite_to_temp(auto_path: str, kernels, args, reporter: Reporter, read: set[str]) -> tuple[str, str]:
    try:
        from ptorewrite.transform.rewrite import RewriteOptions, rewrite_kernels
    except ImportError:
        raise PtoError("verify without MANUAL.cpp needs the rewriter (ptorewrite.transform.rewrite), which is "
                       "not available in this build; give the manual kernel explicitly") from None
    # Analyse with the runtime values the kernels are verified with (auto2manual --set does the same).
    used = {v for k in kernels for v in k.runtime_values}
    values = {k: v for k, v in runtime_values(args).items()
              if k in used and isinstance(v, int) and not isinstance(v, bool)}
    rewritten = rewrite_kernels(kernels, profile(args.arch), reporter, RewriteOptions(values=values))
    tmpdir = tempfile.mkdtemp(prefix="ptorewrite-verify-")
    path = os.path.join(tmpdir, os.path.basename(auto_path))
    places = {}
    if rewritten.headers:  # the user's headers the rewrite edits go beside it (see header_copies)
        from ptorewrite.header_copies import header_destinations

        places = header_destinations(auto_path, path, list(rewritten.headers), read, args.include_dirs)
    for h, data in rewritten.headers.items():
        os.makedirs(os.path.dirname(places[h]), exist_ok=True)
        with open(places[h], "wb") as f:
            f.write(data)
    with open(path, "wb") as f:
        f.write(rewritten.text)
    return path, tmpdir


def cmd_verify(args, reporter: Reporter, frontend_options) -> int:
    for path in (args.auto, args.manual):
        if path is not None:
            check_source(path, args.defines)
    from ptorewrite.emulator.verify import DEFAULT_ATOL, DEFAULT_RTOL, verify, verify_cluster
    from ptorewrite.parse import reads

    with reads.recording() as read:  # where a rewritten header's copy goes
        autos = _load(args.auto, args, reporter, frontend_options, want="auto")
    if autos[0].mode != "auto":
        raise PtoError(f"{args.auto} is already a manual-mode kernel; verify takes the AUTO kernel first")
    tmpdir = None
    manual_path = args.manual
    rtol = DEFAULT_RTOL if args.rtol is None else args.rtol
    atol = DEFAULT_ATOL if args.atol is None else args.atol
    verdicts = []
    try:
        if manual_path is None:
            from ptorewrite.analysis.execution import instance_limit

            # The rewrite plans the kernels it is given as it will write them (a helper's counted
            # copies step a counter the helper's statements now hold, started in the planned
            # cluster core's body): it gets a reading of its own, and the AUTO kernel runs as read.
            planned = _load(args.auto, args, Reporter(), frontend_options, want="auto")
            with instance_limit(args.max_instances):  # the rewrite's own runs obey --max-instances too
                manual_path, tmpdir = _rewrite_to_temp(args.auto, planned, args, reporter, read)
            # The rewrite lives in a temporary directory: keep the original's includes reachable.
            args.include_dirs = list(args.include_dirs) + [os.path.dirname(os.path.abspath(args.auto))]
        manuals = _load(manual_path, args, reporter, frontend_options, want="manual")
        if manuals[0].mode != "manual":
            raise PtoError(f"{manual_path} has no TASSIGN or sync: not a manual-mode kernel")
        autos, manuals = _verify_units(autos, args, reporter), _verify_units(manuals, args, reporter)
        _same_cores(autos, manuals, args.auto, manual_path)
        if len(manuals) != len(autos) or (len(autos) > 1 and [_name(k) for k in autos] != [_name(k) for k in manuals]):
            raise PtoError(f"{args.auto} instantiates {'; '.join(_name(k) for k in autos)} but {manual_path} "
                           f"instantiates {'; '.join(_name(k) for k in manuals)}; choose one with --entry")
        for auto, manual in zip(autos, manuals):
            if isinstance(auto, dict):  # the cores of one cluster, by core type
                verdicts.append(verify_cluster(auto, manual, profile(args.arch), runtime_values(args), args.seed,
                                               rtol, atol, max_instances=args.max_instances))
                continue
            verdicts.append(verify(auto, manual, profile(args.arch), runtime_values(args), args.seed, rtol, atol,
                                   max_instances=args.max_instances))
        if tmpdir is not None and args.keep_rewrite:
            print(f"rewritten kernel kept at {manual_path}")
    finally:
        if tmpdir is not None and not args.keep_rewrite:
            for name in os.listdir(tmpdir):
                os.unlink(os.path.join(tmpdir, name))
            os.rmdir(tmpdir)
    reporter.print()
    reporter.diagnostics.clear()
    shown = args.manual or "the rewrite"
    for i, (auto, verdict) in enumerate(zip(autos, verdicts)):
        if len(autos) > 1:
            print(f"{'' if i == 0 else chr(10)}# kernel {i + 1} of {len(autos)}: {_name(auto)}")
        if verdict.auto_flags:
            print(f"the AUTO kernel {args.auto} does not run to its end on the cluster:", file=sys.stderr)
            _print_diagnostics(p.diagnostic() for p in verdict.auto_flags)
        _print_diagnostics(verdict.check.diagnostics())
        if verdict.drawn:
            drawn = ", ".join(f"{k}={v:.9g}" if isinstance(v, float) else f"{k}={v}"
                              for k, v in sorted(verdict.drawn.items()))
            print(f"data-only runtime values drawn from seed {args.seed}: {drawn} (set them with --set NAME=VALUE)")
        for m in verdict.mismatches:
            print(f"mismatch: {m}")
        ok_out = "equivalent" if verdict.equivalent else \
            f"NOT equivalent ({len(verdict.mismatches)} argument(s) differ)"
        what = args.auto if len(autos) == 1 else f"{args.auto} ({_name(auto)})"
        if verdict.manual.cores:
            what += f" (cluster: {', '.join(verdict.manual.cores)} run together)"
        print(f"{what} vs {shown}: outputs {ok_out} (seed {args.seed}, float rtol {rtol:g} atol {atol:g}, "
              f"integers exact); manual kernel: {len(verdict.check.races)} race(s), "
              f"{len(verdict.check.flags)} flag problem(s)")
    return 0 if all(v.ok for v in verdicts) else 1


def _name(unit) -> str:
    return next(iter(unit.values())).name if isinstance(unit, dict) else unit.name


def _verify_units(kernels, args, reporter: Reporter, verb: str = "compared") -> list:
    """What `verify` compares (and `simulate` times), in file order: a kernel, or the cores of one
    cluster by core type (a kernel with code for both core types; `--core` takes one alone)."""
    units = _units(kernels, args, reporter, verb)
    return [unit if len(unit) > 1 or _signals(unit, args) else next(iter(unit.values())) for unit in units]


def _signals(unit: dict, args) -> bool:
    from ptorewrite.parse.frontend import signals_within_cluster

    return not args.core and signals_within_cluster(unit.values())


def _same_cores(autos: list, manuals: list, auto_path: str, manual_path: str) -> None:
    """A cluster is compared with a cluster of the same core types."""
    for a, m in zip(autos, manuals):
        if not isinstance(a, dict) and not isinstance(m, dict):
            continue
        ca = sorted(a) if isinstance(a, dict) else [a.core]
        cm = sorted(m) if isinstance(m, dict) else [m.core]
        if isinstance(a, dict) != isinstance(m, dict) or ca != cm:
            raise PtoError(f"{auto_path} has code for the {' and '.join(ca)} core(s) of {_name(a)} but {manual_path} "
                           f"for the {' and '.join(cm)} core(s); verify compares the same cores (choose one with "
                           "--core)")


def add_commands(sub, common, frontend_options) -> None:
    """Register check / simulate / verify; `common` adds the front-end options."""

    def bind(fn):
        return lambda args, reporter: fn(args, reporter, frontend_options)

    p = sub.add_parser("check", help="find data races and flag deadlocks in a manual-mode kernel",
                       description="Emulate the kernel's issue order and report every pair of unordered "
                                   "accesses to the same bytes (races) and every unbalanced flag (deadlocks). "
                                   "Exit 0 clean, 1 problems found, 2 bad input.")
    p.add_argument("kernel", metavar="MANUAL.cpp")
    _runtime_options(p)
    common(p)
    p.set_defaults(func=bind(cmd_check))

    p = sub.add_parser("simulate", help="cycle estimate of a kernel on the pipe timing model",
                       description="Total cycles, busy cycles per pipe and the critical path. AUTO kernels are "
                                   "timed fully serialized.")
    p.add_argument("kernel", metavar="KERNEL.cpp")
    p.add_argument("--serialize", action="store_true",
                   help="every instruction waits for all earlier ones (the fully serialized model)")
    p.add_argument("--timeline", metavar="OUT.svg", help="write a picture of the schedule (.svg or .html)")
    p.add_argument("--path-limit", type=int, default=40, metavar="N",
                   help="show at most N groups of the critical path (default 40)")
    _runtime_options(p)
    common(p)
    p.set_defaults(func=bind(cmd_simulate))

    p = sub.add_parser("verify", help="check a manual kernel against its AUTO kernel on random inputs",
                       description="Run both kernels on the same random GM inputs and compare every GM argument "
                                   "afterwards; also race/deadlock-check the manual kernel. Without MANUAL.cpp "
                                   "the AUTO kernel is rewritten first. Exit 0 only when equivalent and clean.")
    p.add_argument("auto", metavar="AUTO.cpp")
    p.add_argument("manual", metavar="MANUAL.cpp", nargs="?")
    p.add_argument("--seed", type=int, default=0, help="random input seed (default 0)")
    p.add_argument("--rtol", type=float, default=None,
                   help="relative tolerance for floating-point outputs (default 1e-5; 0 with --atol 0: exact)")
    p.add_argument("--atol", type=float, default=None, help="absolute tolerance for floating-point outputs "
                                                            "(default 1e-6)")
    p.add_argument("--keep-rewrite", action="store_true", help="keep the rewritten kernel (no MANUAL.cpp given)")
    _runtime_options(p)
    common(p)
    p.set_defaults(func=bind(cmd_verify))
