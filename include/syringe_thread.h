//===----------------------------------------------------------------------===//
// syringe_thread.h — one pointer per thread, for Syringe's resolution context.
//
// Every resolve asks "is a resolve already in progress on this thread?", so
// the answer must be cheap. Swift has no thread-local variables of its own;
// pthread_getspecific is a call, and a lazily created key adds a once-check,
// together a tenth of a `.new` resolve. A C11 thread-local read is one load
// relative to the thread pointer when the table is linked into the
// executable on Linux; from a shared library or on Darwin it is a short call,
// still cheaper than the key lookup.
//
// OWNERSHIP
//   The slot holds a pointer it does not own. The Swift side stores a
//   retained context and registers a pthread key destructor that releases it
//   at thread exit; that destructor must call syr_thread_set(NULL) first, so
//   that a resolve made by a later thread-exit destructor finds an empty slot
//   instead of a freed context. An empty slot is therefore not proof that the
//   thread has no context (the platform may tear thread-locals down first):
//   the Swift side checks its key before creating one.
//
// CONCURRENCY
//   The slot is private to its thread: no other thread can read or write it,
//   so no ordering is needed.
//===----------------------------------------------------------------------===//
#ifndef SYRINGE_THREAD_H
#define SYRINGE_THREAD_H

#ifdef __cplusplus
extern "C" {
#endif

/// The calling thread's slot. Use the functions below, not the variable.
extern _Thread_local void *syr_thread_slot;

/// The pointer stored on this thread, or NULL before the first store.
static inline __attribute__((always_inline)) void *
syr_thread_get(void) {
    return syr_thread_slot;
}

/// Stores a pointer for this thread (NULL clears the slot).
void syr_thread_set(void *value);

#ifdef __cplusplus
}
#endif

#endif // SYRINGE_THREAD_H
