//===----------------------------------------------------------------------===//
// syringe_table_testing.h — hooks into the resolution table, for tests and
// the fuzzer; the library never calls these.
//
// They look inside the table (slot by slot, its invariants, its hash
// function) or bend it (a hash mask that forces collisions), which testing
// the structure needs and production code must not depend on. Every function
// here is writer side: callers serialise it with the writer API (see the
// contract in syringe_table.h).
//===----------------------------------------------------------------------===//
#ifndef SYRINGE_TABLE_TESTING_H
#define SYRINGE_TABLE_TESTING_H

#include "syringe_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Number of slots in the current storage.
size_t syr_table_capacity(const syr_table *table);

/// The value in slot `index` of the current storage, or NULL when that slot
/// is not full. With syr_table_capacity this walks every value.
void *syr_table_value_at(const syr_table *table, size_t index);

/// Every hash is ANDed with `mask`; bit 0 (named or not) is kept, whatever
/// `mask` says of it, and so is bit 63 (see syr_key_hash). With 0,
/// every unnamed key collides with every other, and every named key with
/// every other. Rebuilds the table. Returns 0, or -1 when memory is exhausted.
int syr_table_set_hash_mask(syr_table *table, uint64_t mask);

/// Checks every structural invariant (counts, every full slot reachable from
/// its home slot and stored once, at least one empty slot) in O(capacity ×
/// probe length). Returns true when they hold.
bool syr_table_check_invariants(const syr_table *table);

/// Bytes the process's allocator has handed out and not taken back: the
/// sanitizer allocator's count under ThreadSanitizer or AddressSanitizer
/// (which replace malloc), glibc's mallinfo2 otherwise, the default zone's on
/// Darwin; 0 where none is known. For tests that bound memory use.
size_t syr_testing_heap_in_use(void);

/// Whether syringe_table.c was compiled with SYR_INTERNAL_CHECKS, which makes
/// every writer operation check the invariants it could have broken before
/// returning, and abort, naming the invariant and the slot, when one fails.
bool syr_internal_checks_enabled(void);

/// XXH3-64 of `length` bytes, for callers that cannot see the inlined
/// xxHash macros (Swift and tests).
uint64_t syr_xxh3_64(const void *bytes, size_t length);

/// XXH3-64 with a seed; see syr_xxh3_64.
uint64_t syr_xxh3_64_seeded(const void *bytes, size_t length, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif // SYRINGE_TABLE_TESTING_H
