// The floor: the same loop with an empty section.
#include "bench.h"

static void setup(void) {}
NOINLINE void empty_outer(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) { BODY(); }
}
NOINLINE void empty_nested(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) { BODY(); }
}
NOINLINE void empty_one(void) { BODY(); }

const variant v_empty = {"empty", "empty loop (the floor)", setup, empty_outer, empty_nested, empty_one};
