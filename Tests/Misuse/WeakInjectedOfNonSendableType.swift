// expected: stored property '_cache' of 'Sendable'-conforming struct 'Screen' contains non-Sendable type 'Cache'
// `@WeakInjected` hands every thread that reads the property the same
// instance: it is `Sendable` only when its type is. (It was `Sendable` for
// any type, and this compiled.)
import Syringe

final class Cache {}

struct Screen: Sendable {
    @WeakInjected var cache: Cache?
}
