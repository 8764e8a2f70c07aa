"""Predefined macros of each parse configuration, per architecture profile and core type.

Bundled headers (the default): the macros the Ascend compiler (bisheng) defines in the device
pass of a kernel, so that a kernel's `#if __CCE_AICORE__ == 220 && defined(__DAV_C220_VEC__)`
style guards select the code the real compiler would:

- a2a3 (`--cce-aicore-arch=dav-c220-vec` / `-cube`): `__CCE_AICORE__=220`, `__NPU_ARCH__=2201`,
  `__DAV_C220_VEC__` or `__DAV_C220_CUBE__`;
- a5 (`dav-c310-vec` / `-cube`): `__CCE_AICORE__=310`, `__NPU_ARCH__=3101`, `__DAV_C310_VEC__` or
  `__DAV_C310_CUBE__`;
- both: the core-type shorthands `__DAV_VEC__` / `__DAV_CUBE__` that pto-isa's headers and
  kernels test.

pto-isa derives its architecture from `__NPU_ARCH__` (2201 -> a2a3; 3101 or 3510 -> a5); its
kernels test the dav-specific names and the shorthands.

`--pto-isa-root` (pto-isa's CPU-simulator configuration): `__CPU_SIM` and none of the NPU
macros above. The simulator defines both core shorthands when neither is given; ptorewrite
analyses one core type at a time, so it defines the one being analysed.

AUTO-mode kernels are parsed with `__PTO_AUTO__`, as `--cce-pto-auto-enable` defines it.
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

# pto-isa's CPU-simulator build (tests/cpu/st/CMakeLists.txt: add_definitions(-D__CPU_SIM)).
CPU_SIM_MACROS: dict[str, dict[str, str]] = {
    "common": {"__CPU_SIM": "1"},
    "vec": {"__DAV_VEC__": "1"},
    "cube": {"__DAV_CUBE__": "1"},
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
