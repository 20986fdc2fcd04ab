// Helpers the Swift optimiser cannot see into.
#ifndef SYRINGE_BENCH_SINK_H
#define SYRINGE_BENCH_SINK_H

#include <stddef.h>
#include <stdint.h>

/// Takes a pointer and does nothing with it. Defined in a separate C file, so
/// a call to it can never be removed: whatever produced its argument happened.
void bench_sink(const void *pointer);

/// Bytes currently allocated from the C heap (glibc mallinfo2: in-use small
/// blocks + mmapped blocks). Returns 0 where mallinfo2 is unavailable.
size_t bench_heap_in_use(void);

/// Whether bench_heap_in_use measures anything on this platform.
int bench_heap_accounting_available(void);

#endif
