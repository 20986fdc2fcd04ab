// table_smoke.c — a deterministic workout of every writer path of the
// resolution table, small enough to run under valgrind. Its job is to prove
// that everything the table ever allocated is released: by syr_table_destroy,
// and, for storage generations retired by growth, clear and hash-mask
// rebuilds and the names of removed and cleared keys, by the reclaimer, which
// frees them at the next poll (nothing reads them: this driver has one thread
// and no read-side section). It also checks every result, so a leak-free run
// is also a correct one. Exits 1 on a mismatch.

#include "syringe_reclaim.h"
#include "syringe_table_testing.h"

#include <stdio.h>
#include <stdlib.h>

#define SM_KEYS 2000
#define SM_LONG_NAME 1000

static int sm_failures = 0;

#define SM_EXPECT(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "table_smoke: %s:%d: %s: ", __FILE__, __LINE__, #cond);                \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            sm_failures += 1;                                                                      \
        }                                                                                          \
    } while (0)

typedef struct {
    const void *type;
    const void *signature;
    uint8_t name[SM_LONG_NAME];
    size_t name_len;
} sm_key;

// Key `id`: every fourth has no name, then the empty name, a name with an
// embedded NUL, and a long name whose last bytes encode the id.
static sm_key sm_make_key(size_t id) {
    sm_key key;
    key.type = (const void *)(uintptr_t)(0x1000 * (id % 50 + 1));
    key.signature = (const void *)(uintptr_t)(0x100000 + 0x1000 * (id / 50 + 1));
    switch (id % 4) {
    case 0:
        key.name_len = SYR_NO_NAME;
        break;
    case 1:
        key.name_len = 0;
        break;
    case 2:
        key.name[0] = 'n';
        key.name[1] = 0;
        key.name[2] = (uint8_t)id;
        key.name_len = 3;
        break;
    default:
        memset(key.name, 'L', SM_LONG_NAME);
        key.name[SM_LONG_NAME - 2] = (uint8_t)(id >> 8);
        key.name[SM_LONG_NAME - 1] = (uint8_t)id;
        key.name_len = SM_LONG_NAME;
        break;
    }
    return key;
}

static const void *sm_name(const sm_key *key) {
    return key->name_len == SYR_NO_NAME ? NULL : key->name;
}

static void *sm_value(size_t id, size_t generation) {
    return (void *)(uintptr_t)(0x10 * (id + 1) + 0x1000000 * generation);
}

static void *sm_lookup(const syr_table *table, size_t id) {
    sm_key key = sm_make_key(id);
    return syr_table_lookup(table, key.type, key.signature, sm_name(&key), key.name_len);
}

static void *sm_insert(syr_table *table, size_t id, void *value) {
    sm_key key = sm_make_key(id);
    void *replaced = (void *)1;
    SM_EXPECT(syr_table_insert(table, key.type, key.signature, sm_name(&key), key.name_len, value, &replaced) == 0,
              "insert %zu", id);
    return replaced;
}

static void *sm_remove(syr_table *table, size_t id) {
    sm_key key = sm_make_key(id);
    return syr_table_remove(table, key.type, key.signature, sm_name(&key), key.name_len);
}

// `generation[id]` is the live value's generation, or 0 when the key is absent.
static void sm_verify(const syr_table *table, const size_t *generation, const char *stage) {
    size_t live = 0;
    for (size_t id = 0; id < SM_KEYS; id++) {
        void *expected = generation[id] == 0 ? NULL : sm_value(id, generation[id]);
        live += generation[id] != 0;
        SM_EXPECT(sm_lookup(table, id) == expected, "%s: key %zu", stage, id);
    }
    SM_EXPECT(syr_table_count(table) == live, "%s: count %zu, expected %zu", stage, syr_table_count(table), live);
    SM_EXPECT(syr_table_check_invariants(table), "%s: invariants", stage);
}

static void sm_workout(uint64_t mask, size_t keys) {
    static size_t generation[SM_KEYS];
    memset(generation, 0, sizeof generation);
    syr_table *table = syr_table_create(0);
    SM_EXPECT(table != NULL, "create");
    SM_EXPECT(syr_table_set_hash_mask(table, mask) == 0, "set mask");

    for (size_t id = 0; id < keys; id++) {
        SM_EXPECT(sm_insert(table, id, sm_value(id, 1)) == NULL, "fresh insert %zu", id);
        generation[id] = 1;
    }
    sm_verify(table, generation, "grown");

    for (size_t id = 0; id < keys; id += 2) {
        SM_EXPECT(sm_insert(table, id, sm_value(id, 2)) == sm_value(id, 1), "overwrite %zu", id);
        generation[id] = 2;
    }
    for (size_t id = 0; id < keys; id += 3) {
        SM_EXPECT(sm_remove(table, id) == sm_value(id, generation[id]), "remove %zu", id);
        SM_EXPECT(sm_remove(table, id) == NULL, "second remove %zu", id);
        generation[id] = 0;
    }
    sm_verify(table, generation, "overwritten and removed");

    // Churn: each round leaves tombstones that only a rebuild reclaims.
    for (size_t round = 3; round < 8; round++) {
        for (size_t id = 0; id < keys; id += 5) {
            sm_remove(table, id);
            SM_EXPECT(sm_insert(table, id, sm_value(id, round)) == NULL, "reinsert %zu", id);
            generation[id] = round;
        }
    }
    sm_verify(table, generation, "churned");

    // Rebuild under a different mask, then back, with names in flight.
    SM_EXPECT(syr_table_set_hash_mask(table, mask == UINT64_MAX ? 0x7 : UINT64_MAX) == 0, "remask");
    sm_verify(table, generation, "remasked");
    SM_EXPECT(syr_table_set_hash_mask(table, mask) == 0, "mask back");

    SM_EXPECT(syr_table_clear(table) == 0, "clear");
    memset(generation, 0, sizeof generation);
    sm_verify(table, generation, "cleared");
    for (size_t id = 0; id < keys / 4; id++) {
        SM_EXPECT(sm_insert(table, id, sm_value(id, 9)) == NULL, "insert after clear %zu", id);
        generation[id] = 9;
    }
    sm_verify(table, generation, "refilled");

    // Destroyed with live keys, tombstones and retired blocks all present.
    sm_remove(table, 1);
    syr_table_destroy(table);
    syr_reclaim_poll();
    SM_EXPECT(syr_reclaim_pending_count() == 0, "the reclaimer freed every retired block");
}

int main(void) {
    SM_EXPECT(syr_internal_checks_enabled(), "the table must be built with SYR_INTERNAL_CHECKS");
    // Destroying untouched tables must free their single storage block too.
    syr_table_destroy(syr_table_create(0));
    syr_table_destroy(syr_table_create(5000));
    syr_table_destroy(NULL);
    syr_reclaim_poll();
    // Sizes no storage can hold fail cleanly instead of wrapping or spinning.
    SM_EXPECT(syr_table_create(SIZE_MAX) == NULL, "create(SIZE_MAX)");
    SM_EXPECT(syr_table_create(SIZE_MAX / 2) == NULL, "create(SIZE_MAX / 2)");
    SM_EXPECT(syr_table_create(SIZE_MAX / 16 + 1) == NULL, "create(SIZE_MAX / 16 + 1)");

    sm_workout(UINT64_MAX, SM_KEYS);
    // Every key colliding makes probing quadratic; fewer keys keep valgrind fast.
    sm_workout(0, 300);
    sm_workout(0x7, 600);

    if (sm_failures != 0) {
        fprintf(stderr, "table_smoke: %d failure(s)\n", sm_failures);
        return 1;
    }
    puts("table_smoke: ok");
    return 0;
}
