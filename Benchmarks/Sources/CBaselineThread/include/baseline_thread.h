// The pure-Swift baseline's per-thread slot: the same C11 thread-local that
// Syringe reads its resolution context from (include/syringe_thread.h), so
// that the baseline's column differs from Syringe's by the table alone.
// Swift has no thread-local variables of its own.
#ifndef SYRINGE_BASELINE_THREAD_H
#define SYRINGE_BASELINE_THREAD_H

/// The calling thread's slot. Use the functions below, not the variable.
extern _Thread_local void *baseline_thread_slot;

/// The pointer stored on this thread, or NULL before the first store.
static inline __attribute__((always_inline)) void *
baseline_thread_get(void) {
    return baseline_thread_slot;
}

/// Stores a pointer for this thread (NULL clears the slot).
void baseline_thread_set(void *value);

#endif
