"""The compiler invocation: which headers, macros and language standard a kernel is parsed with.

Two configurations (see docs/design.md, "Compiler environment"):

- bundled (default): ptorewrite's parse-only PTO headers, the NPU device-pass macros of the
  chosen architecture profile and core type, C++17 (the standard pto-isa's NPU builds use);
- `--pto-isa-root DIR`: pto-isa's own headers in the configuration its CPU simulator builds
  (`__CPU_SIM` only, C++20, `stdint.h` and `stddef.h` forced in); a small forced include
  declares the NPU builtins kernels call that the simulator's stubs lack.

Both add clang's builtin headers (`-resource-dir`, from the clang-tidy wheel or a system
clang), the system's C++ standard library as clang finds it, and the Ascend toolkit
stand-ins (`toolkit/`, searched last with -idirafter, so a real toolkit on -I wins).
"""

from __future__ import annotations

import functools
import glob
import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from ptorewrite.diagnostics import Diagnostic, Location, PtoError
from ptorewrite.parse.arch_macros import ARCH_MACROS, AUTO_MODE_MACROS, CPU_SIM_MACROS

PARSE_DIR = Path(__file__).resolve().parent
BUNDLED_INCLUDE = PARSE_DIR / "include"


def is_bundled(path: str) -> bool:
    """A header shipped with ptorewrite (the parse-only PTO and toolkit headers), never the user's."""
    return Path(path).resolve().is_relative_to(PARSE_DIR)
TOOLKIT_STANDINS = PARSE_DIR / "toolkit"
# Declarations of the NPU builtins pto-isa's CPU-simulator stubs do not provide.
CPU_SIM_BUILTINS = TOOLKIT_STANDINS / "ptorewrite_npu_builtins.h"

BUNDLED_STD = "c++17"  # pto-isa's NPU builds: -std=c++17
CPU_SIM_STD = "c++20"  # pto-isa's CPU-simulator build (tests/cpu/st): C++20
CPU_SIM_FORCED_INCLUDES = ("stdint.h", "stddef.h")
CLANG_MAJOR = 18  # the pinned libclang wheel


@dataclass
class FrontendOptions:
    include_dirs: list[str] = field(default_factory=list)  # -I
    defines: list[str] = field(default_factory=list)  # -D NAME or NAME=VALUE
    undefines: list[str] = field(default_factory=list)  # -U NAME (applied after every -D)
    forced_includes: list[str] = field(default_factory=list)  # -include FILE
    system_include_dirs: list[str] = field(default_factory=list)  # -isystem
    after_include_dirs: list[str] = field(default_factory=list)  # -idirafter
    std: str | None = None  # -std=; None: the configuration's own standard
    arch: str = "a2a3"
    entry: str | None = None  # NAME, or NAME<ARGS> for one instantiation of a template kernel
    core: str | None = None  # "vec", "cube", or None to choose from the file
    pto_isa_root: str | None = None
    build_dir: str | None = None
    auto_mode: bool = True  # define __PTO_AUTO__ as the AUTO-mode compiler does
    no_stdinc: list[str] = field(default_factory=list)  # -nostdinc / -nostdinc++ from a compile database


# ---------------------------------------------------------------- clang's builtin headers


def _has_builtins(resource_dir: Path) -> bool:
    return (resource_dir / "include" / "stddef.h").is_file()


def _wheel_resource_dir() -> Path | None:
    """The clang-tidy wheel (a dependency) ships clang 18's builtin headers."""
    try:
        import clang_tidy
    except ImportError:
        return None
    base = Path(clang_tidy.__file__).resolve().parent / "data" / "lib" / "clang"
    for d in sorted(base.glob("*"), key=_version_key, reverse=True):
        if _has_builtins(d):
            return d
    return None


def _version_key(p: Path) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", p.name)) or (0,)


def system_resource_dirs(patterns: tuple[str, ...] = ("/usr/lib/llvm-*/lib/clang/*", "/usr/lib/clang/*",
                                                       "/usr/local/lib/clang/*", "/opt/homebrew/opt/llvm/lib/clang/*",
                                                       "/usr/local/opt/llvm/lib/clang/*")) -> list[Path]:
    """Resource directories of installed clangs, the one matching libclang's version first."""
    found = [Path(p) for pat in patterns for p in glob.glob(pat) if _has_builtins(Path(p))]
    found.sort(key=lambda p: (_version_key(p)[0] == CLANG_MAJOR, _version_key(p)), reverse=True)
    return found


@functools.cache
def resource_dir() -> Path | None:
    """Where clang's builtin headers (stddef.h, stdint.h, ...) are: the clang-tidy wheel, else a
    system clang of the same major version, else any system clang; None when there is none."""
    wheel = _wheel_resource_dir()
    if wheel is not None:
        return wheel
    system = system_resource_dirs()
    return system[0] if system else None


BUILTIN_HEADERS = frozenset({
    "stddef.h", "stdint.h", "stdarg.h", "stdbool.h", "float.h", "limits.h", "stdalign.h", "stdatomic.h",
    "iso646.h", "__stddef_size_t.h", "__stddef_max_align_t.h", "mm_malloc.h",
})
STANDARD_HEADERS = frozenset({
    "cstdint", "cstddef", "type_traits", "utility", "array", "limits", "algorithm", "cstdlib", "cstring",
    "cstdio", "cmath", "cassert", "iostream", "vector", "string", "memory", "tuple", "functional", "climits",
    "cfloat", "initializer_list", "new", "fstream", "sstream", "chrono", "mutex", "thread", "atomic",
})


def missing_header_notes(message: str, resource: Path | None = None) -> tuple[Diagnostic, ...]:
    """Say why a compiler or standard-library header is missing, when clang cannot find one."""
    m = re.match(r"'([^']+)' file not found", message)
    if not m:
        return ()
    name = m.group(1)
    if name in BUILTIN_HEADERS and (resource or resource_dir()) is None:
        return (Diagnostic("note", "clang's builtin headers were not found: ptorewrite takes them from the "
                                   "clang-tidy package it depends on (pip install clang-tidy==18.1.8) or from a "
                                   "system clang (/usr/lib/llvm-*/lib/clang/*)"),)
    if name in STANDARD_HEADERS:
        return (Diagnostic("note", f"<{name}> is part of the C++ standard library, which clang takes from the "
                                   "system (g++'s libstdc++: install g++ or libstdc++-dev); the bundled PTO "
                                   "headers do not need it, but this file includes it"),)
    return ()


# ---------------------------------------------------------------- compile_commands.json


@dataclass
class DatabaseFlags:
    """The flags of one compile_commands.json entry that change how a file parses."""

    include_dirs: list[str] = field(default_factory=list)
    system_include_dirs: list[str] = field(default_factory=list)
    after_include_dirs: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    undefines: list[str] = field(default_factory=list)
    forced_includes: list[str] = field(default_factory=list)
    std: str | None = None
    no_stdinc: list[str] = field(default_factory=list)


# flag -> (DatabaseFlags field, value is a path); each may be joined to its value or separate.
_DB_FLAGS = {
    "-isystem": ("system_include_dirs", True), "-idirafter": ("after_include_dirs", True),
    "-iquote": ("include_dirs", True), "-include": ("forced_includes", True), "-I": ("include_dirs", True),
    "-D": ("defines", False), "-U": ("undefines", False),
}


def database_flags(build_dir: str, file: Path) -> DatabaseFlags:
    """-I/-isystem/-idirafter/-D/-U/-include/-std for `file` from BUILD_DIR/compile_commands.json."""
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
        return _flags_of(argv[1:], directory)
    raise PtoError(f"{file} is not in {db_path}")


def _flags_of(argv: list[str], directory: Path) -> DatabaseFlags:
    out = DatabaseFlags()
    i = 0
    while i < len(argv):
        a = argv[i]
        i += 1
        if a.startswith("-std="):
            out.std = a[len("-std="):]
            continue
        if a in ("-nostdinc", "-nostdinc++"):
            out.no_stdinc.append(a)
            continue
        if a.startswith("-include-pch"):
            continue
        for flag, (name, is_path) in _DB_FLAGS.items():
            if a == flag:
                value = argv[i] if i < len(argv) else ""
                i += 1
            elif a.startswith(flag):
                value = a[len(flag):]
            else:
                continue
            if is_path:
                value = str(directory / value)
            getattr(out, name).append(value)
            break
    return out


def with_database(opts: FrontendOptions, file: Path) -> FrontendOptions:
    """Options with the compile database's flags merged in (database first, command line after)."""
    from dataclasses import replace

    if not opts.build_dir:
        return opts
    db = database_flags(opts.build_dir, file)
    return replace(
        opts, build_dir=None,
        include_dirs=db.include_dirs + list(opts.include_dirs),
        system_include_dirs=db.system_include_dirs + list(opts.system_include_dirs),
        after_include_dirs=db.after_include_dirs + list(opts.after_include_dirs),
        defines=db.defines + list(opts.defines),
        undefines=db.undefines + list(opts.undefines),
        forced_includes=db.forced_includes + list(opts.forced_includes),
        std=opts.std or db.std,
        no_stdinc=db.no_stdinc + list(opts.no_stdinc),
    )


# ---------------------------------------------------------------- the two configurations


def macro_name(define: str) -> tuple[str, str]:
    name, _, value = define.partition("=")
    return name.strip(), value if "=" in define else "1"


def mode_macros(opts: FrontendOptions, core: str) -> dict[str, str]:
    """The macros the configuration itself defines (before the user's -D/-U)."""
    if opts.pto_isa_root:
        macros = dict(CPU_SIM_MACROS["common"])
        macros.update(CPU_SIM_MACROS[core])
    else:
        macros = dict(ARCH_MACROS[opts.arch]["common"])
        macros.update(ARCH_MACROS[opts.arch][core])
    if opts.auto_mode:
        macros.update(AUTO_MODE_MACROS)
    return macros


def predefined_macros(opts: FrontendOptions, core: str) -> dict[str, str]:
    """Every command-line macro after -D and -U, as the lowering's macro table sees them."""
    macros = mode_macros(opts, core)
    for d in opts.defines:
        name, value = macro_name(d)
        macros[name] = value
    for u in opts.undefines:
        macros.pop(u.strip(), None)
    return macros


def pto_isa_include_dirs(root: Path) -> list[Path]:
    """The include directories pto-isa's CPU-simulator tests build with (those that exist)."""
    return [d for d in (root / "include", root / "include" / "common", root / "tests" / "common") if d.is_dir()]


def std_of(opts: FrontendOptions) -> str:
    return opts.std or (CPU_SIM_STD if opts.pto_isa_root else BUNDLED_STD)


def clang_args(opts: FrontendOptions, core: str) -> list[str]:
    """The libclang arguments for one core type (compile-database flags already merged)."""
    args = ["-x", "c++", f"-std={std_of(opts)}", "-fsyntax-only", "-Wno-everything", "-ferror-limit=0",
            "-ftemplate-backtrace-limit=0"]
    rd = resource_dir()
    if rd is not None:
        args += ["-resource-dir", str(rd)]
    # The device compiler passes and returns `__fp16` by value, as kernels and tile accessors
    # do; clang's host targets allow it only as a storage type otherwise.
    args += ["-Xclang", "-fnative-half-arguments-and-returns"]
    args += list(opts.no_stdinc)
    # The configuration's PTO headers come first: a build database's -I of pto-isa's NPU headers
    # (which only the device compiler can parse) must not replace them.
    if opts.pto_isa_root:
        root = Path(opts.pto_isa_root).resolve()
        if not (root / "include" / "pto").is_dir():
            raise PtoError(f"--pto-isa-root {opts.pto_isa_root}: no include/pto directory there")
        for d in pto_isa_include_dirs(root):
            args += ["-I", str(d)]
        # pto-isa's umbrella header first: the simulator defines the NPU keywords (__ubuf__, __gm__,
        # AICORE, ...) as macros in it, while the NPU compiler knows them in any include order.
        forced = [*CPU_SIM_FORCED_INCLUDES, str(CPU_SIM_BUILTINS), "pto/pto-inst.hpp"]
    else:
        args += ["-I", str(BUNDLED_INCLUDE)]
        forced = []
    for d in opts.include_dirs:
        args += ["-I", d]
    for d in opts.system_include_dirs:
        args += ["-isystem", d]
    for d in opts.after_include_dirs:
        args += ["-idirafter", d]
    args += ["-idirafter", str(TOOLKIT_STANDINS)]
    for name, value in mode_macros(opts, core).items():
        args.append(f"-D{name}={value}" if value != "" else f"-D{name}=")
    args += [f"-D{d}" for d in opts.defines]
    args += [f"-U{u}" for u in opts.undefines]
    for f in forced + list(opts.forced_includes):
        args += ["-include", f]
    return args


def system_dirs(opts: FrontendOptions) -> list[Path]:
    """Directories whose headers are not the user's: their functions are never inlined."""
    dirs = [BUNDLED_INCLUDE, TOOLKIT_STANDINS]
    rd = resource_dir()
    if rd is not None:
        dirs.append(rd)
    if opts.pto_isa_root:
        dirs.append(Path(opts.pto_isa_root).resolve() / "include")
    dirs += [Path(d) for d in opts.system_include_dirs + opts.after_include_dirs]
    return [d.resolve() for d in dirs]
