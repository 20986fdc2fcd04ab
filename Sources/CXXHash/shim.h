// The system xxHash library (Debian: libxxhash-dev, Homebrew: xxhash).
// Syringe's table header includes <xxhash.h> itself with XXH_INLINE_ALL; this
// module exists so SwiftPM finds the library through pkg-config and links it.
#ifndef SYRINGE_CXXHASH_SHIM_H
#define SYRINGE_CXXHASH_SHIM_H
#include <xxhash.h>
#endif
