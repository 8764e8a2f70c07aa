"""Front end: parse a kernel file with libclang and lower its entry function to the IR.

Owns the compiler invocation (include paths, macros per architecture and core type,
compile_commands.json), clang's own diagnostics, entry selection and core-type choice.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path

from clang.cindex import Cursor, CursorKind, Index, TranslationUnit
from clang.cindex import Diagnostic as ClangDiagnostic

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const
from ptorewrite.arch import ArchProfile, profile
from ptorewrite.diagnostics import Diagnostic, Location, PtoError, Reporter
from ptorewrite.parse import cparse as cp
from ptorewrite.parse.arch_macros import ARCH_MACROS
from ptorewrite.parse.lower import Binding, Lowering, LoweringError, Ptr, Scope
from ptorewrite.parse.source import SourceFile

BUNDLED_INCLUDE = Path(__file__).resolve().parent / "include"
CORE_TYPES = ("vec", "cube")


@dataclass
class FrontendOptions:
    include_dirs: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)  # NAME or NAME=VALUE
    arch: str = "a2a3"
    entry: str | None = None
    core: str | None = None  # "vec", "cube", or None to choose from the file
    pto_isa_root: str | None = None
    build_dir: str | None = None
    auto_mode: bool = True  # define __PTO_AUTO__ as the AUTO-mode compiler does
    std: str = "c++17"


def _macro_name(define: str) -> tuple[str, str]:
    name, _, value = define.partition("=")
    return name.strip(), value if "=" in define else "1"


def compile_commands_flags(build_dir: str, file: Path) -> tuple[list[str], list[str]]:
    """-I and -D flags for `file` from BUILD_DIR/compile_commands.json."""
    db_path = Path(build_dir) / "compile_commands.json"
    try:
        entries = json.loads(db_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise PtoError(f"malformed JSON: {e.msg}", Location(str(db_path), e.lineno, e.colno)) from None
    except (OSError, ValueError) as e:
        raise PtoError(f"cannot read {db_path}: {getattr(e, 'strerror', None) or e}") from None
    if not isinstance(entries, list) or not all(
            isinstance(x, dict) and isinstance(x.get("file"), str) for x in entries):
        raise PtoError("a compilation database is a JSON list of objects, each with a \"file\"",
                       Location(str(db_path), 1, 1))
    target = file.resolve()
    for entry in entries:
        directory = Path(entry.get("directory", "."))
        if (directory / entry["file"]).resolve() != target:
            continue
        argv = entry.get("arguments") or entry.get("command", "")
        try:
            argv = shlex.split(argv) if isinstance(argv, str) else argv
        except ValueError as e:
            raise PtoError(f"cannot split the command line for {entry['file']}: {e}", Location(str(db_path), 1, 1)) \
                from None
        if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
            raise PtoError(f"the entry for {entry['file']} has no command line (\"arguments\" or \"command\")",
                           Location(str(db_path), 1, 1))
        incs, defs = [], []
        it = iter(argv[1:])
        for a in it:
            for flag, out in (("-I", incs), ("-D", defs), ("-isystem", incs)):
                if a == flag:
                    val = next(it, "")
                    out.append(str(directory / val) if out is incs else val)
                elif a.startswith(flag) and len(a) > len(flag):
                    val = a[len(flag):]
                    out.append(str(directory / val) if out is incs else val)
        return incs, defs
    raise PtoError(f"{file} is not in {db_path}")


def clang_args(opts: FrontendOptions, core: str, file: Path) -> list[str]:
    incs, defs = list(opts.include_dirs), list(opts.defines)
    if opts.build_dir:
        db_incs, db_defs = compile_commands_flags(opts.build_dir, file)
        incs, defs = db_incs + incs, db_defs + defs
    args = ["-x", "c++", f"-std={opts.std}", "-fsyntax-only", "-Wno-everything"]
    if opts.pto_isa_root:
        root = Path(opts.pto_isa_root)
        args += ["-I", str(root / "include"), "-D__CPU_SIM"]
    else:
        args += ["-I", str(BUNDLED_INCLUDE)]
    for d in incs:
        args += ["-I", d]
    macros = dict(ARCH_MACROS[opts.arch]["common"])
    macros.update(ARCH_MACROS[opts.arch][core])
    if opts.auto_mode:
        macros["__PTO_AUTO__"] = "1"
    for name, value in macros.items():
        args.append(f"-D{name}={value}")
    args += [f"-D{d}" for d in defs]
    return args


def parse_tu(file: Path, args: list[str]) -> TranslationUnit:
    index = Index.create()
    try:
        tu = index.parse(str(file), args=args,
                         options=TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    except Exception as e:  # noqa: BLE001 - libclang reports unreadable files with a bare Exception
        raise PtoError(f"cannot parse {file}: {e}") from None
    errors = [d for d in tu.diagnostics if d.severity >= ClangDiagnostic.Error]
    if errors:
        raise PtoError.many([_clang_diag(d) for d in errors[:20]])
    return tu


def _clang_diag(d) -> Diagnostic:
    loc = None
    if d.location.file is not None:
        loc = Location(d.location.file.name, d.location.line, d.location.column)
    return Diagnostic("error", d.spelling, loc)


def collect_macros(tu: TranslationUnit, opts: FrontendOptions, core: str) -> tuple[dict[str, str], set[str]]:
    """Object-like macros (name -> replacement text) and the names of function-like macros."""
    objects: dict[str, str] = {}
    functions: set[str] = set()
    cache: dict[str, SourceFile] = {}
    for c in tu.cursor.get_children():
        if c.kind != CursorKind.MACRO_DEFINITION or c.location.file is None:
            continue
        fname = c.location.file.name
        src = cache.get(fname) or cache.setdefault(fname, SourceFile.read(fname))
        text = src.text[c.extent.start.offset:c.extent.end.offset]
        body = text[len(c.spelling):]
        if body.startswith("("):
            functions.add(c.spelling)
            objects.pop(c.spelling, None)
        else:
            objects[c.spelling] = body.strip()
    macros = dict(ARCH_MACROS[opts.arch]["common"])
    macros.update(ARCH_MACROS[opts.arch][core])
    for d in opts.defines:
        name, value = _macro_name(d)
        macros[name] = value
    objects.update(macros)
    return objects, functions


def find_entries(tu: TranslationUnit, main: str, kinds=(CursorKind.FUNCTION_DECL,)) -> list[Cursor]:
    """Kernel entry points: `__global__` function definitions in the main file."""
    found = []

    def visit(cursor: Cursor):
        for c in cursor.get_children():
            if c.location.file is None or c.location.file.name != main:
                continue
            if c.kind in (CursorKind.NAMESPACE, CursorKind.LINKAGE_SPEC, CursorKind.UNEXPOSED_DECL):
                visit(c)
            elif c.kind in kinds and c.is_definition():
                head = " ".join(t.spelling for t in itertools_head(c))
                annotated = any(k.kind == CursorKind.ANNOTATE_ATTR and k.spelling == "pto.global"
                                for k in c.get_children())
                if annotated or "__global__" in head.split():
                    found.append(c)

    visit(tu.cursor)
    return found


def itertools_head(c: Cursor):
    """Tokens of a function declaration up to its name."""
    for t in c.get_tokens():
        if t.spelling == c.spelling:
            return
        yield t


def core_candidates(text: str, arch: str) -> list[str]:
    vec = ARCH_MACROS[arch]["vec"]
    cube = ARCH_MACROS[arch]["cube"]
    mentions_vec = any(m in text for m in vec if m.startswith("__DAV"))
    mentions_cube = any(m in text for m in cube if m.startswith("__DAV"))
    if mentions_cube and not mentions_vec:
        return ["cube"]
    if mentions_vec and not mentions_cube:
        return ["vec"]
    return ["vec", "cube"] if mentions_vec else ["vec"]


def load_kernel(path: str | Path, opts: FrontendOptions | None = None,
                reporter: Reporter | None = None) -> ir.Kernel:
    """Parse `path` and lower its entry function into a Kernel, or raise PtoError."""
    opts = opts or FrontendOptions()
    reporter = reporter if reporter is not None else Reporter()
    file = Path(path)
    if not file.is_file():
        raise PtoError(f"no such file: {path}")
    if opts.arch not in ARCH_MACROS:
        raise PtoError(f"unknown architecture '{opts.arch}'")
    arch = profile(opts.arch)
    if opts.build_dir:
        # Resolve the database once, so that both clang and the lowering's macro table see its -D.
        db_incs, db_defs = compile_commands_flags(opts.build_dir, file)
        opts = replace(opts, include_dirs=db_incs + list(opts.include_dirs), defines=db_defs + list(opts.defines),
                       build_dir=None)
    text = file.read_bytes().decode("latin-1")
    cores = [opts.core] if opts.core else core_candidates(text, opts.arch)
    results: list[tuple[str, ir.Kernel]] = []
    for core in cores:
        kernel = _lower(file, opts, core, arch, reporter)
        if kernel is not None and any(True for _ in kernel.instructions()):
            results.append((core, kernel))
    if not results:
        raise PtoError("no PTO instructions found; check --arch / -D", Location(str(file), 1, 1))
    if len(results) > 1:
        raise PtoError("the kernel has code for both the vector and the cube core; choose one with --core",
                       Location(str(file), 1, 1))
    kernel = results[0][1]
    if not opts.core and not any(m in text for c in CORE_TYPES for m in ARCH_MACROS[opts.arch][c]
                                 if m.startswith("__DAV")):
        # No core-type guard: the code is the same for both cores; its tiles tell which one runs it.
        kernel.core = core_of_tiles(kernel)
    return kernel


def core_of_tiles(kernel: ir.Kernel) -> str:
    types = {t.tile_type for t in kernel.tiles}
    vec, cube = "Vec" in types, bool(types - {"Vec"})
    return "mixed" if vec and cube else "cube" if cube else "vec"


def _lower(file: Path, opts: FrontendOptions, core: str, arch: ArchProfile, reporter: Reporter) -> ir.Kernel | None:
    """The kernel for one core type, or None if the preprocessor hid every entry function."""
    args = clang_args(opts, core, file)
    tu = parse_tu(file, args)
    main_name = tu.spelling
    main = SourceFile(main_name, file.read_bytes())
    objects, functions = collect_macros(tu, opts, core)
    user_files = _user_files(tu, opts)
    user_files.add(main_name)
    entries = find_entries(tu, main_name)
    if opts.entry:
        entries = [e for e in entries if e.spelling == opts.entry] or [
            c for c in tu.cursor.walk_preorder()
            if c.kind == CursorKind.FUNCTION_DECL and c.spelling == opts.entry and c.is_definition()
            and c.location.file is not None and c.location.file.name == main_name]
        if not entries:
            raise PtoError(f"no kernel function named '{opts.entry}'", Location(str(file), 1, 1))
    if not entries:
        templates = find_entries(tu, main_name, (CursorKind.FUNCTION_TEMPLATE,))
        if templates and not opts.entry:
            raise PtoError(f"the kernel entry '{templates[0].spelling}' is a function template; give the file a "
                           "non-template __global__ entry that instantiates it",
                           Location(str(file), templates[0].location.line, templates[0].location.column))
        if "__global__" in main.text:
            return None  # guarded out for this architecture / core type
        raise PtoError("no kernel entry function (a __global__ function) found; name one with --entry",
                       Location(str(file), 1, 1))
    if len(entries) > 1:
        names = ", ".join(e.spelling for e in entries)
        raise PtoError(f"several kernel entry functions ({names}); choose one with --entry",
                       Location(str(file), entries[1].location.line, entries[1].location.column))
    entry = entries[0]
    low = Lowering(tu, main, arch, reporter, objects, frozenset(functions), user_files, auto_mode=opts.auto_mode)
    scope = Scope(low.globals)
    params = []
    for p in entry.get_children():
        if p.kind != CursorKind.PARM_DECL:
            continue
        decl_text = main.text[p.extent.start.offset:p.location.offset]
        try:
            parser = low.parser(decl_text, p.extent.start.offset, scope)
            t = low.resolve_type(parser.type_id(), scope)
        except (LoweringError, cp.ParseError) as e:
            raise low.located(e) from None
        from ptorewrite.parse import types as ty

        if isinstance(t, ty.PointerType):
            scope.define(p.spelling, Binding("ptr", Ptr(p.spelling, Const(0), t.dtype)))
            params.append(ir.Param(p.spelling, " ".join(decl_text.split()), t.dtype, True))
        else:
            scope.define(p.spelling, Binding("value", _runtime_var(p.spelling)))
            params.append(ir.Param(p.spelling, " ".join(decl_text.split()), None, False))
    body = low.lower_function_body(entry, scope)
    kernel = ir.Kernel(
        name=entry.spelling, file=main_name, arch=arch.name, core=core, params=params,
        tiles=low.tiles, gm_tensors=low.gm_tensors, body=ir.Block(body, uid=0), source=main.data,
        mode="manual" if low.manual else "auto",
    )
    kernel.runtime_values = tuple(sorted(_free_runtime_values(kernel)))
    return kernel


def _runtime_var(name: str):
    from ptorewrite.analysis.expr import Var

    return Var(name)


def _free_runtime_values(kernel: ir.Kernel) -> set[str]:
    """Free variables that are not loop variables or mutable locals: the emulator must be given them."""
    bound: set[str] = set()
    free: set[str] = set()

    def exprs_of(s):
        if isinstance(s, ir.Instr):
            for a in s.args:
                if a.kind == "scalar":
                    yield a.value
                elif a.kind == "tile" and a.value.index is not None:
                    yield a.value.index
                elif a.kind == "gm":
                    g = a.value.tensor
                    yield g.offset_bytes
                    yield from g.shape
                    yield from g.stride
        elif isinstance(s, ir.For):
            yield from s.control_exprs()
        elif isinstance(s, ir.If):
            yield s.cond
        elif isinstance(s, ir.Assign):
            yield s.value
        elif isinstance(s, (ir.AliasDef,)):
            yield s.offset_bytes
        elif isinstance(s, ir.TileAssign):
            yield s.address
        elif isinstance(s, ir.Sync) and s.event is not None:
            yield s.event

    for t in kernel.tiles:  # run-time valid shapes, e.g. `TileT t(rows, validCols)`
        for e in (t.valid_rows, t.valid_cols):
            if e is not None:
                free |= e.free_vars()
    for s in ir.walk(kernel.body):
        if isinstance(s, (ir.For, ir.Assign)):
            bound.add(s.var)
        for e in exprs_of(s):
            free |= e.free_vars()
    return free - bound


def _user_files(tu: TranslationUnit, opts: FrontendOptions) -> set[str]:
    """Files whose functions and aliases are the user's (not the PTO headers)."""
    system_roots = [str(BUNDLED_INCLUDE)]
    if opts.pto_isa_root:
        system_roots.append(str(Path(opts.pto_isa_root).resolve()))
    out = set()
    for inc in tu.get_includes():
        name = inc.include.name
        resolved = str(Path(name).resolve())
        if not any(resolved.startswith(str(Path(r).resolve())) for r in system_roots) and not name.startswith("/usr"):
            out.add(name)
    return out
