// syringe_thread.c — storage of the per-thread slot; see include/syringe_thread.h.

#include "syringe_thread.h"

#include <stddef.h>

_Thread_local void *syr_thread_slot = NULL;

void syr_thread_set(void *value) {
    syr_thread_slot = value;
}
