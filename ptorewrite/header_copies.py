"""Where `auto2manual -o OUT.cpp` writes the user's headers it rewrote.

A header of the user's that gets lines (transform.header_edits) is written beside OUT.cpp
under the name its `#include "..."` spells. A quoted include looks in the including file's
own folder first, so OUT.cpp, and a rewritten header written there, pick up the copies, not
the originals. That holds only when every file that includes the header is itself written
beside OUT.cpp (the kernel, or another rewritten header): an unchanged header including it
would still find the original in its own folder. Where it cannot hold the command stops with
a located error, before writing anything:
- the header is included by a file that is not rewritten, or with `<...>` (not searched in
  the including file's folder), or by a spelling that leaves the folder (`..`, an absolute path);
- two includes of it spell different places;
- the copy would land on the original (OUT.cpp in the header's own folder: use -i to rewrite
  the header in place, or -o in another folder).
The includes are read lexically (every `#include` line, whatever `#if` it is under), which can
only find more includers, never fewer.
"""

from __future__ import annotations

import os
import re

from ptorewrite.diagnostics import Location, PtoError
from ptorewrite.parse.invocation import is_bundled

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^">\n]+)[">]', re.MULTILINE)


def _real(path: str) -> str:
    return os.path.realpath(path)


def _includes(path: str) -> list[tuple[int, int, str, str]]:
    """(line, column, "<" or '"', spelling) of each #include line of the file."""
    with open(path, "rb") as f:
        data = f.read()
    out = []
    for m in _INCLUDE.finditer(data):
        line = data.count(b"\n", 0, m.start()) + 1
        col = data.index(b"#", m.start()) - m.start() + 1
        out.append((line, col, m.group(1).decode(), m.group(2).decode("latin-1").strip()))
    return out


def _resolve(includer: str, form: str, spelling: str, include_dirs: list[str]) -> str | None:
    dirs = ([os.path.dirname(os.path.abspath(includer))] if form == '"' else []) + list(include_dirs)
    for d in dirs:
        candidate = os.path.join(d, spelling)
        if os.path.isfile(candidate):
            return _real(candidate)
    return None


def header_destinations(kernel: str, output: str, headers: list[str], read: set[str],
                        include_dirs: list[str]) -> dict[str, str]:
    """For each rewritten header, the path its copy is written to (beside `output`)."""
    wanted = {_real(h): h for h in headers}
    files = sorted({kernel, *read} - {p for p in read if is_bundled(p) or p.startswith("/usr/")})
    includers: dict[str, list[tuple[str, int, int, str, str]]] = {h: [] for h in wanted}
    for f in files:
        if not os.path.isfile(f):
            continue
        for line, col, form, spelling in _includes(f):
            target = _resolve(f, form, spelling, include_dirs)
            if target in wanted:
                includers[target].append((f, line, col, form, spelling))
    dest: dict[str, str] = {_real(kernel): os.path.abspath(output)}
    todo = sorted(wanted)
    while todo:
        progressed = False
        for h in list(todo):
            found = includers[h]
            if not found:
                raise PtoError(f"the rewritten header {wanted[h]} has no #include this command can follow (from the "
                               "kernel file or a header of a -I folder), so OUT.cpp could not be made to use its copy")
            if any(_real(f) not in dest and _real(f) not in wanted for f, *_ in found):
                bad = next(x for x in found if _real(x[0]) not in wanted and _real(x[0]) != _real(kernel))
                raise _error(bad, f"'{bad[0]}' is not rewritten but includes {wanted[h]}, which is: it would "
                                  "still find the original in its own folder, not the copy written beside "
                                  f"{output}; include the header from the kernel file (or a rewritten header), or "
                                  "use -i")
            if any(_real(f) not in dest for f, *_ in found):
                continue  # an includer's own place is not known yet
            places = set()
            for f, line, col, form, spelling in found:
                if form != '"':
                    raise _error((f, line, col), f"{wanted[h]} is included with <...>, which is not searched in "
                                                 "the including file's folder: the copy written beside "
                                                 f"{output} would not be used; include it with \"...\"")
                if os.path.isabs(spelling) or ".." in spelling.replace("\\", "/").split("/"):
                    raise _error((f, line, col), f"'{spelling}' leaves the including file's folder: a copy "
                                                 f"written beside {output} would not be used")
                places.add(os.path.normpath(os.path.join(os.path.dirname(dest[_real(f)]), spelling)))
            if len(places) > 1:
                f, line, col, *_ = found[0]
                raise _error((f, line, col), f"{wanted[h]} is included under different names "
                                             f"({', '.join(sorted(places))}): its copy can have only one place")
            (place,) = places
            if os.path.exists(place) and _real(place) == h:
                raise PtoError(f"the rewritten header {wanted[h]} would be written over itself beside {output}: "
                               "give -o a file in another folder, or use -i to rewrite the kernel and its headers "
                               "in place")
            dest[h] = place
            todo.remove(h)
            progressed = True
        if not progressed:
            raise PtoError(f"the rewritten headers {', '.join(wanted[h] for h in todo)} include each other in a "
                           "cycle: their copies' places cannot be decided")
    return {wanted[h]: dest[h] for h in wanted}


def includes_left_behind(written: dict[str, str]) -> list[tuple[Location, str, bool]]:
    """Quoted includes of the files written elsewhere (`written`: original path -> where its
    rewrite goes: the kernel to OUT.cpp, a rewritten header to its copy beside it) that find a
    header in the original's own folder, not copied: from the new place the include looks beside
    the written file first, so a build of it finds that header only with the original folder on
    its include path. One (location of the include, message, shadowed) each: `shadowed` when a
    different file of that name lies beside the written one (a copy an earlier rewrite wrote
    there, say), which the build takes instead of the original: a warning, not a note."""
    copied = {_real(f) for f in written}
    out = []
    for original, place in sorted(written.items()):
        here, there = os.path.dirname(os.path.abspath(original)), os.path.dirname(os.path.abspath(place))
        if _real(here) == _real(there) or not os.path.isfile(original):
            continue
        for line, col, form, spelling in _includes(original):
            target = _resolve(original, form, spelling, []) if form == '"' else None
            if target is None or target in copied:
                continue
            beside = os.path.join(there, spelling)
            if os.path.isfile(beside) and _real(beside) == target:
                continue
            found = (f"; beside it is {beside}, a different file, which the build would take instead"
                     if os.path.isfile(beside) else "")
            out.append((Location(original, line, col),
                        (f'{place} includes "{spelling}", found in {here}, not beside {place}: build it with '
                        f"-I {here}{found}"), bool(found)))
    return out


def _error(where: tuple, message: str) -> PtoError:
    f, line, col = where[:3]
    return PtoError(message, Location(f, line, col))
