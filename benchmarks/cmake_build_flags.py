"""The `-I`/`-D` flags a kernel's own CMake build compiles it with, read from its CMakeLists.txt.

A small reader, not CMake: it walks the commands of the CMakeLists.txt beside the kernel (or of
the nearest folder above it that has one), keeps `set()` variables, and collects for the kernel's
source file
- the folders of `include_directories` and of `target_include_directories` of the targets that
  compile it (`add_library`/`add_executable`),
- the definitions of `add_compile_definitions`, `add_definitions`, `target_compile_definitions`
  and the `-D` options of `target_compile_options`,
- the `-I`/`-D` of each `add_custom_command` COMMAND that compiles it with `-c` (inside a CMake
  function too, with the function's parameters bound at its call): each such command is a build
  of its own (pto-isa's SYNCALL mix tests compile one file once for the cube and once for the
  vector core), and one that names a core type (`--cce-aicore-arch=dav-c220-cube`) builds for
  that core only (`--core cube`).
Whatever still names a variable the reader does not know (the toolkit's `ASCEND_HOME_PATH`, a
configure-time size) is dropped, as is a global definition made under an `if()` (an option such
as `_DEBUG`, not the default build), as are folders that do not exist and the checkout's own
`include/` (the parse-only headers stand in for it; `--pto-isa-root` is the way to use it).
"""

from __future__ import annotations

import re
from pathlib import Path

_COMMAND = re.compile(r"^[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(", re.MULTILINE)
_ARG = re.compile(r'"((?:[^"\\]|\\.)*)"|([^\s()"#]+)')
_VAR = re.compile(r"\$\{([A-Za-z0-9_]+)\}")
_CORE_ARCH = re.compile(r"--cce-aicore-arch=dav-[a-z0-9]+-(cube|vec)")


def _commands(text: str) -> list[tuple[str, list[str]]]:
    text = re.sub(r"#[^\n]*", "", text)
    out = []
    for m in _COMMAND.finditer(text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        body = text[m.end():i - 1]
        args = [q if q else a for q, a in _ARG.findall(body)]
        out.append((m.group(1).lower(), args))
    return out


class _Reader:
    def __init__(self, source: Path, cmake: Path, pto: Path):
        self.source, self.pto = source.resolve(), pto.resolve()
        here = str(cmake.parent)
        self.vars = {"PROJECT_SOURCE_DIR": here, "CMAKE_CURRENT_SOURCE_DIR": here,
                     "CMAKE_SOURCE_DIR": here, "CMAKE_CURRENT_LIST_DIR": here}
        self.functions: dict[str, tuple[list[str], list[tuple[str, list[str]]]]] = {}
        self.includes: list[str] = []
        self.defines: list[str] = []
        self.targets: set[str] = set()
        self.target_includes: dict[str, list[str]] = {}
        self.target_defines: dict[str, list[str]] = {}
        self.custom_builds: list[list[str]] = []
        self.here = cmake.parent
        self.conditional = 0  # inside if(): a definition there is an option, not the default build

    def expand(self, arg: str, env: dict[str, str]) -> list[str]:
        value = _VAR.sub(lambda m: env.get(m.group(1), self.vars.get(m.group(1), m.group(0))), arg)
        return value.split(";") if ";" in value else [value]

    def names_source(self, arg: str) -> bool:
        return (self.here / arg).resolve() == self.source

    def walk(self, commands, env: dict[str, str]) -> None:
        i = 0
        while i < len(commands):
            name, raw = commands[i]
            i += 1
            if name == "function":
                depth, j = 1, i
                while j < len(commands) and depth:
                    depth += {"function": 1, "endfunction": -1}.get(commands[j][0], 0)
                    j += 1
                self.functions[raw[0].lower()] = (raw[1:], commands[i:j - 1])
                i = j
                continue
            args = [x for a in raw for x in self.expand(a, env)]
            if name in ("if", "endif"):
                self.conditional += 1 if name == "if" else -1
            elif name == "set" and args:
                # set(VAR value... [CACHE TYPE "doc" [FORCE]] | [PARENT_SCOPE]): the value ends there.
                value = args[1:]
                for stop in ("CACHE", "PARENT_SCOPE"):
                    value = value[:value.index(stop)] if stop in value else value
                self.vars[args[0]] = ";".join(value)
            elif name == "include_directories":
                self.includes += [a for a in args if a not in ("BEFORE", "AFTER", "SYSTEM")]
            elif name == "get_filename_component" and len(args) >= 3 and args[2] in ("ABSOLUTE", "REALPATH"):
                self.vars[args[0]] = str(Path(args[1]).resolve())
            elif name in ("add_compile_definitions", "add_definitions") and not self.conditional:
                self.defines += [a.removeprefix("-D") for a in args]
            elif name in ("add_library", "add_executable") and any(self.names_source(a) for a in args[1:]):
                self.targets.add(args[0])
            elif name == "target_include_directories" and args:
                self.target_includes.setdefault(args[0], []).extend(
                    a for a in args[1:] if a not in ("PRIVATE", "PUBLIC", "INTERFACE", "BEFORE", "SYSTEM"))
            elif name == "target_compile_definitions" and args:
                self.target_defines.setdefault(args[0], []).extend(
                    a for a in args[1:] if a not in ("PRIVATE", "PUBLIC", "INTERFACE"))
            elif name == "target_compile_options" and args:
                self.target_defines.setdefault(args[0], []).extend(a[2:] for a in args[1:] if a.startswith("-D"))
            elif name == "add_custom_command":
                self.custom_command(args)
            elif name in self.functions:
                params, body = self.functions[name]
                self.walk(body, {**env, **dict(zip(params, args))})

    def custom_command(self, args: list[str]) -> None:
        words: list[str] = []
        for a in [*args, "COMMAND"]:
            if a == "COMMAND" or a in ("DEPENDS", "OUTPUT", "VERBATIM", "WORKING_DIRECTORY"):
                if "-c" in words and self.names_source(words[words.index("-c") + 1]):
                    flags = [w[2:] for w in words if w.startswith("-D")]
                    incs = [w[2:] for w in words if w.startswith("-I")]
                    cores = [m.group(1) for w in words if (m := _CORE_ARCH.fullmatch(w))]
                    self.custom_builds.append([*(f"-I{d}" for d in incs), *(f"-D{d}" for d in flags),
                                               *(f"--core={c}" for c in cores[:1])])
                words = []
            else:
                words.append(a)


def _keep_dir(d: str, pto: Path) -> str | None:
    if "$" in d or not d:
        return None
    p = Path(d).resolve()
    if not p.is_dir() or p == pto / "include":
        return None
    return str(p)


_DEFINE = re.compile(r"[A-Za-z_]\w*(=|$)")


def _keep_define(d: str) -> bool:
    return _DEFINE.match(d) is not None and "$" not in d and "\\" not in d and '"' not in d


def build_flags(kernel: Path, pto: Path) -> list[list[str]]:
    """The flags of each build of `kernel` (one list per build; [[]] when no build file names it)."""
    pto = pto.resolve()
    folder = kernel.resolve().parent
    cmake = next((d / "CMakeLists.txt" for d in [folder, *folder.parents]
                  if (d / "CMakeLists.txt").is_file() and pto in [d, *d.parents]), None)
    if cmake is None:
        return [[]]
    r = _Reader(kernel, cmake, pto)
    r.walk(_commands(cmake.read_text(errors="replace")), {})
    common_inc = r.includes + [d for t in sorted(r.targets) for d in r.target_includes.get(t, [])]
    common_def = r.defines + [d for t in sorted(r.targets) for d in r.target_defines.get(t, [])]
    builds = r.custom_builds or [[]]
    if not r.targets and not r.custom_builds:
        common_inc, common_def = [], []
    out: list[list[str]] = []
    for extra in builds:
        incs = common_inc + [a[2:] for a in extra if a.startswith("-I")]
        defs = common_def + [a[2:] for a in extra if a.startswith("-D")]
        flags: list[str] = [w for a in extra if a.startswith("--core=") for w in ("--core", a[7:])]
        for d in incs:
            kept = _keep_dir(d, pto)
            if kept and kept not in flags:
                flags += ["-I", kept]
        for d in defs:
            if _keep_define(d) and d not in flags:
                flags += ["-D", d]
        if flags not in out:
            out.append(flags)
    return out or [[]]
