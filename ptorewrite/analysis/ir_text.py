"""A readable, stable text form of the kernel IR (`ptorewrite ir`)."""

from __future__ import annotations

from ptorewrite.analysis import ir


def _valid(e) -> str:
    return "?" if e is None else str(e)


def format_tile(t: ir.TileDecl) -> str:
    count = f"[{t.count}]" if t.count else ""
    valid = ""
    if str(t.valid_rows) != str(t.rows) or str(t.valid_cols) != str(t.cols):
        valid = f" valid {_valid(t.valid_rows)}x{_valid(t.valid_cols)}"
    each = " each" if t.count else ""
    line = (f"{t.name}{count}: {t.tile_type} {t.dtype} {t.rows}x{t.cols} {t.blayout}{valid}, "
            f"{t.nbytes} B{each}  @{t.loc.short}")
    if t.alias is not None:
        line += f"  = {t.alias.kind}({t.alias.base}, +{t.alias.offset_bytes} B) @{t.alias.loc.short}"
    if t.fixed_addresses:
        addrs = ", ".join(f"[{k}]=0x{v:x}" if t.count else f"0x{v:x}" for k, v in sorted(t.fixed_addresses.items()))
        line += f"  TASSIGN {addrs}"
    return line


def format_gm(g: ir.GmTensor) -> str:
    shape = ",".join(str(s) for s in g.shape)
    stride = ",".join(str(s) for s in g.stride)
    return f"{g.name}: {g.dtype} shape<{shape}> stride<{stride}> at {g.param} + {g.offset_bytes} B  @{g.loc.short}"


def format_arg(a: ir.Arg) -> str:
    mark = {"r": "", "w": "out ", "rw": "inout ", "": ""}[a.access]
    if a.kind == "gm":
        g = a.value.tensor
        return f"{mark}gm {g.name}"
    if a.kind == "raw":
        return f"{mark}raw {a.value}"
    return f"{mark}{a.value}"


def format_instr(s: ir.Instr) -> str:
    targs = f"<{', '.join(s.template_args)}>" if s.template_args else ""
    args = ", ".join(format_arg(a) for a in s.args)
    return f"{s.op}{targs}({args})  [{s.pipe}]  @{_where(s.loc)}{_via(s)}"


def _via(s: ir.Stmt) -> str:
    return "".join(f" via {v.short}" for v in getattr(s, "via", ()))


def _where(loc: ir.SourceRange) -> str:
    return loc.short


def format_stmt(s: ir.Stmt, depth: int, out: list[str]) -> None:
    pad = "  " * depth
    if isinstance(s, ir.Block):
        for x in s.stmts:
            format_stmt(x, depth, out)
    elif isinstance(s, ir.Instr):
        out.append(pad + format_instr(s))
    elif isinstance(s, ir.For):
        if s.kind == "while":
            head = f"while {s.cond} (counted by {s.var})"
        elif s.counted:
            op = "<=" if s.inclusive else "<"
            head = f"for {s.var} = {s.start}; {s.var} {op} {s.stop}; {s.var} += {s.step}"
        else:
            head = f"for {s.var} = {s.start}; {s.cond}; {s.var} = {s.update}"
        if s.kind == "MultiBuffered":
            head = f"MultiBuffered<{s.buffers}> " + head
        trips = s.trip_count()
        out.append(f"{pad}{head}:  (trips {trips if trips is not None else '?'})  @{s.loc.short}")
        format_stmt(s.body, depth + 1, out)
    elif isinstance(s, ir.If):
        out.append(f"{pad}if {s.cond}:  @{s.loc.short}")
        format_stmt(s.then, depth + 1, out)
        if s.other is not None:
            out.append(f"{pad}else:")
            format_stmt(s.other, depth + 1, out)
    elif isinstance(s, ir.AliasDef):
        out.append(f"{pad}{s.kind}({s.dst}, {s.src}, +{s.offset_bytes} B)  [S]  @{s.loc.short}{_via(s)}")
    elif isinstance(s, ir.TileAssign):
        out.append(f"{pad}TASSIGN({s.ref}, {s.address})  [S]  @{s.loc.short}{_via(s)}")
    elif isinstance(s, ir.Sync):
        if s.kind == "barrier":
            out.append(f"{pad}pipe_barrier({s.src})  @{s.loc.short}{_via(s)}")
        else:
            out.append(f"{pad}{s.kind}_flag({s.src} -> {s.dst}, event {s.event})  @{s.loc.short}{_via(s)}")
    elif isinstance(s, ir.CrossSync):
        out.append(f"{pad}{s.kind}_intra_block({s.pipe}, semaphore {s.sem})  @{s.loc.short}{_via(s)}")
    elif isinstance(s, ir.Assign):
        out.append(f"{pad}{s.var} = {s.value}  @{s.loc.short}")
    else:  # pragma: no cover - every statement kind is listed above
        raise TypeError(type(s).__name__)


def format_kernel(k: ir.Kernel) -> str:
    out = [f"kernel {k.name}  file {k.file}  arch {k.arch}  core {k.core}  mode {k.mode}"]
    out.append("params:")
    for p in k.params:
        kind = f"gm {p.dtype}*" if p.is_pointer else "scalar"
        out.append(f"  {p.name}: {kind}")
    if k.runtime_values:
        out.append("runtime values: " + ", ".join(k.runtime_values))
    out.append("tiles:")
    for t in k.tiles:
        out.append("  " + format_tile(t))
    out.append("global tensors:")
    for g in k.gm_tensors:
        out.append("  " + format_gm(g))
    out.append("body:")
    format_stmt(k.body, 1, out)
    return "\n".join(out) + "\n"
