//===----------------------------------------------------------------------===//
// syringe_inline.h — the one spelling of "always inline" for Syringe's C.
//
// The table's lookup, the thread slot's read, the reclaimer's section and the
// observer flag (syringe_observe.h) run on every resolve, called from Swift
// across a module boundary; a call would cost more than the work
// they do, so they are defined in headers and forced inline into the caller.
//===----------------------------------------------------------------------===//
#ifndef SYRINGE_INLINE_H
#define SYRINGE_INLINE_H

/// For functions on the resolve path only; everything else is out of line.
#define SYR_INLINE static inline __attribute__((__always_inline__))

#endif // SYRINGE_INLINE_H
