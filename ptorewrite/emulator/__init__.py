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

# A run stops once it has executed this many instances (instructions, syncs and loop iterations):
# about a minute of `verify` on two cores. `--max-instances` raises it. (Here, not in the modules
# that enforce it, so that the command line can show it without importing numpy.)
DEFAULT_MAX_INSTANCES = 2_000_000
