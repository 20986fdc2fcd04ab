//===----------------------------------------------------------------------===//
// syringe_observe.h — whether any resolve has to be observed.
//
// Tracing (`Container.trace`) and validation (`Container.validate`) watch
// resolves: each needs an event per resolve, with the edge from the
// requesting registration. The watching is done on a slower path of the
// Swift engine; the fast paths ask this one flag whether anything watches
// at all, so that a program that never traces pays one load and one branch
// per resolve, and no call.
//
// OWNERSHIP AND ORDERING
//   `syr_observers` counts the observers installed in the process: a
//   container with a tracer counts one, a validation pass in progress one.
//   It is only ever changed through syr_observers_add, atomically. Readers
//   load it relaxed: a resolve that misses an observer installed on another
//   thread at that moment is simply not observed (as if it had run just
//   before), and what an observer needs (its handler, its container's state)
//   is published and read with the Swift side's own locks and orderings,
//   never through this counter.
//===----------------------------------------------------------------------===//
#ifndef SYRINGE_OBSERVE_H
#define SYRINGE_OBSERVE_H

#include <stdbool.h>
#include <stdint.h>

#include "syringe_inline.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The number of observers installed. Use the functions below.
extern uint32_t syr_observers;

/// Whether any observer is installed: on every resolve, inlined.
SYR_INLINE bool
syr_observed(void) {
    return __atomic_load_n(&syr_observers, __ATOMIC_RELAXED) != 0;
}

/// Adds `delta` (+1 or -1) to the observer count; returns the new count.
uint32_t syr_observers_add(int32_t delta);

#ifdef __cplusplus
}
#endif

#endif // SYRINGE_OBSERVE_H
