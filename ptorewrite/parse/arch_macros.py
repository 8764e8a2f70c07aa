"""Predefined macros the Ascend compiler sets for each architecture profile and core type.

The front end passes these with -D when it parses a kernel against the bundled parse-only
headers (ptorewrite/parse/include), so that a kernel's `#if defined(__DAV_C220_VEC__)` style
guards select the same code the real compiler would.

Sources: pto-isa derives its architecture from `__NPU_ARCH__` (2201 -> a2a3; 3101 or 3510 ->
a5) and its kernels test `__DAV_C220_{VEC,CUBE}__` / `__DAV_C310_{VEC,CUBE}__`; generated
kernels also test the core-type shorthands `__DAV_VEC__` / `__DAV_CUBE__`. `__CCE_AICORE__`
is 220 on a2a3 and 310 on a5 (Ascend 950).
"""

from __future__ import annotations

from pathlib import Path

# Directory to pass with -I: it holds pto/pto-inst.hpp and multiBuffer.hpp.
INCLUDE_DIR = Path(__file__).resolve().parent / "include"

ARCH_MACROS: dict[str, dict[str, dict[str, str]]] = {
    "a2a3": {
        "common": {"__CCE_AICORE__": "220", "__NPU_ARCH__": "2201"},
        "vec": {"__DAV_C220_VEC__": "1", "__DAV_VEC__": "1"},
        "cube": {"__DAV_C220_CUBE__": "1", "__DAV_CUBE__": "1"},
    },
    "a5": {
        "common": {"__CCE_AICORE__": "310", "__NPU_ARCH__": "3101"},
        "vec": {"__DAV_C310_VEC__": "1", "__DAV_VEC__": "1"},
        "cube": {"__DAV_C310_CUBE__": "1", "__DAV_CUBE__": "1"},
    },
}

# Defined by the compiler when it builds an AUTO-mode kernel (spec §3). Manual-mode output
# is parsed without it.
AUTO_MODE_MACROS: dict[str, str] = {"__PTO_AUTO__": "1"}

CORE_TYPES = ("vec", "cube")


def macros(arch: str, core: str, auto_mode: bool = True) -> dict[str, str]:
    """All predefined macros for one architecture profile and core type ("vec" or "cube")."""
    if arch not in ARCH_MACROS:
        raise ValueError(f"unknown architecture profile {arch!r}; expected one of {sorted(ARCH_MACROS)}")
    if core not in CORE_TYPES:
        raise ValueError(f"unknown core type {core!r}; expected one of {CORE_TYPES}")
    out = dict(ARCH_MACROS[arch]["common"])
    out.update(ARCH_MACROS[arch][core])
    if auto_mode:
        out.update(AUTO_MODE_MACROS)
    return out


def define_args(arch: str, core: str, auto_mode: bool = True) -> list[str]:
    """The -D arguments for `macros(arch, core, auto_mode)`."""
    return [f"-D{name}={value}" for name, value in macros(arch, core, auto_mode).items()]


def parse_args(arch: str, core: str, auto_mode: bool = True, std: str = "c++17") -> list[str]:
    """A complete libclang argument list for parsing a kernel against the bundled headers."""
    return ["-x", "c++", f"-std={std}", "-I", str(INCLUDE_DIR), *define_args(arch, core, auto_mode)]
