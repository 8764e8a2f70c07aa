// ptorewrite parse-only headers: pto-isa's a5 TQuant implementation header; the instruction is
// declared with the others, so this path only forwards to the umbrella.
#include <pto/pto-inst.hpp>
