// The pure-Swift baseline for Syringe's C resolution table.
//
// This is Syringe's container design with ONE thing changed: the table. Where
// Syringe probes a C open-addressing table keyed by (type identity, argument
// signature identity, name bytes) and hashed with XXH3, this container looks
// the same key up in a Swift `Dictionary`, keyed by a `Hashable` struct and
// hashed with the standard library's `Hasher` (SipHash-1-3).
//
// Everything else mirrors Syringe (see /Sources/Syringe):
//   * the table maps a key to an UNRETAINED definition pointer; the container
//     keeps every definition alive (live and replaced ones alike);
//   * `Definition<T>` is reached with `unsafeDowncast` (the key guarantees T),
//     its factory receives the runtime arguments through a raw pointer whose
//     type the key's signature guarantees;
//   * a `.shared` instance lives in an `InstanceBox<T>` published through an
//     atomic pointer stored right after the definition's kind, so a resolve
//     that finds it does one acquire load and no kind check;
//   * every `.new` resolve fetches the thread's resolution context from a C
//     thread-local slot and enters/leaves a frame in a fixed buffer (cycle
//     detection), inside the one out-of-line, specialised `resolveSlowly`;
//   * the hot path is `@inlinable` (specialised in the caller's module) and the
//     same helpers that Syringe keeps out of line (the nested-frame cycle
//     check, `createShared`, context creation) are out of line here too.
// Not offered (so not mirrored): parents, `.graph` and `.weak` scopes,
// `onResolved` hooks, aliases, diagnostics. The per-thread bookkeeping those
// features need on every resolve (is this the outermost resolve? is there
// deferred work?) IS mirrored, so that the same accesses happen in both.
//
// THREAD SAFETY — the design choice this baseline is about:
// Syringe lets registrations happen while other threads resolve; its C table
// allows that without any lock on the read side. A Swift `Dictionary` does not
// (a concurrent write may reallocate the storage under a reader), so this
// container PROTECTS EVERY DICTIONARY ACCESS WITH A LOCK (`Mutex`, the
// standard library's). That is the configuration measured as the baseline.
//
// `freeze()` offers the other option: after it, the container is READ-ONLY
// (registering traps) and lookups read an immutable snapshot without a lock.
// The benchmark table reports it as a second column, so the cost of the
// dictionary itself and the cost of the lock can be told apart.
import CBaselineThread
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The scopes the baseline supports.
public enum SwiftTableScope: Sendable {
    /// A new instance for every resolve.
    case new
    /// One instance per container, created lazily and exactly once.
    case shared
}

/// The identity of a runtime-argument list, as in Syringe's `ArgumentSignature`.
@usableFromInline
enum ArgumentSignature<Argument> {
    @inlinable
    static var identity: ObjectIdentifier { ObjectIdentifier(Self.self) }
}

/// The signature of registrations without runtime arguments.
@usableFromInline
enum NoArguments {
    @inlinable
    static var identity: ObjectIdentifier { ObjectIdentifier(Self.self) }
}

/// The table key: the same three parts as Syringe's C key.
@usableFromInline
struct TableKey: Hashable, @unchecked Sendable {
    @usableFromInline let type: ObjectIdentifier
    @usableFromInline let signature: ObjectIdentifier
    @usableFromInline let name: String?

    @inlinable
    init(type: ObjectIdentifier, signature: ObjectIdentifier, name: String?) {
        self.type = type
        self.signature = signature
        self.name = name
    }

    // Written out (rather than synthesised) so that they are `@inlinable` and
    // the caller's module sees the whole lookup, as it sees Syringe's C lookup.
    @inlinable
    func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        hasher.combine(signature)
        hasher.combine(name)
    }

    @inlinable
    static func == (lhs: TableKey, rhs: TableKey) -> Bool {
        lhs.type == rhs.type && lhs.signature == rhs.signature && lhs.name == rhs.name
    }
}

/// The type-erased part of a registration.
@usableFromInline
class AnyDefinition: @unchecked Sendable {
    @usableFromInline
    enum Kind: UInt8, Sendable { case new, shared }

    @usableFromInline
    let kind: Kind
    /// A retained `InstanceBox<T>` once the `.shared` instance exists; next
    /// to `kind`, as in Syringe.
    @usableFromInline
    let sharedBox = Atomic<UnsafeRawPointer?>(nil)

    init(kind: Kind) {
        self.kind = kind
    }
}

/// A registration of `T`: its factory and, for `.shared`, its instance.
@usableFromInline
final class Definition<T>: AnyDefinition, @unchecked Sendable {
    @usableFromInline
    typealias Factory = @Sendable (SwiftTableResolver, UnsafeRawPointer) throws -> T

    @usableFromInline
    let factory: Factory
    /// Held while the `.shared` instance is created.
    let creation = Mutex<Void>(())

    init(kind: Kind, factory: @escaping Factory) {
        self.factory = factory
        super.init(kind: kind)
    }

    deinit {
        if let box = sharedBox.load(ordering: .acquiring) {
            Unmanaged<InstanceBox<T>>.fromOpaque(box).release()
        }
    }

    @inlinable
    @inline(__always)
    func sharedInstance() -> T? {
        guard let box = sharedBox.load(ordering: .acquiring) else {
            return nil
        }
        return Unmanaged<InstanceBox<T>>.fromOpaque(box)._withUnsafeGuaranteedRef { $0.value }
    }

    func publishShared(_ value: T) {
        let box = Unmanaged.passRetained(InstanceBox(value)).toOpaque()
        sharedBox.store(UnsafeRawPointer(box), ordering: .releasing)
    }
}

@usableFromInline
final class InstanceBox<T>: @unchecked Sendable {
    @usableFromInline
    let value: T

    init(_ value: T) {
        self.value = value
    }
}

/// The table after `freeze()`: immutable, so read without a lock.
@usableFromInline
final class FrozenTable: @unchecked Sendable {
    @usableFromInline
    let entries: [TableKey: Unmanaged<AnyDefinition>]

    init(entries: [TableKey: Unmanaged<AnyDefinition>]) {
        self.entries = entries
    }
}

/// Syringe's container design with a Swift `Dictionary` as its table.
public final class SwiftTableContainer: @unchecked Sendable {
    @usableFromInline
    struct State {
        /// The table: key → unretained definition.
        @usableFromInline
        var entries: [TableKey: Unmanaged<AnyDefinition>] = [:]
        /// Keeps every definition ever installed alive (Syringe keeps replaced
        /// ones too, because a lock-free reader may still hold them).
        var definitions: [AnyDefinition] = []
    }

    /// The table and its owners, behind the lock every reader takes.
    @usableFromInline
    let state = Mutex(State())
    /// A retained `FrozenTable` once `freeze()` was called.
    @usableFromInline
    let frozen = Atomic<UnsafeRawPointer?>(nil)

    public init() {}

    deinit {
        if let table = frozen.load(ordering: .acquiring) {
            Unmanaged<FrozenTable>.fromOpaque(table).release()
        }
    }

    /// Makes the container read-only: later lookups take no lock, and
    /// registering traps.
    public func freeze() {
        state.withLock { state in
            precondition(frozen.load(ordering: .relaxed) == nil, "already frozen")
            let table = Unmanaged.passRetained(FrozenTable(entries: state.entries)).toOpaque()
            frozen.store(UnsafeRawPointer(table), ordering: .releasing)
        }
    }

    // MARK: Registration

    /// Registers a factory for `type` under an optional name and scope.
    public func register<T>(
        type: T.Type = T.self,
        name: String? = nil,
        in scope: SwiftTableScope = .shared,
        factory: @escaping @Sendable (SwiftTableResolver) throws -> T
    ) {
        let definition = Definition<T>(kind: scope == .new ? .new : .shared) { resolver, _ in
            try factory(resolver)
        }
        install(definition, key: TableKey(type: ObjectIdentifier(T.self), signature: NoArguments.identity, name: name))
    }

    /// Registers a factory taking one runtime argument. Every resolve builds a
    /// new instance.
    public func register<T, Argument>(
        type: T.Type = T.self,
        name: String? = nil,
        factory: @escaping @Sendable (SwiftTableResolver, Argument) throws -> T
    ) {
        let definition = Definition<T>(kind: .new) { resolver, argument in
            // The key's signature guarantees what `argument` points to.
            try factory(resolver, argument.assumingMemoryBound(to: Argument.self).pointee)
        }
        install(definition, key: TableKey(type: ObjectIdentifier(T.self), signature: ArgumentSignature<Argument>.identity, name: name))
    }

    func install(_ definition: AnyDefinition, key: TableKey) {
        state.withLock { state in
            precondition(frozen.load(ordering: .relaxed) == nil, "SwiftTableContainer: registering after freeze()")
            state.entries[key] = Unmanaged.passUnretained(definition)
            state.definitions.append(definition)
        }
    }

    // MARK: Resolution (the hot path: inlinable, specialised by the caller)

    /// Resolves an instance; traps when nothing is registered.
    @inlinable
    public func resolve<T>(type: T.Type = T.self, name: String? = nil) -> T {
        guard let definition = definition(of: T.self, signature: NoArguments.identity, name: name) else {
            Self.notRegistered(T.self, name: name)
        }
        return resolve(definition, arguments: Self.noArguments)
    }

    /// Resolves an instance registered with one runtime argument of this type.
    @inlinable
    public func resolve<T, Argument>(type: T.Type = T.self, name: String? = nil, argument: Argument) -> T {
        guard let definition = definition(of: T.self, signature: ArgumentSignature<Argument>.identity, name: name) else {
            Self.notRegistered(T.self, name: name)
        }
        return withUnsafePointer(to: argument) { pointer in
            resolve(definition, arguments: UnsafeRawPointer(pointer))
        }
    }

    /// The table lookup: the only part that differs from Syringe.
    @inlinable
    @inline(__always)
    func lookup(_ key: TableKey) -> Unmanaged<AnyDefinition>? {
        if let table = frozen.load(ordering: .acquiring) {
            return Unmanaged<FrozenTable>.fromOpaque(table)._withUnsafeGuaranteedRef { $0.entries[key] }
        }
        return state.withLock { $0.entries[key] }
    }

    @inlinable
    @inline(__always)
    func definition<T>(of type: T.Type, signature: ObjectIdentifier, name: String?) -> Unmanaged<Definition<T>>? {
        guard let raw = lookup(TableKey(type: ObjectIdentifier(type), signature: signature, name: name)) else {
            return nil
        }
        // The key's type identity is `T`'s, so the definition is a `Definition<T>`.
        return Unmanaged<Definition<T>>.fromOpaque(raw.toOpaque())
    }

    /// As in Syringe: an existing `.shared` instance through a guaranteed
    /// reference (no retain but the instance's); the rest out of line.
    @inlinable
    @inline(__always)
    func resolve<T>(_ definition: Unmanaged<Definition<T>>, arguments: UnsafeRawPointer) -> T {
        if let instance = definition._withUnsafeGuaranteedRef({ $0.sharedInstance() }) {
            return instance
        }
        return resolveSlowly(definition, arguments: arguments)
    }

    @inlinable
    @inline(never)
    func resolveSlowly<T>(_ definition: Unmanaged<Definition<T>>, arguments: UnsafeRawPointer) -> T {
        definition._withUnsafeGuaranteedRef { definition in
            ResolutionContext.currentUnretained._withUnsafeGuaranteedRef { context in
                // The outermost resolve on this thread, as in Syringe; a `.new`
                // definition is built right here, as in Syringe.
                let outermost = context.isIdle
                let instance = definition.kind == .new
                    ? construct(definition, arguments: arguments, context: context)
                    : createShared(definition, arguments: arguments, context: context)
                if outermost && context.hasDeferredWork {
                    context.finish()
                }
                return instance
            }
        }
    }

    @inlinable
    func construct<T>(_ definition: Definition<T>, arguments: UnsafeRawPointer, context: ResolutionContext) -> T {
        context.enter(definition)
        defer { context.leave() }
        do {
            return try definition.factory(SwiftTableResolver(container: self), arguments)
        } catch {
            Self.factoryFailed(error)
        }
    }

    /// Creates a `.shared` instance exactly once. Out of line, as in Syringe.
    @usableFromInline
    func createShared<T>(_ definition: Definition<T>, arguments: UnsafeRawPointer, context: ResolutionContext) -> T {
        context.enter(definition)
        defer { context.leave() }
        definition.creation.withLock { _ in
            guard definition.sharedInstance() == nil else {
                return  // another thread created it while we waited
            }
            do {
                definition.publishShared(try definition.factory(SwiftTableResolver(container: self), arguments))
            } catch {
                Self.factoryFailed(error)
            }
        }
        return definition.sharedInstance().unsafelyUnwrapped
    }

    @inlinable
    static var noArguments: UnsafeRawPointer {
        UnsafeRawPointer(bitPattern: MemoryLayout<Int>.alignment).unsafelyUnwrapped
    }

    @usableFromInline
    static func notRegistered(_ type: Any.Type, name: String?) -> Never {
        fatalError("SwiftTableContainer: nothing registered for \(type) named \(name ?? "nil")")
    }

    @usableFromInline
    static func factoryFailed(_ error: any Error) -> Never {
        fatalError("SwiftTableContainer: factory threw \(error)")
    }
}

/// What a factory uses to resolve its dependencies.
public struct SwiftTableResolver: Sendable {
    @usableFromInline
    let container: SwiftTableContainer

    @inlinable
    init(container: SwiftTableContainer) {
        self.container = container
    }

    @inlinable
    public func resolve<T>(type: T.Type = T.self, name: String? = nil) -> T {
        container.resolve(type: type, name: name)
    }

    @inlinable
    public func resolve<T, Argument>(type: T.Type = T.self, name: String? = nil, argument: Argument) -> T {
        container.resolve(type: type, name: name, argument: argument)
    }
}

/// The resolve in progress on one thread, as Syringe's `ResolutionContext`:
/// one per thread, in a C thread-local slot, holding the frames being built.
///
/// Its bookkeeping mirrors Syringe's field for field, including the `.graph`
/// instances and `onResolved` queue this baseline never fills, so that a
/// resolve performs the same context accesses (`isIdle`, `hasDeferredWork`,
/// `enter`, `leave`) in both containers and the columns differ by the table.
@usableFromInline
final class ResolutionContext {
    // Thread-confined, as in Syringe: no run-time exclusivity checks.
    /// The definitions being built, in `frames[0..<depth]`: a fixed buffer, as in Syringe.
    @usableFromInline
    let frames = UnsafeMutablePointer<Unmanaged<AnyDefinition>>.allocate(capacity: 256)
    @usableFromInline
    @exclusivity(unchecked)
    var depth = 0
    /// Mirrors Syringe's `.graph` instances; always empty here.
    @exclusivity(unchecked)
    private var graph: [(definition: ObjectIdentifier, box: AnyObject)] = []
    /// Mirrors Syringe's queued `onResolved` callbacks; always empty here.
    @exclusivity(unchecked)
    private var pending: [() -> Void] = []
    @usableFromInline
    @exclusivity(unchecked)
    var finishing = false
    /// True when the outermost resolve left work to do (never, here).
    @usableFromInline
    @exclusivity(unchecked)
    var hasDeferredWork = false

    deinit {
        frames.deallocate()
    }

    /// This thread's context, unretained (the thread-local slot owns it).
    @inlinable
    @inline(__always)
    static var currentUnretained: Unmanaged<ResolutionContext> {
        if let raw = baseline_thread_get() {
            return Unmanaged<ResolutionContext>.fromOpaque(raw)
        }
        return makeCurrent()
    }

    @usableFromInline
    @inline(never)
    static func makeCurrent() -> Unmanaged<ResolutionContext> {
        let context = Unmanaged.passRetained(ResolutionContext())
        pthread_setspecific(contextKey, context.toOpaque())
        baseline_thread_set(context.toOpaque())
        return context
    }

    /// True when no resolve is in progress on this thread.
    @inlinable
    var isIdle: Bool { depth == 0 && !finishing }

    /// Starts building `definition`; traps on a constructor cycle.
    @inlinable
    func enter(_ definition: AnyDefinition) {
        if depth > 0 {
            checkNesting(definition)
        }
        frames[depth] = Unmanaged.passUnretained(definition)
        depth += 1
    }

    @usableFromInline
    func checkNesting(_ definition: AnyDefinition) {
        let identity = Unmanaged.passUnretained(definition).toOpaque()
        if depth >= 256 || (0..<depth).contains(where: { frames[$0].toOpaque() == identity }) {
            fatalError("SwiftTableContainer: dependency cycle")
        }
    }

    @inlinable
    func leave() {
        depth -= 1
    }

    @usableFromInline
    func finish() {
        finishing = true
        defer {
            finishing = false
            hasDeferredWork = false
            pending.removeAll(keepingCapacity: true)
            graph.removeAll(keepingCapacity: true)
        }
        for run in pending {
            run()
        }
    }
}

private let contextKey: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key) { raw in
        baseline_thread_set(nil)
        #if canImport(Darwin)
        Unmanaged<ResolutionContext>.fromOpaque(raw).release()
        #else
        if let raw {
            Unmanaged<ResolutionContext>.fromOpaque(raw).release()
        }
        #endif
    }
    precondition(status == 0, "pthread_key_create failed (\(status))")
    return key
}()
