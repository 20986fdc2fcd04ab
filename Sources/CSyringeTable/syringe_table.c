// syringe_table.c — the writer side of Syringe's resolution table and the
// hooks of syringe_table_testing.h. The concurrency and ownership contract is
// in include/syringe_table.h.

// posix_memalign is POSIX, not C11: declare it even under -std=c11.
#define _POSIX_C_SOURCE 200809L

#include "syringe_reclaim.h"
#include "syringe_table.h"
#include "syringe_table_testing.h"

#include <stdio.h>
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#elif defined(__APPLE__)
#include <malloc/malloc.h>
#endif

// Debug builds (and the fuzzer) define SYR_INTERNAL_CHECKS: then every writer
// operation checks what it could have broken before it returns, and aborts
// on the first broken invariant. The checks are compiled in either way, so
// they cannot rot, and cost nothing when the constant is false.
#ifdef SYR_INTERNAL_CHECKS
#define SYR_CHECKING true
#else
#define SYR_CHECKING false
#endif

// ---------------------------------------------------------------------------
// Sizing
// ---------------------------------------------------------------------------

// Smallest storage ever allocated; a power of two.
#define SYR_MIN_CAPACITY ((size_t)8)

// Capacities are powers of two; this is the largest one a size_t holds, so
// doubling up to it cannot wrap. Storage that large cannot be addressed
// anyway: syr_storage_alloc's byte count overflows first and fails.
#define SYR_MAX_CAPACITY (SIZE_MAX / 2 + 1)

// Maximum load: a rebuild happens before full slots plus tombstones would
// exceed 3/4 of the capacity. Linear probing stays short at this load, and
// the quarter of the slots that stays EMPTY is what ends every probe.
#define SYR_MAX_LOAD_NUMERATOR ((size_t)3)
#define SYR_MAX_LOAD_DENOMINATOR ((size_t)4)

// Growth: a rebuild gives every key at least this many slots, so the new
// storage starts at most half full and takes a quarter of its capacity in
// inserts before it needs the next rebuild: rebuilds cost amortised O(1) per
// insert, tombstone clean-up included.
#define SYR_SLOTS_PER_KEY ((size_t)2)

_Static_assert(SYR_MIN_CAPACITY % SYR_MAX_LOAD_DENOMINATOR == 0,
               "every capacity is a multiple of the load denominator");

static bool syr_over_load(size_t used, size_t capacity) {
    // Exact (see the assertion above) and free of overflow at any capacity.
    return used > capacity / SYR_MAX_LOAD_DENOMINATOR * SYR_MAX_LOAD_NUMERATOR;
}

// The smallest capacity that gives `keys` keys SYR_SLOTS_PER_KEY slots each.
// False when no capacity is that large.
static bool syr_capacity_for(size_t keys, size_t *capacity) {
    size_t slots;
    if (__builtin_mul_overflow(keys, SYR_SLOTS_PER_KEY, &slots) || slots > SYR_MAX_CAPACITY) {
        return false;
    }
    size_t fitting = SYR_MIN_CAPACITY;
    while (fitting < slots) {
        fitting *= 2;
    }
    *capacity = fitting;
    return true;
}

// ---------------------------------------------------------------------------
// Blocks and retirement
// ---------------------------------------------------------------------------

// A storage block is 64-byte aligned (a table's first is 32-byte aligned:
// see syr_storage_alloc) and starts with SYR_STORAGE_HEADROOM bytes of
// padding; the 32-byte syr_storage header follows, so the slots after it
// start on a cache line.
#define SYR_STORAGE_HEADROOM ((size_t)32)
_Static_assert(sizeof(syr_storage) == 32 && sizeof(syr_slot) == 32, "slots are 32 bytes, after a 32-byte header");

// Where a storage's layout starts: its headroom (for a table's first
// storage, the table), before its header.
static void *syr_storage_block(const syr_storage *storage) {
    return (char *)storage - SYR_STORAGE_HEADROOM;
}

// The table itself lives in the headroom of its first storage block, after
// its owner's SYR_TABLE_OWNER_BYTES: one allocation per table and owner,
// not three (a request's scope makes a table). That block is therefore
// never retired on its own, even once a rebuild or a clear has replaced the
// storage in it: it is freed with the table, and until then a reader that
// still probes the old storage finds it intact.
_Static_assert(sizeof(syr_table) <= SYR_STORAGE_HEADROOM, "the table fits in a storage block's headroom");
_Static_assert(SYR_TABLE_OWNER_BYTES % 32 == 0, "the slots after the owner's bytes and the table stay 32-byte aligned");

static bool syr_storage_is_first(const syr_table *table, const syr_storage *storage) {
    return syr_storage_block(storage) == (const void *)table;
}

// The block a name entry owns, or NULL for no name and for an inline name.
static syr_name_block *syr_name_owned_block(syr_slot_name entry) {
    return entry.word == 0 || (entry.word & 1) ? NULL : (syr_name_block *)(uintptr_t)entry.word;
}

// Hands a block that readers may still be reading to the reclaimer, which
// frees it once they cannot (include/syringe_reclaim.h).
static void syr_retire(void *block) {
    syr_reclaim_retire(block, free);
}

// Retires a storage that a new one replaced, unless it is the first.
static void syr_retire_storage(const syr_table *table, syr_storage *storage) {
    if (!syr_storage_is_first(table, storage)) {
        syr_retire(storage->allocation);
    }
}

// Empty storage with room for `keys` keys, after `prefix` bytes (a multiple
// of 32) of its block, or NULL when memory is exhausted or no storage can be
// that large.
static syr_storage *syr_storage_alloc(size_t keys, uint64_t hash_mask, size_t prefix) {
    size_t capacity, size;
    if (!syr_capacity_for(keys, &capacity) ||
        __builtin_mul_overflow(capacity, sizeof(syr_slot) + sizeof(syr_slot_name), &size) ||
        __builtin_add_overflow(size, prefix + SYR_STORAGE_HEADROOM + sizeof(syr_storage), &size)) {
        return NULL;
    }
    // A table's first block (the one with a prefix) comes from malloc and is
    // aligned here to the 32 bytes a slot needs: glibc's posix_memalign
    // costs about 600 instructions more, and each request's scope makes a
    // table. A slot may then share a cache line with the next one's half,
    // which matters little in a table of a few keys; the storage that
    // replaces it when the table grows is cache-aligned.
    void *allocation = NULL;
    char *memory;
    if (prefix != 0) {
        size_t padded;
        if (__builtin_add_overflow(size, (size_t)31, &padded) || (allocation = malloc(padded)) == NULL) {
            return NULL;
        }
        memory = (char *)(((uintptr_t)allocation + 31) & ~(uintptr_t)31);
    } else {
        if (posix_memalign(&allocation, 64, size) != 0) {
            return NULL;
        }
        memory = allocation;
    }
    // Every slot starts EMPTY (hash 0) with a NULL value and no name. Plain
    // stores are enough: no reader can see the block before it is published.
    memset(memory, 0, size);
    syr_storage *storage = (syr_storage *)(memory + prefix + SYR_STORAGE_HEADROOM);
    storage->allocation = allocation;
    storage->mask = capacity - 1;
    storage->hash_mask = hash_mask;
    storage->names = (syr_slot_name *)&storage->slots[capacity];
    return storage;
}

// ---------------------------------------------------------------------------
// The writer's side of the atomic fields (the reader's is in the header)
// ---------------------------------------------------------------------------

// Only writers read these, and writers are serialised: relaxed is enough.
static syr_storage *syr_current(const syr_table *table) {
    return __atomic_load_n(&table->storage, __ATOMIC_RELAXED);
}

static uint64_t syr_slot_hash_load_relaxed(const syr_slot *slot) {
    return __atomic_load_n(&slot->hash, __ATOMIC_RELAXED);
}

static void *syr_slot_value_load_relaxed(const syr_slot *slot) {
    return __atomic_load_n(&slot->value, __ATOMIC_RELAXED);
}

// Before its hash is published no reader looks at the value: relaxed.
static void syr_slot_value_store_relaxed(syr_slot *slot, void *value) {
    __atomic_store_n(&slot->value, value, __ATOMIC_RELAXED);
}

// Release stores publish everything written before them to readers whose
// acquire load of the same field sees the new contents.

static void syr_table_storage_store_release(syr_table *table, syr_storage *storage) {
    __atomic_store_n(&table->storage, storage, __ATOMIC_RELEASE);
}

static void syr_slot_hash_store_release(syr_slot *slot, uint64_t hash) {
    __atomic_store_n(&slot->hash, hash, __ATOMIC_RELEASE);
}

static void syr_slot_value_store_release(syr_slot *slot, void *value) {
    __atomic_store_n(&slot->value, value, __ATOMIC_RELEASE);
}

// ---------------------------------------------------------------------------
// Invariants
// ---------------------------------------------------------------------------

// `slot` of a violation that concerns the whole table.
#define SYR_NO_SLOT SIZE_MAX

// The first broken invariant a check found: what is wrong and where.
typedef struct {
    const char *problem;  // NULL when every invariant checked holds
    size_t slot;
} syr_violation;

static const syr_violation syr_no_violation = {NULL, SYR_NO_SLOT};

static syr_violation syr_violated(const char *problem, size_t slot) {
    return (syr_violation){problem, slot};
}

// O(1): what the counters promise about the current storage.
static syr_violation syr_check_counters(const syr_table *table) {
    if (table->count > table->used) {
        return syr_violated("more keys counted than slots used", SYR_NO_SLOT);
    }
    if (syr_over_load(table->used, syr_current(table)->mask + 1)) {
        return syr_violated("used slots above the maximum load", SYR_NO_SLOT);
    }
    return syr_no_violation;
}

// Walks the probe run of a key, from its home slot to the first EMPTY slot.
// The key must be in the full slot `expected` and nowhere else on the way,
// or, when `expected` is SYR_NO_SLOT, absent. O(probe run).
static syr_violation syr_check_run(const syr_storage *storage, uint64_t h, const void *type,
                                   const void *signature, const void *name, size_t name_len,
                                   size_t expected) {
    bool reached = false;
    size_t index = (size_t)h & storage->mask;
    // Bounded by the capacity: with the counters broken there may be no EMPTY slot.
    for (size_t step = 0; step <= storage->mask; step++, index = (index + 1) & storage->mask) {
        uint64_t sh = syr_slot_hash_load_relaxed(&storage->slots[index]);
        if (sh == SYR_SLOT_EMPTY) {
            break;
        }
        if (sh != h || !syr_slot_matches(storage, index, type, signature, name, name_len)) {
            continue;
        }
        if (expected == SYR_NO_SLOT) {
            return syr_violated("a removed key is still in its probe run", index);
        }
        if (index != expected) {
            return syr_violated("a key is stored twice in its probe run", index);
        }
        reached = true;
    }
    if (expected != SYR_NO_SLOT && !reached) {
        return syr_violated("a full slot is cut off from its home slot by an EMPTY slot", expected);
    }
    return syr_no_violation;
}

// One slot of the current storage is consistent: its state, value and name
// agree, and a full slot holds its key's hash and is the one place its
// probe run finds that key. O(probe run).
static syr_violation syr_check_slot(const syr_storage *storage, size_t index) {
    const syr_slot *slot = &storage->slots[index];
    const uint64_t sh = syr_slot_hash_load_relaxed(slot);
    void *value = syr_slot_value_load_relaxed(slot);
    if (!syr_slot_is_full(sh)) {
        return value == NULL ? syr_no_violation : syr_violated("an empty slot or tombstone holds a value", index);
    }
    if (value == NULL) {
        return syr_violated("a full slot holds no value", index);
    }
    const syr_slot_name entry = storage->names[index];
    size_t name_len;
    const uint8_t *name = syr_slot_name_bytes(&storage->names[index], &name_len);
    if ((entry.word != 0) != (sh & 1)) {
        return syr_violated("a name entry disagrees with the hash's named bit", index);
    }
    if ((entry.word & 1) && (name_len > SYR_INLINE_NAME_MAX ||
                             (name_len < SYR_INLINE_NAME_MAX && entry.word >> (8 * (name_len + 1)) != 0))) {
        return syr_violated("an inline name's length or padding is wrong", index);
    }
    if (syr_name_owned_block(entry) != NULL && name_len <= SYR_INLINE_NAME_MAX) {
        return syr_violated("a short name is in a block instead of inline", index);
    }
    if (syr_key_hash(slot->type, slot->signature, name, name_len, storage->hash_mask) != sh) {
        return syr_violated("a full slot's hash is not its key's hash", index);
    }
    return syr_check_run(storage, sh, slot->type, slot->signature, name, name_len, index);
}

// Everything: every slot, and the counters against the slots.
// O(capacity × probe run).
static syr_violation syr_check_table(const syr_table *table) {
    const syr_storage *storage = syr_current(table);
    if (storage->hash_mask != table->hash_mask) {
        return syr_violated("the storage's hash mask is not the table's", SYR_NO_SLOT);
    }
    if (storage->hash_mask & 1) {
        return syr_violated("the hash mask has the named bit set", SYR_NO_SLOT);
    }
    size_t full = 0, tombstones = 0;
    for (size_t index = 0; index <= storage->mask; index++) {
        syr_violation violation = syr_check_slot(storage, index);
        if (violation.problem != NULL) {
            return violation;
        }
        uint64_t sh = syr_slot_hash_load_relaxed(&storage->slots[index]);
        full += syr_slot_is_full(sh);
        tombstones += sh == SYR_SLOT_TOMBSTONE;
    }
    if (full != table->count) {
        return syr_violated("the count is not the number of full slots", SYR_NO_SLOT);
    }
    if (full + tombstones != table->used) {
        return syr_violated("the used count is not full slots plus tombstones", SYR_NO_SLOT);
    }
    if (full + tombstones > storage->mask) {
        return syr_violated("no EMPTY slot is left to end a probe", SYR_NO_SLOT);
    }
    return syr_check_counters(table);
}

// Aborts, naming the invariant, the slot and the operation, when a check
// found a violation.
static void syr_enforce(syr_violation violation, const char *operation) {
    if (violation.problem == NULL) {
        return;
    }
    if (violation.slot == SYR_NO_SLOT) {
        fprintf(stderr, "syringe_table: invariant broken after %s: %s\n", operation, violation.problem);
    } else {
        fprintf(stderr, "syringe_table: invariant broken after %s: slot %zu: %s\n", operation, violation.slot,
                violation.problem);
    }
    abort();
}

// After an insert or overwrite: the written slot's probe run and the counters.
static void syr_verify_written(const syr_table *table, size_t index, const char *operation) {
    if (SYR_CHECKING) {
        syr_enforce(syr_check_slot(syr_current(table), index), operation);
        syr_enforce(syr_check_counters(table), operation);
    }
}

// After a remove: the new tombstone, the key's absence and the counters.
static void syr_verify_removed(const syr_table *table, size_t index, uint64_t h, const void *type,
                               const void *signature, const void *name, size_t name_len) {
    if (SYR_CHECKING) {
        const syr_storage *storage = syr_current(table);
        syr_enforce(syr_check_slot(storage, index), "remove");
        syr_enforce(syr_check_run(storage, h, type, signature, name, name_len, SYR_NO_SLOT), "remove");
        syr_enforce(syr_check_counters(table), "remove");
    }
}

// After a rebuild or clear, which cost O(capacity) themselves: everything.
static void syr_verify_table(const syr_table *table, const char *operation) {
    if (SYR_CHECKING) {
        syr_enforce(syr_check_table(table), operation);
    }
}

// ---------------------------------------------------------------------------
// Writer operations
// ---------------------------------------------------------------------------

// The name entry of a new key: no name, the name inline, or a copy in a
// block of its own. False when that block cannot be allocated.
static bool syr_name_copy(const void *name, size_t name_len, syr_slot_name *entry) {
    if (name_len == SYR_NO_NAME) {
        entry->word = 0;
        return true;
    }
    if (name_len <= SYR_INLINE_NAME_MAX) {
        uint8_t bytes[sizeof(uint64_t)] = {(uint8_t)(name_len << 1 | 1)};
        if (name_len > 0) {
            memcpy(bytes + 1, name, name_len);
        }
        memcpy(&entry->word, bytes, sizeof bytes);
        return true;
    }
    syr_name_block *block = malloc(sizeof(syr_name_block) + name_len);
    if (block == NULL) {
        return false;
    }
    block->length = name_len;
    memcpy(block->bytes, name, name_len);
    entry->word = (uint64_t)(uintptr_t)block;
    return true;
}

// Finds the index of the full slot holding the key, or returns false.
static bool syr_find(const syr_storage *storage, uint64_t h, const void *type, const void *signature,
                     const void *name, size_t name_len, size_t *found) {
    for (size_t index = (size_t)h & storage->mask;; index = (index + 1) & storage->mask) {
        uint64_t sh = syr_slot_hash_load_relaxed(&storage->slots[index]);
        if (sh == SYR_SLOT_EMPTY) {
            return false;
        }
        if (sh == h && syr_slot_matches(storage, index, type, signature, name, name_len)) {
            *found = index;
            return true;
        }
    }
}

// Writes a key into the first EMPTY slot of its probe sequence, publishes it
// and returns its index. The caller guarantees that the key is absent and
// that an EMPTY slot exists. Tombstones are skipped, never reused: see the
// header's contract.
static size_t syr_place(syr_storage *storage, uint64_t h, const void *type, const void *signature,
                        syr_slot_name name, void *value) {
    size_t index = (size_t)h & storage->mask;
    while (syr_slot_hash_load_relaxed(&storage->slots[index]) != SYR_SLOT_EMPTY) {
        index = (index + 1) & storage->mask;
    }
    syr_slot *slot = &storage->slots[index];
    slot->type = type;
    slot->signature = signature;
    storage->names[index] = name;
    syr_slot_value_store_relaxed(slot, value);
    // Publishes every field above to readers that acquire-load the hash.
    syr_slot_hash_store_release(slot, h);
    return index;
}

// Moves every full slot into a new storage sized for `keys` keys and
// publishes it; the old storage is retired. Names move with their slots.
static int syr_rebuild(syr_table *table, size_t keys) {
    syr_storage *old = syr_current(table);
    syr_storage *fresh = syr_storage_alloc(keys, table->hash_mask, 0);
    if (fresh == NULL) {
        return -1;
    }
    for (size_t index = 0; index <= old->mask; index++) {
        syr_slot *slot = &old->slots[index];
        if (!syr_slot_is_full(syr_slot_hash_load_relaxed(slot))) {
            continue;
        }
        size_t name_len;
        const uint8_t *name = syr_slot_name_bytes(&old->names[index], &name_len);
        uint64_t h = syr_key_hash(slot->type, slot->signature, name, name_len, fresh->hash_mask);
        // The entry moves as it is: an owned block changes storage, not owner.
        syr_place(fresh, h, slot->type, slot->signature, old->names[index], syr_slot_value_load_relaxed(slot));
    }
    // Readers that already loaded `old` keep probing it safely: it is retired,
    // not freed, and never written again.
    syr_table_storage_store_release(table, fresh);
    syr_retire_storage(table, old);
    table->used = table->count;
    return 0;
}

syr_table *syr_table_create(size_t expected) {
    uint64_t hash_mask = ~(uint64_t)1;  // everything but the named bit (see syr_key_hash)
    syr_storage *storage = syr_storage_alloc(expected, hash_mask, SYR_TABLE_OWNER_BYTES);
    if (storage == NULL) {
        return NULL;
    }
    // The block is zeroed: count and used start at 0. Plain stores: the
    // caller publishes the table itself.
    syr_table *table = (syr_table *)syr_storage_block(storage);
    table->hash_mask = hash_mask;
    table->storage = storage;
    return table;
}

void syr_table_destroy(syr_table *table) {
    if (table == NULL) {
        return;
    }
    syr_storage *storage = syr_current(table);
    for (size_t index = 0; index <= storage->mask; index++) {
        // Name blocks of tombstoned slots were retired on removal.
        if (syr_slot_is_full(syr_slot_hash_load_relaxed(&storage->slots[index]))) {
            free(syr_name_owned_block(storage->names[index]));
        }
    }
    if (!syr_storage_is_first(table, storage)) {
        free(storage->allocation);
    }
    // The first storage's header follows the table, whichever storage is current.
    free(((syr_storage *)((char *)table + SYR_STORAGE_HEADROOM))->allocation);
}

int syr_table_recycle(syr_table *table) {
    syr_storage *storage = syr_current(table);
    // Only a table still as syr_table_create(0) made it: a larger one (or
    // one whose storage a rebuild or a clear replaced) goes rather than keep
    // memory no new table asked for, and so does one a test gave colliding
    // hashes.
    if (!syr_storage_is_first(table, storage) || storage->mask + 1 != SYR_MIN_CAPACITY ||
        storage->hash_mask != ~(uint64_t)1) {
        return -1;
    }
    for (size_t index = 0; index <= storage->mask; index++) {
        if (syr_slot_is_full(syr_slot_hash_load_relaxed(&storage->slots[index]))) {
            // No reader can reach the table: freed now, not retired.
            free(syr_name_owned_block(storage->names[index]));
        }
    }
    // The slots and the names after them, as syr_storage_alloc left them.
    memset(storage->slots, 0, (storage->mask + 1) * (sizeof(syr_slot) + sizeof(syr_slot_name)));
    table->count = 0;
    table->used = 0;
    syr_verify_table(table, "recycle");
    return 0;
}

void *syr_table_owner_area(syr_table *table) {
    return (char *)table - SYR_TABLE_OWNER_BYTES;
}

int syr_table_insert(syr_table *table, const void *type, const void *signature, const void *name,
                     size_t name_len, void *value, void **replaced) {
    syr_storage *storage = syr_current(table);
    uint64_t h = syr_key_hash(type, signature, name, name_len, storage->hash_mask);
    size_t index;
    if (syr_find(storage, h, type, signature, name, name_len, &index)) {
        syr_slot *existing = &storage->slots[index];
        *replaced = syr_slot_value_load_relaxed(existing);
        // Readers see either the old or the new value, each fully built.
        syr_slot_value_store_release(existing, value);
        syr_verify_written(table, index, "overwrite");
        return 0;
    }
    syr_slot_name copy;
    if (!syr_name_copy(name, name_len, &copy)) {
        return -1;
    }
    const bool rebuilding = syr_over_load(table->used + 1, storage->mask + 1);
    if (rebuilding) {
        if (syr_rebuild(table, table->count + 1) != 0) {
            free(syr_name_owned_block(copy));
            return -1;
        }
        storage = syr_current(table);
        h = syr_key_hash(type, signature, name, name_len, storage->hash_mask);
    }
    index = syr_place(storage, h, type, signature, copy, value);
    table->count += 1;
    table->used += 1;
    *replaced = NULL;
    if (rebuilding) {
        syr_verify_table(table, "insert (rebuilt)");
    } else {
        syr_verify_written(table, index, "insert");
    }
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
    void *value = syr_slot_value_load_relaxed(slot);
    // Value first: a reader that matched the key before the tombstone lands
    // loads NULL and keeps probing instead of returning a removed value.
    syr_slot_value_store_release(slot, NULL);
    syr_slot_hash_store_release(slot, SYR_SLOT_TOMBSTONE);
    syr_name_block *block = syr_name_owned_block(storage->names[index]);
    if (block != NULL) {
        syr_retire(block);
    }
    table->count -= 1;
    syr_verify_removed(table, index, h, type, signature, name, name_len);
    return value;
}

int syr_table_clear(syr_table *table) {
    syr_storage *old = syr_current(table);
    syr_storage *fresh = syr_storage_alloc(0, table->hash_mask, 0);
    if (fresh == NULL) {
        return -1;
    }
    syr_table_storage_store_release(table, fresh);
    for (size_t index = 0; index <= old->mask; index++) {
        syr_name_block *block = syr_name_owned_block(old->names[index]);
        if (syr_slot_is_full(syr_slot_hash_load_relaxed(&old->slots[index])) && block != NULL) {
            syr_retire(block);
        }
    }
    syr_retire_storage(table, old);
    table->count = 0;
    table->used = 0;
    syr_verify_table(table, "clear");
    return 0;
}

size_t syr_table_count(const syr_table *table) {
    return table->count;
}

// ---------------------------------------------------------------------------
// Testing hooks (syringe_table_testing.h)
// ---------------------------------------------------------------------------

size_t syr_table_capacity(const syr_table *table) {
    return syr_current(table)->mask + 1;
}

void *syr_table_value_at(const syr_table *table, size_t index) {
    syr_storage *storage = syr_current(table);
    if (index > storage->mask) {
        return NULL;
    }
    syr_slot *slot = &storage->slots[index];
    if (!syr_slot_is_full(syr_slot_hash_load_relaxed(slot))) {
        return NULL;
    }
    return syr_slot_value_load_relaxed(slot);
}

int syr_table_set_hash_mask(syr_table *table, uint64_t mask) {
    uint64_t previous = table->hash_mask;
    // Bit 0 is the named bit, which syr_key_hash ORs in after the mask.
    table->hash_mask = mask & ~(uint64_t)1;
    if (syr_rebuild(table, table->count) != 0) {
        table->hash_mask = previous;
        return -1;
    }
    syr_verify_table(table, "set_hash_mask");
    return 0;
}

bool syr_table_check_invariants(const syr_table *table) {
    return syr_check_table(table).problem == NULL;
}

bool syr_internal_checks_enabled(void) {
    return SYR_CHECKING;
}

uint64_t syr_xxh3_64(const void *bytes, size_t length) {
    return XXH3_64bits(bytes, length);
}

uint64_t syr_xxh3_64_seeded(const void *bytes, size_t length, uint64_t seed) {
    return XXH3_64bits_withSeed(bytes, length, seed);
}

// Defined only when a sanitizer's runtime (which replaces malloc) is loaded.
extern size_t __sanitizer_get_current_allocated_bytes(void) __attribute__((weak));

size_t syr_testing_heap_in_use(void) {
    if (__sanitizer_get_current_allocated_bytes != NULL) {
        return __sanitizer_get_current_allocated_bytes();
    }
#if defined(__GLIBC__)
    const struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
#elif defined(__APPLE__)
    malloc_statistics_t statistics;
    malloc_zone_statistics(NULL, &statistics);
    return statistics.size_in_use;
#else
    return 0;
#endif
}
