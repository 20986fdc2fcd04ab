// syringe_table.c — the writer side of Syringe's resolution table.
// The concurrency and ownership contract is in include/syringe_table.h.

// posix_memalign is POSIX, not C11: declare it even under -std=c11.
#define _POSIX_C_SOURCE 200809L

#include "syringe_table.h"

#include <stdlib.h>

// Every block a reader might still be reading (a storage generation, a name)
// carries this link, so retiring one never needs an allocation and therefore
// can never fail half way through a writer operation.
typedef struct syr_block {
    struct syr_block *next;
} syr_block;

// Smallest storage ever allocated; a power of two.
#define SYR_MIN_CAPACITY ((size_t)8)

// Capacities are powers of two; this is the largest one a size_t holds, so
// doubling up to it cannot wrap. Storage that large cannot be addressed
// anyway: syr_storage_alloc's byte count overflows first and fails.
#define SYR_MAX_CAPACITY (SIZE_MAX / 2 + 1)

// Rebuild when full slots plus tombstones would exceed 3/4 of the capacity;
// a rebuild sizes the new storage so that it starts at most half full. Linear
// probing stays short at these loads and a quarter of the slots are always
// EMPTY, which is what ends every probe.
static bool syr_over_load(size_t used, size_t capacity) {
    return used * 4 > capacity * 3;
}

// The smallest capacity that gives `keys` keys two slots each. False when no
// capacity is that large.
static bool syr_capacity_for(size_t keys, size_t *capacity) {
    size_t slots;
    if (__builtin_mul_overflow(keys, (size_t)2, &slots) || slots > SYR_MAX_CAPACITY) {
        return false;
    }
    size_t fitting = SYR_MIN_CAPACITY;
    while (fitting < slots) {
        fitting *= 2;
    }
    *capacity = fitting;
    return true;
}

// A name copy is a syr_block followed by the bytes.
static syr_block *syr_name_block(const uint8_t *name) {
    return (syr_block *)name - 1;
}

// A storage block is 64-byte aligned and starts with SYR_STORAGE_HEADROOM
// bytes holding its syr_block; the 32-byte syr_storage header follows, so
// the slots after it start on a cache line.
#define SYR_STORAGE_HEADROOM ((size_t)32)
_Static_assert(sizeof(syr_block) <= SYR_STORAGE_HEADROOM, "the block link fits in the headroom");
_Static_assert(sizeof(syr_storage) == 32 && sizeof(syr_slot) == 32, "slots are 32 bytes, after a 32-byte header");

static syr_block *syr_storage_block(const syr_storage *storage) {
    return (syr_block *)((char *)storage - SYR_STORAGE_HEADROOM);
}

static void syr_retire(syr_table *table, syr_block *block) {
    block->next = (syr_block *)table->retired;
    table->retired = block;
}

// Empty storage with room for `keys` keys, or NULL when memory is exhausted
// or no storage can be that large.
static syr_storage *syr_storage_alloc(size_t keys, uint64_t hash_mask) {
    size_t capacity, size;
    if (!syr_capacity_for(keys, &capacity) ||
        __builtin_mul_overflow(capacity, sizeof(syr_slot) + sizeof(syr_slot_name), &size) ||
        __builtin_add_overflow(size, SYR_STORAGE_HEADROOM + sizeof(syr_storage), &size)) {
        return NULL;
    }
    void *memory = NULL;
    if (posix_memalign(&memory, 64, size) != 0) {
        return NULL;
    }
    // Every slot starts EMPTY (hash 0) with a NULL value and no name.
    memset(memory, 0, size);
    syr_storage *storage = (syr_storage *)((char *)memory + SYR_STORAGE_HEADROOM);
    storage->mask = capacity - 1;
    storage->hash_mask = hash_mask;
    storage->names = (syr_slot_name *)&storage->slots[capacity];
    return storage;
}

static syr_storage *syr_current(const syr_table *table) {
    // Only writers call this, and they are serialised: relaxed is enough.
    return atomic_load_explicit((_Atomic(syr_storage *) *)&table->storage, memory_order_relaxed);
}

static const uint8_t *syr_name_copy(const void *name, size_t name_len, bool *failed) {
    *failed = false;
    if (name_len == SYR_NO_NAME) {
        return NULL;
    }
    syr_block *block = malloc(sizeof(syr_block) + name_len);
    if (block == NULL) {
        *failed = true;
        return NULL;
    }
    uint8_t *copy = (uint8_t *)(block + 1);
    if (name_len > 0) {
        memcpy(copy, name, name_len);
    }
    return copy;
}

// Finds the index of the full slot holding the key, or returns false.
static bool syr_find(const syr_storage *storage, uint64_t h, const void *type, const void *signature,
                     const void *name, size_t name_len, size_t *found) {
    for (size_t index = (size_t)h & storage->mask;; index = (index + 1) & storage->mask) {
        uint64_t sh = atomic_load_explicit((_Atomic(uint64_t) *)&storage->slots[index].hash, memory_order_relaxed);
        if (sh == SYR_SLOT_EMPTY) {
            return false;
        }
        if (sh == h && syr_slot_matches(storage, index, type, signature, name, name_len)) {
            *found = index;
            return true;
        }
    }
}

// Writes a key into the first EMPTY slot of its probe sequence and publishes
// it. The caller guarantees that the key is absent and that an EMPTY slot
// exists. Tombstones are skipped, never reused: see the header's contract.
static void syr_place(syr_storage *storage, uint64_t h, const void *type, const void *signature,
                      const uint8_t *name, size_t name_len, void *value) {
    size_t index = (size_t)h & storage->mask;
    while (atomic_load_explicit(&storage->slots[index].hash, memory_order_relaxed) != SYR_SLOT_EMPTY) {
        index = (index + 1) & storage->mask;
    }
    syr_slot *slot = &storage->slots[index];
    slot->type = type;
    slot->signature = signature;
    storage->names[index] = (syr_slot_name){.bytes = name, .length = name_len};
    atomic_store_explicit(&slot->value, value, memory_order_relaxed);
    // Publishes every field above to readers that acquire-load the hash.
    atomic_store_explicit(&slot->hash, h, memory_order_release);
}

// Moves every full slot into a new storage sized for `keys` keys and
// publishes it; the old storage is retired. Names move with their slots.
static int syr_rebuild(syr_table *table, size_t keys) {
    syr_storage *old = syr_current(table);
    syr_storage *fresh = syr_storage_alloc(keys, table->hash_mask);
    if (fresh == NULL) {
        return -1;
    }
    for (size_t index = 0; index <= old->mask; index++) {
        syr_slot *slot = &old->slots[index];
        if (atomic_load_explicit(&slot->hash, memory_order_relaxed) < 2) {
            continue;
        }
        const syr_slot_name name = old->names[index];
        uint64_t h = syr_key_hash(slot->type, slot->signature, name.bytes, name.length, fresh->hash_mask);
        syr_place(fresh, h, slot->type, slot->signature, name.bytes, name.length,
                  atomic_load_explicit(&slot->value, memory_order_relaxed));
    }
    // Readers that already loaded `old` keep probing it safely: it is retired,
    // not freed, and never written again.
    atomic_store_explicit(&table->storage, fresh, memory_order_release);
    syr_retire(table, syr_storage_block(old));
    table->used = table->count;
    return 0;
}

syr_table *syr_table_create(size_t expected) {
    syr_table *table = calloc(1, sizeof(syr_table));
    if (table == NULL) {
        return NULL;
    }
    table->hash_mask = UINT64_MAX;
    syr_storage *storage = syr_storage_alloc(expected, table->hash_mask);
    if (storage == NULL) {
        free(table);
        return NULL;
    }
    atomic_init(&table->storage, storage);
    return table;
}

void syr_table_destroy(syr_table *table) {
    if (table == NULL) {
        return;
    }
    syr_storage *storage = syr_current(table);
    for (size_t index = 0; index <= storage->mask; index++) {
        // Names of tombstoned slots were retired on removal and are freed below.
        if (atomic_load_explicit(&storage->slots[index].hash, memory_order_relaxed) >= 2 &&
            storage->names[index].bytes != NULL) {
            free(syr_name_block(storage->names[index].bytes));
        }
    }
    free(syr_storage_block(storage));
    for (syr_block *block = table->retired; block != NULL;) {
        syr_block *next = block->next;
        free(block);
        block = next;
    }
    free(table);
}

int syr_table_insert(syr_table *table, const void *type, const void *signature, const void *name,
                     size_t name_len, void *value, void **replaced) {
    syr_storage *storage = syr_current(table);
    uint64_t h = syr_key_hash(type, signature, name, name_len, storage->hash_mask);
    size_t index;
    if (syr_find(storage, h, type, signature, name, name_len, &index)) {
        syr_slot *existing = &storage->slots[index];
        *replaced = atomic_load_explicit(&existing->value, memory_order_relaxed);
        // Readers see either the old or the new value, each fully built.
        atomic_store_explicit(&existing->value, value, memory_order_release);
        return 0;
    }
    bool failed;
    const uint8_t *copy = syr_name_copy(name, name_len, &failed);
    if (failed) {
        return -1;
    }
    if (syr_over_load(table->used + 1, storage->mask + 1)) {
        if (syr_rebuild(table, table->count + 1) != 0) {
            if (copy != NULL) {
                free(syr_name_block(copy));
            }
            return -1;
        }
        storage = syr_current(table);
        h = syr_key_hash(type, signature, name, name_len, storage->hash_mask);
    }
    syr_place(storage, h, type, signature, copy, name_len, value);
    table->count += 1;
    table->used += 1;
    *replaced = NULL;
    return 0;
}

void *syr_table_remove(syr_table *table, const void *type, const void *signature, const void *name,
                       size_t name_len) {
    syr_storage *storage = syr_current(table);
    uint64_t h = syr_key_hash(type, signature, name, name_len, storage->hash_mask);
    size_t index;
    if (!syr_find(storage, h, type, signature, name, name_len, &index)) {
        return NULL;
    }
    syr_slot *slot = &storage->slots[index];
    void *value = atomic_load_explicit(&slot->value, memory_order_relaxed);
    // Value first: a reader that matched the key before the tombstone lands
    // loads NULL and keeps probing instead of returning a removed value.
    atomic_store_explicit(&slot->value, NULL, memory_order_release);
    atomic_store_explicit(&slot->hash, SYR_SLOT_TOMBSTONE, memory_order_release);
    if (storage->names[index].bytes != NULL) {
        syr_retire(table, syr_name_block(storage->names[index].bytes));
    }
    table->count -= 1;
    return value;
}

int syr_table_clear(syr_table *table) {
    syr_storage *old = syr_current(table);
    syr_storage *fresh = syr_storage_alloc(0, table->hash_mask);
    if (fresh == NULL) {
        return -1;
    }
    atomic_store_explicit(&table->storage, fresh, memory_order_release);
    for (size_t index = 0; index <= old->mask; index++) {
        if (atomic_load_explicit(&old->slots[index].hash, memory_order_relaxed) >= 2 && old->names[index].bytes != NULL) {
            syr_retire(table, syr_name_block(old->names[index].bytes));
        }
    }
    syr_retire(table, syr_storage_block(old));
    table->count = 0;
    table->used = 0;
    return 0;
}

size_t syr_table_count(const syr_table *table) {
    return table->count;
}

size_t syr_table_capacity(const syr_table *table) {
    return syr_current(table)->mask + 1;
}

void *syr_table_value_at(const syr_table *table, size_t index) {
    syr_storage *storage = syr_current(table);
    if (index > storage->mask) {
        return NULL;
    }
    syr_slot *slot = &storage->slots[index];
    if (atomic_load_explicit(&slot->hash, memory_order_relaxed) < 2) {
        return NULL;
    }
    return atomic_load_explicit(&slot->value, memory_order_relaxed);
}

int syr_table_set_hash_mask(syr_table *table, uint64_t mask) {
    uint64_t previous = table->hash_mask;
    table->hash_mask = mask;
    if (syr_rebuild(table, table->count) != 0) {
        table->hash_mask = previous;
        return -1;
    }
    return 0;
}

bool syr_table_check_invariants(const syr_table *table) {
    syr_storage *storage = syr_current(table);
    size_t full = 0, tombstones = 0, empty = 0;
    for (size_t index = 0; index <= storage->mask; index++) {
        const syr_slot *slot = &storage->slots[index];
        uint64_t sh = atomic_load_explicit((_Atomic(uint64_t) *)&slot->hash, memory_order_relaxed);
        if (sh == SYR_SLOT_EMPTY) {
            empty += 1;
            continue;
        }
        if (sh == SYR_SLOT_TOMBSTONE) {
            tombstones += 1;
            continue;
        }
        full += 1;
        if (atomic_load_explicit((_Atomic(void *) *)&slot->value, memory_order_relaxed) == NULL) {
            return false;
        }
        const syr_slot_name *name = &storage->names[index];
        if ((name->bytes == NULL) != (name->length == SYR_NO_NAME)) {
            return false;
        }
        uint64_t h = syr_key_hash(slot->type, slot->signature, name->bytes, name->length, storage->hash_mask);
        if (h != sh) {
            return false;
        }
        // The slot must be reachable from its home without crossing an EMPTY
        // slot, and no earlier slot on the way may hold the same key.
        for (size_t probe = (size_t)h & storage->mask; probe != index; probe = (probe + 1) & storage->mask) {
            uint64_t oh = atomic_load_explicit((_Atomic(uint64_t) *)&storage->slots[probe].hash, memory_order_relaxed);
            if (oh == SYR_SLOT_EMPTY) {
                return false;
            }
            if (oh == h && syr_slot_matches(storage, probe, slot->type, slot->signature, name->bytes, name->length)) {
                return false;
            }
        }
    }
    return full == table->count && full + tombstones == table->used && empty > 0 &&
           !syr_over_load(table->used, storage->mask + 1);
}

uint64_t syr_xxh3_64(const void *bytes, size_t length) {
    return XXH3_64bits(bytes, length);
}

uint64_t syr_xxh3_64_seeded(const void *bytes, size_t length, uint64_t seed) {
    return XXH3_64bits_withSeed(bytes, length, seed);
}
