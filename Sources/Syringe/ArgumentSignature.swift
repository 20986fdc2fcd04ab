/// The identity of a factory's runtime-argument list.
///
/// `ArgumentSignature<String, Int>` and `ArgumentSignature<Int, String>` are
/// different types with different metadata pointers, so argument order is part
/// of a registration's key, as in Dip and Swinject. A registration without
/// arguments uses `NoArguments` instead.
@usableFromInline
struct ArgumentSignature<each Argument> {
    /// The metadata pointer that the resolution table compares; for an
    /// empty list, `NoArguments`'s: generic code that registers or resolves
    /// with a pack that turns out empty means a registration without
    /// arguments, and under a key of its own no ordinary resolve found it.
    /// (Specialised, the check is a constant.)
    @inlinable
    static var identity: UnsafeRawPointer {
        for _ in repeat (each Argument).self {
            return unsafeBitCast(ObjectIdentifier(Self.self), to: UnsafeRawPointer.self)
        }
        return NoArguments.identity
    }

    /// The argument types, for diagnostics.
    @usableFromInline
    static var types: [Any.Type] {
        var types: [Any.Type] = []
        repeat types.append((each Argument).self)
        return types
    }
}

/// The signature of registrations that take no runtime arguments: a plain
/// nominal type, so that its identity is a constant address (the metadata of
/// an `ArgumentSignature`, even an empty one, is found through an accessor
/// call on every resolve). An empty `ArgumentSignature` stands for it.
@usableFromInline
enum NoArguments {
    @inlinable
    static var identity: UnsafeRawPointer { typeIdentity(NoArguments.self) }
}

/// The identity pointer of a type, as the resolution table compares it.
@inlinable
@inline(__always)
func typeIdentity<T>(_ type: T.Type) -> UnsafeRawPointer {
    unsafeBitCast(ObjectIdentifier(type), to: UnsafeRawPointer.self)
}

/// The argument types of every signature registered so far, so that a
/// definition keeps one word (its key's signature) instead of an array of
/// types: registrations are many, distinct argument lists few. Written when a
/// registration with arguments is made, read by diagnostics and writers, never
/// by a resolve that succeeds.
final class SignatureTypes: @unchecked Sendable {
    static let shared = SignatureTypes()

    private let lock = Lock()
    /// Guarded by `lock`. One entry per distinct argument list, never removed:
    /// a signature is a type's metadata, which lives as long as the process.
    private var types: [UnsafeRawPointer: [Any.Type]] = [:]

    func record(_ argumentTypes: [Any.Type], for signature: UnsafeRawPointer) {
        lock.withLock {
            if types[signature] == nil {
                types[signature] = argumentTypes
            }
        }
    }

    /// The types recorded for `signature`; every definition's signature was
    /// recorded when it was created.
    func types(of signature: UnsafeRawPointer) -> [Any.Type] {
        lock.withLock { types[signature] ?? [] }
    }
}
