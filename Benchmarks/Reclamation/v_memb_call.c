// liburcu 0.13 memb flavour without _LGPL_SOURCE: read lock and unlock are
// calls into liburcu-memb.so. What code under a non-LGPL licence gets.
#include <urcu/urcu-memb.h>
#include "bench.h"

static void setup(void) {
    urcu_memb_register_thread();   // compare.c runs one variant per process
    urcu_memb_read_lock();
    urcu_memb_read_unlock();
}
NOINLINE void memb_call_outer(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        urcu_memb_read_lock();
        BODY();
        urcu_memb_read_unlock();
    }
}
NOINLINE void memb_call_nested(uint64_t n) {
    urcu_memb_read_lock();
    for (uint64_t i = 0; i < n; i++) {
        urcu_memb_read_lock();
        BODY();
        urcu_memb_read_unlock();
    }
    urcu_memb_read_unlock();
}
NOINLINE void memb_call_one(void) {
    urcu_memb_read_lock();
    BODY();
    urcu_memb_read_unlock();
}

const variant v_memb_call = {"urcu-memb (calls)", "same, without _LGPL_SOURCE: two calls into the .so", setup,
                             memb_call_outer, memb_call_nested, memb_call_one};
