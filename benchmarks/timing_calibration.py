"""Print the timing model vs the pto-isa calibration table as markdown.

    python benchmarks/timing_calibration.py > benchmarks/timing_calibration.md

The row -> CostQuery mapping (matmul K, TLOAD/TEXTRACT buffers, ...) is the test's, so the table
shows exactly what tests/test_timing.py checks.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout without installing the package

from ptorewrite.emulator.timing import instruction_cycles


def _test_module():
    spec = importlib.util.spec_from_file_location("test_timing", ROOT / "tests" / "test_timing.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main() -> None:
    t = _test_module()
    lines = [
        "# Timing model vs pto-isa calibration (a2a3)",
        "",
        "Regenerate: `python benchmarks/timing_calibration.py > benchmarks/timing_calibration.md`",
        "",
        ("Model: `ptorewrite/emulator/timing.py`; measured: median of "
        "`benchmarks/calibration/op_cycles_a2a3.csv`. Query assumptions (matmul K, buffers, source "
        "shapes) are documented in `tests/test_timing.py`. Acceptance: |error| <= 10% on every row."),
        "",
        "| op | rows x cols | dtype | pipe | query extras | measured | model | error % |",
        "|---|---|---|---|---|---:|---:|---:|",
    ]
    worst = 0.0
    for row in t.ROWS:
        q = t.query_for_row(row)
        measured = int(row["cycles_median"])
        model = instruction_cycles(q)
        err = 100.0 * (model - measured) / measured
        worst = max(worst, abs(err))
        extras = ", ".join(
            f"{k}={getattr(q, k)}"
            for k in ("k", "src_dtype", "src_buffer", "dst_buffer", "src_cols")
            if getattr(q, k) is not None
        )
        lines.append(
            f"| {row['op']} | {row['rows']} x {row['cols']} | {row['dtype']} | {row['pipe']} "
            f"| {extras} | {measured} | {model} | {err:+.1f} |"
        )
    lines += ["", f"Rows: {len(t.ROWS)}. Max |error|: {worst:.1f}%."]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
