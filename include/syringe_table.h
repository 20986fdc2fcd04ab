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
//   * Writers (every other mutating function, here and in
//     syringe_table_testing.h) must be serialised by the caller; the table
//     does no locking of its own.
//   * The fields readers share with the writer (`syr_table.storage`,
//     `syr_slot.hash`, `syr_slot.value`) have plain types, because Swift
//     cannot import `_Atomic` ones. Once a table or a storage block is
//     published they are accessed only through the GCC/Clang `__atomic`
//     builtins, in small helpers: the reader's below, the writer's in
//     syringe_table.c.
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
//     readable: it is retired, not freed at once.
//   * The writer reads the fields it alone stores with relaxed loads.
//
// OWNERSHIP
//   * The table copies name bytes on insert and owns the copy: inline in the
//     slot's name entry when short, else a block of its own (syr_slot_name).
//   * Storage blocks replaced by a rebuild and the name blocks of removed keys are
//     retired to the reclaimer (syringe_reclaim.h), which frees them once no
//     lock-free reader can still be reading them. Lookups must therefore run
//     inside a read-side section (syr_read_enter / syr_read_exit).
//   * Values are opaque to the table and never freed by it. Insert reports
//     the value it replaced and remove returns the value it removed, so the
//     caller can retire those on its side.
//===----------------------------------------------------------------------===//
#ifndef SYRINGE_TABLE_H
#define SYRINGE_TABLE_H

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "syringe_inline.h"

#ifdef __cplusplus
extern "C" {
#endif

/// `name_len` of a key that has no name (distinct from the empty name).
#define SYR_NO_NAME ((size_t)-1)

/// Slot states kept in `syr_slot.hash`; a full slot holds the key's hash,
/// which syr_key_hash keeps above both.
#define SYR_SLOT_EMPTY ((uint64_t)0)
#define SYR_SLOT_TOMBSTONE ((uint64_t)1)

/// Whether a slot whose `hash` field holds `hash` has a key in it.
SYR_INLINE bool
syr_slot_is_full(uint64_t hash) {
    return hash > SYR_SLOT_TOMBSTONE;
}

/// One slot: 32 bytes and 32-byte aligned, so two share a cache line and none
/// straddles two. Only the writer stores into it; see the contract above.
typedef struct syr_slot {
    _Alignas(32) uint64_t hash;   // atomic: see the contract above
    const void *type;
    const void *signature;
    void *value;                  // atomic: see the contract above
} syr_slot;

/// The name of the key in the slot with the same index. Kept apart from the
/// slots because only a named lookup whose hash, type and signature already
/// matched reads it; unnamed lookups never touch it (see syr_key_hash).
///
/// One word, in one of three forms told apart by the word itself:
///   0          no name
///   bit 0 set  a name of at most SYR_INLINE_NAME_MAX bytes, held inline:
///              the byte at the lowest address is (length << 1) | 1, the
///              next `length` bytes are the name, the rest are 0
///   otherwise  a pointer to an owned syr_name_block (malloc's alignment
///              keeps its bit 0 clear)
/// Nearly every registration name is short, so nearly every named key costs
/// no allocation of its own. Read it through syr_slot_name_bytes.
typedef struct syr_slot_name {
    uint64_t word;
} syr_slot_name;

/// The owned copy of a name longer than SYR_INLINE_NAME_MAX bytes.
typedef struct syr_name_block {
    size_t length;
    uint8_t bytes[];
} syr_name_block;

/// The longest name a syr_slot_name holds inline.
#define SYR_INLINE_NAME_MAX ((size_t)7)

// The inline form's tag byte is the word's low byte only on a little-endian
// machine, which every platform Syringe supports is.
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "syr_slot_name's inline form assumes little-endian words");

/// The bytes of the name `entry` holds, with its length in `*length`
/// (SYR_NO_NAME and NULL for no name). Inline bytes are read in place.
SYR_INLINE const uint8_t *
syr_slot_name_bytes(const syr_slot_name *entry, size_t *length) {
    const uint64_t word = entry->word;
    if (word == 0) {
        *length = SYR_NO_NAME;
        return NULL;
    }
    if (word & 1) {
        *length = (size_t)((word & 0xFF) >> 1);
        return (const uint8_t *)entry + 1;
    }
    const syr_name_block *block = (const syr_name_block *)(uintptr_t)word;
    *length = block->length;
    return block->bytes;
}

/// One generation of slots. Immutable in shape once published.
typedef struct syr_storage {
    size_t mask;             // capacity - 1 (capacity is a power of two)
    uint64_t hash_mask;      // ANDed into every hash; bit 0 always clear (the named bit), the
                             // others all ones unless a test forces collisions
    syr_slot_name *names;    // `capacity` entries, in the same block after the slots
    void *allocation;        // what the allocator returned for this storage's block:
                             // the pointer to free (writer side only)
    syr_slot slots[];        // 32-byte aligned: the header is 32 bytes
} syr_storage;

/// The table. Create with syr_table_create; do not touch fields directly.
typedef struct syr_table {
    syr_storage *storage;  // atomic: see the contract above
    // Writer-side bookkeeping, read only by writers.
    size_t count;          // full slots
    size_t used;           // full slots + tombstones in the current storage
    uint64_t hash_mask;
} syr_table;

// The reader's side of the contract above: acquire loads, each pairing with
// the writer's release store of the same field.

SYR_INLINE const syr_storage *
syr_table_storage_load_acquire(const syr_table *table) {
    return __atomic_load_n(&table->storage, __ATOMIC_ACQUIRE);
}

SYR_INLINE uint64_t
syr_slot_hash_load_acquire(const syr_slot *slot) {
    return __atomic_load_n(&slot->hash, __ATOMIC_ACQUIRE);
}

SYR_INLINE void *
syr_slot_value_load_acquire(const syr_slot *slot) {
    return __atomic_load_n(&slot->value, __ATOMIC_ACQUIRE);
}

/// Bit 63 of every key's hash: set, so that no hash is a slot state.
#define SYR_FULL_HASH_BIT ((uint64_t)1 << 63)

/// The unmasked XXH3 hash of an unnamed key's two identity pointers, as one
/// 16-byte block: what `syr_key_hash` starts from. A reader that probes
/// several tables for one key (a container and its ancestors) computes it
/// once and passes it to each (`syr_table_lookup_unnamed`).
SYR_INLINE uint64_t
syr_key_identity_hash(const void *type, const void *signature) {
    uint64_t ids[2] = {(uint64_t)(uintptr_t)type, (uint64_t)(uintptr_t)signature};
    return XXH3_64bits(ids, sizeof ids);
}

/// Hashes a key with XXH3: the two identity pointers as one 16-byte block,
/// then the name bytes seeded with that hash, ANDed with `hash_mask`, whose
/// bit 0 must be clear (every storage's is).
///
/// Bit 0 of the result is 1 exactly when the key has a name, so equal hashes
/// imply that both keys are named or both are not, and an unnamed lookup
/// never reads a name. Bit 63 is always 1, which keeps every hash above the
/// slot states with one OR instead of a compare on each lookup; the slot
/// index is taken from the low bits, so the bit it overwrites costs only one
/// bit of the full-hash comparison.
SYR_INLINE uint64_t
syr_key_hash(const void *type, const void *signature, const void *name,
             size_t name_len, uint64_t hash_mask) {
    uint64_t h = syr_key_identity_hash(type, signature);
    const uint64_t named = name_len != SYR_NO_NAME;
    if (named) {
        h = XXH3_64bits_withSeed(name, name_len, h);
    }
    return (h & hash_mask) | named | SYR_FULL_HASH_BIT;
}

/// Whether the full slot `index` of `storage` holds the key whose hash is
/// `h` (the caller has compared the slot's hash with `h` already).
SYR_INLINE bool
syr_slot_matches(const syr_storage *storage, size_t index, const void *type,
                 const void *signature, const void *name, size_t name_len) {
    const syr_slot *slot = &storage->slots[index];
    if (slot->type != type || slot->signature != signature) {
        return false;
    }
    if (name_len == SYR_NO_NAME) {
        return true;  // the hash's bit 0 says the slot's key has no name either
    }
    size_t stored_len;
    const uint8_t *stored = syr_slot_name_bytes(&storage->names[index], &stored_len);
    return stored_len == name_len && (name_len == 0 || memcmp(stored, name, name_len) == 0);
}

/// The probe of `syr_table_lookup`: the value of the key whose hash in
/// `storage` is `h`, or NULL.
SYR_INLINE void *
syr_storage_probe(const syr_storage *storage, uint64_t h, const void *type,
                  const void *signature, const void *name, size_t name_len) {
    size_t index = (size_t)h & storage->mask;
    // Terminates: a rebuild keeps at least a quarter of the slots EMPTY.
    for (;;) {
        const syr_slot *slot = &storage->slots[index];
        const uint64_t sh = syr_slot_hash_load_acquire(slot);
        // The hash first: `h` is never a slot state, so a hit needs no other
        // test of `sh`, and the EMPTY test is paid only on a mismatch.
        if (sh == h) {
            if (syr_slot_matches(storage, index, type, signature, name, name_len)) {
                void *value = syr_slot_value_load_acquire(slot);
                if (value != NULL) {
                    return value;
                }
            }
        } else if (sh == SYR_SLOT_EMPTY) {
            return NULL;
        }
        index = (index + 1) & storage->mask;
    }
}

/// Looks a key up without locking. Returns the value, or NULL when absent.
///
/// Safe against one concurrent writer (see the contract above). `name` may be
/// NULL when `name_len` is 0 or SYR_NO_NAME.
SYR_INLINE void *
syr_table_lookup(const syr_table *table, const void *type, const void *signature,
                 const void *name, size_t name_len) {
    const syr_storage *storage = syr_table_storage_load_acquire(table);
    const uint64_t h = syr_key_hash(type, signature, name, name_len, storage->hash_mask);
    return syr_storage_probe(storage, h, type, signature, name, name_len);
}

/// `syr_table_lookup` of an unnamed key whose `syr_key_identity_hash` the
/// caller computed already (`identity_hash`): the same result, without
/// hashing again.
SYR_INLINE void *
syr_table_lookup_unnamed(const syr_table *table, const void *type, const void *signature,
                         uint64_t identity_hash) {
    const syr_storage *storage = syr_table_storage_load_acquire(table);
    const uint64_t h = (identity_hash & storage->hash_mask) | SYR_FULL_HASH_BIT;
    return syr_storage_probe(storage, h, type, signature, NULL, SYR_NO_NAME);
}

// ---------------------------------------------------------------------------
// Writer API: callers serialise these. Defined in syringe_table.c.
// ---------------------------------------------------------------------------

/// Bytes at the start of every table's block that belong to the table's
/// owner (see syr_table_owner_area).
#define SYR_TABLE_OWNER_BYTES ((size_t)64)

/// Creates an empty table with room for at least `expected` keys, in one
/// allocation: the owner's bytes, the table and its first storage share a
/// block, which stays until syr_table_destroy (a storage that replaces the
/// first is a block of its own, retired when it is replaced in turn).
/// Returns NULL when memory is exhausted or no storage can hold `expected`
/// keys.
syr_table *syr_table_create(size_t expected);

/// SYR_TABLE_OWNER_BYTES bytes, 32-byte aligned and zeroed by
/// syr_table_create, that the table never reads or writes: its owner's, to
/// keep what it would otherwise allocate beside the table (Syringe keeps its
/// container's writer lock there). Valid until syr_table_destroy, which
/// frees them without looking at them: the owner tears down what it put
/// there first.
void *syr_table_owner_area(syr_table *table);

/// Frees the table, its current storage and every name it owns, at once: call
/// it only when no reader can reach the table any more. What it retired
/// earlier is freed by the reclaimer. Values are not touched: the caller,
/// which inserted them, releases them.
void syr_table_destroy(syr_table *table);

/// Empties a table that no reader or writer can reach any more, for its
/// block to serve as a new table: the owner's bytes are left as they are
/// (Syringe's writer lock stays as it was left), every name the table owns is freed,
/// and every slot is EMPTY again. Returns 0 when the table was still in its
/// first storage; otherwise -1, changing nothing: the table has grown past
/// the size a new one starts at (or a test gave it colliding hashes with
/// syr_table_set_hash_mask), and the caller destroys it instead. A table
/// made empty this way is indistinguishable from one syr_table_create(0)
/// made, but for the owner's bytes. Values are not touched.
int syr_table_recycle(syr_table *table);

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

#ifdef __cplusplus
}
#endif

#endif // SYRINGE_TABLE_H
