import CSyringeTable
import Synchronization

/// The type-erased part of a registration, shared by every `Definition<T>`.
///
/// Definitions are immutable once published in a table, except for their
/// atomics (and the `.weak` box, used only under the definition's claim, see
/// `InstanceCreation`). A definition that is replaced or removed is retired
/// (`Reclamation`), not released, because a lock-free reader may still hold
/// it; it is freed once no resolve that could have found it is running.
@usableFromInline
class AnyDefinition: @unchecked Sendable {
    /// What a resolve does with the factory. `.forward` is an alias made by
    /// `Registration.implements(_:name:)`: it resolves its target definition
    /// from the container holding both; `.forwardToScoped`, an alias of a
    /// `.scoped` registration, from the container that was asked, whose
    /// nearest scope owns the instance.
    /// `.scopeLocal` is the copy of a `.scoped` registration that a scope
    /// installs in its own table on the first resolve there, holding that
    /// scope's instance as `.shared` holds its (see Container+Scopes.swift).
    @usableFromInline
    enum Kind: UInt8, Sendable {
        case new, shared, graph, weak, forward, forwardToScoped, scoped, scopeLocal
    }

    // Stored fields are ordered and sized to keep a registration small
    // (the M row of the benchmarks).

    @usableFromInline
    let kind: Kind
    /// Whether the factory is async (see `AsyncEngine.swift`): a synchronous
    /// resolve reports `.registeredAsync` instead of running it. Fits beside
    /// `kind` in the first word.
    @usableFromInline
    let isAsync: Bool
    /// Whether the `.shared` instance was given, not built
    /// (`Container.register(type:name:instance:)`): nothing could build it
    /// again, so `releaseSharedInstances()` keeps it. Fits beside `kind`.
    let keepsInstance: Bool
    /// Set when the registration is replaced or removed (`Container.retire`),
    /// before its `.shared` instance is taken, which happens only once the
    /// resolves that could have found it have left their read-side
    /// sections. A resolve that held the definition past its section (an
    /// async one) and then finds no instance resolves the key's new
    /// registration instead of building a second instance of this one.
    /// Fits beside `kind` (the byte before `graphIndexOrClaim`).
    let retiredFlag = Atomic<Bool>(false)
    /// For a `.graph` registration, its `graphIndex`, set once; for the
    /// others, who is creating its `.shared`, scope-local or `.weak`
    /// instance: 0, or the claiming thread's `ResolutionContext.claimHolder`
    /// (see `InstanceCreation`). One field for both because no registration
    /// needs both: a claim word of its own took a registration past its
    /// allocation size class, 16 bytes more each (the M row read 203 bytes,
    /// not 187). 32 bits: fits beside `kind` in one word. In the first word
    /// because every edge of an object graph reads it (with `kind` and
    /// `sharedBox`), while `index32` is read once per instance built: an
    /// edge then touches one cache line of its definition, not two, and a
    /// graph of a hundred types misses the data cache less. Atomic for the
    /// claims; a graph's relaxed load of its index is a plain load.
    @usableFromInline
    let graphIndexOrClaim: Atomic<UInt32>
    /// A retained `InstanceBox` of a `T` once a `.shared` instance exists; nil for
    /// every other kind. Near the start so that a resolve of an existing
    /// instance reads one cache line of the definition, not two.
    @usableFromInline
    let sharedBox = Atomic<UnsafeRawPointer?>(nil)
    let key: DefinitionKey
    /// See `index`.
    @usableFromInline
    let index32: UInt32
    /// Position in the owner's registration order. Guarded by the owner's writer lock.
    private var order32: UInt32 = 0

    /// This definition's counter in each thread's cycle check
    /// (`ResolutionContext.enter`). Final, like `graphIndex`: inlined into
    /// another module, a class's computed property is otherwise called
    /// through the vtable (each level of a nested resolve paid such a call).
    @inlinable
    final var index: Int { Int(index32) }

    /// The slot of this definition's instances in each thread's
    /// `GraphInstances`. Only for a `.graph` registration: the field holds a
    /// claim for the others.
    @inlinable
    final var graphIndex: Int { Int(graphIndexOrClaim.load(ordering: .relaxed)) }

    /// Position in the owner's registration order. Guarded by the owner's writer lock.
    var order: Int {
        get { Int(order32) }
        set { order32 = UInt32(newValue) }
    }

    /// Whether resolves pass runtime arguments.
    var takesArguments: Bool { key.signature != NoArguments.identity }

    /// The runtime argument types, for diagnostics: looked up from the key's
    /// signature (see `SignatureTypes`), not stored.
    var argumentTypes: [Any.Type] {
        key.argumentTypes
    }

    /// The type resolves ask for (`T` of `Definition<T>`).
    var serviceType: Any.Type {
        preconditionFailure("Syringe: every definition is a Definition<T>")
    }

    /// `argumentTypes` are those of `key.signature`: recorded once per
    /// signature, not kept here.
    @usableFromInline
    init(kind: Kind, key: DefinitionKey, argumentTypes: [Any.Type], isAsync: Bool, keepsInstance: Bool = false) {
        self.kind = kind
        self.isAsync = isAsync
        self.keepsInstance = keepsInstance
        self.key = key
        if !argumentTypes.isEmpty {
            SignatureTypes.shared.record(argumentTypes, for: key.signature)
        }
        // Dense indices count definitions alive at once: far below 2³¹.
        self.index32 = UInt32(DenseIndices.takeDefinitionIndex())
        // Graph indices count `.graph` definitions alive at once, as
        // dense indices do: far below 2³².
        self.graphIndexOrClaim = Atomic(kind == .graph ? UInt32(DenseIndices.graphs.take()) : 0)
    }

    deinit {
        DenseIndices.giveBackDefinitionIndex(index)
        if kind == .graph {
            DenseIndices.graphs.giveBack(graphIndex)
        }
    }

    /// Destroys the `.graph` instance stored at `value` (see `GraphInstances`).
    func destroyGraphInstance(at value: UnsafeMutableRawPointer) {
        preconditionFailure("Syringe: every definition is a Definition<T>")
    }

    /// This definition as a path step prints it: `Animal["Cat"]`, `Endpoint(String, Int)`.
    var stepText: String {
        TypeName.step(serviceType, name: key.name, argumentTypes: argumentTypes)
    }

    /// An error about a request that reached this definition.
    func error(_ reason: ResolutionError.Reason, path: [String]) -> ResolutionError {
        ResolutionError(reason: reason, type: serviceType, name: key.name, argumentTypes: argumentTypes, path: path)
    }

    /// Drops a `.shared` instance so the next resolve creates a new one.
    /// Returns the box to retire (readers may still be reading it).
    /// `keepingGiven`: not a given one (`register(type:instance:)`), which
    /// no resolve could create again: `releaseSharedInstances()` keeps it,
    /// while a retired registration lets it go.
    func takeSharedInstance(keepingGiven: Bool) -> AnyObject? { nil }

    /// Takes the `.shared` (or scope-local) instance for `close()`: what to
    /// dispose it with, and its box, when it has disposers; otherwise its
    /// box goes to `kept` and the result is nil.
    func takeSharedInstanceForClosing(keeping kept: inout KeptBoxes) -> PendingDisposal? { nil }

    /// Whether `onDispose` gave this registration something to run when its
    /// owner closes.
    var hasDisposers: Bool { false }

    /// Whether the factory is isolated to the main actor (what validation's
    /// report says of a registration it skipped).
    var factoryRunsOnMainActor: Bool { false }

    /// A scope's own copy of this `.scoped` registration (see `Kind.scopeLocal`).
    func scopeLocalCopy(key: DefinitionKey) -> AnyDefinition {
        preconditionFailure("Syringe: every definition is a Definition<T>")
    }

    /// What this `.scoped` registration and its scopes' copies share, and
    /// nothing else does: the identity of the key a scope keeps a copy
    /// under when a child below the scope holds the registration
    /// (`ScopeLocalCopy.key(ofHeldBelow:)`).
    var copiesIdentity: UnsafeRawPointer {
        preconditionFailure("Syringe: every definition is a Definition<T>")
    }

    /// For a registration of a freed scope that the scope held alone,
    /// its reference `owned` (which keeps it alive meanwhile): for a
    /// scope-local copy, drops its instance and gives it back to its
    /// registration's pool; for a registration of a given instance, drops
    /// the instance and keeps the registration as a spare for the thread's
    /// next `register(type:name:instance:)` of its type (see
    /// `SpareObjects`). True if `owned` was taken over; otherwise (anything
    /// else, or no room) the caller releases it.
    ///
    /// The reference is handed on as it is, not retained again by the
    /// pool or the spares while the caller's was released: two atomic
    /// operations less per registration a request's scope gives back.
    func recycle(_ owned: Unmanaged<AnyDefinition>) -> Bool { false }

    /// A spare of the class `type` this thread keeps (see `SpareObjects`).
    @usableFromInline
    static func takeSpare(of type: AnyClass) -> AnyObject? {
        SpareObjects.take(type)
    }

    /// Gives back a spare that `takeSpare` took and that was not used.
    @usableFromInline
    static func keepSpare(_ definition: AnyDefinition) {
        let owned = Unmanaged.passRetained(definition)
        if !SpareObjects.keep(definition: owned) {
            owned.release()
        }
    }

    /// Whether the created shared instance (if any) can be used as `U`; for diagnostics.
    func sharedInstanceConforms<U>(to type: U.Type) -> Bool { false }

    /// Resolves this registration, held by `holder`, from `asked`, as an
    /// outermost resolve: a root of `validate()`'s pass.
    func resolveForValidation(from asked: Container, holder: Container, arguments: UnsafeRawPointer) throws(ResolutionError) {
        preconditionFailure("Syringe: every definition is a Definition<T>")
    }

    /// `resolveForValidation` through the async engine, for `validateAsync()`.
    nonisolated(nonsending) func resolveForValidationAsync(from asked: Container, holder: Container, arguments: UnsafeRawPointer) async throws(ResolutionError) {
        preconditionFailure("Syringe: every definition is a Definition<T>")
    }
}

/// A registration of `T`: its factory and, for `.shared`, its instance.
@usableFromInline
final class Definition<T>: AnyDefinition, @unchecked Sendable {
    /// Receives the resolver and a pointer to the runtime-argument tuple; the
    /// key's signature guarantees the tuple's type.
    ///
    /// One closure type for every registration, so that a resolve calls it
    /// directly. (An enum that kept a factory without arguments as the
    /// caller gave it, saving the wrapper's closure context, 48 bytes per
    /// registration, cost S1 about 30 instructions: taking the closure out
    /// of a copyable enum retains and releases its context on every
    /// resolve; a noncopyable one is borrowed, see `AsyncFactory`.)
    @usableFromInline
    typealias Factory = @Sendable (Resolver, UnsafeRawPointer) throws -> T

    /// An async registration's factory: the caller's own closure when it
    /// takes no runtime arguments (each wrapper would cost every resolve one
    /// more async call), else one that reads the argument tuple, which stays
    /// valid until the resolve returns, across suspensions.
    ///
    /// A closure written as the trailing closure of `register` is kept as
    /// it is, `nonisolated(nonsending)` (`onCallersExecutor`, or wrapped,
    /// `nonisolated(nonsending)` too, with its arguments): it runs on
    /// the executor of the resolve that calls it, with no executor switch
    /// on the way in. Function references come through the `factory:`
    /// label as plain `@Sendable` async functions (`plain`,
    /// `withArguments`), which run on the global executor: Swift 6.3's type
    /// checker crashes on a reference to a type's static method or
    /// initialiser converted to a `nonisolated(nonsending)` type.
    ///
    /// Noncopyable, so that the `switch` that calls it (over the optional
    /// in `DefinitionExtras`, noncopyable too) borrows the closure from its
    /// registration: a copyable enum, or an optional closure, loaded from a
    /// stored property is copied to be called, a retain and a release of
    /// the closure's context per async resolve, two atomic operations that
    /// a synchronous resolve, calling its non-optional `factory`, does not
    /// make.
    @usableFromInline
    enum AsyncFactory: ~Copyable, Sendable {
        @usableFromInline
        typealias Plain = @Sendable (Resolver) async throws -> T
        @usableFromInline
        typealias OnCallersExecutor = nonisolated(nonsending) @Sendable (Resolver) async throws -> T
        @usableFromInline
        typealias WithArguments = @Sendable (Resolver, ArgumentTuple) async throws -> T
        @usableFromInline
        typealias WithArgumentsOnCallersExecutor = nonisolated(nonsending) @Sendable (Resolver, ArgumentTuple) async throws -> T

        case plain(Plain)
        case onCallersExecutor(OnCallersExecutor)
        case withArguments(WithArguments)
        case withArgumentsOnCallersExecutor(WithArgumentsOnCallersExecutor)
    }

    /// A retained `Hooks<T>` once `onResolved` was called.
    @usableFromInline
    let hooks = Atomic<UnsafeRawPointer?>(nil)
    /// The `.weak` state, the async factory and a `.scoped` registration's
    /// pool of scope-local copies: all rare, so one optional word holds them
    /// (a registration stays within its allocation size).
    @usableFromInline
    let extras: DefinitionExtras<T>?
    /// For a synchronous registration, its factory; for an async one, a
    /// factory that throws `AsyncOnly`, so that a synchronous resolve fails
    /// with `.registeredAsync` through the path every failure takes.
    @usableFromInline
    let factory: Factory

    ///
    /// `aliasCache`: an alias's, of a `.shared` target (see `AliasCache`).
    @usableFromInline
    init(kind: Kind, key: DefinitionKey, argumentTypes: [Any.Type], factory: @escaping Factory, aliasCache: AliasCache? = nil) {
        self.factory = factory
        self.extras = kind == .weak || kind == .scoped || aliasCache != nil
            ? DefinitionExtras(kind: kind, asyncFactory: nil, aliasCache: aliasCache) : nil
        super.init(kind: kind, key: key, argumentTypes: argumentTypes, isAsync: false)
    }

    /// An async registration.
    @usableFromInline
    init(kind: Kind, key: DefinitionKey, argumentTypes: [Any.Type], asyncFactory: consuming AsyncFactory) {
        self.factory = { _, _ in throw AsyncOnly() }
        self.extras = DefinitionExtras(kind: kind, asyncFactory: asyncFactory)
        super.init(kind: kind, key: key, argumentTypes: argumentTypes, isAsync: true)
    }

    /// An async registration with a synchronous factory too: resolved
    /// synchronously with `factory`, asynchronously with the async one.
    /// - A main-actor registration (`Container.register(type:name:in:isolatedTo:factory:)`,
    ///   `isolatedToMainActor`): `factory` throws `AsyncOnly` off the main
    ///   actor, and its `.shared`, `.scoped` and `.weak` instances are made
    ///   on the main actor by the synchronous engine (see `Container.produceOnMainActor`).
    /// - An alias (`implements`) of an async or main-actor registration,
    ///   isolated as its target is: `factory` forwards synchronously, which
    ///   returns the target's existing `.shared` instance, runs a main-actor
    ///   target on the main actor, and otherwise fails as a synchronous
    ///   resolve of the target does.
    ///
    /// `aliasCache`: an alias's, of a `.shared` target (see `AliasCache`).
    @usableFromInline
    init(kind: Kind, key: DefinitionKey, argumentTypes: [Any.Type], synchronousFactory factory: @escaping Factory,
         asyncFactory: consuming AsyncFactory, isolatedToMainActor: Bool, aliasCache: AliasCache? = nil) {
        self.factory = factory
        self.extras = DefinitionExtras(kind: kind, asyncFactory: asyncFactory, isolatedToMainActor: isolatedToMainActor,
                                       aliasCache: aliasCache)
        super.init(kind: kind, key: key, argumentTypes: argumentTypes, isAsync: true)
    }

    /// Whether the factories are isolated to the main actor.
    var isolatedToMainActor: Bool {
        extras?.isolatedToMainActor ?? false
    }

    override var factoryRunsOnMainActor: Bool { isolatedToMainActor }

    /// A `.shared` registration of `instance`, which exists already: its
    /// box is published before the definition is, so every resolve, the
    /// first included, takes the existing-instance path, and there is no
    /// factory to keep (a closure context, and the caller's, fewer per
    /// registration than `dependency:`). Inlinable: in unspecialised code,
    /// the factory closure captured `T`'s metadata, an allocation per
    /// registration.
    @inlinable
    init(key: DefinitionKey, instance: consuming T) {
        // Runs only once `close()` has taken the instance (from a child
        // that is not closed itself): the resolve fails as closed.
        self.factory = { _, _ in throw InstanceClosed() }
        self.extras = nil
        super.init(kind: .shared, key: key, argumentTypes: [], isAsync: false, keepsInstance: true)
        let box = InstanceBox.make(consume instance, order: CreationOrder.next())
        // Relaxed: installing the definition publishes it, and the box with it.
        sharedBox.store(UnsafeRawPointer(Unmanaged.passRetained(box).toOpaque()), ordering: .relaxed)
    }

    /// A copy for one scope, sharing the factories and the hooks.
    private init(scopeLocalCopyOf original: Definition<T>, key: DefinitionKey) {
        self.factory = original.factory
        self.extras = original.extras
        super.init(kind: .scopeLocal, key: key, argumentTypes: original.argumentTypes, isAsync: original.isAsync)
        if let hooks = original.hooks.load(ordering: .acquiring) {
            self.hooks.store(UnsafeRawPointer(Unmanaged<Hooks<T>>.fromOpaque(hooks).retain().toOpaque()), ordering: .releasing)
        }
    }

    // Its extras: every `.scoped` registration has them, and its copies share them.
    override var copiesIdentity: UnsafeRawPointer {
        UnsafeRawPointer(Unmanaged.passUnretained(extras.unsafelyUnwrapped).toOpaque())
    }

    override func scopeLocalCopy(key: DefinitionKey) -> AnyDefinition {
        // A copy a freed scope gave back, if one waits (see
        // `ScopeLocalPool`). Only for a copy under the registration's own
        // key: one under a key of its own (`ScopeLocalCopy`) is never
        // given back, as a pooled copy keeps the key it was made with.
        // By signature alone: a key of its own has one no registration has.
        if key.signature == self.key.signature, let reused = extras?.pool.take() {
            // Consumed, not copied: a copy was a retain and a release more.
            let copy = unsafeDowncast(consume reused, to: Definition<T>.self)
            copy.takeHooks(of: self)
            return copy
        }
        return Definition(scopeLocalCopyOf: self, key: key)
    }

    /// Gives up the hooks this copy holds for those `source` has now:
    /// `onResolved` or `onDispose` may have been called since the copy was
    /// made. Only on a copy that nothing else references yet.
    private func takeHooks(of source: Definition<T>) {
        let current = source.hooks.load(ordering: .acquiring)
        let held = hooks.load(ordering: .relaxed)
        guard current != held else { return }
        if let current {
            _ = Unmanaged<Hooks<T>>.fromOpaque(current).retain()
        }
        hooks.store(current, ordering: .releasing)
        if let held {
            Unmanaged<Hooks<T>>.fromOpaque(held).release()
        }
    }

    override func recycle(_ owned: Unmanaged<AnyDefinition>) -> Bool {
        if kind == .scopeLocal {
            // Only copies under their registration's key (see `scopeLocalCopy`).
            guard extras != nil, key.signature != ScopeLocalCopy.identity, key.signature != copiesIdentity else {
                return false
            }
            // The state a new copy starts in: no instance. Its claim is free
            // (no resolve is running), and its hooks are brought up to date
            // when it is taken.
            giveBoxToSpares()
            // Through the stored `let`, not a binding of it: a binding was
            // a retain and a release more.
            return extras.unsafelyUnwrapped.pool.give(owned)
        }
        // Only a registration of a given instance with nothing but its
        // instance: a spare is handed out in the state `init(key:instance:)`
        // makes, but for the instance and the name (see `holding`).
        guard kind == .shared, keepsInstance, hooks.load(ordering: .relaxed) == nil else {
            return false
        }
        giveBoxToSpares()
        return SpareObjects.keep(definition: owned)
    }

    /// Takes the instance's box, if any, and gives it to the thread's
    /// spares (see `SpareObjects`), which empty it. Only on a registration
    /// of a freed scope.
    private func giveBoxToSpares() {
        if let box = sharedBox.exchange(nil, ordering: .acquiring) {
            var held: InstanceBox? = Unmanaged<InstanceBox>.fromOpaque(box).takeRetainedValue()
            SpareObjects.keep(box: &held)
        }
    }

    /// A registration of `instance` under `key`
    /// (`Container.register(type:name:instance:)`): a spare that a freed
    /// scope left on this thread (see `SpareObjects`), if it has one for `T`
    /// under the same name, or a new one. Inlined: `Definition<T>`'s
    /// metadata, which picks the spare, is a runtime lookup in
    /// unspecialised code.
    @inlinable
    static func holding(_ instance: consuming T, key: DefinitionKey) -> Definition<T> {
        if let spare = takeSpare(of: Definition<T>.self) {
            // The slot's class is `Definition<T>`. Consumed, not copied: a
            // copy was a retain and a release more.
            let definition = unsafeDowncast(consume spare, to: Definition<T>.self)
            if definition.hasName(of: key) {
                definition.refill(with: instance)
                return definition
            }
            // Given back, for the name it has.
            keepSpare(definition)
        }
        return Definition(key: key, instance: instance)
    }

    /// Whether this spare was registered under `key`'s name: its type and
    /// signature are the class's and `instance:`'s.
    @usableFromInline
    func hasName(of key: DefinitionKey) -> Bool {
        self.key.name == key.name
    }

    /// Gives this spare `instance`, moved into a box. Only the caller
    /// references it.
    @usableFromInline
    func refill(with instance: consuming T) {
        // Relaxed: installing the definition publishes it, and the box with it.
        sharedBox.store(UnsafeRawPointer(Unmanaged.passRetained(Self.box(for: instance)).toOpaque()), ordering: .relaxed)
    }

    override var serviceType: Any.Type { T.self }

    /// The `.weak` state; nil for the other kinds.
    var weakBox: WeakInstanceBox<T>? { extras?.weak }

    deinit {
        if kind == .scoped {
            // The copies kept for later scopes hold `extras`, which holds
            // them: they go now (see `ScopeLocalPool`).
            extras?.pool.close()
        }
        if let box = sharedBox.load(ordering: .acquiring) {
            Unmanaged<InstanceBox>.fromOpaque(box).release()
        }
        if let hooks = hooks.load(ordering: .acquiring) {
            Unmanaged<Hooks<T>>.fromOpaque(hooks).release()
        }
    }

    /// The `.shared` instance if it was created; always nil for the other
    /// kinds, so callers need not check `kind`. Lock-free: one acquire load.
    @inlinable
    @inline(__always)
    func sharedInstance() -> T? {
        guard let box = sharedBox.load(ordering: .acquiring) else {
            return nil
        }
        return Unmanaged<InstanceBox>.fromOpaque(box)._withUnsafeGuaranteedRef { $0.value(as: T.self) }
    }

    /// Publishes a new `.shared` instance and returns its box, or nil if an
    /// instance was published meanwhile: possible only for a registration
    /// with both a synchronous and an async factory (a main-actor one), whose
    /// creators claim through `InstanceCreation` and `AsyncClaims` and so do
    /// not exclude each other. The first published wins. Call with the
    /// definition claimed.
    @usableFromInline
    func publishShared(_ value: T) -> UnsafeRawPointer? {
        publish(Self.box(for: value))
    }

    /// `publishShared`, returning the box itself: a reference of the
    /// caller's own, valid even if the instance is dropped and its box
    /// retired meanwhile (the async engine holds no read-side section).
    func publishSharedBox(_ value: T) -> InstanceBox? {
        let made = Self.box(for: value)
        return publish(made) == nil ? nil : made
    }

    /// A box for a `.shared`, scope-local or given instance: a spare that a
    /// freed scope left on this thread (see `SpareObjects`), or a new one.
    private static func box(for value: consuming T) -> InstanceBox {
        // Every box gets its place in the order: whether the instance
        // conforms to `Disposable` is asked only when its owner closes.
        if let spare = SpareObjects.takeBox(for: T.self) {
            spare.refill(consume value, order: CreationOrder.next())
            return spare
        }
        return InstanceBox.make(consume value, order: CreationOrder.next())
    }

    /// Publishes `made` (with a reference of its own), unless an instance
    /// was published meanwhile: then nil.
    private func publish(_ made: consuming InstanceBox) -> UnsafeRawPointer? {
        let retained = Unmanaged.passRetained(made)
        // Given up at once, so that the retain and this release cancel out.
        _ = consume made
        let box = UnsafeRawPointer(retained.toOpaque())
        // Release: the box's `value` is visible to every acquire load that
        // sees the pointer. Sequentially consistent, against `close()`: the
        // creator reads its owner's closed flag after this store, and
        // `close()` sets the flag before it takes the boxes, so one of the
        // two always sees the other (see `Container.publishOrAbandon`).
        guard sharedBox.compareExchange(expected: nil, desired: box, ordering: .sequentiallyConsistent).exchanged else {
            retained.release()   // never published: no reader can have it
            return nil
        }
        return box
    }

    /// `loadHooks()` for the async engine, which holds no read-side section
    /// of its own: a replaced hooks object is retired, and must not be
    /// freed between the load and the retain.
    @inlinable
    func hooksInSection() -> Hooks<T>? {
        // Nearly every registration has none: the pointer alone says so,
        // and reading it (not what it points to) needs no section. Inlined
        // for that check: a call per async creation otherwise.
        guard hooks.load(ordering: .acquiring) != nil else {
            return nil
        }
        return loadHooksInSection()
    }

    /// `hooksInSection` once the registration has hooks.
    @usableFromInline
    func loadHooksInSection() -> Hooks<T>? {
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        return loadHooks()
    }

    /// Takes back the instance in `box` if it is still the published one
    /// (`releaseSharedInstances` may have dropped it since). Returns the box
    /// to retire: readers may still be reading it.
    @usableFromInline
    func retractShared(_ box: UnsafeRawPointer) -> InstanceBox? {
        guard sharedBox.compareExchange(expected: box, desired: nil, ordering: .acquiringAndReleasing).exchanged else {
            return nil
        }
        return Unmanaged<InstanceBox>.fromOpaque(box).takeRetainedValue()
    }

    /// Whether this registration was replaced or removed (see `retiredFlag`).
    /// Read after finding no `.shared` instance: the flag is set before the
    /// instance is taken, so a resolve that saw it taken sees the flag.
    var isRetired: Bool {
        retiredFlag.load(ordering: .acquiring)
    }

    override func takeSharedInstance(keepingGiven: Bool) -> AnyObject? {
        forgetAliasCache()
        return keepingGiven && keepsInstance ? nil : takeSharedBox()
    }

    override func takeSharedInstanceForClosing(keeping kept: inout KeptBoxes) -> PendingDisposal? {
        forgetAliasCache()
        guard let box = takeSharedBox() else {
            return nil
        }
        guard hasDisposers || DisposableConformance.mayConform(boxed: box, as: T.self) else {
            // Nothing to dispose it: no entry, no disposers to bind, and no
            // array to hold them (the common case: a request's scope often
            // has nothing at all to dispose).
            kept.keep(consume box)
            return nil
        }
        return PendingDisposal(order: box.order, of: self, boxed: box)
    }

    /// Drops an alias's converted instance, which goes with its target's:
    /// both are released or closed together, as the alias is held with its
    /// target. The kind first: a request's scope closes registrations that
    /// are never aliases, and the extras are a load more.
    @inline(__always)
    private func forgetAliasCache() {
        if kind == .forward {
            extras?.aliasCache?.forget()
        }
    }

    /// The `.shared` box, typed: no cast back from `AnyObject` (a dynamic
    /// cast a scope's `close()` would pay per instance).
    private func takeSharedBox() -> InstanceBox? {
        guard let box = sharedBox.exchange(nil, ordering: .sequentiallyConsistent) else {
            return nil
        }
        return Unmanaged<InstanceBox>.fromOpaque(box).takeRetainedValue()
    }

    override var hasDisposers: Bool {
        // The raw pointer first: a definition without hooks (nearly all)
        // then needs no metadata for `Hooks<T>`, which unspecialised code,
        // such as a `.shared` instance's creation, would instantiate per type.
        guard hooks.load(ordering: .acquiring) != nil, let hooks = loadHooks() else {
            return false
        }
        return hooks.hasDisposers
    }

    override func destroyGraphInstance(at value: UnsafeMutableRawPointer) {
        if GraphInstances.fitsInline(T.self) {
            value.assumingMemoryBound(to: T.self).deinitialize(count: 1)
        } else {
            Unmanaged<InstanceBox>.fromOpaque(value.load(as: UnsafeRawPointer.self)).release()
        }
    }

    override func resolveForValidation(from asked: Container, holder: Container, arguments: UnsafeRawPointer) throws(ResolutionError) {
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        _ = try asked.produce(Located(self, in: holder), as: T.self, arguments: arguments)
    }

    nonisolated(nonsending) override func resolveForValidationAsync(from asked: Container, holder: Container, arguments: UnsafeRawPointer) async throws(ResolutionError) {
        _ = try await Container.produceAsync(self, in: .passUnretained(asked), holder: .passUnretained(holder), arguments: arguments, parent: nil)
    }

    override func sharedInstanceConforms<U>(to type: U.Type) -> Bool {
        sharedInstance().map { $0 is U } ?? false
    }

    /// The callbacks registered with `onResolved`, or nil.
    @inlinable
    func loadHooks() -> Hooks<T>? {
        guard let hooks = hooks.load(ordering: .acquiring) else {
            return nil
        }
        return Unmanaged<Hooks<T>>.fromOpaque(hooks).takeUnretainedValue()
    }

    /// Adds a callback; returns the replaced hooks for the container to retire.
    /// Call through `Container.addHook(_:to:)`, under its writer lock.
    func addHook(_ hook: @escaping Hooks<T>.Callback) -> AnyObject? {
        let previous = loadHooks()
        return replaceHooks(with: Hooks<T>(callbacks: (previous?.callbacks ?? []) + [hook], disposers: previous?.disposers ?? []))
    }

    /// Adds a disposer; returns the replaced hooks for the container to retire.
    /// Call through `Container.addDisposer(_:to:)`, under its writer lock.
    func addDisposer(_ disposer: Disposer<T>) -> AnyObject? {
        let previous = loadHooks()
        return replaceHooks(with: Hooks<T>(callbacks: previous?.callbacks ?? [], disposers: (previous?.disposers ?? []) + [disposer.binder]))
    }

    private func replaceHooks(with next: Hooks<T>) -> AnyObject? {
        let old = hooks.exchange(UnsafeRawPointer(Unmanaged.passRetained(next).toOpaque()), ordering: .acquiringAndReleasing)
        return old.map { Unmanaged<Hooks<T>>.fromOpaque($0).takeRetainedValue() }
    }
}

/// What few registrations need: a `.weak` one its box, an async one its factory.
@usableFromInline
final class DefinitionExtras<T>: Sendable {
    let weak: WeakInstanceBox<T>?
    @usableFromInline
    let asyncFactory: Definition<T>.AsyncFactory?
    /// For a `.scoped` registration, the scope-local copies freed scopes
    /// gave back; shared with the copies, like the rest.
    let pool = ScopeLocalPool()
    /// Whether the factories are isolated to the main actor (see
    /// `Container.register(type:name:in:isolatedTo:factory:)`).
    let isolatedToMainActor: Bool

    /// An alias's cache of its converted instance (see `AliasCache`).
    let aliasCache: AliasCache?

    @usableFromInline
    init(kind: AnyDefinition.Kind, asyncFactory: consuming Definition<T>.AsyncFactory?, isolatedToMainActor: Bool = false,
         aliasCache: AliasCache? = nil) {
        self.weak = kind == .weak ? WeakInstanceBox<T>() : nil
        self.asyncFactory = asyncFactory
        self.isolatedToMainActor = isolatedToMainActor
        self.aliasCache = aliasCache
    }

    /// Calls the async factory (there must be one) with `resolver` and, if
    /// it takes them, the arguments at `arguments`. Returns what it returns
    /// as it is: in unspecialised code, each value of type `T` kept would
    /// take memory from the task's allocator.
    @inlinable
    @inline(__always)
    nonisolated(nonsending) func callAsyncFactory(_ resolver: Resolver, arguments: UnsafeRawPointer) async throws -> T {
        switch asyncFactory {
        case .onCallersExecutor(let factory)?:
            return try await factory(resolver)
        case .plain(let factory)?:
            return try await factory(resolver)
        case .withArguments(let factory)?:
            return try await factory(resolver, ArgumentTuple(arguments))
        case .withArgumentsOnCallersExecutor(let factory)?:
            return try await factory(resolver, ArgumentTuple(arguments))
        case nil:
            preconditionFailure("Syringe: an async registration without an async factory")
        }
    }
}

/// Where an async factory's runtime arguments are: the tuple a resolve
/// passes, valid until it returns.
///
/// `@unchecked Sendable`: the tuple is the resolve's own copy, read only by
/// the one factory call it is handed to, as a synchronous factory reads its
/// arguments.
@usableFromInline
struct ArgumentTuple: @unchecked Sendable {
    @usableFromInline
    let pointer: UnsafeRawPointer

    @inlinable
    init(_ pointer: UnsafeRawPointer) {
        self.pointer = pointer
    }
}

/// What the factory of a given instance throws (see
/// `Definition.init(key:instance:)`): a resolve reports its registration
/// closed.
@usableFromInline
struct InstanceClosed: Error {
    @inlinable
    init() {}
}

/// What the synchronous factory of an async registration throws (see
/// `ResolutionContext.failure`); `mainActor` when the registration's factory
/// is isolated to the main actor and the resolve ran elsewhere.
struct AsyncOnly: Error {
    var mainActor = false
}

/// The `onResolved` callbacks and the disposers of one definition, kept in
/// one object so that a registration without either pays one word for both.
/// Immutable; replaced as a whole.
@usableFromInline
final class Hooks<T>: @unchecked Sendable {
    @usableFromInline
    typealias Callback = @Sendable (Resolver, T) throws -> Void

    @usableFromInline
    let callbacks: [Callback]
    /// Run in this order when the instance's owner closes. Kept as
    /// binders, whose type does not mention `T`: binding them to an
    /// instance happens in unspecialised code, once per instance (per
    /// request, for a scope's), where iterating an `Array<Disposer<T>>`
    /// asked the runtime for its element's metadata each time.
    let disposers: [PendingDisposal.Binder]
    /// Whether `callbacks` and `disposers` have any: plain flags, because
    /// unspecialised code (every async resolve, a scope's) that asks an
    /// `Array<Callback>` or `Array<Disposer<T>>` whether it is empty first
    /// asks the runtime for its metadata, several hundred instructions, for
    /// each instance with hooks.
    @usableFromInline
    let hasCallbacks: Bool
    @usableFromInline
    let hasDisposers: Bool

    init(callbacks: [Callback], disposers: [PendingDisposal.Binder]) {
        self.callbacks = callbacks
        self.disposers = disposers
        self.hasCallbacks = !callbacks.isEmpty
        self.hasDisposers = !disposers.isEmpty
    }
}
