"""Batched sorting semantics agree with the step-by-step definitions they replace."""

from __future__ import annotations

import numpy as np
import pytest

from ptorewrite.emulator import semantics
from ptorewrite.emulator.semantics import OpCall, _merge, _merge_stepwise, _pack_structs, _sort_desc


def sorted_lists(rng, dtype, k):
    """k descending lists with many ties (values from a small set, zeros of both signs)."""
    out = []
    for q in range(k):
        n = int(rng.integers(0, 9))
        v = rng.choice(np.array([-2.0, -0.0, 0.0, 0.5, 0.5, 3.0, np.inf]), n).astype(dtype)
        v = v[np.argsort(-v.astype(np.float64), kind="stable")]
        out.append((v, (np.arange(n) + 100 * q).astype(np.uint32)))
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("exhausted", [False, True])
def test_merge_matches_stepwise(dtype, exhausted):
    rng = np.random.default_rng(7)
    for _ in range(300):
        lists = sorted_lists(rng, dtype, int(rng.integers(1, 5)))
        got, want = _merge(lists, exhausted), _merge_stepwise(lists, exhausted)
        assert got[2] == want[2]
        np.testing.assert_array_equal(got[0].view(np.uint8), want[0].view(np.uint8))  # -0.0 kept apart
        np.testing.assert_array_equal(got[1], want[1])
        assert got[0].dtype == want[0].dtype


def test_merge_of_unsorted_or_nan_lists_is_stepwise():
    lists = [(np.array([1.0, 5.0], np.float32), np.array([0, 1], np.uint32)),
             (np.array([np.nan, 2.0], np.float32), np.array([2, 3], np.uint32))]
    for exhausted in (False, True):
        got, want = _merge(lists, exhausted), _merge_stepwise(lists, exhausted)
        assert got[2] == want[2] and got[1].tolist() == want[1].tolist()


@pytest.mark.parametrize("cols", [32, 96, 100, 20])
def test_sort32_matches_block_by_block(cols):
    rng = np.random.default_rng(cols)
    src = rng.choice(np.array([-1.0, 0.0, 2.0, 2.0, np.nan], np.float32), (3, cols))
    idx = rng.integers(0, 1000, (3, cols)).astype(np.uint32)
    dst = np.zeros((3, cols * 2), np.float32)
    semantics.execute(OpCall("TSORT32", dst, [src, idx], []))
    want = np.zeros_like(dst)
    for r in range(3):
        for start in range(0, cols, 32):
            v, i = src[r, start:start + 32], idx[r, start:start + 32]
            order = _sort_desc(v)
            packed = _pack_structs(v[order], i[order], np.float32)
            want[r, start * 2:start * 2 + packed.size] = packed
    np.testing.assert_array_equal(dst.view(np.uint8), want.view(np.uint8))
