// Storage of the baseline's per-thread slot; see include/baseline_thread.h.

#include "baseline_thread.h"

#include <stddef.h>

_Thread_local void *baseline_thread_slot = NULL;

void baseline_thread_set(void *value) {
    baseline_thread_slot = value;
}
