"""The auto2manual pipeline: plan memory, place tiles with TASSIGN, synchronize pipes.

All changes are insertions into the user's source (see `edits`); the result is the whole
file as bytes. Bad input raises PtoError before anything is produced.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from ptorewrite.analysis import ir
from ptorewrite.analysis.operands import check_operands
from ptorewrite.arch import ArchProfile
from ptorewrite.diagnostics import Diagnostic, PtoError, Reporter, to_location
from ptorewrite.parse.source import SourceFile
from ptorewrite.transform import sync
from ptorewrite.transform.edits import Insertion, edit_kernel, edit_kernels
from ptorewrite.transform.header_edits import LinesDiffer, rewritten_headers, split_on_helper_template
from ptorewrite.transform.memplan import MemoryPlan, plan_memory
from ptorewrite.transform.multibuffer import Decision, multibuffer, undo_copies
from ptorewrite.transform.shared_region import share_counter, shared_regions
from ptorewrite.transform.sync_emit import HelperCopiesDiffer
from ptorewrite.transform.sync_model import DEEP_ENDS, SHALLOW_AT, SHIFTED_PARAMS
from ptorewrite.transform.tassign import _first_line_stmt, tassign_insertions


@dataclass
class RewriteOptions:
    checked_tassign: bool = False  # emit TASSIGN<addr>(tile) instead of TASSIGN(tile, addr)
    reserved: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # buffer -> [start, end)
    insert_sync: bool = True  # run the sync inserter (tests of placement alone turn it off)
    conservative: bool = False  # a full barrier after every instruction instead of planned syncs
    values: dict[str, int] = field(default_factory=dict)  # runtime values named on the command line (the analysis covers all)
    multibuffer: bool = True  # make single tiles each loop iteration writes afresh into copies (see multibuffer)
    # Copies of tiles a helper declares, chosen by the helper's own counter (transform.call_lanes);
    # off when the kernels of one file would need different lines in the helper with them.
    call_copies: bool = True
    # One counter over a lane loop's copies and the tile after it on their bytes
    # (transform.shared_region); off: each keeps copies of its own (the lane index).
    shared_counters: bool = True
    # Statements (file, start, end) in helper bodies next to which no flag's end goes from inside
    # the body (sync_model.SHALLOW_AT): where the kernels of one file needed different lines.
    shallow_at: frozenset = frozenset()
    buffers: int = 2  # copies per multi-buffered tile


@dataclass
class RewriteResult:
    text: bytes
    plan: MemoryPlan
    insertions: list[Insertion]
    syncs: sync.SyncPlan | None = None  # the planned synchronization (None: --conservative or no sync)
    multibuffered: list[Decision] = field(default_factory=list)  # per tile a loop writes: copies made or why not
    shared: list = field(default_factory=list)  # shared_region.SharedRegion given one counter


def rewrite(kernel: ir.Kernel, profile: ArchProfile, reporter: Reporter,
            options: RewriteOptions | None = None) -> RewriteResult:
    options = options or RewriteOptions()
    refuse_manual(kernel)
    if kernel.early_returns:
        raise PtoError("a return inside a loop or a branch is not supported by auto2manual: the pipes would "
                       "have to be drained before it as at the kernel's end; return at the top of the kernel "
                       "(`if (cond) return;`) or make the rest conditional (check, simulate and verify with a "
                       "manual kernel run it)", kernel.early_returns[0])
    loop = next((s for s in ir.walk(kernel.body) if isinstance(s, ir.For) and s.kind == "while"), None)
    if loop is not None:
        raise PtoError("a while loop is not supported by auto2manual: the planner places syncs for for loops "
                       "(check and simulate with a manual kernel run it)", loop.loc)
    check_operands(kernel, profile, reporter)
    decisions = []
    single: dict[int, str] = {}
    kept: dict[int, str] | None = None  # `single` of the last plan that held, its copies idle
    if options.multibuffer and options.insert_sync and not options.conservative and options.buffers > 1:
        decisions = multibuffer(kernel, profile, options.buffers, options.reserved, options.call_copies)
    while any(d.copies > 1 for d in decisions):
        # Copies must not cost a full barrier the single tiles do not need (pipes that alternate
        # between the branches of a runtime condition), nor a rewrite the single tiles get (a
        # helper's copies that would need different lines), and copies whose flags get one
        # event id for every copy overlap nothing while they take ids the others might use.
        # Either way the last tile copied stays single and the rest are planned again, one tile
        # fewer each time.
        drop = None
        trial = Reporter()
        try:
            result = _planned(kernel, profile, trial, options, decisions)
        except PtoError as x:
            first = x.diagnostics[0]
            where = f" at {first.loc.line}:{first.loc.col}" if first.loc else ""
            drop = f"with the copies the rewrite stops{where}: {first.message.split(' (')[0]}"
            counted = [d for d in decisions if d.copies > 1 and d.loop is None]
            if counted:
                # A helper's counted copies can leave its calls needing different lines inside
                # it (one text): its tiles go back to one copy first, all at once.
                undo_copies(decisions, "")
                for d in counted:
                    single[id(d.tile)] = ("declared in a helper; with copies its calls would need different "
                                          "synchronization inside it")
                decisions = multibuffer(kernel, profile, options.buffers, options.reserved, options.call_copies,
                                        single)
                continue
        if drop is None and any("PIPE_ALL" in i.code for i in result.insertions):
            drop = "the copies would need pipe_barrier(PIPE_ALL)"
        if drop is not None:
            last = [d for d in decisions if d.copies > 1][-1]
        else:
            # A helper's counted copies are judged as a whole, not by one inlined call's flags:
            # their M -> MTE1 style hand-back names the counter in the helper's own text, while a
            # call whose flags the plan moved to the call keeps one id there.
            idle = [d for d in decisions if d.copies > 1 and d.loop is not None
                    and _copies_share_one_id(kernel, d.tile, result.syncs)]
            if idle:
                drop = "no overlap: the flags that free its copies would have one event id for every copy"
                last, kept = idle[-1], dict(single)
        if drop is not None:
            undo_copies(decisions, "")
            single[id(last.tile)] = drop
            decisions = multibuffer(kernel, profile, options.buffers, options.reserved, options.call_copies, single)
            continue
        result, trial = _shared_counters(kernel, profile, options, decisions, result, trial)
        _adopt(reporter, trial)
        return result
    trial = Reporter()
    try:
        result = _planned(kernel, profile, trial, options, decisions)
    except PtoError:
        if kept is None:
            raise
        # Only the idle copies let the plan hold (one text for a helper's calls): keep them.
        undo_copies(decisions, "")
        decisions = multibuffer(kernel, profile, options.buffers, options.reserved, options.call_copies, kept)
        trial = Reporter()
        result = _planned(kernel, profile, trial, options, decisions)
    result, trial = _shared_counters(kernel, profile, options, decisions, result, trial)
    _adopt(reporter, trial)
    return result


def _shared_counters(kernel: ir.Kernel, profile: ArchProfile, options: RewriteOptions, decisions: list[Decision],
                     result: RewriteResult, trial: Reporter) -> tuple[RewriteResult, Reporter]:
    """One counter over a lane loop's copies and the tile after it on the same bytes
    (`transform.shared_region`), kept when the plan with it holds, lays the tile on the lane
    tile's copies and needs no full barrier; otherwise the plan as it was."""
    if not (options.shared_counters and options.multibuffer and options.insert_sync and not options.conservative
            and options.buffers > 1):
        return result, trial
    tried = []
    for region in shared_regions(kernel, result.plan):
        tried.append(region)
        name = f"{region.lanes.name}Copy"
        while re.search(rf"\b{name}\b", kernel.source.decode(errors="replace") if isinstance(kernel.source, bytes)
                        else kernel.source):
            name += "_"
        undo, lines = share_counter(kernel, region, name)
        attempt = Reporter()
        try:
            extra = [replace(Insertion.at(region.loop.loc, "before", lines[0][1], lines[0][2], order=-2), declares=name),
                     Insertion.at(region.lanes.tile.loc, "before", lines[1][1], lines[1][2], order=-1),
                     Insertion.at(_first_line_stmt(lines[2][0]).loc, "before", lines[2][1], lines[2][2], order=-1)]
            planned = _planned(kernel, profile, attempt, options, decisions, extra)
        except PtoError as x:
            undo()
            region.note = f"not made: with it the rewrite stops ({x.diagnostics[0].message.split(' (')[0]})"
            continue
        after = next((q for q in planned.plan.placements if q.tile is region.after.tile), None)
        lanes = next((q for q in planned.plan.placements if q.tile is region.lanes.tile), None)
        if after is None or lanes is None or after.addresses != lanes.addresses:
            undo()
            region.note = "not made: the memory plan does not lay the two on the same copies"
            continue
        if any("PIPE_ALL" in i.code for i in planned.insertions):
            undo()
            region.note = "not made: it would need pipe_barrier(PIPE_ALL)"
            continue
        lane = next(s for s in ir.walk(region.loop.body) if isinstance(s, ir.For) and
                    s.body.uid == region.lanes.tile.scope)
        if planned.syncs is None or any(s.kind == "flag" and s.reverse_loop is lane and s.slots == 1 and s.slot is None
                                        for s in planned.syncs.syncs):
            # A flag of one id carried from lane to lane makes every lane's load wait for the
            # lane before it: the copies would overlap nothing.
            undo()
            region.note = "not made: with it the lanes' loads wait for each other (one event id for both copies)"
            continue
        result, trial = planned, attempt
        region.made = True
    result.shared = tried
    return result, trial


def _planned(kernel: ir.Kernel, profile: ArchProfile, reporter: Reporter, options: RewriteOptions,
             decisions: list[Decision], extra: list[Insertion] | None = None) -> RewriteResult:
    """Memory plan, TASSIGNs, synchronization and the edited text of the kernel as it is."""
    plan = plan_memory(kernel, profile, reporter, options.reserved)
    insertions = tassign_insertions(kernel, plan, checked=options.checked_tassign) + list(extra or ())
    sync_plan = None
    if options.insert_sync:
        more, sync_plan = _sync_insertions(kernel, plan, profile, reporter, options)
        insertions += more
    return RewriteResult(edit_kernel(kernel, insertions), plan, insertions, sync_plan, decisions)


def _adopt(reporter: Reporter, trial: Reporter) -> None:
    for d in trial.diagnostics:
        if d not in reporter.diagnostics:
            reporter.diagnostics.append(d)


@dataclass
class FileRewrite:
    """The rewrite of a whole file: every kernel (or kernel instantiation) in it."""

    text: bytes
    results: list[RewriteResult]  # one per kernel, in the order given
    kernels: list[ir.Kernel] = field(default_factory=list)  # the kernels as planned (see planned_clusters)
    # The user's headers that get lines (helpers inlined from them), rewritten, by path (transform.header_edits).
    headers: dict[str, bytes] = field(default_factory=dict)


def refuse_lambda_calls(kernels: list[ir.Kernel]) -> None:
    """A helper that calls a lambda the kernel passed it is read, not rewritten: the helper's code
    does not see the tiles the lambda captures, so nothing can be placed there for them."""
    call = next((loc for k in kernels for loc in k.lambda_calls), None)
    if call is not None:
        raise PtoError("a helper calls a lambda of the kernel here: the lambda's statements are read (`ir`, "
                       "`check`), but a rewrite cannot yet place what they need, since the helper's code does not "
                       "see the tiles the lambda captures", to_location(call))


def rewrite_kernels(kernels: list[ir.Kernel], profile: ArchProfile, reporter: Reporter,
                    options: RewriteOptions | None = None) -> FileRewrite:
    """Rewrite every kernel of one file, each instantiation of a kernel template included.

    Each kernel is planned and synchronized on its own; the file gets the union of their lines.
    A statement that several of them run (in a shared helper, the body of a template, a tile
    declaration) gets the same inserted lines from each, or:
    - inside the body of a kernel template whose instantiations disagree there (tiles of
      different sizes at different addresses), one `if constexpr` branch per distinct set of
      lines, selected by the template arguments, so every instantiation the file makes
      compiles to exactly its own rewrite;
    - anywhere else (a helper shared by different kernels), a located error naming both and
      what each needs.
    A statement only one of them runs (in its own body, the `if constexpr` branch of its
    instantiation) takes that one's lines."""
    options = options or RewriteOptions()
    refuse_lambda_calls(kernels)
    kernels = planned_clusters(kernels)
    for call_copies in (True, False) if options.call_copies else (False,):
        tried = replace(options, call_copies=call_copies)
        each = [_with_rings(tried, k, profile) for k in kernels]
        heard = [Reporter() for _ in kernels]
        results = [rewrite(k, profile, r, o) for k, r, o in zip(kernels, heard, each)]
        apart: list[ir.Kernel] = []
        try:
            out, apart = _merged_planning_apart(kernels, results, each, heard, profile)
        except PtoError:
            # A helper's tiles with copies counted by the helper can need different lines in it
            # for different kernels of the file (one text): every kernel is planned again
            # without them.
            if not call_copies or not any(d.copies > 1 and d.loop is None for r in results for d in r.multibuffered):
                raise
            for r in results:
                undo_copies(r.multibuffered, "")
            continue
        for d in (d for r in heard for d in r.diagnostics):
            if d not in reporter.diagnostics:
                reporter.diagnostics.append(d)
        if apart:
            reporter.diagnostics.append(apart)
        return out
    raise AssertionError("unreachable")


def _merged_planning_apart(kernels: list[ir.Kernel], results: list[RewriteResult], each: list[RewriteOptions],
                           heard: list[Reporter], profile: ArchProfile) -> tuple[FileRewrite, Diagnostic | None]:
    """`_merged`, after planning again the kernels that need different lines at a statement they
    share, with no flag's end going next to it from inside the helper body that holds it
    (RewriteOptions.shallow_at): such an end is one kernel's choice, which the others running
    that helper may not make. `results`, `each` and `heard` are updated in place; with the merged
    file goes a note naming the kernels planned again (None when none was)."""
    again: set[int] = set()
    where = None
    while True:
        try:
            out = _merged(kernels, results)
        except LinesDiffer as x:
            more = [j for j, k in enumerate(kernels)
                    if any(k is y for y in x.kernels) and x.statement not in each[j].shallow_at]
            if not more:
                raise
            where = where or x.diagnostics[0].loc
            for j in more:
                each[j] = replace(each[j], shallow_at=each[j].shallow_at | {x.statement})
                heard[j] = Reporter()
                results[j] = rewrite(kernels[j], profile, heard[j], each[j])
            again.update(more)
            continue
        if not again:
            return out, None
        names = ", ".join(f"'{kernels[j].name}'" for j in sorted(again))
        return out, Diagnostic(
            "note", f"the kernels of this file need different lines here when a flag's wait or set goes inside "
            f"the helper body that holds it: {len(again)} of them ({names}) are planned with it at the call "
            "instead (rewrite one alone with --entry to keep it)", where)


def _merged(kernels: list[ir.Kernel], results: list[RewriteResult]) -> FileRewrite:
    """The file's text with every kernel's lines (see rewrite_kernels)."""
    headers = rewritten_headers(kernels, [r.insertions for r in results])
    if len(kernels) == 1:
        return FileRewrite(results[0].text, results, kernels, headers)
    src = SourceFile(kernels[0].file, kernels[0].source)
    chosen: dict[_Place, list[Insertion]] = {}
    owner: dict[_Place, int] = {}
    per_kernel = [_by_place([i for i in r.insertions if i.in_file(src.path) == src.path]) for r in results]
    covered = [_covered_statements(k) for k in kernels]
    declarations = _hoisted_declarations(per_kernel)
    for i, places in enumerate(per_kernel):
        for place, items in places.items():
            if place not in chosen:
                chosen[place], owner[place] = items, i
    dispatched: set[_Place] = set()
    for place in sorted(chosen):
        covering = [j for j in range(len(kernels)) if place[:2] in covered[j] or j == owner[place]]
        variants = {tuple(_codes(per_kernel[j].get(place, []))) for j in covering}
        if len(variants) < 2:
            continue
        if len({kernels[j].core for j in covering}) > 1:
            lines = _dispatch_cores(place, [kernels[j] for j in covering],
                                    [per_kernel[j].get(place, []) for j in covering])
        else:
            lines = _dispatch(place, [kernels[j] for j in covering], [per_kernel[j].get(place, []) for j in covering])
        if lines is None:
            a = owner[place]
            b = next(j for j in covering if tuple(_codes(per_kernel[j].get(place, []))) != tuple(_codes(chosen[place])))
            raise _disagreement(src, place, kernels[a], chosen[place], kernels[b], per_kernel[b].get(place, []))
        chosen[place] = lines
        dispatched.add(place)
    merged = [ins if place in dispatched else _merged_reason(ins, place, kernels, per_kernel)
              for place, items in chosen.items() for ins in items]
    merged += [d for items in declarations.values() for d in items]
    return FileRewrite(edit_kernels(kernels, merged), results, kernels, headers)


def _hoisted_declarations(per_kernel: list[dict]) -> dict:
    """The declarations some kernels insert at a statement (a shared counter before its loop),
    taken out of `per_kernel`, by place: each is written once there for every kernel that runs
    the statement, outside any `if constexpr` branch the kernels' other lines get, since those
    lines name it; where it is unused it costs nothing. A name declared differently by two
    kernels stays with their other lines (they disagree as they would anyway)."""
    by_name: dict[tuple, set[str]] = {}
    for places in per_kernel:
        for place, items in places.items():
            for d in items:
                if d.declares:
                    by_name.setdefault((place, d.declares), set()).add(d.code)
    hoisted: dict = {}
    for places in per_kernel:
        for place, items in places.items():
            keep = [d for d in items if d.declares and len(by_name[(place, d.declares)]) == 1]
            if keep:
                places[place] = [i for i in items if not any(i is d for d in keep)]
                for d in keep:
                    if not any(h.code == d.code for h in hoisted.setdefault(place, [])):
                        hoisted[place].append(d)
    return hoisted


# Where inserted lines go: the byte range of the statement they go next to, and "before"/"after".
_Place = tuple[int, int, str]

# The preprocessor names of each core type in the lines written for one core only (parse.arch_macros):
# pto-isa's a5 kernels test the shorthands, its a2a3 ones the C220 names.
CORE_MACROS = {"a5": {"cube": "__DAV_CUBE__", "vec": "__DAV_VEC__"},
               "a2a3": {"cube": "__DAV_C220_CUBE__", "vec": "__DAV_C220_VEC__"}}


def planned_clusters(kernels: list[ir.Kernel]) -> list[ir.Kernel]:
    """The kernels as they are planned: each core of a cluster kernel (code for both core types
    of one kernel, or cross-core operations) with its view of the other cores, its cross-core
    flags instructions on their pipes (analysis.cluster_view); it is then planned alone around
    its cross-core operations, which the lowering made statements. The others as they are."""
    from ptorewrite.analysis.cluster_view import cluster_view, planning_kernel

    by_name: dict[str, list[ir.Kernel]] = {}
    for k in kernels:
        by_name.setdefault(k.name, []).append(k)
    out = []
    for k in kernels:
        others = [o for o in by_name[k.name] if o.core != k.core]
        cross = next((s for s in ir.walk(k.body) if isinstance(s, ir.CrossSync) and s.channel == "intra_block"), None)
        if not others and cross is None:
            out.append(k)
            continue
        if not others:
            raise PtoError(f"the {k.core} core signals the other cores of its cluster here, but the other core "
                           "type's code was not read (--core, or a file whose core-type guards name one core "
                           "type only): auto2manual writes a cluster kernel only when it has planned every core "
                           "type", cross.loc)
        syncs = [s for s in ir.walk(k.body) if isinstance(s, ir.Sync)]
        if syncs:
            raise PtoError("already a manual-mode kernel (it has set_flag/wait_flag/pipe_barrier); auto2manual "
                           "rewrites AUTO-mode kernels", syncs[0].loc)
        planned = planning_kernel(k, cluster_view(k, others))
        # Its cross-core operations and slot pointers are the pipes' protocol, written by pto-isa's
        # headers in an AUTO build too: the kernel's own code is AUTO.
        planned.mode = "auto"
        out.append(planned)
    return out


def _with_rings(options: RewriteOptions, kernel: ir.Kernel, profile: ArchProfile) -> RewriteOptions:
    """The options with the FIFO slot regions in this core's buffers reserved."""
    if kernel.cluster is None or not kernel.cluster.rings:
        return options
    for ring in kernel.cluster.rings:
        capacity = profile.buffers[ring.buffer].capacity
        if ring.lo < 0 or ring.hi > capacity:
            raise PtoError(f"the FIFO slots of {', '.join(ring.tiles)} take {ring.buffer} bytes 0x{ring.lo:x}-0x{ring.hi:x}, "
                           f"past the {ring.buffer} capacity (0x{capacity:x}): the pipe's base address or its slot count "
                           "does not fit", ring.loc)
    reserved = {name: list(ranges) for name, ranges in options.reserved.items()}
    for name, ranges in kernel.cluster.reserved().items():
        reserved.setdefault(name, []).extend(ranges)
    return replace(options, reserved=reserved)


def _dispatch_cores(place: _Place, kernels: list[ir.Kernel], wanted: list[list[Insertion]]) -> list[Insertion] | None:
    """One preprocessor branch per core type at a statement both core types run, when they need
    different lines there; None when the kernels of one core type disagree among themselves in a
    way `_dispatch` cannot write."""
    macros = CORE_MACROS.get(kernels[0].arch)
    if macros is None:
        return None
    start, end, where = place
    wanting = [w for w in wanted if w]
    if wanting and len({tuple(_codes(w)) for w in wanting}) == 1 and all(i.code.startswith("TASSIGN(") for i in wanting[0]):
        # Placement lines only one core type needs: the others compile them too. A tile another core
        # type never uses costs nothing placed; one an explicit-index FIFO moves into (the producer
        # writes at an entry of the consumer's tile) must be at the same address on both.
        return [replace(i, reason=f"{i.reason} ({', '.join(sorted({k.core for k, w in zip(kernels, wanted) if w}))} "
                        "core's plan)") for i in wanting[0]]
    by_core: dict[str, list[Insertion]] = {}
    for core in sorted({k.core for k in kernels}):
        mine = [(k, w) for k, w in zip(kernels, wanted) if k.core == core]
        variants = {tuple(_codes(w)) for _, w in mine}
        if len(variants) > 1:
            lines = _dispatch(place, [k for k, _ in mine], [w for _, w in mine])
            if lines is None:
                return None
        else:
            lines = mine[0][1]
        by_core[core] = lines
    out: list[Insertion] = []
    first = True
    for core, items in by_core.items():
        if not items:
            continue
        head = f"#if defined({macros[core]})" if first else f"#elif defined({macros[core]})"
        out.append(Insertion(start, end, where, head, "", terminator=""))
        out += [replace(ins, order=0, reason=f"{ins.reason} ({core} core)" if ins.reason else f"{core} core")
                for ins in sorted(items, key=lambda i: i.order)]
        first = False
    if out:
        out.append(Insertion(start, end, where, "#endif", "the lines of each core type", terminator=""))
    return out


def _dispatch(place: _Place, kernels: list[ir.Kernel], wanted: list[list[Insertion]]) -> list[Insertion] | None:
    """`if constexpr` branches that give each instantiation its own lines at `place`: on the
    kernel template's parameters inside its body, else on those of the helper template around
    the statement (header_edits.split_on_helper_template); None where neither can be written."""
    lines = _dispatch_kernel_template(place, kernels, wanted)
    if lines is None:
        lines = split_on_helper_template((kernels[0].file, *place), kernels, wanted)
    return lines


def _dispatch_kernel_template(place: _Place, kernels: list[ir.Kernel],
                              wanted: list[list[Insertion]]) -> list[Insertion] | None:
    """`if constexpr` branches on the kernel template's parameters, or None where that cannot be
    written (not all instantiations of one template, or outside its body, where the template's
    parameter names are not in scope)."""
    insts = [k.instance for k in kernels]
    if any(i is None for i in insts) or len({(i.template, i.params, i.body) for i in insts}) != 1:
        return None
    first = insts[0]
    if not first.body[0] < place[0] < first.body[1]:
        return None
    arity = min(len(i.args) for i in insts)
    differ = [n for n in range(min(arity, len(first.params))) if len({i.args[n] for i in insts}) > 1]
    if not differ:
        return None

    def condition(inst: ir.TemplateInstance) -> str:
        terms = []
        for n in differ:
            kind, name = inst.params[n]
            arg = inst.args[n]
            terms.append(f"std::is_same_v<{name}, {arg}>" if kind == "type" else f"{name} == {arg}")
        return " && ".join(terms)

    groups: dict[tuple[str, ...], tuple[list[str], list[Insertion]]] = {}
    for inst, items in zip(insts, wanted):
        key = tuple(_codes(items))
        conds, _ = groups.setdefault(key, ([], items))
        conds.append(condition(inst))
    start, end, where = place
    out: list[Insertion] = []
    branches = [(conds, items) for conds, items in groups.values() if items]
    # One block of new lines at the statement, in this order (the same `order` keeps it).
    for n, (conds, items) in enumerate(branches):
        cond = conds[0] if len(conds) == 1 else " || ".join(f"({c})" for c in conds)
        head = f"if constexpr ({cond}) {{" if n == 0 else f"}} else if constexpr ({cond}) {{"
        out.append(Insertion(start, end, where, head, "", terminator=""))
        out += [replace(ins, order=0, depth=1) for ins in sorted(items, key=lambda i: i.order)]
    out.append(Insertion(start, end, where, "}", "per instantiation of " + first.template, terminator=""))
    return out


def _merged_reason(ins: Insertion, place: _Place, kernels: list[ir.Kernel], per_kernel) -> Insertion:
    """One line serving several kernels says why for each, when their reasons differ
    (`UB 4 KiB` for one instantiation, `UB 8 KiB` for another)."""
    reasons: dict[str, list[str]] = {}
    for k, places in zip(kernels, per_kernel):
        for other in places.get(place, []):
            if (other.code, other.order) == (ins.code, ins.order):
                reasons.setdefault(other.reason, []).append(k.name)
    if len(reasons) < 2:
        return ins
    return replace(ins, reason="; ".join(f"{r} in {', '.join(names)}" for r, names in reasons.items()))


def _by_place(insertions: list[Insertion]) -> dict[_Place, list[Insertion]]:
    """Insertions grouped by the statement they go next to (and before/after)."""
    out: dict[_Place, list[Insertion]] = {}
    for ins in insertions:
        out.setdefault((ins.start, ins.end, ins.where), []).append(ins)
    return out


def _codes(items: list[Insertion]) -> list[str]:
    return sorted(f"{i.order}:{i.code}" for i in items)


def _covered_statements(kernel: ir.Kernel) -> set[tuple[int, int]]:
    """Byte ranges of the kernel file's statements this kernel runs: its statements, the
    declarations of its tiles and views (where TASSIGN lines go), and the call sites of its
    inlined helpers."""
    ranges = [getattr(x, "loc", None) for x in (*kernel.tiles, *kernel.gm_tensors)]
    for s in ir.walk(kernel.body):
        ranges += [getattr(s, "loc", None), *getattr(s, "via", ())]
    return {(r.offset, r.end_offset) for r in ranges if r is not None and r.file == kernel.file}


def _disagreement(src: SourceFile, place: _Place, ka: ir.Kernel, a: list[Insertion], kb: ir.Kernel,
                  b: list[Insertion]) -> PtoError:
    loc = src.range(place[0], place[0])  # the statement the lines go next to

    def shown(items: list[Insertion]) -> str:
        return "; ".join(f"{i.code};" for i in items) or "nothing"

    return LinesDiffer(
        f"{ka.name} and {kb.name} both run this line but need different code {place[2]} it; one source cannot "
        "serve both: choose one with --entry, or give them separate code",
        loc, (ka, kb), (src.path, place[0], place[1]),
        notes=(Diagnostic("note", f"{ka.name} needs: {shown(a)}", to_location(loc)),
               Diagnostic("note", f"{kb.name} needs: {shown(b)}", to_location(loc))))


def _sync_insertions(kernel, plan, profile, reporter, options) -> tuple[list[Insertion], sync.SyncPlan | None]:
    if options.conservative:
        reporter.warn("--conservative: a pipe_barrier(PIPE_ALL) after every instruction; a baseline for "
                      "comparison and bisecting, not for production", kernel.body.stmts[0].loc
                      if kernel.body.stmts else None)
        return sync.conservative_insertions(kernel, kernel.file), None
    # Naming a caller's variable through a shifted parameter lets a helper's flag rotate its id
    # in every copy, and a flag's ends inside helper bodies and branches let the pipes run the
    # work there meanwhile; either can leave the copies of a helper planned apart (lines one copy
    # needs and another does not). Then the plan is made again without those names (such a flag
    # is placed at each call instead), then without the deep ends, until the copies agree.
    # With the deep ends, a statement whose copies disagree is first kept shallow alone (no flag
    # end goes next to it from inside the helper: `sync_model.SHALLOW_AT`), a few times, before
    # every deep end is given up.
    *first, last = [(True, True), (False, True), (True, False), (False, False)]
    token = SHALLOW_AT.set(options.shallow_at)
    try:
        for shifted, deep in first:
            shallow = set(options.shallow_at)
            for _ in range(MAX_SHALLOW_RETRIES if deep else 1):
                SHALLOW_AT.set(frozenset(shallow))
                try:
                    return _planned_syncs(kernel, plan, profile, reporter, shifted, deep)
                except HelperCopiesDiffer as x:
                    if x.statement is None or x.statement in shallow:
                        break
                    shallow.add(x.statement)
            SHALLOW_AT.set(options.shallow_at)
        return _planned_syncs(kernel, plan, profile, reporter, *last)
    finally:
        SHALLOW_AT.reset(token)


MAX_SHALLOW_RETRIES = 4  # statements kept shallow one by one before the deep ends are given up


def _planned_syncs(kernel, plan, profile, reporter, shifted: bool, deep: bool):
    """The sync plan and its lines, planned with SHIFTED_PARAMS and DEEP_ENDS as given; what the
    planning said is passed on only when every helper's copies agree (else HelperCopiesDiffer)."""
    heard = Reporter()
    tokens = SHIFTED_PARAMS.set(shifted), DEEP_ENDS.set(deep)
    try:
        sync_plan = sync.plan_syncs(kernel, profile, plan.address, heard)
        edits = sync.sync_insertions(kernel, sync_plan, kernel.file)
    finally:
        SHIFTED_PARAMS.reset(tokens[0])
        DEEP_ENDS.reset(tokens[1])
    reporter.diagnostics.extend(d for d in heard.diagnostics if d not in reporter.diagnostics)
    return edits, sync_plan


def _copies_share_one_id(kernel: ir.Kernel, tile: ir.TileDecl, plan: sync.SyncPlan | None) -> bool:
    """The flags that let a write of a multi-buffered tile wait for the readers of its copy (write
    after read or write, on another pipe) all have one event id for every copy: each write then
    waits for the readers of the copy before it, as with one tile. False when no flag orders them."""
    if plan is None:
        return False
    writers = [s for s in kernel.instructions() if any(a.value.tile is tile and a.writes for a in s.tile_args)]
    flags = [s for s in plan.syncs if s.kind == "flag" and s.edge.kinds & {"war", "waw"}]
    frees = [s for s in flags if any(s.edge.dst is w for w in writers)]
    if not frees:
        # The copies of a helper inlined at several calls share one flag (one text), planned on
        # one of its calls' instructions: found by statement.
        at = {w.loc for w in writers}
        frees = [s for s in flags if s.edge.dst.loc in at]
    return bool(frees) and all(s.slots == 1 and s.slot is None for s in frees)


def refuse_manual(kernel: ir.Kernel) -> None:
    """auto2manual takes AUTO kernels. A kernel that already synchronizes its pipes, or places
    every tile, is a manual-mode kernel; a few constant TASSIGNs in an AUTO kernel are kept as
    fixed placements instead."""
    if kernel.mode != "manual":
        return
    syncs = [s for s in ir.walk(kernel.body) if isinstance(s, ir.Sync)]
    assigns = [s for s in ir.walk(kernel.body) if isinstance(s, ir.TileAssign)]
    assigned = {id(s.ref.tile) for s in assigns}
    unplaced = [t for t in kernel.tiles
                if t.alias is None and len(t.fixed_addresses) < t.slots and id(t) not in assigned]
    if syncs or not unplaced:
        first = (syncs or assigns)[0] if (syncs or assigns) else None
        why = "it already has set_flag/wait_flag/pipe_barrier" if syncs else "every tile is already placed"
        raise PtoError(f"already a manual-mode kernel ({why}); auto2manual rewrites AUTO-mode kernels",
                       first.loc if first else None,
                       notes=(Diagnostic("note", f"`ptorewrite check {kernel.file}` checks it as it is; "
                                         f"`ptorewrite manual2auto {kernel.file} -o AUTO.cpp` gives its AUTO-mode "
                                         "form, which auto2manual rewrites", to_location(None)),))
