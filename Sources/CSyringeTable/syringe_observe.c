// syringe_observe.c — the observer count; see include/syringe_observe.h.

#include "syringe_observe.h"

uint32_t syr_observers;

uint32_t syr_observers_add(int32_t delta) {
    return __atomic_add_fetch(&syr_observers, (uint32_t)delta, __ATOMIC_RELAXED);
}
