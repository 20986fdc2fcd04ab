//===----------------------------------------------------------------------===//
// syringe_thread.h — pointers per thread, for Syringe's resolution context.
//
// Every resolve asks "is a resolve already in progress on this thread?", so
// the answer must be cheap. Swift has no thread-local variables of its own;
// pthread_getspecific is a call, and a lazily created key adds a once-check,
// together a tenth of a `.new` resolve. A C11 thread-local read is one load
// relative to the thread pointer when the table is linked into the
// executable on Linux; from a shared library or on Darwin it is a short call,
// still cheaper than the key lookup. With a constant slot index, as every
// caller passes, it is still that one load.
//
// SLOTS
//   Each thread has SYR_THREAD_SLOT_COUNT slots, one for each resolution
//   engine that can live in a process: the engine compiled as Syringe, the
//   same engine sources compiled again by the benchmarks package as the
//   pure-Swift baseline, and SyringeSwinject's. All link this one C target,
//   so each uses its own index and none ever sees another's context.
//
// OWNERSHIP
//   A slot holds a pointer it does not own. The build that owns the slot
//   stores a retained context there and registers a pthread key destructor
//   that releases it at thread exit; that destructor must call
//   syr_thread_set(slot, NULL) first, so that a resolve made by a later
//   thread-exit destructor finds an empty slot instead of a freed context.
//   An empty slot is therefore not proof that the thread has no context (the
//   platform may tear thread-locals down first): the Swift side checks its
//   key before creating one.
//
// CONCURRENCY
//   The slots are private to their thread: no other thread can read or write
//   them, so no ordering is needed.
//===----------------------------------------------------------------------===//
#ifndef SYRINGE_THREAD_H
#define SYRINGE_THREAD_H

#include "syringe_inline.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The slot of Syringe's engine (Sources/Syringe).
#define SYR_THREAD_SLOT_ENGINE 0u
/// The slot of the benchmarks' baseline build of the same engine.
#define SYR_THREAD_SLOT_BASELINE 1u
/// The slot of the Swinject-compatible module's resolution state
/// (Sources/SyringeSwinject), which keeps Swinject's object-graph semantics.
#define SYR_THREAD_SLOT_SWINJECT 2u

/// Number of slots per thread; every index passed below is smaller.
#define SYR_THREAD_SLOT_COUNT 3u

/// The calling thread's slots. Use the functions below, not the variable.
extern _Thread_local void *syr_thread_slots[SYR_THREAD_SLOT_COUNT];

/// The pointer stored in this thread's `slot`, or NULL before the first store.
SYR_INLINE void *
syr_thread_get(unsigned slot) {
    return syr_thread_slots[slot];
}

/// Stores a pointer in this thread's `slot` (NULL clears it).
void syr_thread_set(unsigned slot, void *value);

#ifdef __cplusplus
}
#endif

#endif // SYRINGE_THREAD_H
