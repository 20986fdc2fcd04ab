#include "bench_sink.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#endif

// A global the sink writes, so the call has an observable effect.
static const void *volatile bench_sink_last;

void bench_sink(const void *pointer) {
    bench_sink_last = pointer;
}

size_t bench_heap_in_use(void) {
#if defined(__linux__) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
#else
    return 0;
#endif
}

int bench_heap_accounting_available(void) {
#if defined(__linux__) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    return 1;
#else
    return 0;
#endif
}
