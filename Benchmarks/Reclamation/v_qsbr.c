// liburcu 0.13 qsbr flavour, inline. Its read lock and unlock are empty; the
// cost is moved to quiescent-state announcements the *application* makes
// (urcu_qsbr_quiescent_state, or thread_offline/online around blocking). A
// thread that is online and never announces one stalls every grace period.
// A library cannot announce for the app's threads, so the only pattern open
// to it is online/offline around each outermost section: `qsbr-online`.
#define _LGPL_SOURCE
#include <urcu/urcu-qsbr.h>
#include "bench.h"

static void setup(void) {
    urcu_qsbr_register_thread();   // registers online
}
NOINLINE void qsbr_outer(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        urcu_qsbr_read_lock();
        BODY();
        urcu_qsbr_read_unlock();
    }
}
NOINLINE void qsbr_nested(uint64_t n) {
    urcu_qsbr_read_lock();
    for (uint64_t i = 0; i < n; i++) {
        urcu_qsbr_read_lock();
        BODY();
        urcu_qsbr_read_unlock();
    }
    urcu_qsbr_read_unlock();
}
NOINLINE void qsbr_one(void) {
    urcu_qsbr_read_lock();
    BODY();
    urcu_qsbr_read_unlock();
}

const variant v_qsbr = {"urcu-qsbr", "read_lock/unlock only (QS announcements not counted)", setup,
                        qsbr_outer, qsbr_nested, qsbr_one};

// The library pattern: the thread is offline between resolves.
static void online_setup(void) {
    urcu_qsbr_register_thread();
    urcu_qsbr_thread_offline();
}
NOINLINE void qsbr_online_outer(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        urcu_qsbr_thread_online();
        urcu_qsbr_read_lock();
        BODY();
        urcu_qsbr_read_unlock();
        urcu_qsbr_thread_offline();
    }
}
NOINLINE void qsbr_online_nested(uint64_t n) {
    // Nested sections of the library pattern are plain qsbr sections.
    urcu_qsbr_thread_online();
    for (uint64_t i = 0; i < n; i++) {
        urcu_qsbr_read_lock();
        BODY();
        urcu_qsbr_read_unlock();
    }
    urcu_qsbr_thread_offline();
}
NOINLINE void qsbr_online_one(void) {
    urcu_qsbr_thread_online();
    urcu_qsbr_read_lock();
    BODY();
    urcu_qsbr_read_unlock();
    urcu_qsbr_thread_offline();
}

const variant v_qsbr_online = {"urcu-qsbr online/offline", "thread_online + read_lock/unlock + thread_offline", online_setup,
                               qsbr_online_outer, qsbr_online_nested, qsbr_online_one};
