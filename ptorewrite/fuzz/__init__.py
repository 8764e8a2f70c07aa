"""The fuzzer: random valid AUTO kernels (`kernels`), and what is done with each (`run`).

`kernels` holds Hypothesis strategies that write AUTO-mode kernels as C++ text, vector and cube;
`run` rewrites one in-process, verifies the rewrite in the emulator at several runtime values,
checks it, and optionally deletes each inserted sync in turn to see that the checks notice
(the minimality probe). The test suite runs a few hundred; `benchmarks/fuzz.py` (`tox -e fuzz`)
runs thousands and tabulates the outcomes. Needs the `test` extra (Hypothesis).
"""
