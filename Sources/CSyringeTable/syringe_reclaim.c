// syringe_reclaim.c — the reclaimer's slow paths: registering readers,
// retiring, and polling. The protocol and its memory ordering are described
// in include/syringe_reclaim.h; the Promela model in Model/reclaim.pml checks
// it.

// syscall(2) and nanosleep(2) are not C11: declare them even under -std=c11.
#define _GNU_SOURCE

#include "syringe_reclaim.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

// ---------------------------------------------------------------------------
// Shared state
// ---------------------------------------------------------------------------

// Read by every outermost enter, written only by retire. Aligned, and so is
// the lock below, so that taking the lock never invalidates the line every
// reader loads.
_Alignas(64) uint64_t syr_reclaim_epoch = 2;

// The record of every thread that has not registered yet. Its state stays 0:
// syr_read_enter registers on 0 instead of storing.
static syr_reader syr_reader_placeholder;
_Thread_local syr_reader *syr_reader_self = &syr_reader_placeholder;

// Set while this thread polls: free functions run user code, which may
// resolve or register, and that must not start a second poll on the thread.
static _Thread_local int syr_polling;

typedef struct syr_retired {
    void *object;
    void (*free_fn)(void *);
    uint64_t stamp;   // the epoch when it was retired
} syr_retired;

// Everything below is guarded by syr_lock. The lock is held for list and
// array work, a scan and a heavy fence, never while a free function or any
// other user code runs, so a writer waiting for it waits for none of those.
static _Alignas(64) pthread_mutex_t syr_lock = PTHREAD_MUTEX_INITIALIZER;
static syr_reader *syr_readers;        // every record ever made
static syr_reader *syr_free_readers;   // records of exited threads
// Pending objects in retire order, so stamps ascend: what is safe is a prefix.
static syr_retired *syr_pending;
// Written with the lock as relaxed atomic stores, because syr_reclaim_poll
// reads it without the lock first (see there); read plainly with the lock.
static size_t syr_pending_count;
static size_t syr_pending_capacity;
// The reader that kept the oldest pending object alive at the last scan, and
// the state it had: while it still has that state, nothing new is safe.
static syr_reader *syr_blocker;
static uint64_t syr_blocker_state;
// The reclaimer's thread, which polls while anything is pending.
static pthread_cond_t syr_has_pending = PTHREAD_COND_INITIALIZER;
static bool syr_thread_started;

// How a scanner makes the readers' state stores visible (see the header).
typedef enum {
    SYR_FENCE_PRIVATE_EXPEDITED,
    SYR_FENCE_GLOBAL,
    SYR_FENCE_READER_FENCED,   // not Linux: readers fence themselves
    SYR_FENCE_UNAVAILABLE,     // nothing is ever freed
} syr_fence_mode;

static syr_fence_mode syr_mode;
static pthread_once_t syr_once = PTHREAD_ONCE_INIT;
static pthread_key_t syr_thread_key;

// ---------------------------------------------------------------------------
// Set-up and the heavy fence
// ---------------------------------------------------------------------------

static void syr_thread_exit(void *record);
static void syr_wake_reclaimer(void);
static void syr_before_fork(void);
static void syr_after_fork_in_parent(void);
static void syr_after_fork_in_child(void);

static void syr_reclaim_setup(void) {
    if (pthread_key_create(&syr_thread_key, syr_thread_exit) != 0 ||
        pthread_atfork(syr_before_fork, syr_after_fork_in_parent, syr_after_fork_in_child) != 0) {
        fputs("Syringe: cannot set up the reclaimer\n", stderr);
        abort();
    }
#if defined(__linux__)
    const long supported = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (supported > 0 && (supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
        syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0) {
        syr_mode = SYR_FENCE_PRIVATE_EXPEDITED;
    } else if (supported > 0 && (supported & MEMBARRIER_CMD_GLOBAL)) {
        syr_mode = SYR_FENCE_GLOBAL;
    } else {
        syr_mode = SYR_FENCE_UNAVAILABLE;
        fputs("Syringe: membarrier(2) is unavailable; replaced and released registrations "
              "will be kept until the process exits\n", stderr);
    }
#else
    syr_mode = SYR_FENCE_READER_FENCED;
#endif
}

// Every thread of the process runs a full barrier, or the caller's own
// fence pairs with the readers' (everywhere but Linux).
static void syr_heavy_fence(void) {
    switch (syr_mode) {
#if defined(__linux__)
    case SYR_FENCE_PRIVATE_EXPEDITED:
        if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0) {
            return;
        }
        break;
    case SYR_FENCE_GLOBAL:
        if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0) {
            return;
        }
        break;
#endif
    case SYR_FENCE_READER_FENCED:
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        return;
    default:
        break;
    }
    // Registered and queried, so it cannot fail; if it ever does, freeing
    // without the fence would be a use-after-free.
    fputs("Syringe: membarrier(2) failed\n", stderr);
    abort();
}

// ---------------------------------------------------------------------------
// Readers
// ---------------------------------------------------------------------------

static syr_reader *syr_register(void) {
    pthread_once(&syr_once, syr_reclaim_setup);
    pthread_mutex_lock(&syr_lock);
    syr_reader *record = syr_free_readers;
    if (record != NULL) {
        syr_free_readers = record->next_free;
    } else {
        record = aligned_alloc(64, sizeof(syr_reader));
        if (record == NULL) {
            fputs("Syringe: out of memory registering a thread\n", stderr);
            abort();
        }
        memset(record, 0, sizeof *record);
        record->next = syr_readers;
        syr_readers = record;
    }
    // Idle. A scan may read the record from now on; the thread's first
    // section stores its epoch after this, under the usual ordering.
    __atomic_store_n(&record->state, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&syr_lock);
    syr_reader_self = record;
    // The destructor only runs for a non-NULL value.
    pthread_setspecific(syr_thread_key, record);
    return record;
}

// The pthread key's destructor: the thread is exiting, so it reads nothing
// any more, even if it left a section by pthread_exit. Its record goes back to
// the free list, idle, so scans skip it. A later destructor of the same
// thread that resolves registers it again.
static void syr_thread_exit(void *value) {
    syr_reader *record = value;
    syr_reader_self = &syr_reader_placeholder;
    pthread_mutex_lock(&syr_lock);
    __atomic_store_n(&record->state, 1, __ATOMIC_RELEASE);
    if (syr_blocker == record) {
        syr_blocker = NULL;
    }
    record->next_free = syr_free_readers;
    syr_free_readers = record;
    pthread_mutex_unlock(&syr_lock);
}

uint64_t *syr_read_enter_unregistered(void) {
    syr_reader *self = syr_register();
    const uint64_t epoch = __atomic_load_n(&syr_reclaim_epoch, __ATOMIC_ACQUIRE);
    __atomic_store_n(&self->state, epoch, __ATOMIC_RELEASE);
    SYR_READER_FENCE();
    return &self->state;
}

// ---------------------------------------------------------------------------
// Retiring and polling
// ---------------------------------------------------------------------------

void syr_reclaim_retire(void *object, void (*free_fn)(void *)) {
    pthread_once(&syr_once, syr_reclaim_setup);
    if (syr_mode == SYR_FENCE_UNAVAILABLE) {
        return;   // kept: see the header
    }
    pthread_mutex_lock(&syr_lock);
    if (syr_pending_count == syr_pending_capacity) {
        const size_t capacity = syr_pending_capacity ? syr_pending_capacity * 2 : 64;
        syr_retired *grown = realloc(syr_pending, capacity * sizeof *grown);
        if (grown == NULL) {
            fputs("Syringe: out of memory retiring a replaced registration\n", stderr);
            abort();
        }
        syr_pending = grown;
        syr_pending_capacity = capacity;
    }
    const uint64_t stamp = __atomic_load_n(&syr_reclaim_epoch, __ATOMIC_RELAXED);
    syr_pending[syr_pending_count] = (syr_retired){object, free_fn, stamp};
    __atomic_store_n(&syr_pending_count, syr_pending_count + 1, __ATOMIC_RELAXED);
    // Release: a reader whose acquire load sees the new epoch also sees the
    // unpublishing that the caller did before retiring.
    __atomic_store_n(&syr_reclaim_epoch, stamp + 2, __ATOMIC_RELEASE);
    // A caller inside a section (a factory or callback that writes) or inside
    // a free function does not poll afterwards: the reclaimer's thread must.
    // (Found by the model: without this, such an object waited for the next
    // writer.)
    if (syr_polling || __atomic_load_n(&syr_reader_self->state, __ATOMIC_RELAXED) > 1) {
        syr_wake_reclaimer();
    }
    pthread_mutex_unlock(&syr_lock);
}

// Takes the pending objects that no reader can reach any more out of the
// list, into `*freeable` (malloc'd; the caller frees it). Call with the lock.
static size_t syr_collect(syr_retired **freeable) {
    *freeable = NULL;
    if (syr_pending_count == 0) {
        return 0;
    }
    if (syr_blocker != NULL &&
        __atomic_load_n(&syr_blocker->state, __ATOMIC_ACQUIRE) == syr_blocker_state) {
        return 0;   // the oldest object's reader is still in the same section
    }
    syr_heavy_fence();
    // The smallest epoch any section in progress began in. Acquire pairs
    // with the readers' release stores: what a reader read before it left
    // (or re-entered) happens before the frees below.
    uint64_t oldest = UINT64_MAX;
    syr_reader *blocker = NULL;
    for (syr_reader *record = syr_readers; record != NULL; record = record->next) {
        const uint64_t state = __atomic_load_n(&record->state, __ATOMIC_ACQUIRE);
        if (state > 1 && state < oldest) {
            oldest = state;
            blocker = record;
        }
    }
    // A section that began in epoch `oldest` may hold what was retired in
    // any epoch ≥ `oldest`, never anything retired before.
    size_t safe = 0;
    while (safe < syr_pending_count && syr_pending[safe].stamp < oldest) {
        safe += 1;
    }
    syr_blocker = blocker;
    syr_blocker_state = oldest;
    if (safe == 0) {
        return 0;
    }
    syr_retired *taken = malloc(safe * sizeof *taken);
    if (taken == NULL) {
        return 0;   // try again at the next poll
    }
    memcpy(taken, syr_pending, safe * sizeof *taken);
    __atomic_store_n(&syr_pending_count, syr_pending_count - safe, __ATOMIC_RELAXED);
    memmove(syr_pending, syr_pending + safe, syr_pending_count * sizeof *syr_pending);
    if (syr_pending_count == 0) {
        // Nothing is kept allocated while nothing is pending.
        free(syr_pending);
        syr_pending = NULL;
        syr_pending_capacity = 0;
    }
    *freeable = taken;
    return safe;
}

static void *syr_reclaimer_main(void *unused);

// fork(2): the lock is taken around it, so that the child never inherits it
// held by a thread that does not exist there. In the child, only the forking
// thread exists: every other record goes back to the free list (a section
// the fork froze would otherwise hold everything back forever), and the
// reclaimer's thread must be started again when needed.
static void syr_before_fork(void) {
    pthread_mutex_lock(&syr_lock);
}

static void syr_after_fork_in_parent(void) {
    pthread_mutex_unlock(&syr_lock);
}

static void syr_after_fork_in_child(void) {
    syr_reader *self = syr_reader_self;
    syr_free_readers = NULL;
    for (syr_reader *record = syr_readers; record != NULL; record = record->next) {
        if (record != self) {
            __atomic_store_n(&record->state, 1, __ATOMIC_RELAXED);
            record->next_free = syr_free_readers;
            syr_free_readers = record;
        }
    }
    syr_blocker = NULL;
    syr_thread_started = false;
    pthread_mutex_unlock(&syr_lock);
}

// Wakes the reclaimer's thread, starting it the first time. Call with the
// lock, when something stays pending.
static void syr_wake_reclaimer(void) {
    if (!syr_thread_started) {
        pthread_t thread;
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&thread, &attributes, syr_reclaimer_main, NULL) == 0) {
            syr_thread_started = true;
        }
        // Without the thread (out of threads), the next poll tries again.
        pthread_attr_destroy(&attributes);
    }
    pthread_cond_signal(&syr_has_pending);
}

void syr_reclaim_poll(void) {
    // Nothing pending, the common case (every registration polls, and a
    // request's scope registers its values): no lock, which every thread
    // would otherwise take once per registration. A retire on another thread
    // that this load misses is polled for by that thread or the reclaimer's;
    // one on this thread happened before, under the lock, and is seen.
    if (__atomic_load_n(&syr_pending_count, __ATOMIC_RELAXED) == 0 ||
        syr_polling || __atomic_load_n(&syr_reader_self->state, __ATOMIC_RELAXED) > 1) {
        return;
    }
    pthread_once(&syr_once, syr_reclaim_setup);
    pthread_mutex_lock(&syr_lock);
    syr_retired *freeable;
    const size_t count = syr_collect(&freeable);
    if (syr_pending_count > 0) {
        syr_wake_reclaimer();
    }
    pthread_mutex_unlock(&syr_lock);
    syr_polling = 1;
    for (size_t index = 0; index < count; index++) {
        freeable[index].free_fn(freeable[index].object);
    }
    syr_polling = 0;
    free(freeable);
}

// The reclaimer's thread: sleeps while nothing is pending, and otherwise
// polls with a backoff, so that what a section held back is freed soon after
// that section ends, without anyone having to call in.
static void *syr_reclaimer_main(void *unused) {
    (void)unused;
    unsigned delay_ms = 1;
    for (;;) {
        pthread_mutex_lock(&syr_lock);
        while (syr_pending_count == 0) {
            delay_ms = 1;
            pthread_cond_wait(&syr_has_pending, &syr_lock);
        }
        pthread_mutex_unlock(&syr_lock);
        const struct timespec pause = {.tv_sec = 0, .tv_nsec = (long)delay_ms * 1000000L};
        nanosleep(&pause, NULL);
        syr_reclaim_poll();
        if (delay_ms < 16) {
            delay_ms *= 2;
        }
    }
    return NULL;
}

uint64_t syr_reclaim_pending_count(void) {
    pthread_mutex_lock(&syr_lock);
    const uint64_t count = syr_pending_count;
    pthread_mutex_unlock(&syr_lock);
    return count;
}

uint64_t syr_reclaim_reader_records(void) {
    pthread_mutex_lock(&syr_lock);
    uint64_t count = 0;
    for (syr_reader *record = syr_readers; record != NULL; record = record->next) {
        count += 1;
    }
    pthread_mutex_unlock(&syr_lock);
    return count;
}
