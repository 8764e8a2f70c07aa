"""The join of the planner's happens-before (`analysis.hb`): what every path into a join knows
about a pipe's ops, as computed from index slices, equals the definition read op by op."""

import random

from ptorewrite.analysis import hb
from ptorewrite.analysis.hb import MAX_HOLES, MAX_SCAN, Holes, _entry, _has, _merged_entry


def _by_definition(values, paths, limit, ops):
    """An op is left out when some path issued it (it lies on the path) and does not know it;
    at most MAX_HOLES such ops among the first MAX_SCAN from the first op some path does not know."""
    def on_path(ranges, pos):
        return any(lo <= pos < hi for lo, hi in ranges)

    start = min(v if type(v) is int else min(v.holes) for v in values)
    rest = [o for o in ops if start <= o < limit]
    holes = []
    for scanned, o in enumerate(rest):
        if scanned == MAX_SCAN:
            return _entry(o, holes)
        if any(not _has(v, o) and on_path(r, o) for v, r in zip(values, paths)):
            if len(holes) == MAX_HOLES:
                return _entry(o, holes)
            holes.append(o)
    return _entry(limit, holes)


def _random_case(rng):
    limit = rng.randrange(20, 1200)
    ops = sorted(rng.sample(range(limit + 50), rng.randrange(0, min(limit, 400))))
    fork = rng.randrange(0, limit)
    paths, values = [], []
    start = fork
    for _ in range(rng.randrange(1, 4)):
        end = rng.randrange(start, limit + 1)
        paths.append(((0, fork), (start, end)) if rng.random() < 0.8 else ((0, end),))
        start = end
        upto = rng.randrange(0, limit + 1)
        below = [o for o in ops if o < upto]
        if below and rng.random() < 0.5:
            values.append(Holes(upto, frozenset(rng.sample(below, min(len(below), rng.randrange(1, 40))))))
        else:
            values.append(upto)
    return tuple(values), paths, limit, ops


def test_join_entry_matches_its_definition():
    rng = random.Random(7)
    for _ in range(3000):
        values, paths, limit, ops = _random_case(rng)
        assert _merged_entry(values, paths, limit, ops) == _by_definition(values, paths, limit, ops), \
            (values, paths, limit, ops)


def test_join_entry_bounds_are_reached():
    # Many ops a path does not know: the entry keeps the first MAX_HOLES and stops at the next.
    ops = list(range(0, 400, 2))
    got = _merged_entry((0, 400), [((0, 10), (10, 400)), ((0, 10), (400, 400))], 400, ops)
    assert isinstance(got, Holes) and len(got.holes) == MAX_HOLES
    assert got == _by_definition((0, 400), [((0, 10), (10, 400)), ((0, 10), (400, 400))], 400, ops)
    # Ops every path knows or never issued: nothing is left out.
    assert _merged_entry((5, 400), [((0, 5),), ((0, 400),)], 400, ops) == 400
    assert hb.MAX_SCAN >= MAX_HOLES
