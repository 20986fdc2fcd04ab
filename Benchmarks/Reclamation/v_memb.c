// liburcu 0.13 memb flavour, read side inlined (_LGPL_SOURCE): only legal for
// LGPL-compatible code. The writer-side functions are library calls anyway.
#define _LGPL_SOURCE
#include <stdlib.h>
#include <urcu/urcu-memb.h>
#include "bench.h"

static void setup(void) {
    urcu_memb_register_thread();
    urcu_memb_read_lock();
    urcu_memb_read_unlock();
}
NOINLINE void memb_outer(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        urcu_memb_read_lock();
        BODY();
        urcu_memb_read_unlock();
    }
}
NOINLINE void memb_nested(uint64_t n) {
    urcu_memb_read_lock();
    for (uint64_t i = 0; i < n; i++) {
        urcu_memb_read_lock();
        BODY();
        urcu_memb_read_unlock();
    }
    urcu_memb_read_unlock();
}
NOINLINE void memb_one(void) {
    urcu_memb_read_lock();
    BODY();
    urcu_memb_read_unlock();
}

const variant v_memb = {"urcu-memb", "urcu_memb_read_lock/unlock, _LGPL_SOURCE inline", setup, memb_outer, memb_nested, memb_one};

// The same code where membarrier(2) is missing (Darwin, old kernels): the
// read side then runs its fences. Simulated by clearing the flag liburcu set
// at start-up; only read sections run in this process afterwards.
static void fenced_setup(void) {
    urcu_memb_has_sys_membarrier = 0;
    setup();
}
const variant v_memb_fenced = {"urcu-memb fenced", "urcu-memb with its no-membarrier path (as on Darwin)", fenced_setup,
                               memb_outer, memb_nested, memb_one};

// Writers.
typedef struct { struct rcu_head head; char payload[32]; } object;
static void free_object(struct rcu_head *head) {
    free(caa_container_of(head, object, head));
    __atomic_fetch_add(&freed_count, 1, __ATOMIC_RELAXED);   // runs on the call_rcu thread
}
NOINLINE void memb_call_rcu_writer(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        object *o = malloc(sizeof *o);
        urcu_memb_call_rcu(&o->head, free_object);
    }
}
static void call_rcu_finish(void) { urcu_memb_barrier(); }   // waits for every callback

NOINLINE void memb_synchronize_writer(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        object *o = malloc(sizeof *o);
        urcu_memb_synchronize_rcu();   // blocks until every reader in flight has left
        free(o);
        freed_count++;
    }
}
static void no_finish(void) {}

const writer w_memb_call_rcu = {"urcu-memb call_rcu", "urcu_memb_call_rcu; a helper thread waits for the grace period and frees",
                                setup, memb_call_rcu_writer, call_rcu_finish};
const writer w_memb_synchronize = {"urcu-memb synchronize_rcu", "urcu_memb_synchronize_rcu then free (blocks the writer)",
                                   setup, memb_synchronize_writer, no_finish};
