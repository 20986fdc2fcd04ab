/// What an entry's producer returns: whether it made an instance, and the
/// instance itself when it is one or two words that a bitwise move may take
/// (a class reference, a class-bound existential: the reference and its
/// witness table), in registers. A producer initialises any other instance at
/// the `out` address it is given.
///
/// Why registers: an instance handed back through memory is written by the
/// producer with one 8-byte store per word, and the resolve, moving it as one
/// value, reads a two-word one back with a single 16-byte load. The processor
/// cannot forward that load from the two stores still in flight, so it waits
/// for them to reach the cache: about 40 % of the time of W1's loop (perf).
@usableFromInline
struct ProducedInstance {
    @usableFromInline
    var isMade: Bool
    /// The instance's words, when `isCarried(Service.self)`; else zero.
    @usableFromInline
    var words: (UInt, UInt)

    @inlinable
    init(isMade: Bool, words: (UInt, UInt)) {
        self.isMade = isMade
        self.words = words
    }

    /// Nothing made.
    @inlinable
    static var none: ProducedInstance {
        ProducedInstance(isMade: false, words: (0, 0))
    }

    /// Whether a `Service` travels in `words`. Constant where `Service` is
    /// known; unspecialised code reads it off the type's metadata, and both
    /// sides of a resolve decide alike.
    @inlinable
    @inline(__always)
    static func isCarried<Service>(_: Service.Type) -> Bool {
        (MemoryLayout<Service>.size == MemoryLayout<UInt>.size || MemoryLayout<Service>.size == 2 * MemoryLayout<UInt>.size)
            && MemoryLayout<Service>.alignment <= MemoryLayout<UInt>.alignment
            && _isBitwiseTakable(Service.self)
    }

    /// A producer's last step: `made`, if any, in `words` or initialised at
    /// `out`.
    @inlinable
    @inline(__always)
    static func deliver<Service>(_ made: Service?, to out: UnsafeMutableRawPointer) -> ProducedInstance {
        guard let made else {
            return .none
        }
        if isCarried(Service.self) {
            var words: (UInt, UInt) = (0, 0)
            // Ownership moves into the words (a bitwise-takable value may be
            // moved by its bytes); `take` moves it out again.
            initialize(&words, to: made)
            return ProducedInstance(isMade: true, words: words)
        }
        out.initializeMemory(as: Service.self, to: made)
        return ProducedInstance(isMade: true, words: (0, 0))
    }

    /// The instance `deliver` made, moved out of `words` or from `out`.
    @inlinable
    @inline(__always)
    func take<Service>(_: Service.Type, from out: UnsafeMutableRawPointer) -> Service {
        if Self.isCarried(Service.self) {
            var words = words
            return Self.move(&words, as: Service.self)
        }
        return Self.move(out, as: Service.self)
    }

    @inlinable
    @inline(__always)
    static func initialize<Service>(_ address: UnsafeMutableRawPointer, to value: Service) {
        address.initializeMemory(as: Service.self, to: value)
    }

    @inlinable
    @inline(__always)
    static func move<Service>(_ address: UnsafeMutableRawPointer, as _: Service.Type) -> Service {
        address.assumingMemoryBound(to: Service.self).move()
    }
}
