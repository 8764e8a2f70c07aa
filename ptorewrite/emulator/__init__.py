"""The bundled emulator that judges every rewrite.

machine    runs a kernel's control flow with concrete values into a trace of issued steps
           (operands placed, scalars evaluated, exact byte footprints)
data       GM / on-chip byte arrays; executes the trace with `semantics` in program order
pipes      flag matching, happens-before (vector clocks), race and deadlock checker
schedule   pipe timing with `timing`'s per-op cycles: total, busy cycles, critical path
timeline   SVG picture of a schedule
verify     AUTO vs manual equivalence on random inputs plus the manual kernel's check
commands   the `check`, `simulate` and `verify` subcommands
"""
