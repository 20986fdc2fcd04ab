/// The identity of a factory's runtime-argument list.
///
/// `ArgumentSignature<String, Int>` and `ArgumentSignature<Int, String>` are
/// different types with different metadata pointers, so argument order is part
/// of a registration's key, as in Dip and Swinject. A registration without
/// arguments uses `NoArguments` instead.
@usableFromInline
struct ArgumentSignature<each Argument> {
    /// The metadata pointer that the resolution table compares.
    @inlinable
    static var identity: UnsafeRawPointer {
        unsafeBitCast(ObjectIdentifier(Self.self), to: UnsafeRawPointer.self)
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
/// call on every resolve), and one no argument list can produce.
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
