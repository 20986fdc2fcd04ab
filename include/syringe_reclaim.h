//===----------------------------------------------------------------------===//
// syringe_reclaim.h — safe memory reclamation for what lock-free resolves read.
//
// A resolve reads, without a lock, memory that a writer on another thread may
// replace at any moment: a table's storage block, a name copy, a definition, a
// `.shared` instance's box, a hook list. A writer that unpublishes such an
// object cannot free it at once, because a resolve may have loaded the pointer
// just before. It *retires* it here instead, and the object is freed as soon
// as every resolve that could have loaded it has returned. This is
// epoch-based reclamation with asymmetric fences, the design of liburcu's
// "memb" flavour, made non-blocking for writers: a writer never waits for
// readers, it only defers.
//
// READERS
//   A read-side section spans one resolve, including the factories it runs
//   and the resolves they make (sections nest; only the outermost counts):
//
//       uint64_t *exit = syr_read_enter();
//       ... lock-free reads ...
//       syr_read_exit(exit);
//
//   Each thread has a record (`syr_reader`) whose `state` says what the thread
//   may hold:
//     0   the shared placeholder record of a thread that has not registered;
//         its first enter registers it (out of line), and nobody ever stores
//         into the placeholder
//     1   registered and outside any section
//     ≥2  inside a section that began in that epoch (even; see below)
//   The outermost enter loads the global epoch with acquire order and stores
//   it into the thread's own record; the exit stores 1. Both stores have
//   release order.
//   Nested enters store nothing. On x86-64 that is plain loads and stores: no
//   atomic read-modify-write, no fence instruction.
//
// WRITERS
//   A writer first unpublishes an object (removes every path to it a new
//   resolve could take), then calls syr_reclaim_retire with the object and
//   the function that frees it. Retiring stamps the object with the current
//   epoch E and advances the global epoch to E + 2. An object stamped E is
//   safe to free once every registered record is seen with a state ≤ 1 or
//   > E: such a thread either holds nothing, or entered its section after
//   the advance, and its acquire load of the epoch then also saw the
//   unpublishing that preceded the advance.
//
// MEMORY ORDERING
//   A reader's enter is a load of the epoch followed by a plain store of its
//   state and then its reads of shared memory. Nothing orders that store
//   before those reads on the reader's side (x86-64 reorders a store after a
//   later load), so a scan could read a stale "outside" while the reader
//   already loaded a pointer that is about to be retired. The scanner closes
//   that window with an asymmetric fence before it reads any state:
//     Linux   membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) (kernel 4.14+), or
//             MEMBARRIER_CMD_GLOBAL on older kernels: every thread of the
//             process runs a full barrier (or is between two context
//             switches, which are barriers) before the call returns. Either
//             the reader's state store is visible to the scan, or the
//             reader's later loads see everything the writer did before the
//             fence: the unpublishing and the advanced epoch.
//     Darwin  has no membarrier (nor has any other platform): there the
//             reader's outermost enter issues a full fence after its store
//             (SYR_READER_FENCE, one `dmb ish` on Apple silicon), and the
//             scanner a full fence of its own. Nested enters do not fence.
//   The reader's exit is a release store: its reads of shared memory happen
//   before a scan that acquire-loads the new state, so an object is never
//   freed while a read of it is still in flight. The epoch's acquire load
//   pairs with the release store that advances it.
//   Without either membarrier command (a kernel older than 4.3, or a seccomp
//   filter that denies it) nothing is freed: retired objects are kept for the
//   life of the process, which is safe, and a warning says so once.
//
// WHEN OBJECTS ARE FREED (syr_reclaim_poll)
//   Right after a retire, by the writer, unless the writer is itself inside a
//   section (a factory or callback that registers): with nothing in flight on
//   any other thread, what it retired is freed before the writer returns.
//   Whatever a poll has to leave pending (a section that may hold it is still
//   running) is handed to the reclaimer's thread: started the first time that
//   happens, it polls with a backoff of 1 to 16 ms until nothing is pending,
//   then sleeps until something is again. So an object is freed at most
//   about 16 ms after the last section that could hold it has ended, with no
//   further call by anyone, and readers never do reclamation work: their
//   sections stay a few plain loads and stores.
//   With nothing pending, a poll is one relaxed load and takes no lock (a
//   writer's own retire is always seen by its poll: both are on its thread).
//   While the reader that blocks the oldest object is still in the same
//   section, a poll costs one uncontended lock and a load: it repeats no
//   heavy fence and no scan.
//   Free functions run on the polling thread, outside every Syringe lock and
//   outside any section, so they may run user code (a deinit) that resolves
//   or registers.
//
// THREADS
//   A thread registers at its first outermost section. Its record is
//   returned to a free list when the thread exits (a pthread key destructor)
//   and reused by a later thread; records are never freed, so a scan can
//   read any record at any time.
//===----------------------------------------------------------------------===//
#ifndef SYRINGE_RECLAIM_H
#define SYRINGE_RECLAIM_H

#include <stdint.h>

#include "syringe_inline.h"

#ifdef __cplusplus
extern "C" {
#endif

/// One thread's reader record. 64-byte aligned, one per cache line: the
/// owning thread writes `state` on every outermost section, and scanners only
/// read it.
typedef struct syr_reader {
    _Alignas(64) uint64_t state;   // atomic: see READERS above
    /// Where a nested section's exit stores: storing there changes nothing a
    /// scan reads, so an exit is one store whatever the nesting.
    uint64_t nested_sink;
    struct syr_reader *next;       // the registry's list; guarded by its lock
    struct syr_reader *next_free;  // the free list; guarded by its lock
} syr_reader;

/// The calling thread's record, or the shared placeholder (state 0) before
/// the thread registers. Use syr_read_enter/exit, not the variable.
extern _Thread_local syr_reader *syr_reader_self;

/// The global epoch: an even number ≥ 2, advanced by 2 per retired object.
/// Written only under the reclaimer's lock.
extern uint64_t syr_reclaim_epoch;

#if defined(__linux__)
#define SYR_READER_FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)
#else
#define SYR_READER_FENCE() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif

/// Out of line: registers the calling thread, then enters the section.
uint64_t *syr_read_enter_unregistered(void);

/// Enters a read-side section; pass the result to syr_read_exit. Inlined
/// into every resolve: an outermost enter is a load of the thread's record,
/// one compare, a load of the epoch and a store.
SYR_INLINE uint64_t *
syr_read_enter(void) {
    syr_reader *self = syr_reader_self;
    const uint64_t outer = __atomic_load_n(&self->state, __ATOMIC_RELAXED);
    if (__builtin_expect(outer != 1, 0)) {
        if (outer == 0) {
            return syr_read_enter_unregistered();
        }
        return &self->nested_sink;   // nested: the outermost section covers it
    }
    const uint64_t epoch = __atomic_load_n(&syr_reclaim_epoch, __ATOMIC_ACQUIRE);
    // Release (a plain store on x86-64): a scan that reads this state then
    // also sees this thread's earlier sections as finished, which is what
    // ThreadSanitizer needs to see too.
    __atomic_store_n(&self->state, epoch, __ATOMIC_RELEASE);
    SYR_READER_FENCE();
    return &self->state;
}

/// Leaves the section entered by the syr_read_enter that returned `exit`.
SYR_INLINE void
syr_read_exit(uint64_t *exit) {
    __atomic_store_n(exit, 1, __ATOMIC_RELEASE);
}

/// Whether the calling thread is inside a read-side section.
SYR_INLINE int
syr_read_is_inside(void) {
    return __atomic_load_n(&syr_reader_self->state, __ATOMIC_RELAXED) > 1;
}

/// Frees `object` with `free_fn(object)` once no section that could have
/// read it is still running. Call after unpublishing `object`, from any
/// thread, inside a section or not; never blocks on readers. Aborts only
/// when memory for the pending list cannot be allocated.
void syr_reclaim_retire(void *object, void (*free_fn)(void *));

/// Frees what has become safe to free. Does nothing when called inside a
/// section (the caller's own section may be what keeps objects alive, and
/// free functions must not run in the middle of a resolve).
void syr_reclaim_poll(void);

/// The global epoch. For tests and diagnostics.
SYR_INLINE uint64_t
syr_reclaim_epoch_now(void) {
    return __atomic_load_n(&syr_reclaim_epoch, __ATOMIC_RELAXED);
}

/// How many retired objects wait to be freed. For tests and diagnostics.
uint64_t syr_reclaim_pending_count(void);

/// How many reader records exist (registered threads plus free records left
/// by exited ones). For tests: it stays at the peak number of threads that
/// registered at once, however many come and go.
uint64_t syr_reclaim_reader_records(void);

#ifdef __cplusplus
}
#endif

#endif // SYRINGE_RECLAIM_H
