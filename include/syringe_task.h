//===----------------------------------------------------------------------===//
// syringe_task.h — the running Swift task, as an address to compare.
//
// Syringe's async engine compares tasks (the one that holds a claim on a
// `.shared` creation against the one that waits for it, for the cycle
// check) once per async creation. Swift's own way to ask,
// `withUnsafeCurrentTask`, is a generic call into the concurrency runtime
// that retains and releases the task (two atomic operations) around its
// closure; the runtime entry point it calls returns the task without either.
// Swift code cannot name that entry point (`@_silgen_name` on a runtime
// symbol is being turned into an error), C can.
//
// `swift_task_getCurrent` is part of the Swift runtime's ABI
// (libswift_Concurrency, stable on Apple platforms since Swift 5.5) and
// uses the Swift calling convention. It returns the task running on the
// calling thread, or null outside any task, without retaining it.
//
// OWNERSHIP
//   None: the address is only compared, never dereferenced, and a caller
//   that keeps it must know the task outlives the use (a claim is released
//   before its task ends).
//===----------------------------------------------------------------------===//
#ifndef SYRINGE_TASK_H
#define SYRINGE_TASK_H

#include "syringe_inline.h"

#ifdef __cplusplus
extern "C" {
#endif

#if __has_attribute(swiftcall)
#define SYR_SWIFTCALL __attribute__((swiftcall))
#else
#define SYR_SWIFTCALL
#endif

/// The concurrency runtime's entry point (see above). Declared here only
/// for syr_current_task.
const void *swift_task_getCurrent(void) SYR_SWIFTCALL;

/// The task running on the calling thread, or NULL outside any task.
SYR_INLINE const void *
syr_current_task(void) {
    return swift_task_getCurrent();
}

#ifdef __cplusplus
}
#endif

#endif // SYRINGE_TASK_H
