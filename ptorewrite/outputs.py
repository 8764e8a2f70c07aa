"""What the commands write: files replaced atomically and only when their bytes change,
Makefile-style dependency files, and unified diffs that `patch -p0` applies.
"""

from __future__ import annotations

import difflib
import os
import stat
import tempfile
from collections.abc import Iterable


def _umask() -> int:
    """The process's file mode creation mask. Linux states it in /proc/self/status; elsewhere it
    is read by setting it and setting it back (the only portable way)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _mode_for(path: str) -> int:
    """The permission bits `path` gets when written as `open(path, "w")` would write it: a file
    that is there keeps its own, a new one gets 0666 less the umask."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~_umask()


def write_atomically(path: str, data: bytes) -> None:
    """Write a temporary file next to `path`, then rename it over `path`. The result has the
    mode an ordinary write would leave (`_mode_for`), not the temporary file's private 0600."""
    directory = os.path.dirname(os.path.abspath(path))
    mode = _mode_for(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".ptorewrite-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_if_changed(path: str, data: bytes) -> bool:
    """Write `data` to `path` unless the file already holds exactly these bytes (its time stamp
    then stays as it is, so a build that depends on it has nothing to redo). True if written."""
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return False
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        pass
    write_atomically(path, data)
    return True


# ---------------------------------------------------------------- dependency files


def _make_escape(path: str) -> str:
    """A path as a Makefile rule writes it (the escapes gcc's -MD uses)."""
    out = []
    for i, c in enumerate(path):
        if c == " ":
            # Backslashes right before a space are doubled, then the space is escaped.
            j = i
            while j > 0 and path[j - 1] == "\\":
                out.append("\\")
                j -= 1
            out.append("\\ ")
        elif c == "#":
            out.append("\\#")
        elif c == "$":
            out.append("$$")
        else:
            out.append(c)
    return "".join(out)


def depfile_text(target: str, deps: Iterable[str]) -> str:
    """`target: dep1 dep2 ...`, one dependency per continued line, sorted."""
    lines = [f"{_make_escape(target)}:"]
    lines += [f"  {_make_escape(d)}" for d in sorted(set(deps))]
    return " \\\n".join(lines) + "\n"


# ---------------------------------------------------------------- diffs


_NO_NEWLINE = "\\ No newline at end of file\n"


def unified_diff(old: bytes, new: bytes, old_label: str, new_label: str, context: int = 3) -> str:
    """A unified diff from `old` to `new` (bytes read as Latin-1, so every byte survives), with
    the `\\ No newline at end of file` markers patch needs; empty when they are equal."""
    a = old.decode("latin-1").splitlines(keepends=True)
    b = new.decode("latin-1").splitlines(keepends=True)
    out = []
    for line in difflib.unified_diff(a, b, old_label, new_label, n=context):
        if line.endswith("\n"):
            out.append(line)
        else:  # the last line of a file without a final newline
            out.append(line + "\n" + _NO_NEWLINE)
    return "".join(out)


def shortened(diff: str, max_lines: int) -> tuple[str, int]:
    """The first `max_lines` lines of a diff, and how many were left out."""
    lines = diff.splitlines(keepends=True)
    if len(lines) <= max_lines:
        return diff, 0
    return "".join(lines[:max_lines]), len(lines) - max_lines
