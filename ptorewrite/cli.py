"""The `ptorewrite` command line.

Exit status: 0 success, 1 ran and found problems, 2 bad input or usage.
"""

from __future__ import annotations

import argparse
import sys

from ptorewrite.diagnostics import PtoError, Reporter
from ptorewrite.parse.frontend import CORE_TYPES, FrontendOptions, load_kernel


def _common(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("front end (clang-tool style)")
    g.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                   help="add an include directory")
    g.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VAL]",
                   help="define a macro")
    g.add_argument("--arch", choices=("a2a3", "a5"), default="a2a3", help="target architecture (default a2a3)")
    g.add_argument("--core", choices=CORE_TYPES, default=None,
                   help="core type to compile for (default: chosen from the file's arch guards)")
    g.add_argument("--entry", metavar="NAME", help="kernel function, when a file has several")
    g.add_argument("--pto-isa-root", metavar="DIR", help="parse against real pto-isa headers in DIR/include")
    g.add_argument("-p", dest="build_dir", metavar="BUILD_DIR", help="take -I/-D flags from BUILD_DIR/compile_commands.json")


def frontend_options(args: argparse.Namespace, auto_mode: bool = True) -> FrontendOptions:
    return FrontendOptions(
        include_dirs=args.include_dirs, defines=args.defines, arch=args.arch, entry=args.entry,
        core=args.core, pto_isa_root=args.pto_isa_root, build_dir=args.build_dir, auto_mode=auto_mode,
    )


def cmd_ir(args: argparse.Namespace, reporter: Reporter) -> int:
    from ptorewrite.analysis.ir_text import format_kernel

    kernel = load_kernel(args.kernel, frontend_options(args), reporter)
    sys.stdout.write(format_kernel(kernel))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ptorewrite",
        description="Rewrite AUTO-mode PTO kernels into manual-mode kernels, and check them.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("ir", help="print the kernel IR of an AUTO or manual kernel")
    p.add_argument("kernel", metavar="KERNEL.cpp")
    _common(p)
    p.set_defaults(func=cmd_ir)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    reporter = Reporter()
    try:
        status = args.func(args, reporter)
    except PtoError as e:
        reporter.print()
        print(e.format(), file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    reporter.print()
    return status


if __name__ == "__main__":
    sys.exit(main())
