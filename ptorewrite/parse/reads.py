"""Which files the parses of a run read, for `auto2manual --depfile`.

Inside `recording()`, every parse of the front end adds its main file and every file its
translation unit included (libclang's list of inclusions: user headers, the bundled PTO
headers, the standard library), as absolute paths. Outside it nothing is collected.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

_active: list[set[str]] = []


@contextmanager
def recording() -> Iterator[set[str]]:
    """Collect the files read by the parses made inside the `with` block."""
    files: set[str] = set()
    _active.append(files)
    try:
        yield files
    finally:
        _active.pop()


def note_parse(main: str, tu) -> None:
    """Called by the front end after each parse."""
    if not _active:
        return
    files = _active[-1]
    files.add(_absolute(main))
    for inclusion in tu.get_includes():
        files.add(_absolute(inclusion.include.name))


def _absolute(path: str) -> str:
    return os.path.normpath(os.path.abspath(path))
