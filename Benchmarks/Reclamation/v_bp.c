// liburcu 0.13 bp ("bulletproof") flavour, inline: registers a thread on its
// first read lock by itself, the flavour meant for libraries.
#define _LGPL_SOURCE
#include <urcu/urcu-bp.h>
#include "bench.h"

static void setup(void) {
    urcu_bp_read_lock();     // registers
    urcu_bp_read_unlock();
}
NOINLINE void bp_outer(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        urcu_bp_read_lock();
        BODY();
        urcu_bp_read_unlock();
    }
}
NOINLINE void bp_nested(uint64_t n) {
    urcu_bp_read_lock();
    for (uint64_t i = 0; i < n; i++) {
        urcu_bp_read_lock();
        BODY();
        urcu_bp_read_unlock();
    }
    urcu_bp_read_unlock();
}
NOINLINE void bp_one(void) {
    urcu_bp_read_lock();
    BODY();
    urcu_bp_read_unlock();
}

const variant v_bp = {"urcu-bp", "urcu_bp_read_lock/unlock, inline, self-registering", setup, bp_outer, bp_nested, bp_one};
