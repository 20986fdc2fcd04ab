// bench.h — what every variant of the read-side comparison provides.
//
// Each variant is its own translation unit (liburcu's flavours and its
// _LGPL_SOURCE inline/out-of-line choice are per-TU), linked into one binary
// with compare.c. The loops are noinline so that callgrind can count them
// alone (--toggle-collect) and objdump can show them.
#ifndef RECLAMATION_BENCH_H
#define RECLAMATION_BENCH_H

#include <stdint.h>

// The section's body: stands for the lock-free reads of a resolve. A compiler
// barrier, so that no variant's thread-local or global loads are hoisted out
// of the loop (a real resolve calls into Swift there, which does the same).
#define BODY() __asm__ __volatile__("" ::: "memory")

#define NOINLINE __attribute__((noinline, used))

typedef struct {
    const char *name;
    const char *what;
    void (*setup)(void);                 // register the calling thread, warm up
    void (*outer)(uint64_t n);           // n outermost sections
    void (*nested)(uint64_t n);          // one outermost section around n nested ones
    void (*one)(void);                   // one outermost section (for objdump)
} variant;

extern const variant v_empty, v_ours, v_ours_pending, v_memb, v_memb_fenced, v_memb_call, v_bp, v_qsbr, v_qsbr_online;

// Writer side: n times (retire one malloc'd object; make it freed).
typedef struct {
    const char *name;
    const char *what;
    void (*setup)(void);
    void (*run)(uint64_t n);
    void (*finish)(void);                // wait until everything is freed
} writer;

extern const writer w_ours, w_memb_call_rcu, w_memb_synchronize;
extern uint64_t freed_count;             // bumped by every free function

#endif
