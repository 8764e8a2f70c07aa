// ptorewrite parse-only headers: the a5 TMOV forms are declared with the other instructions.
#include <pto/pto-inst.hpp>
