// syringe_lock.c — the lock of include/syringe_lock.h.

// syscall(2) is not C11: declare it even under -std=c11.
#define _GNU_SOURCE

#include "syringe_lock.h"

#if defined(__APPLE__)
#include <os/lock.h>
#elif defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#else
#include <sched.h>
#endif

#if defined(__APPLE__)

// `os_unfair_lock` is a 32-bit word whose unlocked value is zero, so the
// same memory serves. It parks waiters in the kernel and hands priority to
// the owner, which is right where the thread priorities are meaningful.
_Static_assert(sizeof(os_unfair_lock) == sizeof(syr_lock_t), "os_unfair_lock is one word");

void syr_lock_init(syr_lock_t *lock) {
    *(os_unfair_lock *)lock = OS_UNFAIR_LOCK_INIT;
}

void syr_lock_acquire(syr_lock_t *lock) {
    os_unfair_lock_lock((os_unfair_lock *)lock);
}

bool syr_lock_try_acquire(syr_lock_t *lock) {
    return os_unfair_lock_trylock((os_unfair_lock *)lock);
}

void syr_lock_release(syr_lock_t *lock) {
    os_unfair_lock_unlock((os_unfair_lock *)lock);
}

#else

enum {
    SYR_LOCK_UNLOCKED = 0,
    SYR_LOCK_LOCKED = 1,
    /// Locked, and a thread may be asleep waiting for it: its releaser wakes one.
    SYR_LOCK_CONTENDED = 2,
};

/// How many times a taker looks at a held lock before it sleeps: long
/// enough to outlast a critical section of a few hundred instructions on
/// another core, short enough that a holder descheduled on a busy machine
/// costs little spinning.
#define SYR_LOCK_SPINS 100

static inline void syr_lock_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield");
#endif
}

/// Sleeps while `lock` still reads `SYR_LOCK_CONTENDED`; may return early
/// (a wake-up, a signal, the word changed first): the caller checks again.
static void syr_lock_sleep(syr_lock_t *lock) {
#if defined(__linux__)
    syscall(SYS_futex, &lock->word, FUTEX_WAIT_PRIVATE, SYR_LOCK_CONTENDED, NULL, NULL, 0);
#else
    sched_yield();
#endif
}

static void syr_lock_wake_one(syr_lock_t *lock) {
#if defined(__linux__)
    syscall(SYS_futex, &lock->word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
#else
    (void)lock;
#endif
}

void syr_lock_init(syr_lock_t *lock) {
    __atomic_store_n(&lock->word, SYR_LOCK_UNLOCKED, __ATOMIC_RELAXED);
}

bool syr_lock_try_acquire(syr_lock_t *lock) {
    uint32_t expected = SYR_LOCK_UNLOCKED;
    return __atomic_compare_exchange_n(&lock->word, &expected, SYR_LOCK_LOCKED, false,
                                       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

__attribute__((__noinline__))
static void syr_lock_acquire_slowly(syr_lock_t *lock) {
    for (int spin = 0; spin < SYR_LOCK_SPINS; spin++) {
        uint32_t word = __atomic_load_n(&lock->word, __ATOMIC_RELAXED);
        if (word == SYR_LOCK_UNLOCKED && syr_lock_try_acquire(lock)) {
            return;
        }
        if (word == SYR_LOCK_CONTENDED) {
            break; // others sleep already: spinning would only delay joining them
        }
        syr_lock_relax();
    }
    // Taken as contended from here on, even when nobody else waits any
    // more: its release then makes one unneeded wake call, which is what
    // keeps a sleeper from being missed.
    while (__atomic_exchange_n(&lock->word, SYR_LOCK_CONTENDED, __ATOMIC_ACQUIRE) != SYR_LOCK_UNLOCKED) {
        syr_lock_sleep(lock);
    }
}

void syr_lock_acquire(syr_lock_t *lock) {
    if (__builtin_expect(!syr_lock_try_acquire(lock), 0)) {
        syr_lock_acquire_slowly(lock);
    }
}

void syr_lock_release(syr_lock_t *lock) {
    if (__builtin_expect(__atomic_exchange_n(&lock->word, SYR_LOCK_UNLOCKED, __ATOMIC_RELEASE)
                         == SYR_LOCK_CONTENDED, 0)) {
        syr_lock_wake_one(lock);
    }
}

#endif
