/// A container as the `Resolver` its factories receive, made once when the
/// container is made.
///
/// A factory's `Resolver` is an existential of the container itself (Swinject's
/// factories cast it back: `($0 as? Container)?.currentObjectGraph`). Made
/// afresh for each factory call, the existential retains the container and
/// releases it afterwards: two atomic read-modify-writes per resolve, each of
/// which waits for the processor's store buffer to drain (a five-deep chain,
/// W5, made ten). Kept in a `let` of this object, the existential is passed to
/// each factory by address instead, with neither.
///
/// The container owns its `SelfResolver`, and the existential in it refers
/// back to the container without owning it: the container's initialiser
/// gives back the count the existential took, and its `deinit` takes one again
/// before the existential is destroyed (retaining and releasing an object
/// inside its own `deinit` is allowed, as long as it does not escape).
@usableFromInline
final class SelfResolver {
    @usableFromInline
    let resolver: Resolver

    private init(_ container: Container) {
        resolver = container
    }

    /// Makes `container`'s, which does not keep `container` alive. Call once,
    /// from the container's initialiser, and balance with `release(_:of:)`.
    static func make(for container: Container) -> Unmanaged<SelfResolver> {
        let made = Unmanaged.passRetained(SelfResolver(container))
        Unmanaged.passUnretained(container).release()
        return made
    }

    /// Destroys `container`'s; call from its `deinit`.
    static func release(_ made: Unmanaged<SelfResolver>, of container: Container) {
        _ = Unmanaged.passUnretained(container).retain()
        made.release()
    }
}
