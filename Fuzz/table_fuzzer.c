// table_fuzzer.c — libFuzzer harness for the resolution table (syringe_table.c).
//
// The input is a program for the table's writer API, checked step by step
// against a flat reference model. Keys come from a small pool so that
// overwrites, tombstones and (with the hash-mask hook) collisions are common.
//
// Input format:
//   byte 0          initial size hint for syr_table_create
//   then repeated:  one op byte (op = byte % FZ_OP_COUNT) and its arguments
//
//   FZ_OP_INSERT   key      insert or overwrite a pool key with a fresh value
//   FZ_OP_REMOVE   key      remove a pool key
//   FZ_OP_FOREIGN  key      look up a key that is never inserted but shares
//                           the pool key's type, signature and most of its name
//   FZ_OP_REINSERT key      remove then insert the same key (lands past its tombstone)
//   FZ_OP_CLEAR             syr_table_clear
//   FZ_OP_GROW     start n  insert n+1 filler keys from filler index `start`
//   FZ_OP_SHRINK   start n  remove n+1 filler keys from filler index `start`
//   FZ_OP_MASK     m        syr_table_set_hash_mask with fz_masks[m % 4]
//   FZ_OP_WALK              syr_table_value_at must yield exactly the model's values
//
// After every op: every pool key's lookup equals the model, the count equals
// the model's, and syr_table_check_invariants holds. Any mismatch aborts.

#include "syringe_reclaim.h"
#include "syringe_table_testing.h"

#include <stdio.h>
#include <stdlib.h>

enum {
    FZ_OP_INSERT,
    FZ_OP_REMOVE,
    FZ_OP_FOREIGN,
    FZ_OP_REINSERT,
    FZ_OP_CLEAR,
    FZ_OP_GROW,
    FZ_OP_SHRINK,
    FZ_OP_MASK,
    FZ_OP_WALK,
    FZ_OP_COUNT
};

#define FZ_TYPES 4
#define FZ_SIGNATURES 3
#define FZ_NAMES 6
#define FZ_POOL_KEYS (FZ_TYPES * FZ_SIGNATURES * FZ_NAMES)
// Fillers push the table through growth and tombstone clean-up. Bounded so
// that full checks stay cheap even when every key collides (O(n^2) probing).
#define FZ_FILLERS 128
#define FZ_LONG_NAME 300

typedef struct {
    const uint8_t *bytes;
    size_t length; // SYR_NO_NAME for no name
} fz_name;

static uint8_t fz_long_a[FZ_LONG_NAME];
static uint8_t fz_long_b[FZ_LONG_NAME];

// "a" and "a\0b" agree up to a NUL; the two long names differ only in their
// last byte; NO_NAME and "" must stay distinct.
static const fz_name fz_names[FZ_NAMES] = {
    {NULL, SYR_NO_NAME},
    {(const uint8_t *)"", 0},
    {(const uint8_t *)"a", 1},
    {(const uint8_t *)"a\0b", 3},
    {fz_long_a, FZ_LONG_NAME},
    {fz_long_b, FZ_LONG_NAME},
};

static const uint64_t fz_masks[4] = {UINT64_MAX, 0, 0x7, 0xF};

typedef struct {
    const void *type;
    const void *signature;
    fz_name name;
} fz_key;

typedef struct {
    const uint8_t *data;
    size_t size;
    size_t pos;
} fz_input;

// The reference model: the value each key should map to, NULL when absent.
typedef struct {
    void *pool[FZ_POOL_KEYS];
    void *fillers[FZ_FILLERS];
    size_t count;
    uintptr_t next_value;
} fz_model;

#define FZ_CHECK(cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "table_fuzzer: check failed: %s: ", #cond);                            \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    FZ_CHECK(syr_internal_checks_enabled(), "the table must be built with SYR_INTERNAL_CHECKS");
    for (size_t i = 0; i < FZ_LONG_NAME; i++) {
        fz_long_a[i] = (uint8_t)(i * 7 + 1);
    }
    memcpy(fz_long_b, fz_long_a, FZ_LONG_NAME);
    fz_long_b[FZ_LONG_NAME - 1] ^= 0x80;
    return 0;
}

static uint8_t fz_byte(fz_input *in) {
    return in->pos < in->size ? in->data[in->pos++] : 0;
}

static fz_key fz_pool_key(size_t id) {
    fz_key key;
    key.type = (const void *)(uintptr_t)(0x1000 * (id % FZ_TYPES + 1));
    key.signature = (const void *)(uintptr_t)(0x100000 + 0x1000 * (id / FZ_TYPES % FZ_SIGNATURES + 1));
    key.name = fz_names[id / (FZ_TYPES * FZ_SIGNATURES)];
    return key;
}

static fz_key fz_filler_key(size_t id) {
    fz_key key;
    key.type = (const void *)(uintptr_t)(0x7000000 + 0x1000 * id);
    key.signature = fz_pool_key(0).signature;
    // Fillers mix no name, "" and "a" so names are copied and retired under load.
    key.name = fz_names[id % 3];
    return key;
}

// The table must copy names and compare them by content, so writers get a
// short-lived heap copy of the name: ASan reports a table that keeps the
// caller's pointer, and lookups through the static names would never match
// a table that compares name pointers.
static uint8_t *fz_name_copy(fz_name name) {
    if (name.length == SYR_NO_NAME) {
        return NULL;
    }
    uint8_t *copy = malloc(name.length + 1);
    FZ_CHECK(copy != NULL, "out of memory");
    memcpy(copy, name.bytes, name.length);
    return copy;
}

static void *fz_lookup(const syr_table *table, fz_key key) {
    return syr_table_lookup(table, key.type, key.signature, key.name.bytes, key.name.length);
}

static void fz_insert(syr_table *table, fz_model *model, fz_key key, void **slot) {
    void *value = (void *)(model->next_value += 16);
    void *replaced = (void *)1;
    uint8_t *name = fz_name_copy(key.name);
    int status = syr_table_insert(table, key.type, key.signature, name, key.name.length, value, &replaced);
    free(name);
    FZ_CHECK(status == 0, "insert failed");
    FZ_CHECK(replaced == *slot, "insert replaced %p, model had %p", replaced, *slot);
    if (*slot == NULL) {
        model->count += 1;
    }
    *slot = value;
}

static void fz_remove(syr_table *table, fz_model *model, fz_key key, void **slot) {
    uint8_t *name = fz_name_copy(key.name);
    void *removed = syr_table_remove(table, key.type, key.signature, name, key.name.length);
    free(name);
    FZ_CHECK(removed == *slot, "remove returned %p, model had %p", removed, *slot);
    if (*slot != NULL) {
        model->count -= 1;
    }
    *slot = NULL;
}

// A key with the pool key's type and signature whose name is never in the
// pool: a short name plus one byte, a long name with its last byte changed,
// or the one-byte name "\0" in place of no name or the empty name.
static fz_key fz_foreign_key(size_t id, uint8_t *scratch) {
    fz_key key = fz_pool_key(id);
    size_t length = key.name.length == SYR_NO_NAME ? 0 : key.name.length;
    if (length > 0) {
        memcpy(scratch, key.name.bytes, length);
    }
    if (length > 0 && length < FZ_LONG_NAME) {
        // Short names gain a trailing byte: "a" -> "a\x01", "a\0b" -> "a\0b\x01".
        scratch[length++] = 1;
    } else if (length == FZ_LONG_NAME) {
        scratch[length - 1] ^= 0x01;
    } else {
        scratch[length++] = 0;
    }
    key.name.bytes = scratch;
    key.name.length = length;
    return key;
}

static int fz_compare_pointers(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;
    return (x > y) - (x < y);
}

static void fz_check_walk(const syr_table *table, const fz_model *model) {
    size_t capacity = syr_table_capacity(table);
    void **walked = malloc((capacity + 1) * sizeof *walked);
    void **expected = malloc((FZ_POOL_KEYS + FZ_FILLERS + 1) * sizeof *expected);
    FZ_CHECK(walked != NULL && expected != NULL, "out of memory");
    size_t walked_count = 0, expected_count = 0;
    for (size_t i = 0; i < capacity; i++) {
        void *value = syr_table_value_at(table, i);
        if (value != NULL) {
            walked[walked_count++] = value;
        }
    }
    FZ_CHECK(syr_table_value_at(table, capacity) == NULL, "value_at past the end");
    for (size_t i = 0; i < FZ_POOL_KEYS; i++) {
        if (model->pool[i] != NULL) {
            expected[expected_count++] = model->pool[i];
        }
    }
    for (size_t i = 0; i < FZ_FILLERS; i++) {
        if (model->fillers[i] != NULL) {
            expected[expected_count++] = model->fillers[i];
        }
    }
    FZ_CHECK(walked_count == expected_count, "walked %zu values, model has %zu", walked_count, expected_count);
    qsort(walked, walked_count, sizeof *walked, fz_compare_pointers);
    qsort(expected, expected_count, sizeof *expected, fz_compare_pointers);
    for (size_t i = 0; i < walked_count; i++) {
        FZ_CHECK(walked[i] == expected[i], "walked value %p, model has %p", walked[i], expected[i]);
    }
    free(walked);
    free(expected);
}

static void fz_check_fillers(const syr_table *table, const fz_model *model) {
    for (size_t i = 0; i < FZ_FILLERS; i++) {
        void *found = fz_lookup(table, fz_filler_key(i));
        FZ_CHECK(found == model->fillers[i], "filler %zu: table %p, model %p", i, found, model->fillers[i]);
    }
}

static void fz_check_step(const syr_table *table, const fz_model *model, uint8_t op) {
    for (size_t i = 0; i < FZ_POOL_KEYS; i++) {
        void *found = fz_lookup(table, fz_pool_key(i));
        FZ_CHECK(found == model->pool[i], "after op %u, key %zu: table %p, model %p", op, i, found,
                 model->pool[i]);
    }
    FZ_CHECK(syr_table_count(table) == model->count, "after op %u: count %zu, model %zu", op,
             syr_table_count(table), model->count);
    FZ_CHECK(syr_table_check_invariants(table), "after op %u: invariants broken", op);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_input in = {data, size, 0};
    fz_model model = {.next_value = 0x10000};
    uint8_t scratch[FZ_LONG_NAME + 1];

    syr_table *table = syr_table_create(fz_byte(&in));
    FZ_CHECK(table != NULL, "create failed");

    while (in.pos < in.size) {
        uint8_t op = fz_byte(&in) % FZ_OP_COUNT;
        switch (op) {
        case FZ_OP_INSERT: {
            size_t id = fz_byte(&in) % FZ_POOL_KEYS;
            fz_insert(table, &model, fz_pool_key(id), &model.pool[id]);
            break;
        }
        case FZ_OP_REMOVE: {
            size_t id = fz_byte(&in) % FZ_POOL_KEYS;
            fz_remove(table, &model, fz_pool_key(id), &model.pool[id]);
            break;
        }
        case FZ_OP_FOREIGN: {
            size_t id = fz_byte(&in) % FZ_POOL_KEYS;
            void *found = fz_lookup(table, fz_foreign_key(id, scratch));
            FZ_CHECK(found == NULL, "foreign variant of key %zu found: %p", id, found);
            break;
        }
        case FZ_OP_REINSERT: {
            size_t id = fz_byte(&in) % FZ_POOL_KEYS;
            fz_remove(table, &model, fz_pool_key(id), &model.pool[id]);
            fz_insert(table, &model, fz_pool_key(id), &model.pool[id]);
            break;
        }
        case FZ_OP_CLEAR:
            FZ_CHECK(syr_table_clear(table) == 0, "clear failed");
            memset(model.pool, 0, sizeof model.pool);
            memset(model.fillers, 0, sizeof model.fillers);
            model.count = 0;
            break;
        case FZ_OP_GROW:
        case FZ_OP_SHRINK: {
            size_t start = fz_byte(&in) % FZ_FILLERS;
            size_t n = fz_byte(&in) % FZ_FILLERS + 1;
            for (size_t k = 0; k < n; k++) {
                size_t id = (start + k) % FZ_FILLERS;
                if (op == FZ_OP_GROW) {
                    fz_insert(table, &model, fz_filler_key(id), &model.fillers[id]);
                } else {
                    fz_remove(table, &model, fz_filler_key(id), &model.fillers[id]);
                }
            }
            fz_check_fillers(table, &model);
            break;
        }
        case FZ_OP_MASK:
            FZ_CHECK(syr_table_set_hash_mask(table, fz_masks[fz_byte(&in) % 4]) == 0, "set_hash_mask failed");
            break;
        case FZ_OP_WALK:
            fz_check_walk(table, &model);
            break;
        }
        fz_check_step(table, &model, op);
    }

    fz_check_fillers(table, &model);
    fz_check_walk(table, &model);
    syr_table_destroy(table);
    // Frees what the run retired (one thread, no section: all of it), so
    // memory does not grow from one input to the next.
    syr_reclaim_poll();
    return 0;
}
