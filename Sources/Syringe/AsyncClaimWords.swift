import Synchronization

/// The word that holds a registration's async claim (see `AsyncClaims`),
/// found by the registration's dense index (`AnyDefinition.index`): 0 while
/// nobody claims it, else the address of the claiming `AsyncFrame`, with
/// `AsyncClaims.contendedBit` set once a task waits for it.
///
/// Not a field of the registration: that would take every registration
/// past its allocation size class, 16 bytes more each (see
/// `AnyDefinition.graphIndexOrClaim`), for a word that only async
/// `.shared`, `.scoped` and `.weak` creations use. The words are kept in
/// chunks of `chunkSize`, each made the first time an async creation asks
/// for the word of a registration whose index falls in it, and never freed,
/// listed in a directory of `directorySize`: the word of an index is two
/// loads away, with no lock.
/// An index is reused once its registration is freed, and a claim is
/// always released before then (the resolve that claims holds the
/// registration), so a reused index finds its word 0.
enum AsyncClaimWords {
    private static let chunkBits = 12
    private static let chunkSize = 1 << chunkBits
    /// 2¹² chunks of 2¹² words: the registrations of 16 million indices,
    /// far more than a process has alive at once. Past them, `word(for:)`
    /// answers nil, and their claims are kept in `AsyncClaims`' table.
    private static let directorySize = 1 << 12

    /// `nonisolated(unsafe)`: the pointer is written once, by the lazy
    /// initialiser, and every access through it is atomic.
    nonisolated(unsafe) private static let directory: UnsafeMutablePointer<Atomic<UInt>> = {
        let directory = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: directorySize)
        for index in 0..<directorySize {
            (directory + index).initialize(to: Atomic(0))
        }
        return directory
    }()

    /// The claim word of the registration whose dense index is `index`;
    /// nil past the directory's reach.
    @inline(__always)
    static func word(for index: Int) -> UnsafeMutablePointer<Atomic<UInt>>? {
        let chunkIndex = index >> chunkBits
        guard chunkIndex < directorySize else {
            return nil
        }
        // Acquiring: the chunk's words were initialised before its address
        // was published.
        var chunk = (directory + chunkIndex).pointee.load(ordering: .acquiring)
        if chunk == 0 {
            chunk = makeChunk(at: chunkIndex)
        }
        return UnsafeMutablePointer<Atomic<UInt>>(bitPattern: chunk).unsafelyUnwrapped + (index & (chunkSize - 1))
    }

    /// Makes chunk `chunkIndex`, unless another thread just did: returns
    /// the address of the one the directory lists.
    @inline(never)
    private static func makeChunk(at chunkIndex: Int) -> UInt {
        let chunk = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: chunkSize)
        for index in 0..<chunkSize {
            (chunk + index).initialize(to: Atomic(0))
        }
        let address = UInt(bitPattern: chunk)
        let (exchanged, listed) = (directory + chunkIndex).pointee.compareExchange(expected: 0, desired: address, ordering: .acquiringAndReleasing)
        if exchanged {
            return address
        }
        chunk.deinitialize(count: chunkSize)
        chunk.deallocate()
        return listed
    }
}
