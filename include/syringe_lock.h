//===----------------------------------------------------------------------===//
// syringe_lock.h — a small mutual-exclusion lock for short critical sections.
//
// Syringe takes a lock where a writer changes a container (registration,
// removal, a request scope's values and `close()`) and around the async
// engine's bookkeeping (which task creates which instance). A request scope
// takes such locks several times, so their cost is part of every request.
// A pthread mutex costs about 63 instructions to take and release
// uncontended on glibc; this lock costs about 20. It is not Swift's
// `Synchronization.Mutex`: on Linux that is a priority-inheritance futex,
// which hands every contended acquisition over through the kernel (four
// threads contending took ~17 µs per acquisition), and some of these locks
// are shared by every thread of a process.
//
// ALGORITHM
//   Linux: the three-state futex mutex of Drepper's "Futexes Are Tricky"
//   (0 unlocked, 1 locked, 2 locked and a thread may sleep on it). A taker
//   that finds the lock held spins briefly (the sections it guards are a
//   few hundred instructions), then swaps in 2 and sleeps in FUTEX_WAIT
//   until the swap finds 0. A releaser that swaps out 2 wakes one sleeper.
//   A woken thread competes with newcomers (no handoff, no convoy).
//   Apple platforms: `os_unfair_lock`, which has the same size and rules.
//   Other POSIX systems: the same states, yielding instead of sleeping.
//
// RULES
//   Not recursive: a thread that takes a lock it holds waits forever. Only
//   the thread that took a lock releases it. Nothing that can wait (a
//   factory, a disposer, a suspension, another lock taken in a different
//   order) may run while it is held.
//
// MEMORY ORDERING
//   Taking the lock is an acquire operation and releasing it a release
//   operation on `word`: what one holder wrote is visible to the next.
//   The operations are compiler atomics, so ThreadSanitizer sees every
//   handoff, contended ones included (the kernel only puts threads to
//   sleep and wakes them; it never passes the lock on).
//
// OWNERSHIP
//   The caller owns the memory: `syr_lock_t` can live anywhere that does
//   not move while a thread may use it (a class's tail allocation, a
//   table's owner area). Zero-initialised memory is an unlocked lock, and
//   an unlocked lock needs no destruction.
//===----------------------------------------------------------------------===//
#ifndef SYRINGE_LOCK_H
#define SYRINGE_LOCK_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A lock; all bits zero is unlocked. Read and write `word` only through
/// the functions below.
typedef struct syr_lock {
    uint32_t word;
} syr_lock_t;

/// Makes `lock` unlocked (the same as zeroing it).
void syr_lock_init(syr_lock_t *lock);

/// Takes `lock`, waiting while another thread holds it.
void syr_lock_acquire(syr_lock_t *lock);

/// Takes `lock` if no thread holds it and returns true; otherwise returns
/// false at once.
bool syr_lock_try_acquire(syr_lock_t *lock);

/// Releases `lock`, which the calling thread holds, and wakes a thread
/// waiting for it, if any.
void syr_lock_release(syr_lock_t *lock);

#ifdef __cplusplus
}
#endif

#endif // SYRINGE_LOCK_H
