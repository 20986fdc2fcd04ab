// Ours: include/syringe_reclaim.h's inline read side, with
// Sources/CSyringeTable/syringe_reclaim.c linked in unchanged.
#include <pthread.h>
#include <stdlib.h>
#include "bench.h"
#include "syringe_reclaim.h"

static void setup(void) {
    syr_read_exit(syr_read_enter());   // the first outermost enter registers
}
NOINLINE void ours_outer(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        uint64_t *exit = syr_read_enter();
        BODY();
        syr_read_exit(exit);
    }
}
NOINLINE void ours_nested(uint64_t n) {
    uint64_t *outer = syr_read_enter();
    for (uint64_t i = 0; i < n; i++) {
        uint64_t *exit = syr_read_enter();
        BODY();
        syr_read_exit(exit);
    }
    syr_read_exit(outer);
}
NOINLINE void ours_one(void) {
    uint64_t *exit = syr_read_enter();
    BODY();
    syr_read_exit(exit);
}

const variant v_ours = {"ours", "syr_read_enter/exit (inline)", setup, ours_outer, ours_nested, ours_one};

// The same sections while a retired object waits for another thread's
// section (a factory that runs long): readers do no reclamation work (the
// reclaimer's thread polls), so this row must equal the one above.
static pthread_mutex_t blocker_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t blocker_cond = PTHREAD_COND_INITIALIZER;
static int blocker_inside;
static void free_object(void *object);
static void *blocker(void *unused) {
    (void)unused;
    uint64_t *exit = syr_read_enter();
    pthread_mutex_lock(&blocker_lock);
    blocker_inside = 1;
    pthread_cond_signal(&blocker_cond);
    for (;;) pthread_cond_wait(&blocker_cond, &blocker_lock);   // until the process exits
    syr_read_exit(exit);
    return NULL;
}
static void pending_setup(void) {
    setup();
    pthread_t thread;
    pthread_create(&thread, NULL, blocker, NULL);
    pthread_mutex_lock(&blocker_lock);
    while (!blocker_inside) pthread_cond_wait(&blocker_cond, &blocker_lock);
    pthread_mutex_unlock(&blocker_lock);
    syr_reclaim_retire(malloc(32), free_object);
    syr_reclaim_poll();   // cannot free it: the blocker is inside
    if (syr_reclaim_pending_count() != 1) abort();
}

const variant v_ours_pending = {"ours pending", "ours while a retired object waits for another thread's section",
                                pending_setup, ours_outer, ours_nested, ours_one};

// Writer: retire, then poll with no section in flight anywhere.
static void free_object(void *object) { free(object); freed_count++; }
static void w_setup(void) { setup(); }
NOINLINE void ours_writer(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        syr_reclaim_retire(malloc(32), free_object);
        syr_reclaim_poll();
    }
}
static void w_finish(void) { syr_reclaim_poll(); }

const writer w_ours = {"ours retire+poll", "syr_reclaim_retire + syr_reclaim_poll, frees before returning",
                       w_setup, ours_writer, w_finish};
