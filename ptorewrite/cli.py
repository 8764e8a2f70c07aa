"""The `ptorewrite` command line.

Exit status: 0 success, 1 ran and found problems, 2 bad input or usage, 3 internal error (a bug
in ptorewrite: reported in one line, never as a traceback).
"""

from __future__ import annotations

import argparse
import sys

from ptorewrite.diagnostics import PtoError, Reporter
from ptorewrite.inputs import check_output, check_source, load_kernels
from ptorewrite.parse.frontend import CORE_TYPES, FrontendOptions


def _std_arg(text: str) -> str:
    value = text.removeprefix("=")
    if not value or value.startswith("-"):
        raise argparse.ArgumentTypeError(f"expected -std=STANDARD (e.g. -std=c++20), got '{text}'")
    return value


def _common(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("front end (clang-tool style)")
    g.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                   help="add an include directory")
    g.add_argument("-isystem", dest="system_include_dirs", action="append", default=[], metavar="DIR",
                   help="add a system include directory (searched after -I; its headers are not the user's)")
    g.add_argument("-idirafter", dest="after_include_dirs", action="append", default=[], metavar="DIR",
                   help="add an include directory searched after all others")
    g.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VAL]",
                   help="define a macro")
    g.add_argument("-U", dest="undefines", action="append", default=[], metavar="NAME",
                   help="undefine a macro (applied after every -D)")
    g.add_argument("-include", dest="forced_includes", action="append", default=[], metavar="FILE",
                   help="include FILE before the kernel file (as pto-isa's builds do with stdint.h)")
    g.add_argument("-std", dest="std", type=_std_arg, default=None, metavar="=STD",
                   help="language standard, e.g. -std=c++20 (default: c++17; c++20 with --pto-isa-root)")
    g.add_argument("--arch", choices=("a2a3", "a5"), default="a2a3", help="target architecture (default a2a3)")
    g.add_argument("--core", choices=CORE_TYPES, default=None,
                   help="core type to compile for (default: chosen from the file's arch guards)")
    g.add_argument("--entry", metavar="NAME[<ARGS>]",
                   help="kernel function, when a file has several; NAME<ARGS> (quoted) picks one instantiation "
                        "of a kernel template, e.g. --entry 'runTAdd<float, 64, 64>'")
    g.add_argument("--pto-isa-root", metavar="DIR",
                   help="parse against pto-isa's own headers in DIR/include, in the configuration of its CPU "
                        "simulator (__CPU_SIM, C++20)")
    g.add_argument("-p", dest="build_dir", metavar="BUILD_DIR",
                   help="take -I/-isystem/-idirafter/-D/-U/-include/-std from BUILD_DIR/compile_commands.json")


def frontend_options(args: argparse.Namespace, auto_mode: bool = True) -> FrontendOptions:
    from ptorewrite.inputs import check_defines

    check_defines(args.defines)
    return FrontendOptions(
        include_dirs=args.include_dirs, defines=args.defines, undefines=args.undefines,
        forced_includes=args.forced_includes, system_include_dirs=args.system_include_dirs,
        after_include_dirs=args.after_include_dirs, std=args.std, arch=args.arch, entry=args.entry,
        core=args.core, pto_isa_root=args.pto_isa_root, build_dir=args.build_dir, auto_mode=auto_mode,
    )


def cmd_ir(args: argparse.Namespace, reporter: Reporter) -> int:
    check_source(args.kernel, args.defines)
    from ptorewrite.analysis.ir_text import format_kernel

    # As `check` reads it: a manual build first (events and guarded flags compile), AUTO if it is one.
    kernels = load_kernels(args.kernel, frontend_options(args, auto_mode=False), reporter)
    if kernels[0].mode == "auto":
        kernels = load_kernels(args.kernel, frontend_options(args), reporter)
    for i, kernel in enumerate(kernels):
        if len(kernels) > 1:
            sys.stdout.write(("\n" if i else "") + f"# kernel {i + 1} of {len(kernels)}: {kernel.name}\n")
        sys.stdout.write(format_kernel(kernel))
    return 0


def cmd_kernels(args: argparse.Namespace, reporter: Reporter) -> int:
    check_source(args.kernel, args.defines)
    from ptorewrite.parse.frontend import list_kernels

    for site in list_kernels(args.kernel, frontend_options(args)):
        line = f"{site.defined_at}: {site.name} [{site.core}]"
        inst = site.instantiation
        if inst is not None:
            line += f" {'named with --entry' if inst.origin == '--entry' else 'instantiated at ' + str(inst.loc)}"
            for spec, loc in inst.via:
                line += f"\n    from {spec} at {loc}"
        print(line)
    return 0


# ---------------------------------------------------------------- auto2manual


def _byte_count(text: str) -> int:
    """`122880`, `0x1E000`, `120K` / `120KiB` (x 1024)."""
    t = text.strip()
    scale = 1
    for suffix in ("KiB", "KB", "K", "k"):
        if t.endswith(suffix):
            t, scale = t[: -len(suffix)], 1024
            break
    try:
        n = int(t, 0) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a byte count: '{text}' (e.g. 122880, 0x1E000, 120K)") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"negative byte count: '{text}'")
    return n


def _buffer_name(name: str) -> str:
    from ptorewrite.transform.memplan import BUFFER_ORDER

    b = name.strip().upper()
    if b not in BUFFER_ORDER:
        raise argparse.ArgumentTypeError(f"unknown buffer '{name}' (one of {', '.join(BUFFER_ORDER)})")
    return b


def _capacity_arg(text: str) -> tuple[str, int]:
    name, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"expected BUF=BYTES, got '{text}'")
    return _buffer_name(name), _byte_count(value)


def _reserve_arg(text: str) -> tuple[str, tuple[int, int]]:
    name, sep, value = text.partition("=")
    lo, colon, hi = value.partition(":")
    if not sep or not colon:
        raise argparse.ArgumentTypeError(f"expected BUF=START:END, got '{text}'")
    start, end = _byte_count(lo), _byte_count(hi)
    if end <= start:
        raise argparse.ArgumentTypeError(f"empty range in '{text}' (END is exclusive)")
    return _buffer_name(name), (start, end)


def _value_arg(text: str) -> tuple[str, int]:
    name, _, value = text.partition("=")
    try:
        return name.strip(), int(value, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected NAME=INTEGER, got '{text}'") from None


def _write_atomically(path: str, data: bytes, mode_from: str | None = None) -> None:
    """Write a temporary file next to `path`, then rename it over `path`."""
    import os
    import shutil
    import tempfile

    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".ptorewrite-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if mode_from is not None and os.path.exists(mode_from):
            shutil.copymode(mode_from, tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def cmd_auto2manual(args: argparse.Namespace, reporter: Reporter) -> int:
    if args.in_place:
        check_output(args.kernel, what="in-place output")
    elif args.output and args.output != "-":
        check_output(args.output, args.kernel)
    kernels = load_kernels(args.kernel, frontend_options(args), reporter)  # bad input is refused before the imports
    from ptorewrite.arch import profile
    from ptorewrite.transform.memory_report import format_memory_report
    from ptorewrite.transform.rewrite import RewriteOptions, rewrite_kernels

    prof = profile(args.arch)
    if args.capacity:
        prof = prof.with_capacity(dict(args.capacity))
    reserved: dict[str, list[tuple[int, int]]] = {}
    for name, rng in args.reserve:
        reserved.setdefault(name, []).append(rng)
    values = dict(args.values)
    used = sorted({v for k in kernels for v in k.runtime_values})
    unknown = sorted(set(values) - set(used))
    if unknown:
        raise PtoError(f"--set names {', '.join(unknown)}, which the kernel does not use at run time "
                       f"(it uses: {', '.join(used) or 'none'})")
    options = RewriteOptions(checked_tassign=args.checked_tassign, reserved=reserved,
                             conservative=args.conservative, values=values)
    rewritten = rewrite_kernels(kernels, prof, reporter, options)
    text, results = rewritten.text, rewritten.results
    to_stdout = not (args.output or args.in_place)
    if args.in_place:
        _write_atomically(args.kernel, text, mode_from=args.kernel)
    elif args.output and args.output != "-":
        _write_atomically(args.output, text)
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(text)
        sys.stdout.flush()
        to_stdout = True
    if args.memory_report:
        report = "".join(format_memory_report(k, r.plan) for k, r in zip(kernels, results))
        (sys.stderr if to_stdout else sys.stdout).write(report)
    return 0


def _add_auto2manual(sub) -> None:
    p = sub.add_parser(
        "auto2manual", help="rewrite an AUTO-mode kernel into a manual-mode kernel (TASSIGN + pipe sync)",
        description="Place every tile with TASSIGN and synchronize the pipes. On bad input (or when the tiles "
                    "do not fit) nothing is written and the exit status is 2.")
    p.add_argument("kernel", metavar="KERNEL.cpp")
    out = p.add_mutually_exclusive_group()
    out.add_argument("-o", dest="output", metavar="FILE", help="write the manual kernel to FILE (default stdout)")
    out.add_argument("-i", dest="in_place", action="store_true", help="rewrite KERNEL.cpp in place (atomically)")
    p.add_argument("--checked-tassign", action="store_true",
                   help="emit pto-isa's compile-time form TASSIGN<addr>(tile) (bounds checked by the compiler)")
    p.add_argument("--set", dest="values", action="append", default=[], type=_value_arg, metavar="NAME=VALUE",
                   help="a runtime value (a scalar argument or block_idx); checked against the kernel, but "
                        "not needed: the synchronization is planned for every value; repeatable")
    p.add_argument("--conservative", action="store_true",
                   help="instead of planned syncs, a full barrier after every instruction (a slow baseline for "
                        "comparison and bisecting)")
    p.add_argument("--memory-report", action="store_true",
                   help="print the memory plan (to stderr when the kernel goes to stdout, else to stdout)")
    p.add_argument("--capacity", action="append", default=[], type=_capacity_arg, metavar="BUF=BYTES",
                   help="limit a buffer (UB, L1, L0A, L0B, L0C, BIAS, FB) to BYTES, e.g. UB=96K or UB=0x18000; "
                        "repeatable")
    p.add_argument("--reserve", action="append", default=[], type=_reserve_arg, metavar="BUF=START:END",
                   help="keep bytes [START, END) of a buffer free of tiles, e.g. UB=0:4K; repeatable")
    _common(p)
    p.set_defaults(func=cmd_auto2manual)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ptorewrite",
        description="Rewrite AUTO-mode PTO kernels into manual-mode kernels, and check them.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("ir", help="print the kernel IR of an AUTO or manual kernel (each instantiation of a "
                                  "kernel template)")
    p.add_argument("kernel", metavar="KERNEL.cpp")
    _common(p)
    p.set_defaults(func=cmd_ir)
    p = sub.add_parser("kernels", help="list the kernels and kernel-template instantiations of a file",
                       description="Each __global__ kernel the file defines for the configuration, and each "
                                   "instantiation of a kernel template the file makes (explicit instantiations, "
                                   "launches, instantiated launchers), with where it is requested.")
    p.add_argument("kernel", metavar="KERNEL.cpp")
    _common(p)
    p.set_defaults(func=cmd_kernels)
    _add_auto2manual(sub)
    from ptorewrite.emulator.commands import add_commands as _add_emulator_commands

    _add_emulator_commands(sub, _common, frontend_options)  # check, simulate, verify
    return parser


# The analysis recurses once per nesting level of the kernel; kernels are refused beyond
# inputs.MAX_NESTING levels, and this leaves room to spare below that.
RECURSION_LIMIT = 20000


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    reporter = Reporter()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, RECURSION_LIMIT))
    try:
        status = args.func(args, reporter)
    except PtoError as e:
        reporter.print()
        print(e.format(), file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except OSError as e:  # a file that went away or cannot be written after the checks
        reporter.print()
        where = f" {e.filename}" if e.filename else ""
        print(f"ptorewrite: error: cannot access{where}: {e.strerror or e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except RecursionError:  # inputs.MAX_NESTING should keep every kernel below this
        reporter.print()
        print("ptorewrite: error: the kernel nests too deeply for ptorewrite's analysis; flatten it or split it "
              "into helpers", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 - a bug: one line, not a traceback
        reporter.print()
        print(f"ptorewrite: internal error: {type(e).__name__}: {e} (a bug in ptorewrite; please report it "
              "with the input that caused it)", file=sys.stderr)
        return 3
    finally:
        sys.setrecursionlimit(limit)
    reporter.print()
    return status


if __name__ == "__main__":
    sys.exit(main())
