"""Front end: parse a kernel file with libclang and lower its entry function to the IR.

Owns the parse (launch syntax made plain C++, clang's own diagnostics), entry selection,
template instantiations and the core-type choice. The compiler invocation (headers, macros,
standard, compile_commands.json) is in `invocation`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from clang.cindex import Cursor, CursorKind, Index, TranslationUnit, TypeKind
from clang.cindex import Diagnostic as ClangDiagnostic

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const
from ptorewrite.arch import ArchProfile, profile
from ptorewrite.diagnostics import Diagnostic, Location, PtoError, Reporter
from ptorewrite.parse import cparse as cp
from ptorewrite.parse import guards, launch_values, reads
from ptorewrite.parse.arch_macros import ARCH_MACROS
from ptorewrite.parse.cross_core import (
    A5_SYNC_OBJECTS,
    FIFO_MODELLED,
    first_cross_core_use,
    user_functions,
)
from ptorewrite.parse.cursor_text import template_params
from ptorewrite.parse.instantiations import Instantiation, build_probe, parse_entry, read_probe
from ptorewrite.parse.invocation import (
    BUNDLED_INCLUDE,
    FrontendOptions,
    clang_args,
    missing_header_notes,
    predefined_macros,
    system_dirs,
    with_database,
)
from ptorewrite.parse.launch_syntax import blank_launch_configs
from ptorewrite.parse.lower import Binding, Lowering, LoweringError, Ptr, Scope
from ptorewrite.parse.macros import FunctionMacro, expand_function_at, function_macro
from ptorewrite.parse.scalar_only import first_pipe_work
from ptorewrite.parse.source import SourceFile
from ptorewrite.parse.space_qualifier import blank_space_qualifiers, has_space_qualifier
from ptorewrite.parse.values import NAMESPACES

CORE_TYPES = ("vec", "cube")


@dataclass
class ParsedFile:
    """One parse of a kernel file: the translation unit and the text libclang saw."""

    tu: TranslationUnit
    source: SourceFile  # launch configurations blanked (offsets as in the file)
    original: bytes
    args: list[str] = field(default_factory=list)  # the clang arguments it was parsed with
    _top: list[Cursor] | None = None

    @property
    def top(self) -> list[Cursor]:
        """The translation unit's top-level cursors, listed once (libclang is slow to list them)."""
        if self._top is None:
            self._top = list(self.tu.cursor.get_children())
        return self._top


def parse_file(file: Path, args: list[str], replaced: dict[str, str] | None = None) -> ParsedFile:
    """Parse `file` with its launch configurations blanked. `replaced` gives other texts for
    files (absolute path -> text), used by the instantiation probe."""
    data = file.read_bytes()
    text, _ = blank_launch_configs(data.decode("latin-1"))
    text = blank_space_qualifiers(text)
    unsaved = {str(file): text}
    unsaved.update(replaced or {})
    tu = _parse_unsaved(file, args, unsaved)
    if any(d.severity >= ClangDiagnostic.Error for d in tu.diagnostics):
        # A header of the user's written with bisheng's `[aicore]`: read again without it.
        headers = _headers_with_space_qualifiers(tu, unsaved)
        if headers:
            tu = _parse_unsaved(file, args, {**unsaved, **headers})
    reads.note_parse(str(file), tu)  # for --depfile
    return ParsedFile(tu, SourceFile(str(file), text.encode("latin-1")), data, list(args))


def _parse_unsaved(file: Path, args: list[str], unsaved: dict[str, str]) -> TranslationUnit:
    index = Index.create()
    try:
        return index.parse(str(file), args=args, options=TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD,
                           unsaved_files=[(k, v.encode("latin-1")) for k, v in unsaved.items()])
    except Exception as e:  # noqa: BLE001 - libclang reports unreadable files with a bare Exception
        raise PtoError(f"cannot parse {file}: {e}") from None


def _headers_with_space_qualifiers(tu: TranslationUnit, unsaved: dict[str, str]) -> dict[str, str]:
    """Included files (not the bundled headers) that use `[aicore]`: path -> text without it."""
    out: dict[str, str] = {}
    for inc in tu.get_includes():
        path = str(inc.include.name) if inc.include else ""
        if not path or path in unsaved or path in out or Path(path).is_relative_to(BUNDLED_INCLUDE):
            continue
        try:
            text = Path(path).read_bytes().decode("latin-1")
        except OSError:
            continue
        if has_space_qualifier(text):
            out[path] = blank_space_qualifiers(text)
    return out


def parse_configured(file: Path, opts: FrontendOptions, core: str) -> ParsedFile:
    """Parse `file` for one core type; raise PtoError on clang's errors.

    The bundled PTO headers pull the standard library in (real pto-isa's do, and kernels use
    `std::is_same_v` without including anything), which makes a parse several times slower.
    Most kernels do not need it: they are parsed without it first, and again with it when
    that fails. A kernel that includes a standard header itself gets it either way."""
    args = clang_args(opts, core)
    if not opts.pto_isa_root:
        lean = parse_file(file, [*args, "-DPTOREWRITE_NO_STDLIB"])
        if not any(d.severity >= ClangDiagnostic.Error for d in lean.tu.diagnostics):
            return lean
    parsed = parse_file(file, args)
    clang_errors(parsed.tu)
    return parsed


def clang_errors(tu: TranslationUnit) -> None:
    errors = [d for d in tu.diagnostics if d.severity >= ClangDiagnostic.Error]
    if errors:
        raise PtoError.many([_clang_diag(d) for d in errors[:20]])


def parse_tu(file: Path, args: list[str]) -> TranslationUnit:
    parsed = parse_file(file, args)
    clang_errors(parsed.tu)
    return parsed.tu


def _clang_diag(d) -> Diagnostic:
    loc = None
    if d.location.file is not None:
        loc = Location(d.location.file.name, d.location.line, d.location.column)
    return Diagnostic("error", d.spelling, loc, missing_header_notes(d.spelling))


def collect_macros(tu: TranslationUnit, opts: FrontendOptions, core: str,
                   top: list[Cursor] | None = None) -> tuple[dict[str, str], dict[str, FunctionMacro | None]]:
    """Object-like macros (name -> replacement text) and function-like macros (name -> parameters
    and replacement text; None where the replacement pastes or stringizes, which expressions do not
    need)."""
    objects, functions = macro_definitions(tu, top)
    objects.update(predefined_macros(opts, core))
    return objects, functions


def macro_definitions(tu: TranslationUnit, top: list[Cursor] | None = None
                      ) -> tuple[dict[str, str], dict[str, FunctionMacro | None]]:
    """The macros the translation unit defines: (object-like, function-like), as collect_macros."""
    objects: dict[str, str] = {}
    functions: dict[str, FunctionMacro | None] = {}
    texts: dict[str, str] = {}
    for c in top if top is not None else tu.cursor.get_children():
        if c.kind != CursorKind.MACRO_DEFINITION:
            continue
        start = c.extent.start  # one location object: libclang is asked once for file and offset
        if start.file is None:
            continue
        fname = start.file.name
        text = texts.get(fname)
        if text is None:
            text = texts[fname] = Path(fname).read_bytes().decode("latin-1")
        body = text[start.offset:_directive_end(text, start.offset)][len(c.spelling):]
        if body.startswith("("):
            functions[c.spelling] = function_macro(body)
            objects.pop(c.spelling, None)
        else:
            objects[c.spelling] = guards.code_only(body).strip()
    return objects, functions


def _directive_end(text: str, offset: int) -> int:
    """The end of the logical line at `offset` (backslash-newline continues it)."""
    end = text.find("\n", offset)
    while end >= 0 and text[offset:end].rstrip("\r").endswith("\\"):
        end = text.find("\n", end + 1)
    return len(text) if end < 0 else end


_SCOPES = (CursorKind.NAMESPACE, CursorKind.LINKAGE_SPEC, CursorKind.UNEXPOSED_DECL)


def find_entries(tu: TranslationUnit, main: str, kinds=(CursorKind.FUNCTION_DECL,),
                 top: list[Cursor] | None = None) -> list[Cursor]:
    """Kernel entry points: `__global__` function definitions in the main file."""
    found = []
    written: dict[str, FunctionMacro | None] | None = None  # function-like macros, read when first needed

    def visit(cursor: Cursor | None):
        nonlocal written
        for c in cursor.get_children() if cursor is not None else top:
            if c.kind not in _SCOPES and c.kind not in kinds:
                continue  # checked first: asking libclang for a cursor's file is slow
            if c.location.file is None or c.location.file.name != main:
                continue
            if c.kind in _SCOPES:
                visit(c)
            elif c.kind in kinds and c.is_definition():
                if any(k.kind == CursorKind.ANNOTATE_ATTR and k.spelling == "pto.global" for k in c.get_children()):
                    found.append(c)
                    continue
                head = declaration_head(c)
                if head is None:
                    # Written by a macro use (`DEFINE_CASE(...)` defining a kernel and its host
                    # launcher): the tokens libclang gives are not the declaration's; read the
                    # expansion's.
                    if written is None:
                        written = macro_definitions(tu, top)[1]
                    head = macro_written_head(c, written)
                if "__global__" in (head or "").split() or _global_before(c, main):
                    found.append(c)

    visit(None if top is not None else tu.cursor)
    return found


def _global_before(c: Cursor, main: str) -> bool:
    """`__global__` written just before the declaration's extent: where it is a macro that expands
    to nothing (pto-isa's CPU simulator), libclang starts the extent after it."""
    start = c.extent.start.offset
    text = Path(main).read_bytes()[max(0, start - 300):start].decode("latin-1")
    tail = re.split(r"[;{}]|^\s*#.*$", guards.code_only(text), flags=re.MULTILINE)[-1]
    return re.search(r"\b__global__\b", tail) is not None


def declaration_head(c: Cursor) -> str | None:
    """The tokens of a function declaration up to its name, joined by spaces; None when its tokens
    never name it (a declaration a macro use writes)."""
    head = []
    for t in c.get_tokens():
        if t.spelling == c.spelling:
            return " ".join(head)
        head.append(t.spelling)
    return None


def macro_written_head(c: Cursor, functions: dict[str, FunctionMacro | None]) -> str | None:
    """The declaration head of function `c` in the expansion of the macro use it stands at."""
    text = Path(c.location.file.name).read_bytes().decode("latin-1")
    expanded = expand_function_at(text, c.extent.start.offset, c.spelling, functions)
    return None if expanded is None else expanded.head


def _core_guards(core: str) -> set[str]:
    """The core-type guard macros of every profile (a file written for a2a3 names a cube kernel
    with __DAV_C220_CUBE__ also when it is parsed for a5)."""
    return {m for arch in ARCH_MACROS.values() for m in arch[core] if m.startswith("__DAV")}


_QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


def _quoted_headers(file: Path, text: str, include_dirs: list[str], depth: int = 2) -> list[str]:
    """The text of the user's headers the file includes with quotes (found beside it or on -I),
    and of theirs, `depth` levels down: the core-type guards of a kernel may sit in a header
    its files share (pto-isa's SYNCALL mix tests)."""
    out: list[str] = []
    seen: set[Path] = set()
    todo = [(file, text, depth)]
    while todo:
        at, body, left = todo.pop()
        for name in _QUOTED_INCLUDE.findall(body):
            for d in (at.parent, *map(Path, include_dirs)):
                p = (d / name).resolve()
                if p.is_file():
                    if p not in seen:
                        seen.add(p)
                        header = p.read_bytes().decode("latin-1")
                        out.append(header)
                        if left > 1:
                            todo.append((p, header, left - 1))
                    break
    return out


def core_candidates(text: str, arch: str) -> list[str]:
    mentions_vec = any(m in text for m in _core_guards("vec"))
    mentions_cube = any(m in text for m in _core_guards("cube"))
    if mentions_cube and not mentions_vec:
        return ["cube"]
    if mentions_vec and not mentions_cube:
        return ["vec"]
    return ["vec", "cube"] if mentions_vec else ["vec"]


@dataclass
class CoreResult:
    """What one parse (one core type) gave: kernels with instructions, and what was seen."""

    core: str
    kernels: list[ir.Kernel] = field(default_factory=list)
    order: list[int] = field(default_factory=list)  # each kernel's entry offset in the file
    entries: list[str] = field(default_factory=list)  # kernel names found active
    empty: list[tuple[str, Location, int]] = field(default_factory=list)  # no PTO instructions: name, at, last line
    # Kernels without instructions that still drain or signal pipes (only a SYNCALL, say): analysed
    # when the file has nothing else, since their flags can still be wrong.
    sync_only: list[tuple[ir.Kernel, int]] = field(default_factory=list)
    skipped: list[guards.Skipped] | None = None  # read when needed (only to explain an error)
    parsed: ParsedFile | None = None
    macros: dict[str, str] = field(default_factory=dict)


def load_kernels(path: str | Path, opts: FrontendOptions | None = None,
                 reporter: Reporter | None = None) -> list[ir.Kernel]:
    """Parse `path` and lower its kernels: every `__global__` function of the file, and each
    instantiation the file makes of a kernel template, in file order (`--entry` picks one).
    Raises PtoError on bad input."""
    opts = opts or FrontendOptions()
    reporter = reporter if reporter is not None else Reporter()
    file = Path(path)
    if not file.is_file():
        raise PtoError(f"no such file: {path}")
    if opts.arch not in ARCH_MACROS:
        raise PtoError(f"unknown architecture '{opts.arch}'")
    arch = profile(opts.arch)
    opts = with_database(opts, file)  # resolved once: clang and the lowering's macro table both see it
    text = file.read_bytes().decode("latin-1")
    guarded = text + "".join(_quoted_headers(file, text, opts.include_dirs))
    cores = [opts.core] if opts.core else core_candidates(guarded, opts.arch)
    results = [_lower_core(file, opts, core, arch, reporter) for core in cores]
    kernels = [k for r in results for k in r.kernels]
    if not kernels:
        first = next((r for r in results if r.sync_only), None)
        if first is None:
            raise _nothing_to_analyse(file, opts, results)
        first.kernels[:], first.order[:] = [k for k, _ in first.sync_only], [o for _, o in first.sync_only]
        kernels = list(first.kernels)
    by_name: dict[str, list[ir.Kernel]] = {}
    for k in kernels:
        by_name.setdefault(k.name, []).append(k)
    # One source has one mode: a core whose code only signals the other cores (cross-core flags
    # say nothing of the mode) is manual when another core's code is.
    for ks in by_name.values():
        if any(k.mode == "manual" for k in ks):
            for k in ks:
                k.mode = "manual"
    # A kernel whose code is the same program for both core types (its core-type guards select
    # nothing different) is read once, for the core its tiles name, as a file without guards is.
    same = {name for name, ks in by_name.items()
            if len(ks) > 1 and not any(is_cluster_kernel(k) for k in ks) and _same_program(ks)}
    if same:
        kernels = [k for k in kernels if k.name not in same or k is by_name[k.name][0]]
        for name in same:
            by_name[name][0].core = core_of_tiles(by_name[name][0])
    # Otherwise code for both core types is one cluster's program: `check` runs its cores together
    # (whether or not they signal each other). A rewrite needs one core type.
    both = [name for name, ks in by_name.items() if name not in same and len(ks) > 1
            and not any(is_cluster_kernel(k) for k in ks)]
    if both and opts.auto_mode:
        what = "the kernel has" if len(by_name) == 1 else f"kernel {both[0]} has"
        raise PtoError(f"{what} code for both the vector and the cube core; choose one with --core",
                       Location(str(file), 1, 1))
    kernels.sort(key=lambda k: _order(results, k))
    if not opts.core and not any(m in guarded for c in CORE_TYPES for m in _core_guards(c)):
        # No core-type guard: the code is the same for both cores; its tiles tell which one runs it.
        for k in kernels:
            k.core = core_of_tiles(k)
    return kernels


def _same_program(kernels: list[ir.Kernel]) -> bool:
    """The kernels (one per core type) lower to the same IR: tiles, views and statements."""
    from ptorewrite.analysis.ir_text import format_kernel

    bodies = {format_kernel(k).split("\n", 1)[1] for k in kernels}
    return len(bodies) == 1


def is_cluster_kernel(kernel: ir.Kernel) -> bool:
    """The kernel signals the other cores of its cluster (set_intra_block / wait_intra_block, or
    the cores meeting at a SYNCALL<SyncCoreType::Mix>)."""
    return any(isinstance(s, ir.CrossSync) for s in ir.walk(kernel.body))


def signals_within_cluster(kernels) -> bool:
    """Cores of a cluster that `check` runs together: they signal each other with
    set_intra_block / wait_intra_block, or both core types meet at a SYNCALL<SyncCoreType::Mix>
    (with code for one core type only, its SYNCALL is checked as that core's barrier)."""
    kernels = list(kernels)
    syncs = [s for k in kernels for s in ir.walk(k.body) if isinstance(s, ir.CrossSync)]
    return any(s.channel == "intra_block" for s in syncs) or (bool(syncs) and len({k.core for k in kernels}) > 1)


def _order(results: list[CoreResult], kernel: ir.Kernel) -> tuple[int, int]:
    for r in results:
        for i, k in enumerate(r.kernels):
            if k is kernel:
                return r.order[i], i
    return 0, 0


def load_kernel(path: str | Path, opts: FrontendOptions | None = None,
                reporter: Reporter | None = None) -> ir.Kernel:
    """Parse `path` and lower its one kernel into a Kernel, or raise PtoError. A file with several
    kernels, or a kernel template instantiated several times, needs `--entry` here."""
    kernels = load_kernels(path, opts, reporter)
    if len(kernels) > 1:
        names = ", ".join(k.name for k in kernels)
        raise PtoError(f"several kernels ({names}); choose one with --entry", Location(kernels[0].file, 1, 1))
    return kernels[0]


def core_of_tiles(kernel: ir.Kernel) -> str:
    types = {t.tile_type for t in kernel.tiles}
    vec, cube = "Vec" in types, bool(types - {"Vec"})
    return "mixed" if vec and cube else "cube" if cube else "vec"


@dataclass
class KernelSite:
    """A kernel the file defines, or one instantiation of a kernel template (`ptorewrite kernels`)."""

    name: str  # `k` or `k<float, 64>`
    core: str
    defined_at: Location
    instantiation: Instantiation | None = None


def list_kernels(path: str | Path, opts: FrontendOptions | None = None) -> list[KernelSite]:
    """The kernels and kernel instantiations of a file, per core type, without lowering them."""
    opts = opts or FrontendOptions()
    file = Path(path)
    if not file.is_file():
        raise PtoError(f"no such file: {path}")
    opts = with_database(opts, file)
    text = file.read_bytes().decode("latin-1")
    out: list[KernelSite] = []
    seen: list[CoreResult] = []
    for core in [opts.core] if opts.core else core_candidates(text, opts.arch):
        parsed = parse_configured(file, opts, core)
        plain, templates = select_entries(parsed, opts, require=False)
        seen.append(CoreResult(core, parsed=parsed, entries=[e.spelling for e in plain + templates],
                               macros=predefined_macros(opts, core)))
        for e in plain:
            out.append(KernelSite(e.spelling, core, _loc(e)))
        for t, insts in _instantiations(file, parsed, opts, core, templates).items():
            for inst in insts:
                out.append(KernelSite(inst.display, core, _loc(t), inst))
    if not out:
        raise _nothing_to_analyse(file, opts, seen)
    return out


def _loc(c: Cursor) -> Location:
    return Location(c.location.file.name if c.location.file else "", c.location.line, c.location.column)


def _is_empty_body(c: Cursor, src: SourceFile) -> bool:
    """`{}` as written (a warm-up kernel), not a body the preprocessor emptied."""
    body = next((k for k in c.get_children() if k.kind == CursorKind.COMPOUND_STMT), None)
    if body is None:
        return False
    inner = src.text[body.extent.start.offset + 1:body.extent.end.offset - 1]
    return guards.code_only(inner).strip() == ""


def select_entries(parsed: ParsedFile, opts: FrontendOptions, require: bool = True) -> tuple[list[Cursor], list[Cursor]]:
    """The entry functions to analyse: (non-template kernels, kernel templates)."""
    tu, main = parsed.tu, parsed.tu.spelling
    plain = find_entries(tu, main, top=parsed.top)
    templates = find_entries(tu, main, (CursorKind.FUNCTION_TEMPLATE,), top=parsed.top)
    if opts.entry:
        name, _ = parse_entry(opts.entry)
        plain = [e for e in plain if e.spelling == name]
        templates = [t for t in templates if t.spelling == name]
        if not plain and not templates:
            # Any function of the file may be named, `__global__` or not.
            for c in tu.cursor.walk_preorder():
                if c.kind in (CursorKind.FUNCTION_DECL, CursorKind.FUNCTION_TEMPLATE) and c.spelling == name \
                        and c.is_definition() and c.location.file is not None and c.location.file.name == main:
                    (templates if c.kind == CursorKind.FUNCTION_TEMPLATE else plain).append(c)
                    break
        if not plain and not templates and require:
            raise PtoError(f"no kernel function named '{name}'", Location(main, 1, 1))
        if len(plain) + len(templates) > 1:
            found = sorted(plain + templates, key=lambda c: c.extent.start.offset)
            raise PtoError(f"--entry {name}: several functions have this name (overloads); ptorewrite needs one",
                           _loc(found[1]))
        return plain, templates
    # An empty `__global__` function (a warm-up kernel) has nothing to analyse.
    return ([e for e in plain if not _is_empty_body(e, parsed.source)],
            [t for t in templates if not _is_empty_body(t, parsed.source)])


def _instantiations(file: Path, parsed: ParsedFile, opts: FrontendOptions, core: str,
                    templates: list[Cursor]) -> dict[Cursor, list[Instantiation]]:
    """The instantiations to analyse of each kernel template."""
    if not templates:
        return {}
    if opts.entry:
        _, args = parse_entry(opts.entry)
        if args is not None:
            t = templates[0]
            return _with_launch_values(file, parsed, {t: [Instantiation(t.spelling, args, _loc(t), origin="--entry")]})
    texts = {str(file): parsed.source.text}
    probe = build_probe(templates, texts)
    probed = parse_file(file, parsed.args, probe.texts)
    found = read_probe(probed.tu, probe)
    out: dict[Cursor, list[Instantiation]] = {}
    for i, t in enumerate(probe.templates):
        insts = found.get(i, [])
        if not insts:
            raise PtoError(f"the kernel template '{t.spelling}' is not instantiated in this file (no explicit "
                           "instantiation, launch or instantiated launcher reaches it for --arch "
                           f"{opts.arch}, core {core}); name one with --entry '{t.spelling}<...>'", _loc(t))
        out[t] = insts
    return _with_launch_values(file, parsed, out)


def _with_launch_values(file: Path, parsed: ParsedFile,
                        found: dict[Cursor, list[Instantiation]]) -> dict[Cursor, list[Instantiation]]:
    """Each instantiation with the run-time values its launches in the file pass (one more parse,
    made only when some kernel template has scalar parameters that a launch passes)."""
    main = str(file)
    sites = [s for t in found for s in launch_values.launch_sites(parsed.tu, main, t, parsed.source.text)]
    if not sites:
        return found
    probed = parse_file(file, parsed.args, {main: launch_values.probe_text(parsed.source.text, sites)})
    values = launch_values.read_values(probed.tu, sites)
    out: dict[Cursor, list[Instantiation]] = {}
    for t, insts in found.items():
        out[t] = [replace(i, launches=launch_values.launches_of(i, sites, values)) for i in insts]
    return out


def _plain_launch_values(file: Path, parsed: ParsedFile, plain: list[Cursor]
                         ) -> dict[int, tuple[tuple[tuple[str, int], ...], ...]]:
    """The run-time values the file's launches pass to each plain kernel with scalar parameters
    (`k<<<1, nullptr, stream>>>(out, src, 128, 64)` in a host launcher), keyed by the kernel's
    offset; one more parse, made only when some such launch exists."""
    main = str(file)
    sites: list[launch_values.LaunchSite] = []
    spans: dict[int, range] = {}
    for k in plain:
        found = launch_values.launch_sites(parsed.tu, main, k, parsed.source.text)
        spans[k.extent.start.offset] = range(len(sites), len(sites) + len(found))
        sites += found
    if not sites:
        return {}
    probed = parse_file(file, parsed.args, {main: launch_values.probe_text(parsed.source.text, sites)})
    values = launch_values.read_values(probed.tu, sites)
    return {at: launch_values.plain_launches(span, values) for at, span in spans.items() if span}


def _lower_core(file: Path, opts: FrontendOptions, core: str, arch: ArchProfile, reporter: Reporter) -> CoreResult:
    """The kernels for one core type (none if the preprocessor hid every entry function)."""
    parsed = parse_configured(file, opts, core)
    tu = parsed.tu
    result = CoreResult(core, parsed=parsed)
    objects, functions = collect_macros(tu, opts, core, parsed.top)
    result.macros = predefined_macros(opts, core)
    user_files = _user_files(tu, opts)
    user_files.add(tu.spelling)
    plain, templates = select_entries(parsed, opts, require=False)
    result.entries = [e.spelling for e in plain + templates]
    jobs: list[tuple[Cursor, Instantiation | None]] = [(e, None) for e in plain]
    for t, insts in _instantiations(file, parsed, opts, core, templates).items():
        jobs += [(t, inst) for inst in insts]
    jobs.sort(key=lambda j: j[0].extent.start.offset)  # file order; instantiations in the order clang made them
    plain_launches = _plain_launch_values(file, parsed, plain) if plain else {}
    user_fns = user_functions(tu.cursor, user_files) if jobs else {}
    for entry, inst in jobs:
        low = Lowering(tu, parsed.source, arch, reporter, objects, functions, user_files,
                       auto_mode=opts.auto_mode, top=parsed.top)
        low.core = core
        # TPipe FIFOs (parse.fifo, parse.fifo_a2a3), flag pairs and explicit-index FIFOs (parse.mpipe) are
        # lowered to the cluster's flags, in AUTO files as in hand-written ones. The rest stops here.
        cross = first_cross_core_use(entry, user_fns, modelled=FIFO_MODELLED | A5_SYNC_OBJECTS
                                     if arch.name in ("a5", "a2a3") else frozenset())
        if cross is not None:
            c, name = cross
            raise PtoError(f"cross-core TPUSH/TPOP are not supported yet ('{name}' here): this kernel moves tiles "
                           "between the cube and vector cores, and ptorewrite analyses the pipes of one core type "
                           "at a time", low.range_of(c))
        _define_header_scalar_types(parsed.top, low)
        try:
            kernel = _lower_entry(low, entry, inst, core, arch, parsed)
            if inst is None:
                kernel.launches = plain_launches.get(entry.extent.start.offset, ())
            kernel.lambda_calls = tuple(low.lambda_calls)
        except PtoError as e:
            if first_pipe_work(entry, user_fns) is not None:
                raise
            # Scalar code only: it runs in program order on one unit, so nothing in it can race
            # or wait, whatever C++ it uses that the front end does not read.
            reporter.warn(f"kernel '{inst.display if inst is not None else entry.spelling}' runs scalar code only "
                          "(no PTO instruction, flag or intrinsic): nothing in it can race; its body is not read "
                          f"({e.diagnostics[0].message})", _loc(entry))
            result.sync_only.append((_scalar_only_kernel(entry, inst, core, arch, parsed), entry.extent.start.offset))
            continue
        # A core that only signals the other cores of its cluster still takes part in its run.
        if any(True for _ in kernel.instructions()) or is_cluster_kernel(kernel):
            result.kernels.append(kernel)
            result.order.append(entry.extent.start.offset)
        else:
            result.empty.append((kernel.name, _loc(entry), entry.extent.end.line))
            if any(isinstance(s, ir.Sync) for s in ir.walk(kernel.body)):
                result.sync_only.append((kernel, entry.extent.start.offset))
            elif low.scalar_gm_writes:
                # Only scalar-unit work (`*out = view.data();`): no pipe access for a sync to order,
                # nothing to plan; read as a manual kernel that `check` finds clean.
                reporter.warn(f"kernel '{kernel.name}' issues no pipe instruction: it only stores to GM with the "
                              "scalar unit, so there is nothing for a sync to order", _loc(entry))
                kernel.mode = "manual"
                result.sync_only.append((kernel, entry.extent.start.offset))
    return result


def _scalar_only_kernel(entry: Cursor, inst: Instantiation | None, core: str, arch: ArchProfile,
                        parsed: ParsedFile) -> ir.Kernel:
    """A kernel of scalar code only, as one with nothing to analyse."""
    return ir.Kernel(name=inst.display if inst is not None else entry.spelling, file=parsed.source.path,
                     arch=arch.name, core=core, params=[], tiles=[], gm_tensors=[], body=ir.Block([], uid=0),
                     source=parsed.original, mode="manual")


def _lower_entry(low: Lowering, entry: Cursor, inst: Instantiation | None, core: str, arch: ArchProfile,
                 parsed: ParsedFile) -> ir.Kernel:
    from ptorewrite.parse import types as ty

    main = parsed.source
    scope = Scope(low.globals)
    if entry.kind == CursorKind.FUNCTION_TEMPLATE:
        _bind_instantiation(low, entry, inst, scope, parsed.top)
    params = []
    # An entry a macro use defines (`DEF_CASE(1, 32)`): its parameters are read from the expansion.
    expanded = low.macro_definition(entry) if entry.extent.start.offset == entry.location.offset else None
    macro_params = iter(expanded.params) if expanded is not None else None
    for p in entry.get_children():
        if p.kind != CursorKind.PARM_DECL:
            continue
        decl_text, decl_at = main.text[p.extent.start.offset:p.location.offset], p.extent.start.offset
        if macro_params is not None:
            text, at = next(macro_params, ("", 0))
            cut = text.rfind(p.spelling)
            decl_text, decl_at = (text[:cut], at) if cut >= 0 else ("", at)
        if not decl_text.strip():
            # Parameters written by a macro (`void k(KERNEL_PARAMS)`): the source has only the
            # macro's name there, so read the type clang gives the parameter.
            decl_text, decl_at = p.type.spelling, p.location.offset
        try:
            if not decl_text.strip():
                raise LoweringError(f"cannot read the type of parameter '{p.spelling}'", cursor=p)
            parser = low.parser(decl_text, decl_at, scope)
            type_node = parser.type_id()
            if type_node.pointer and type_node.base.parts[-1:] == ("void",):
                t = ty.PointerType("uint8")  # `__gm__ void *`: bytes until a cast gives them a type
            else:
                try:
                    t = low.resolve_type(type_node, scope)
                except LoweringError:
                    if type_node.pointer != 1 or \
                            p.type.get_canonical().get_pointee().get_canonical().kind != TypeKind.RECORD:
                        raise
                    # A GM pointer to a struct the host filled (a communication context, a tiling
                    # record): its bytes; a tensor built on it is typed by its cast or view.
                    t = ty.PointerType("uint8")
        except (LoweringError, cp.ParseError) as e:
            raise low.located(e) from None
        if isinstance(t, ty.PointerType):
            scope.define(p.spelling, Binding("ptr", Ptr(p.spelling, Const(0), t.dtype, t.record)))
            params.append(ir.Param(p.spelling, " ".join(decl_text.split()), t.dtype, True))
        elif isinstance(t, ty.RecordType):
            # A struct passed by value: its fields are run-time values like scalar parameters.
            scope.define(p.spelling, Binding("value", low.record_argument(p.spelling, t)))
            params.append(ir.Param(p.spelling, " ".join(decl_text.split()), None, False))
        else:
            scope.define(p.spelling, Binding("value", _runtime_var(p.spelling)))
            params.append(ir.Param(p.spelling, " ".join(decl_text.split()), None, False))
    try:
        try:
            body = low.lower_function_body(entry, scope)
            body += low.pipe_teardown() + low.mpipe_teardown()
        except (LoweringError, cp.ParseError) as e:  # raised before any statement was entered
            raise low.located(e) from None
    except PtoError as e:
        if inst is not None:
            e.diagnostics[0] = _with_note(e.diagnostics[0], _instantiation_note(inst))
        raise
    kernel = ir.Kernel(
        name=inst.display if inst is not None else entry.spelling, file=main.path, arch=arch.name, core=core,
        params=params, tiles=low.tiles, gm_tensors=low.gm_tensors, body=ir.Block(body, uid=0),
        source=parsed.original, mode="manual" if low.manual else "auto", early_returns=tuple(low.early_returns),
    )
    _keep_needed_gm_element_reads(kernel, low.scalar_gm_reads)
    _refuse_scalar_gm_access_the_pipes_share(kernel, low.scalar_gm_reads, low.scalar_gm_writes)
    kernel.runtime_values = tuple(sorted(_free_runtime_values(kernel)))
    kernel.element_values = tuple(v for v in kernel.runtime_values if v in low.element_values)
    if kernel.mode == "auto":
        from ptorewrite.analysis.operands import reserve_alias_reach
        reserve_alias_reach(kernel, low.reporter)
    if inst is not None and entry.kind == CursorKind.FUNCTION_TEMPLATE:
        kernel.instance = _template_instance(low, entry, inst)
        kernel.launches = inst.launches
    return kernel


def _template_instance(low: Lowering, entry: Cursor, inst: Instantiation) -> ir.TemplateInstance:
    params = tuple((kind, name) for kind, name, _ in template_params(entry, low.file_of(entry)))
    args = tuple(" ".join(a.split()) for a, _ in _split_arguments(inst.args)) if inst.args else ()
    body = next(c for c in entry.get_children() if c.kind == CursorKind.COMPOUND_STMT)
    return ir.TemplateInstance(entry.spelling, params, args, (body.extent.start.offset, body.extent.end.offset))


def _split_arguments(text: str) -> list[tuple[str, int]]:
    """Template arguments at top level: commas inside <>, (), [] and {} do not split."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append((text[start:i].strip(), start))
            start = i + 1
    parts.append((text[start:].strip(), start))
    return parts


def _instantiation_note(inst: Instantiation) -> Diagnostic:
    how = "named with --entry" if inst.origin == "--entry" else "instantiated here"
    return Diagnostic("note", f"in {inst.display}, {how}", inst.loc)


def _with_note(d: Diagnostic, note: Diagnostic) -> Diagnostic:
    return Diagnostic(d.severity, d.message, d.loc, d.notes + (note,))


def _bind_instantiation(low: Lowering, entry: Cursor, inst: Instantiation, scope: Scope, top: list[Cursor]) -> None:
    """Bind the template's parameters to the instantiation's arguments (as clang printed them)."""
    src = low.file_of(entry)
    text = _without_user_namespaces(_qualify_enum_constants(inst.args, top), top, low.user_files) + ">"
    try:
        with low.frame(SourceFile(f"<{inst.display}>", text.encode("latin-1")), (), "instantiation"):
            nodes = low.parser(text, 0, low.globals).template_arguments()
            values = [low.eval(n, low.globals) for n in nodes]
        low.bind_template_params(template_params(entry, src), values, scope, src)
    except (LoweringError, cp.ParseError) as e:
        raise PtoError(f"cannot analyse {inst.display}: {e}", inst.loc) from None


def _without_user_namespaces(args: str, top: list[Cursor], user_files) -> str:
    """clang prints a type of the kernel's own namespace qualified (`MyTests::Spec<half, 16>`); the
    front end reads the file's namespaces as one scope, so the qualifier is dropped."""
    names = {c.spelling for c in top if c.kind == CursorKind.NAMESPACE and c.spelling not in NAMESPACES
             and c.location.file is not None and c.location.file.name in user_files}
    if not names:
        return args
    return re.sub(r"(?<![\w:])(?:" + "|".join(map(re.escape, sorted(names))) + r")::", "", args)


def _qualify_enum_constants(args: str, top: list[Cursor]) -> str:
    """clang prints a constant of an unscoped enum with its namespace only (`pto::TILE_UP_DOWN`);
    kernel code names it through its enum (`TileSplitAxis::TILE_UP_DOWN`), as the front end does."""
    names = set(re.findall(r"(?<![\w:])(?:\w+::)*(\w+)(?![\w:(<])", args))
    if not names:
        return args
    enums: dict[str, str] = {}

    def visit(cursors):
        for c in cursors:
            if c.kind == CursorKind.NAMESPACE:
                visit(c.get_children())
            elif c.kind == CursorKind.ENUM_DECL and c.spelling and not c.is_scoped_enum():
                for k in c.get_children():
                    if k.kind == CursorKind.ENUM_CONSTANT_DECL and k.spelling in names:
                        enums.setdefault(k.spelling, c.spelling)

    visit(c for c in top if c.kind in (CursorKind.NAMESPACE, CursorKind.ENUM_DECL))
    if not enums:
        return args
    def qualified(m: re.Match) -> str:
        prefix = [p for p in m.group(0).split("::")[:-1] if p]
        # Only where the front end drops the prefix anyway; a user namespace stays as printed.
        if m.group(1) in enums and all(p in NAMESPACES for p in prefix):
            return f"{enums[m.group(1)]}::{m.group(1)}"
        return m.group(0)

    return re.sub(r"(?<![\w:])(?:\w+::)*(\w+)(?![\w:(<])", qualified, args)


def _define_header_scalar_types(top: list[Cursor], low: Lowering) -> None:
    """Global typedefs of headers that name scalar types (`aclFloat16`), so that template
    arguments and parameters spelled with them resolve. The user's own are already bound."""
    from ptorewrite.parse import types as ty

    for c in top:
        if c.kind not in (CursorKind.TYPEDEF_DECL, CursorKind.TYPE_ALIAS_DECL):
            continue
        name = c.spelling
        if name.startswith("_") or name in ty.DTYPE_NAMES or low.globals.lookup(name) is not None:
            continue
        canonical = c.underlying_typedef_type.get_canonical().spelling
        dtype = ty.DTYPE_NAMES.get(canonical) or _CANONICAL_DTYPES.get(canonical)
        if dtype is not None:
            low.globals.define(name, Binding("type", ty.ScalarType(dtype)))


# Canonical spellings clang gives that are not in the front end's own table.
_CANONICAL_DTYPES = {"_Float16": "fp16", "__fp16": "fp16", "__bf16": "bf16", "unsigned short": "uint16",
                     "short": "int16", "unsigned char": "uint8", "signed char": "int8", "long long": "int64",
                     "unsigned long long": "uint64"}


def _nothing_to_analyse(file: Path, opts: FrontendOptions, results: list[CoreResult]) -> PtoError:
    """A located error that says what the file has and why none of it is analysed."""
    config = f"--arch {opts.arch}" + (f" --pto-isa-root {opts.pto_isa_root}" if opts.pto_isa_root else "")
    cores = ", ".join(r.core for r in results)
    parsed = results[0].parsed
    src = SourceFile(str(file), parsed.original)
    notes: list[Diagnostic] = []
    empty = {name: (loc, last) for r in results for name, loc, last in r.empty}
    active = {n for r in results for n in r.entries}
    mentions = guards.global_functions(src)
    if opts.entry:
        name, _ = parse_entry(opts.entry)
        mentions = [m for m in mentions if m.name == name]
        if not mentions and not empty:
            return PtoError(f"no kernel function named '{name}'", Location(str(file), 1, 1))
    hidden = []
    for m in mentions:
        if m.name in active:
            continue
        skip = next((s for r in results for s in [guards.enclosing_skip(_skipped(r), str(file), m.line)] if s),
                    None)
        hidden.append((m, skip))
    user_skips = [s for s in _skipped(results[0]) if s.file == str(file)]
    defined = ", ".join(f"{k}={v}" if v else k for k, v in results[0].macros.items())
    if empty:
        names = ", ".join(f"'{n}'" for n in empty)
        first, last = next(iter(empty.values()))
        inside = [s for s in user_skips if first.line <= s.start_line <= last]
        shown = (inside or user_skips)[:5]
        for s in shown:
            notes.append(Diagnostic("note", f"skipped by the preprocessor: {guards.describe_guard(src, s)}",
                                    Location(str(file), s.start_line, 1)))
        if len(inside or user_skips) > len(shown):
            notes.append(Diagnostic("note", f"and {len(inside or user_skips) - len(shown)} more inactive branches"))
        notes.append(Diagnostic("note", f"{config} (core {cores}) defines {defined}"))
        return PtoError(f"no PTO instructions found in kernel {names} for {config} (core {cores})", first,
                        tuple(notes))
    if hidden:
        for m, skip in hidden:
            where = f"inside '{guards.describe_guard(src, skip)}' (line {skip.start_line})" if skip else                 "not active in this configuration"
            notes.append(Diagnostic("note", f"__global__ function '{m.name}' is {where}",
                                    Location(str(file), m.line, m.col)))
        notes.append(Diagnostic("note", f"{config} (core {cores}) defines {defined}; choose another with "
                                        "--arch, --core or -D"))
        names = ", ".join(f"'{m.name}'" for m, _ in hidden)
        first = hidden[0][1]
        loc = Location(str(file), first.start_line, 1) if first else Location(str(file), hidden[0][0].line, 1)
        return PtoError(f"every kernel in the file ({names}) is excluded by the preprocessor for {config} "
                        f"(core {cores})", loc, tuple(notes))
    functions = _defined_functions(results[0].parsed)
    what = f"; it defines only {', '.join(functions)}" if functions else "; it defines no function"
    return PtoError(f"no kernel entry function (a __global__ function) found{what}; name one with --entry",
                    Location(str(file), 1, 1))


def _skipped(r: CoreResult) -> list[guards.Skipped]:
    if r.skipped is None:
        r.skipped = guards.skipped_ranges(r.parsed.tu)
    return r.skipped


def _defined_functions(parsed: ParsedFile) -> list[str]:
    main = parsed.tu.spelling
    names = []

    def visit(cursor: Cursor):
        for c in cursor.get_children():
            if c.location.file is None or c.location.file.name != main:
                continue
            if c.kind in (CursorKind.NAMESPACE, CursorKind.LINKAGE_SPEC, CursorKind.UNEXPOSED_DECL):
                visit(c)
            elif c.kind in (CursorKind.FUNCTION_DECL, CursorKind.FUNCTION_TEMPLATE) and c.is_definition():
                names.append(f"'{c.spelling}' (line {c.location.line})")

    visit(parsed.tu.cursor)
    return names


def _keep_needed_gm_element_reads(kernel: ir.Kernel, reads: dict[str, ir.SourceRange]) -> None:
    """Scalar reads of GM elements are lowered as PIPE_S reads the race check orders. A manual
    kernel keeps those of arguments some instruction writes; the others are data reads that need
    no order (nothing writes what they read), and an AUTO kernel has no syncs to order them:
    these leave the IR and are recorded in `reads`, for the check below."""
    written = {a.value.tensor.param if a.kind == "gm" else a.value.param
               for s in kernel.instructions() for a in s.args
               if a.writes and (a.kind == "gm" or (a.kind == "raw" and a.value.space == "GM"))}

    def needed(s: ir.Stmt) -> bool:
        if not (isinstance(s, ir.Instr) and s.op == ir.SCALAR_LOAD and s.args[0].value.space == "GM"):
            return True
        param = s.args[0].value.param
        if kernel.mode == "manual" and param in written:
            return True
        reads.setdefault(param, s.loc)
        return False

    for s in ir.walk(kernel.body):
        if isinstance(s, ir.Block):
            s.stmts[:] = [x for x in s.stmts if needed(x)]


def _refuse_scalar_gm_access_the_pipes_share(kernel: ir.Kernel, reads: dict[str, ir.SourceRange],
                                              writes: dict[str, ir.SourceRange]) -> None:
    """Scalar reads and stores of GM (`*p`, `p[i]`, `*p = v`) are no pipe instructions, so the race
    check does not see them: they are sound only on pointer arguments no instruction writes (for a
    read) or touches at all (for a store); arguments do not alias."""
    if not reads and not writes:
        return
    for ins in kernel.instructions():
        for a in ins.args:
            if a.kind == "raw" and a.value.space == "GM":
                param = a.value.param
            elif a.kind != "gm" or not (a.reads or a.writes):
                continue
            else:
                param = a.value.tensor.param
            if param in writes:
                what, where = "stores to", writes[param]
            elif param in reads and a.writes:
                what, where = "reads", reads[param]
            else:
                continue
            verb = "writes" if a.writes else "reads"
            raise PtoError(f"the scalar unit {what} GM through '{param}', which {ins.op} at line {ins.loc.line} "
                           f"{verb}; scalar accesses to GM are not checked for races with the pipes, so only "
                           "arguments no instruction writes may be read this way, and only arguments no "
                           "instruction uses may be stored to", where)


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
                elif a.kind == "raw":
                    yield from a.value.exprs()
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
    """Files whose functions and aliases are the user's (not the PTO, toolkit or system headers)."""
    system = [str(d) for d in system_dirs(opts)]
    out = set()
    for inc in tu.get_includes():
        name = inc.include.name
        resolved = str(Path(name).resolve())
        if not any(resolved.startswith(r + "/") for r in system) and not resolved.startswith("/usr/"):
            out.add(name)
    return out
