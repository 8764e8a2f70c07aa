"""A self-contained SVG picture of a schedule: one lane per pipe, ops as boxes, flags as arrows.

A cluster's schedule has one lane per core and pipe (`cube.MTE2`, `vec0.V`, ...); its cross-core
flags are drawn as arrows between the cores' lanes (class `xflag`; `xflag fifo` for the flags of a
FIFO's push, pop, allocate or free, named in the arrow's data-op attribute)."""

from __future__ import annotations

import html
import zlib

from ptorewrite.emulator.schedule import Schedule

LANE_ORDER = ("S", "MTE2", "MTE1", "M", "FIX", "V", "MTE3")
PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
           "#9c755f", "#86bcb6", "#8cd17d", "#d4a6c8")
LEFT, TOP, LANE_H, BOX_H, CHAR_W = 70, 46, 42, 26, 6.2


def _color(name: str) -> str:
    return PALETTE[zlib.crc32(name.encode()) % len(PALETTE)]


def _nice_step(total: int, ticks: int) -> int:
    raw = max(1, total // max(1, ticks))
    mag = 10 ** (len(str(raw)) - 1)
    for m in (1, 2, 5, 10):
        if m * mag >= raw:
            return m * mag
    return 10 * mag


def _where(step) -> str:
    return f"{step.loc.file}:{step.loc.line}:{step.loc.col}" + "".join(f" via line {v.line}" for v in reversed(step.via))


FIFO_CALLS = ("TPUSH", "TPOP", "TFREE", "TALLOC")


def _statement_text(trace, step) -> str:
    """The source text of the statement a step comes from (its first line), when it is in the kernel's file."""
    loc, src = step.loc, trace.kernel.source
    if not isinstance(src, bytes) or not 0 <= loc.offset < loc.end_offset <= len(src):
        return ""
    return src[loc.offset:loc.end_offset].decode("utf-8", "replace").split("\n", 1)[0].strip()


def render_svg(sched: Schedule, width: int | None = None) -> str:
    trace = sched.trace
    steps = trace.steps
    used = {steps[i].lane for i in sched.times if steps[i].pipe != "ALL"}
    if trace.cores:
        lanes = [f"{c}.{p}" for c in trace.cores for p in LANE_ORDER if f"{c}.{p}" in used] or [f"{trace.cores[0]}.S"]
    else:
        lanes = [p for p in LANE_ORDER if p in used] or ["S"]
    lane_y = {p: TOP + k * LANE_H for k, p in enumerate(lanes)}
    left = LEFT + (30 if trace.cores else 0)  # room for the core's name
    ops = sum(1 for i in sched.times if steps[i].kind == "op")
    plot_w = width or min(16000, max(1200, 14 * ops))
    total = max(1, sched.total)
    sx = plot_w / total
    h = TOP + LANE_H * len(lanes) + 40
    w = left + plot_w + 20
    out = [
        (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
         f'font-family="DejaVu Sans, Arial, sans-serif" font-size="11">'),
        ('<defs><marker id="arrow" viewBox="0 0 6 6" refX="6" refY="3" markerWidth="6" markerHeight="6" '
         'orient="auto"><path d="M0,0 L6,3 L0,6 z" fill="#555"/></marker></defs>'),
        f'<rect x="0" y="0" width="{w}" height="{h}" fill="white"/>',
        (f'<text x="{left}" y="18" font-size="13" font-weight="bold">'
         f'{html.escape(trace.kernel.name)} ({trace.kernel.mode}, {trace.arch.name}'
         f'{", fully serialized" if sched.serial else ""}): {sched.total:,} cycles</text>'),
    ]
    # Lanes and the time axis.
    for p in lanes:
        y = lane_y[p]
        out.append(f'<rect x="{left}" y="{y}" width="{plot_w}" height="{LANE_H - 4}" fill="#f4f4f4"/>')
        busy = sched.busy.get(p, 0)
        out.append(f'<text x="6" y="{y + LANE_H / 2}" font-weight="bold">{p}</text>')
        out.append(f'<text x="6" y="{y + LANE_H / 2 + 12}" font-size="9" fill="#666">'
                   f'{100 * busy / total:.0f}% busy</text>')
    axis_y = TOP + LANE_H * len(lanes) + 4
    step = _nice_step(total, 12)
    for t in range(0, total + 1, step):
        x = left + t * sx
        out.append(f'<line x1="{x:.1f}" y1="{TOP - 4}" x2="{x:.1f}" y2="{axis_y}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{axis_y + 14}" text-anchor="middle" fill="#444">{t:,}</text>')
    out.append(f'<text x="{left + plot_w}" y="{axis_y + 28}" text-anchor="end" fill="#444">cycles</text>')
    # Ops.
    for i, t in sched.times.items():
        s = steps[i]
        if s.lane not in lane_y:
            continue
        y = lane_y[s.lane] + (LANE_H - 4 - BOX_H) / 2
        x0 = left + t.start * sx
        if s.kind == "op":
            bw = max(1.0, (t.end - t.start) * sx)
            tip = (f"{s.name} [{s.lane}] cycles {t.start:,}..{t.end:,} ({t.end - t.start:,})\n"
                   f"{_where(s)}")
            out.append(f'<g><title>{html.escape(tip)}</title><rect x="{x0:.2f}" y="{y:.1f}" width="{bw:.2f}" '
                       f'height="{BOX_H}" fill="{_color(s.name)}" stroke="white" stroke-width="0.5"/>')
            if bw > CHAR_W * (len(s.name) + 1):
                out.append(f'<text x="{x0 + bw / 2:.1f}" y="{y + BOX_H / 2 + 4:.1f}" text-anchor="middle" '
                           f'fill="white">{html.escape(s.name)}</text>')
            out.append("</g>")
        elif s.kind == "wait" and t.end > t.start:  # a stalled pipe: show the wait
            ww = (t.end - t.start) * sx
            tip = f"{s.name} stalls {s.lane} for {t.end - t.start:,} cycles\n{_where(s)}"
            out.append(f'<g><title>{html.escape(tip)}</title><rect x="{x0:.2f}" y="{y + BOX_H / 2 - 2:.1f}" '
                       f'width="{ww:.2f}" height="4" fill="#bbb"/></g>')
        elif s.kind == "barrier":
            out.append(f'<g class="barrier" data-line="{s.loc.line}"><title>{html.escape(s.name + chr(10) + _where(s))}'
                       f'</title><line x1="{x0:.2f}" '
                       f'y1="{y - 3:.1f}" x2="{x0:.2f}" y2="{y + BOX_H + 3:.1f}" stroke="black" '
                       f'stroke-width="1.5"/></g>')
    # Flags: from the set's firing on its source lane to the wait's release on the destination lane.
    for w_i, s_i in sched.matches.items():
        if w_i not in sched.times or s_i not in sched.times:
            continue
        ws, ss = steps[w_i], steps[s_i]
        if ws.lane not in lane_y or ss.lane not in lane_y:
            continue
        x1 = left + sched.times[s_i].end * sx
        x2 = left + sched.times[w_i].end * sx
        y1 = lane_y[ss.lane] + (LANE_H - 4) / 2
        y2 = lane_y[ws.lane] + (LANE_H - 4) / 2
        y2 += -BOX_H / 2 if y2 > y1 else BOX_H / 2
        tip = f"{ss.name}: set at cycle {sched.times[s_i].end:,}, wait released at {sched.times[w_i].end:,}"
        cls, color, extra = "flag", "#555", ""
        if ws.kind == "xwait":  # between two cores: the set's and the wait's statements name what they do
            cls, color = "xflag", "#c0392b"
            texts = (_statement_text(trace, ss), _statement_text(trace, ws))
            ops = [next((f for f in FIFO_CALLS if f in t), "") for t in texts]
            if any(ops):
                cls += " fifo"
            extra = (f' data-set-lane="{ss.lane}" data-wait-lane="{ws.lane}" '
                     f'data-op="{html.escape(ops[0] or ss.name)} -&gt; {html.escape(ops[1] or ws.name)}"')
            tip = (f"{ss.lane} -> {ws.lane}: {texts[0] or ss.name} (line {ss.loc.line}) raised at cycle "
                   f"{sched.times[s_i].end:,}; {texts[1] or ws.name} (line {ws.loc.line}) released at "
                   f"{sched.times[w_i].end:,}")
        # The lines of the set and the wait let a report link the arrow to its source lines.
        out.append(f'<line class="{cls}" data-set-line="{ss.loc.line}" data-wait-line="{ws.loc.line}"{extra} '
                   f'x1="{x1:.2f}" y1="{y1:.1f}" x2="{x2:.2f}" y2="{y2:.1f}" stroke="{color}" '
                   f'stroke-width="0.8" stroke-opacity="0.7" marker-end="url(#arrow)"><title>'
                   f'{html.escape(tip)}</title></line>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
