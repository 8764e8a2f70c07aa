"""Views of an explanation record for people: the annotated rewrite in a terminal (rich) and an
HTML report (jinja2) with the input and the rewrite side by side over the emulated pipe
timeline of the rewrite."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

# One colour per pipe pair (a barrier's pair is its pipe with itself), fixed so the terminal and
# the HTML agree and a reader learns them.
PAIR_COLOURS = {
    ("MTE2", "V"): "#1f77b4", ("V", "MTE2"): "#aec7e8", ("V", "MTE3"): "#2ca02c", ("MTE3", "V"): "#98df8a",
    ("MTE2", "MTE1"): "#ff7f0e", ("MTE1", "MTE2"): "#ffbb78", ("MTE1", "M"): "#9467bd", ("M", "MTE1"): "#c5b0d5",
    ("M", "FIX"): "#8c564b", ("FIX", "M"): "#c49c94", ("V",): "#d62728", ("M",): "#e377c2", ("MTE1",): "#7f7f7f",
    ("FIX",): "#bcbd22", ("MTE2",): "#17becf", ("MTE3",): "#9edae5", ("ALL",): "#000000",
}
OTHER_COLOUR = "#6b6b6b"
PLACEMENT_COLOUR = "#b8860b"


def pair_colour(pipes: list[str]) -> str:
    return PAIR_COLOURS.get(tuple(pipes), OTHER_COLOUR)


def _syncs_by_id(record: dict) -> dict[str, dict]:
    return {s["id"]: s for k in record["kernels"] for s in k["syncs"]}


def _orders_text(sync: dict) -> str:
    pairs = dict.fromkeys(f"{d['hazard']} {d['producer']['output_line']}->{d['consumer']['output_line']}"
                          for d in sync["orders"])
    if not pairs:
        return "keeps event reuse safe: " + "; ".join(sync["flag_protocol"]) if sync["flag_protocol"] else ""
    shown = list(pairs)
    return "orders " + ", ".join(shown[:4]) + (f" (+{len(shown) - 4})" if len(shown) > 4 else "")


# ---------------------------------------------------------------- terminal


def print_terminal(record: dict, text: bytes, console=None) -> None:
    """The rewrite with its inserted lines coloured by pipe pair, each followed by what it
    orders; then one table row per sync and the redundant candidates."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = console or Console(highlight=False)
    syncs = _syncs_by_id(record)
    inserted = {ln["line"]: ln for ln in record["inserted_lines"]}
    lines = text.decode("latin-1").splitlines()
    width = len(str(len(lines)))
    console.print(Text(f"{record['input']}: the rewrite ({record['arch']}), inserted lines marked +", style="bold"))
    for n, line in enumerate(lines, 1):
        ins = inserted.get(n)
        row = Text(f"{n:>{width}} ", style="dim")
        if ins is None:
            row.append("  " + line)
        else:
            ids = ins["syncs"]
            colour = pair_colour(syncs[ids[0]]["pipes"]) if ids else \
                PLACEMENT_COLOUR if ins["kind"] == "tassign" else OTHER_COLOUR
            row.append("+ ", style=f"bold {colour}")
            row.append(line, style=f"bold {colour}")
            why = "; ".join(f"{i}: {_orders_text(syncs[i])}" for i in ids)
            if why:
                row.append(f"   [{why}]", style="italic dim")
        console.print(row, overflow="ignore", crop=False, soft_wrap=True)
    for kernel in record["kernels"]:
        table = Table(title=f"{kernel['name']}: {len(kernel['syncs'])} syncs", title_justify="left")
        for col in ("id", "form", "pipes", "event", "lines", "orders (output lines)"):
            table.add_column(col)
        for s in kernel["syncs"]:
            ev = s.get("event") or {}
            event = ev.get("set") or "" if ev.get("set") == ev.get("wait") else f"{ev.get('set')} / {ev.get('wait')}"
            pipes = " -> ".join(s["pipes"])
            table.add_row(s["id"], s["form"], Text(pipes, style=pair_colour(s["pipes"])), event,
                          ",".join(str(ln["line"]) for ln in s["lines"]), _orders_text(s))
        console.print(table)
        if kernel["redundant"]:
            console.print(Text(f"{len(kernel['redundant'])} candidate syncs found redundant:", style="bold"))
            for r in kernel["redundant"]:
                d = r["dependence"]
                console.print(f"  {r['candidate']['kind']} {' -> '.join(r['candidate']['pipes'])} for {d['hazard']} "
                              f"{d['operand']} (line {d['producer']['output_line']} -> {d['consumer']['output_line']}): "
                              f"{r['how']}", highlight=False)


# ---------------------------------------------------------------- HTML


def timeline_svg(kernel_path: str, text: bytes, opts, arch: str, values: dict, entry: str | None) -> tuple[str, str]:
    """(SVG of the rewrite's emulated pipe timeline, note); the SVG is empty with a note saying
    why when the rewrite cannot be run (a runtime value it needs was not given)."""
    from ptorewrite.analysis import execution
    from ptorewrite.arch import profile
    from ptorewrite.diagnostics import PtoError, Reporter
    from ptorewrite.emulator import pipes, schedule, timeline
    from ptorewrite.inputs import load_kernels

    tmp = tempfile.mkdtemp(prefix="ptorewrite-explain-")
    path = os.path.join(tmp, os.path.basename(kernel_path))
    try:
        with open(path, "wb") as f:
            f.write(text)
        here = os.path.dirname(os.path.abspath(kernel_path))
        manual = type(opts)(**{**opts.__dict__, "auto_mode": False, "entry": entry,
                               "include_dirs": [here, *opts.include_dirs]})
        try:
            kernel = load_kernels(path, manual, Reporter())[0]
            trace = execution.unroll(kernel, profile(arch), values, require_semantics=False)
        except PtoError as e:
            return "", f"no timeline: {e}"
        matches, _ = pipes.match_flags(trace)
        sched = schedule.simulate(trace, matches=matches)
        return timeline.render_svg(sched), f"{kernel.name}, emulated with {_values_text(values)}"
    finally:
        for name in os.listdir(tmp):
            os.unlink(os.path.join(tmp, name))
        os.rmdir(tmp)


def _values_text(values: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(values.items())) or "no runtime values"


def render_html(record: dict, original: bytes, text: bytes, svg: str, note: str) -> str:
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).resolve().parent / "templates"),
                             autoescape=True, keep_trailing_newline=True)
    syncs = _syncs_by_id(record)
    inserted = {ln["line"]: ln for ln in record["inserted_lines"]}
    out_rows = []
    for n, line in enumerate(text.decode("latin-1").splitlines(), 1):
        ins = inserted.get(n)
        ids = ins["syncs"] if ins else []
        colour = (pair_colour(syncs[ids[0]]["pipes"]) if ids else PLACEMENT_COLOUR if ins["kind"] == "tassign"
                  else OTHER_COLOUR) if ins else None
        out_rows.append({"n": n, "text": line, "inserted": ins is not None, "syncs": " ".join(ids), "colour": colour})
    in_rows = [{"n": n, "text": line} for n, line in enumerate(original.decode("latin-1").splitlines(), 1)]
    data = {s_id: {"lines": [ln["line"] for ln in s["lines"] if ln["line"]],
                   "set_lines": [ln["line"] for ln in s["lines"] if ln["line"] and ln["role"] in ("set", "prime")],
                   "wait_lines": [ln["line"] for ln in s["lines"] if ln["line"] and ln["role"] in ("wait", "drain")],
                   "kind": s["kind"], "pipes": s["pipes"], "reason": s["reason"], "form": s["form"],
                   "orders": [{"hazard": d["hazard"], "operand": d["operand"],
                               "producer": [d["producer"]["line"], d["producer"]["output_line"]],
                               "consumer": [d["consumer"]["line"], d["consumer"]["output_line"]],
                               "input": d["producer"]["file"] == record["input"]} for d in s["orders"]]}
            for s_id, s in syncs.items()}
    legend = sorted({tuple(s["pipes"]) for s in syncs.values()})
    return env.get_template("report.html.j2").render(
        record=record, in_rows=in_rows, out_rows=out_rows, svg=svg, note=note,
        data=json.dumps(data, sort_keys=True).replace("</", "<\\/"),
        legend=[{"pipes": " -> ".join(p), "colour": pair_colour(list(p))} for p in legend],
        kernels=record["kernels"])
