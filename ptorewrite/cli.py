"""The `ptorewrite` command line.

Exit status: 0 success, 1 ran and found problems, 2 bad input or usage, 3 internal error (a bug
in ptorewrite: reported in one line, never as a traceback).
"""

from __future__ import annotations

import argparse
import os
import sys

from ptorewrite import __version__
from ptorewrite.diagnostics import PtoError, Reporter
from ptorewrite.inputs import check_output, check_source, load_kernels
from ptorewrite.parse.arch_macros import CORE_TYPES
from ptorewrite.parse.invocation import FrontendOptions

# The CMake package installed with ptorewrite: PtoRewriteConfig.cmake and PtoRewrite.cmake.
CMAKE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cmake")


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
    names = [k.name for k in kernels]
    for i, kernel in enumerate(kernels):
        if len(kernels) > 1:
            core = f" (core {kernel.core})" if names.count(kernel.name) > 1 else ""  # a cluster's cores
            sys.stdout.write(("\n" if i else "") + f"# kernel {i + 1} of {len(kernels)}: {kernel.name}{core}\n")
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
            for launch in inst.launches:
                line += "\n    launched with " + ", ".join(f"{n}={v}" for n, v in launch)
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


def _auto2manual_usage(args: argparse.Namespace) -> None:
    """Option combinations that cannot work, refused before any parsing (exit status 2)."""
    if args.check and (args.output or args.in_place or args.diff):
        raise PtoError("--check compares with an existing file and writes nothing: it does not go with -o, -i or "
                       "--diff")
    if args.depfile and not (args.output and args.output != "-") and not args.in_place and not args.depfile_target:
        raise PtoError("--depfile needs the file it describes: give -o FILE (or -i, or --depfile-target NAME)")
    if args.in_place:
        check_output(args.kernel, what="in-place output")
    elif args.output and args.output != "-":
        check_output(args.output, args.kernel)
    for path, what in ((args.depfile, "depfile"), (args.explain, "explanation")):
        if path:
            check_output(path, args.kernel, what=what)
    if args.check:
        from ptorewrite.inputs import check_input

        check_input(args.check)


def cmd_auto2manual(args: argparse.Namespace, reporter: Reporter) -> int:
    _auto2manual_usage(args)
    from ptorewrite.parse import reads

    with reads.recording() as read:
        # Bad input is refused before the imports below.
        kernels = load_kernels(args.kernel, frontend_options(args), reporter)
    from ptorewrite import outputs
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
                             conservative=args.conservative, values=values,
                             multibuffer=not args.no_multibuffer, buffers=args.buffers)
    rewritten = rewrite_kernels(kernels, prof, reporter, options)
    text, results, kernels = rewritten.text, rewritten.results, rewritten.kernels
    with open(args.kernel, "rb") as f:
        original = f.read()
    if args.explain:
        from ptorewrite.explain.record import explain_rewrite, to_json

        record = explain_rewrite(kernels, rewritten, prof, options, original, args.kernel,
                                 output=None if args.check else args.output if args.output != "-" else None,
                                 in_place=args.in_place)
        outputs.write_if_changed(args.explain, to_json(record))
    headers = rewritten.headers
    places: dict[str, str] = {}
    if headers and not args.in_place:
        out_path = args.check or (args.output if args.output and args.output != "-" else None)
        if out_path is None and not args.diff:
            raise PtoError(f"the rewrite changes {len(headers)} header(s) of the kernel's folder too "
                           f"({', '.join(headers)}): stdout holds one file; give -o OUT.cpp (the headers are "
                           "written beside it) or -i")
        from ptorewrite.header_copies import header_destinations

        if out_path is not None:
            places = header_destinations(args.kernel, out_path, list(headers), set(read), args.include_dirs)
    elif headers:
        places = {h: h for h in headers}
    if args.check:
        return _check_fresh(args, text, reporter, {places[h]: data for h, data in headers.items()})
    if args.depfile:
        target = args.depfile_target or (args.kernel if args.in_place else args.output)
        deps = set(read) | {os.path.normpath(os.path.abspath(args.kernel))}
        if args.build_dir:
            deps.add(os.path.normpath(os.path.abspath(os.path.join(args.build_dir, "compile_commands.json"))))
        # Written before the output: a build that uses the depfile as its stamp then finds the
        # output (when it changed) no older than the stamp.
        outputs.write_atomically(args.depfile, outputs.depfile_text(target, deps).encode())
    to_stdout = not (args.output or args.in_place)
    # The headers first: a build that watches the kernel's output then finds its headers ready.
    for h, data in headers.items():
        if h in places:
            outputs.write_if_changed(places[h], data)
    if args.in_place:
        outputs.write_if_changed(args.kernel, text)
    elif args.output and args.output != "-":
        outputs.write_if_changed(args.output, text)
        from ptorewrite.header_copies import includes_left_behind

        written = {args.kernel: args.output, **{h: places[h] for h in headers if h in places}}
        for loc, message, shadowed in includes_left_behind(written):
            (reporter.warn if shadowed else reporter.note)(message, loc)
    if args.diff:
        sys.stdout.write(outputs.unified_diff(original, text, args.kernel, args.kernel))
        for h, data in headers.items():
            with open(h, "rb") as f:
                sys.stdout.write(outputs.unified_diff(f.read(), data, h, h))
        sys.stdout.flush()
    elif to_stdout or args.output == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(text)
        sys.stdout.flush()
        to_stdout = True
    if args.memory_report:
        report = "".join(format_memory_report(k, r.plan, r.multibuffered, r.shared) for k, r in zip(kernels, results))
        (sys.stderr if to_stdout or args.diff else sys.stdout).write(report)
    return 0


CHECK_DIFF_LINES = 40  # --check shows at most this many lines of its diff


def _check_fresh(args: argparse.Namespace, text: bytes, reporter: Reporter, headers: dict[str, bytes]) -> int:
    """--check MANUAL.cpp: 0 when it (and each rewritten header beside it) holds exactly what the
    rewrite writes now, else 1 with a short diff from them to the fresh rewrite."""
    from ptorewrite import outputs

    diff = ""
    for path, fresh in [(args.check, text), *sorted(headers.items())]:
        try:
            with open(path, "rb") as f:
                current = f.read()
        except FileNotFoundError:
            current = b""
        if current != fresh:
            diff += outputs.unified_diff(current, fresh, path, path, context=1)
    if not diff:
        return 0
    shown, left = outputs.shortened(diff, CHECK_DIFF_LINES)
    reporter.print()
    reporter.diagnostics.clear()
    sys.stdout.write(shown)
    if left:
        sys.stdout.write(f"... {left} more line(s) of diff; `ptorewrite auto2manual {args.kernel} --diff` "
                         "shows the whole rewrite\n")
    sys.stdout.flush()
    print(f"{args.check}: error: out of date: not what `ptorewrite auto2manual {args.kernel}` writes now; "
          f"regenerate it with `ptorewrite auto2manual {args.kernel} -o {args.check}`", file=sys.stderr)
    return 1


def _buffers_arg(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= 8:
        raise argparse.ArgumentTypeError(f"--buffers takes a number of copies from 1 to 8, not '{text}'")
    return n


def _add_auto2manual(sub) -> None:
    p = sub.add_parser(
        "auto2manual", help="rewrite an AUTO-mode kernel into a manual-mode kernel (TASSIGN + pipe sync)",
        description="Place every tile with TASSIGN and synchronize the pipes. On bad input (or when the tiles "
                    "do not fit) nothing is written and the exit status is 2.")
    p.add_argument("kernel", metavar="KERNEL.cpp")
    out = p.add_mutually_exclusive_group()
    out.add_argument("-o", dest="output", metavar="FILE",
                     help="write the manual kernel to FILE (default stdout); FILE is left untouched when it already "
                          "holds the rewrite")
    out.add_argument("-i", dest="in_place", action="store_true",
                     help="rewrite KERNEL.cpp in place (atomically; untouched when nothing changes)")
    p.add_argument("--diff", action="store_true",
                   help="print a unified diff from KERNEL.cpp to the rewrite on stdout (apply it with patch -p0 or "
                        "git apply -p0 from this directory) instead of the rewrite itself")
    p.add_argument("--check", metavar="MANUAL.cpp",
                   help="write nothing; exit 0 if MANUAL.cpp holds exactly the rewrite, else 1 with a short diff")
    p.add_argument("--depfile", metavar="FILE",
                   help="also write a Makefile-style dependency file: the output depends on KERNEL.cpp and every "
                        "header the parse read")
    p.add_argument("--depfile-target", metavar="NAME",
                   help="the target the dependency file names (default: the -o file)")
    p.add_argument("--explain", metavar="FILE.json",
                   help="also write why each line was inserted, as JSON (schema: ptorewrite/explain/schema)")
    p.add_argument("--checked-tassign", action="store_true",
                   help="emit pto-isa's compile-time form TASSIGN<addr>(tile) (bounds checked by the compiler)")
    p.add_argument("--set", dest="values", action="append", default=[], type=_value_arg, metavar="NAME=VALUE",
                   help="a runtime value (a scalar argument or block_idx); checked against the kernel, but "
                        "not needed: the synchronization is planned for every value; repeatable")
    p.add_argument("--conservative", action="store_true",
                   help="instead of planned syncs, a full barrier after every instruction (a slow baseline for "
                        "comparison and bisecting)")
    p.add_argument("--buffers", type=_buffers_arg, default=2, metavar="N",
                   help="copies per automatically multi-buffered tile (default 2)")
    p.add_argument("--no-multibuffer", action="store_true",
                   help="keep every single tile single (no automatic multi-buffering)")
    p.add_argument("--memory-report", action="store_true",
                   help="print the memory plan (to stderr when the kernel goes to stdout, else to stdout)")
    p.add_argument("--capacity", action="append", default=[], type=_capacity_arg, metavar="BUF=BYTES",
                   help="limit a buffer (UB, L1, L0A, L0B, L0C, BIAS, FB) to BYTES, e.g. UB=96K or UB=0x18000; "
                        "repeatable")
    p.add_argument("--reserve", action="append", default=[], type=_reserve_arg, metavar="BUF=START:END",
                   help="keep bytes [START, END) of a buffer free of tiles, e.g. UB=0:4K; repeatable")
    _common(p)
    p.set_defaults(func=cmd_auto2manual)


class _PrintCmakeDir(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        print(CMAKE_DIR)
        parser.exit()


def cmd_manual2auto(args: argparse.Namespace, reporter: Reporter) -> int:
    if args.in_place:
        check_output(args.kernel, what="in-place output")
    elif args.output and args.output != "-":
        check_output(args.output, args.kernel)
    check_source(args.kernel, args.defines)
    from ptorewrite import outputs
    from ptorewrite.transform.manual2auto import manual_to_auto

    stripped = manual_to_auto(args.kernel, frontend_options(args, auto_mode=False), reporter)
    if args.in_place:
        outputs.write_if_changed(args.kernel, stripped.text)
    elif args.output and args.output != "-":
        outputs.write_if_changed(args.output, stripped.text)
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(stripped.text)
        sys.stdout.flush()
    return 0


def cmd_explain(args: argparse.Namespace, reporter: Reporter) -> int:
    for path, what in ((args.html, "HTML report"), (args.json, "explanation")):
        if path:
            check_output(path, args.kernel, what=what)
    kernels = load_kernels(args.kernel, frontend_options(args), reporter)
    from ptorewrite import outputs
    from ptorewrite.arch import profile
    from ptorewrite.explain.record import explain_rewrite, to_json
    from ptorewrite.explain.views import print_terminal, render_html, timeline_svg
    from ptorewrite.transform.rewrite import RewriteOptions, rewrite_kernels

    prof = profile(args.arch)
    options = RewriteOptions()
    rewritten = rewrite_kernels(kernels, prof, reporter, options)
    with open(args.kernel, "rb") as f:
        original = f.read()
    kernels = rewritten.kernels  # as planned (a cluster's cores each with its view of the others)
    record = explain_rewrite(kernels, rewritten, prof, options, original, args.kernel)
    reporter.print()
    reporter.diagnostics.clear()
    if args.json:
        outputs.write_if_changed(args.json, to_json(record))
    if args.html:
        values = {"block_idx": args.block_idx, "block_num": args.block_num, **dict(args.values)}
        entry = args.entry or (kernels[0].name if len(kernels) > 1 else None)
        svg, note = timeline_svg(args.kernel, rewritten.text, frontend_options(args), args.arch, values, entry)
        page = render_html(record, original, rewritten.text, svg, note)
        outputs.write_if_changed(args.html, page.encode("utf-8"))
        print(f"{args.html}: the input and the rewrite side by side, {note}")
    else:
        print_terminal(record, rewritten.text)
    return 0


def _add_explain(sub) -> None:
    p = sub.add_parser(
        "explain", help="show why auto2manual inserts each line: annotated in the terminal, or as an HTML report",
        description="Rewrite KERNEL.cpp (nothing is written to it) and show every inserted line coloured by pipe "
                    "pair with the statements it orders; --html writes the input and the rewrite side by side "
                    "with the rewrite's emulated pipe timeline, where clicking a sync highlights its edges.")
    p.add_argument("kernel", metavar="KERNEL.cpp")
    p.add_argument("--html", metavar="OUT.html", help="write an HTML report instead of printing")
    p.add_argument("--json", metavar="FILE.json", help="also write the record (as auto2manual --explain does)")
    p.add_argument("--set", dest="values", action="append", default=[], type=_value_arg, metavar="NAME=VALUE",
                   help="a runtime value the timeline is emulated with (a scalar kernel argument); repeatable")
    p.add_argument("--block-idx", type=int, default=0, metavar="N", help="get_block_idx() for the timeline (default 0)")
    p.add_argument("--block-num", type=int, default=1, metavar="N", help="get_block_num() for the timeline (default 1)")
    _common(p)
    p.set_defaults(func=cmd_explain)


def _add_manual2auto(sub) -> None:
    p = sub.add_parser(
        "manual2auto", help="strip TASSIGN and synchronization from a manual kernel: its AUTO-mode form",
        description="Delete the TASSIGN of tiles, set_flag/wait_flag/pipe_barrier, typed events and flag helper "
                    "calls from a hand-written manual kernel or from ptorewrite's own output; everything else keeps "
                    "its bytes. auto2manual of the result gives ptorewrite's rewrite of it.")
    p.add_argument("kernel", metavar="MANUAL.cpp")
    out = p.add_mutually_exclusive_group()
    out.add_argument("-o", dest="output", metavar="FILE", help="write the AUTO kernel to FILE (default stdout)")
    out.add_argument("-i", dest="in_place", action="store_true", help="strip MANUAL.cpp in place (atomically)")
    _common(p)
    p.set_defaults(func=cmd_manual2auto)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ptorewrite",
        description="Rewrite AUTO-mode PTO kernels into manual-mode kernels, and check them.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--cmake-dir", action=_PrintCmakeDir, nargs=0,
                        help="print the folder of ptorewrite's CMake package (for find_package(PtoRewrite) with "
                             "PtoRewrite_DIR, or include() of its PtoRewrite.cmake) and exit")
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
    _add_manual2auto(sub)
    _add_explain(sub)
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
