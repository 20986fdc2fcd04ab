//===----------------------------------------------------------------------===//
// syringe_table.h — Syringe's resolution table.
//
// An open-addressing hash table (linear probing, power-of-two capacity) that
// maps a registration key to an opaque value pointer. A key is
//
//     (type identity pointer, argument-signature identity pointer, name bytes)
//
// where "no name" (SYR_NO_NAME) and the empty name are different keys. The
// full key is stored and compared, so a hash collision can never return the
// wrong value.
//
// CONCURRENCY CONTRACT
//   * Readers (syr_table_lookup) take no lock and perform no atomic
//     read-modify-write: they do acquire loads only, so any number of threads
//     may look up while one writer mutates.
//   * Writers (every other mutating function) must be serialised by the
//     caller; the table does no locking of its own.
//   * Publication: a slot's key fields, its name entry and its value are
//     written first, then its `hash` is stored with release order. A reader
//     that acquire-loads a full hash therefore sees the complete key (the
//     name entry included). Key fields never change after
//     that; a slot only ever moves EMPTY -> FULL -> TOMBSTONE, and a
//     tombstone is never reused in place (only a rebuild reclaims it), so a
//     reader never observes a slot being rewritten under it.
//   * An overwrite stores the new value with release order into the same
//     slot. Removal stores NULL into the value and then turns the slot into a
//     tombstone; a reader that matched the key and loads NULL keeps probing.
//   * Growth (and tombstone clean-up) builds a complete new storage block and
//     publishes it with one release store of `storage`. The old block stays
//     readable: it is retired, not freed.
//
// OWNERSHIP
//   * The table copies name bytes on insert and owns the copy.
//   * Storage blocks replaced by a rebuild and the names of removed keys are
//     retired: they are freed by syr_table_destroy, never earlier, because a
//     lock-free reader may still be reading them.
//   * Values are opaque to the table and never freed by it. Insert reports
//     the value it replaced and remove returns the value it removed, so the
//     caller can retire those on its side.
//===----------------------------------------------------------------------===//
#ifndef SYRINGE_TABLE_H
#define SYRINGE_TABLE_H

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/// `name_len` of a key that has no name (distinct from the empty name).
#define SYR_NO_NAME ((size_t)-1)

/// Slot states kept in `syr_slot.hash`; full slots hold a hash >= 2.
#define SYR_SLOT_EMPTY ((uint64_t)0)
#define SYR_SLOT_TOMBSTONE ((uint64_t)1)

/// One slot: 32 bytes and 32-byte aligned, so two share a cache line and none
/// straddles two. Only the writer stores into it; see the contract above.
typedef struct syr_slot {
    _Alignas(32) _Atomic(uint64_t) hash;
    const void *type;
    const void *signature;
    _Atomic(void *) value;
} syr_slot;

/// The name of the key in the slot with the same index. Kept apart from the
/// slots because only a named lookup whose hash, type and signature already
/// matched reads it; unnamed lookups never touch it (see syr_key_hash).
typedef struct syr_slot_name {
    const uint8_t *bytes;   // owned copy; NULL exactly when length == SYR_NO_NAME
    size_t length;
} syr_slot_name;

/// One generation of slots. Immutable in shape once published.
typedef struct syr_storage {
    size_t mask;             // capacity - 1 (capacity is a power of two)
    uint64_t hash_mask;      // ANDed into every hash; all ones unless a test forces collisions
    syr_slot_name *names;    // `capacity` entries, in the same block after the slots
    syr_slot slots[];        // 32-byte aligned: the header is 32 bytes
} syr_storage;

/// The table. Create with syr_table_create; do not touch fields directly.
typedef struct syr_table {
    _Atomic(syr_storage *) storage;
    // Writer-side bookkeeping, read only by writers.
    size_t count;          // full slots
    size_t used;           // full slots + tombstones in the current storage
    uint64_t hash_mask;
    void *retired;         // singly linked list of retired blocks (see .c)
} syr_table;

/// Hashes a key with XXH3: the two identity pointers as one 16-byte block,
/// then the name bytes seeded with that hash. Bit 0 of the result is 1
/// exactly when the key has a name, so equal hashes imply that both keys are
/// named or both are not, and an unnamed lookup never reads a name. Never
/// returns a slot state.
static inline __attribute__((always_inline)) uint64_t
syr_key_hash(const void *type, const void *signature, const void *name,
             size_t name_len, uint64_t hash_mask) {
    uint64_t ids[2] = {(uint64_t)(uintptr_t)type, (uint64_t)(uintptr_t)signature};
    uint64_t h = XXH3_64bits(ids, sizeof ids);
    const uint64_t named = name_len != SYR_NO_NAME;
    if (named) {
        h = XXH3_64bits_withSeed(name, name_len, h);
    }
    h = (h & hash_mask & ~(uint64_t)1) | named;
    return h < 2 ? h + 2 : h;
}

/// Whether the full slot `index` of `storage` holds the key whose hash is
/// `h` (the caller has compared the slot's hash with `h` already).
static inline __attribute__((always_inline)) bool
syr_slot_matches(const syr_storage *storage, size_t index, const void *type,
                 const void *signature, const void *name, size_t name_len) {
    const syr_slot *slot = &storage->slots[index];
    if (slot->type != type || slot->signature != signature) {
        return false;
    }
    if (name_len == SYR_NO_NAME) {
        return true;  // the hash's bit 0 says the slot's key has no name either
    }
    const syr_slot_name *stored = &storage->names[index];
    return stored->length == name_len && (name_len == 0 || memcmp(stored->bytes, name, name_len) == 0);
}

/// Looks a key up without locking. Returns the value, or NULL when absent.
///
/// Safe against one concurrent writer (see the contract above). `name` may be
/// NULL when `name_len` is 0 or SYR_NO_NAME.
static inline __attribute__((always_inline)) void *
syr_table_lookup(const syr_table *table, const void *type, const void *signature,
                 const void *name, size_t name_len) {
    const syr_storage *storage =
        atomic_load_explicit((_Atomic(syr_storage *) *)&table->storage, memory_order_acquire);
    const uint64_t h = syr_key_hash(type, signature, name, name_len, storage->hash_mask);
    size_t index = (size_t)h & storage->mask;
    // Terminates: a rebuild keeps at least a quarter of the slots EMPTY.
    for (;;) {
        const syr_slot *slot = &storage->slots[index];
        const uint64_t sh =
            atomic_load_explicit((_Atomic(uint64_t) *)&slot->hash, memory_order_acquire);
        if (sh == SYR_SLOT_EMPTY) {
            return NULL;
        }
        if (sh == h && syr_slot_matches(storage, index, type, signature, name, name_len)) {
            void *value =
                atomic_load_explicit((_Atomic(void *) *)&slot->value, memory_order_acquire);
            if (value != NULL) {
                return value;
            }
        }
        index = (index + 1) & storage->mask;
    }
}

// ---------------------------------------------------------------------------
// Writer API: callers serialise these. Defined in syringe_table.c.
// ---------------------------------------------------------------------------

/// Creates an empty table with room for at least `expected` keys. Returns
/// NULL when memory is exhausted or no storage can hold `expected` keys.
syr_table *syr_table_create(size_t expected);

/// Frees the table, its current and retired storage, and every name it owns.
/// Values are not touched: release them first (see syr_table_value_at).
void syr_table_destroy(syr_table *table);

/// Inserts or overwrites. On success returns 0 and stores the replaced value
/// (or NULL) in `*replaced`. Returns -1, changing nothing, when memory is
/// exhausted. `value` must not be NULL.
int syr_table_insert(syr_table *table, const void *type, const void *signature,
                     const void *name, size_t name_len, void *value, void **replaced);

/// Removes a key, leaving a tombstone. Returns the removed value, or NULL.
void *syr_table_remove(syr_table *table, const void *type, const void *signature,
                       const void *name, size_t name_len);

/// Removes every key; the old storage and names are retired. Returns 0, or -1
/// (changing nothing) when memory is exhausted.
int syr_table_clear(syr_table *table);

/// Number of keys present.
size_t syr_table_count(const syr_table *table);

/// Number of slots in the current storage.
size_t syr_table_capacity(const syr_table *table);

/// The value in slot `index` of the current storage, or NULL when that slot
/// is not full. With syr_table_capacity this walks every value (writer side).
void *syr_table_value_at(const syr_table *table, size_t index);

/// Test hook: every hash is ANDed with `mask`; bit 0 (named or not) is kept.
/// With 0, every unnamed key collides with every other, and every named key
/// with every other. Rebuilds the table. Returns 0, or -1 when memory is exhausted.
int syr_table_set_hash_mask(syr_table *table, uint64_t mask);

/// Checks the structural invariants (counts, every full slot reachable from
/// its home slot, at least one empty slot). Returns true when they hold.
bool syr_table_check_invariants(const syr_table *table);

/// XXH3-64 of `length` bytes, for callers that cannot see the inlined
/// xxHash macros (Swift and tests).
uint64_t syr_xxh3_64(const void *bytes, size_t length);

/// XXH3-64 with a seed; see syr_xxh3_64.
uint64_t syr_xxh3_64_seeded(const void *bytes, size_t length, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif // SYRINGE_TABLE_H
