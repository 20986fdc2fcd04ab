// The system xxHash header (Debian: libxxhash-dev, Homebrew: xxhash).
// Syringe's table header includes <xxhash.h> itself with XXH_INLINE_ALL, so
// hashing is header-only: this module exists so that SwiftPM finds the
// header (through pkg-config on Apple platforms, see Package.swift), and its
// module map asks for no library, so no binary needs libxxhash.so at run
// time. `.ci/run` checks that with readelf.
#ifndef SYRINGE_CXXHASH_SHIM_H
#define SYRINGE_CXXHASH_SHIM_H
#include <xxhash.h>
#endif
