// The system xxHash library (Debian: libxxhash-dev, Homebrew: xxhash).
// Syringe's table header includes <xxhash.h> itself with XXH_INLINE_ALL, so
// hashing is header-only: this module exists so that SwiftPM finds the
// header through pkg-config, and its module map asks for no library.
// SwiftPM still appends pkg-config's `Libs` (-lxxhash) to the link of every
// product that depends on it, ahead of any linker flag a manifest can add,
// so Linux binaries record an unused NEEDED libxxhash.so.0; no xxHash symbol
// is imported, and the fuzzer and C drivers link without the library.
#ifndef SYRINGE_CXXHASH_SHIM_H
#define SYRINGE_CXXHASH_SHIM_H
#include <xxhash.h>
#endif
