// syringe_thread.c — storage of the per-thread slots; see include/syringe_thread.h.

#include "syringe_thread.h"

_Thread_local void *syr_thread_slots[SYR_THREAD_SLOT_COUNT];

void syr_thread_set(unsigned slot, void *value) {
    syr_thread_slots[slot] = value;
}
