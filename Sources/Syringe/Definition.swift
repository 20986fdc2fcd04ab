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
    /// `Registration.implements(_:name:)`: it resolves its target definition.
    @usableFromInline
    enum Kind: UInt8, Sendable {
        case new, shared, graph, weak, forward
    }

    // Stored fields are ordered and sized to keep a registration small
    // (the M row of the benchmarks).

    @usableFromInline
    let kind: Kind
    /// See `index`. 32 bits: fits beside `kind` in one word.
    @usableFromInline
    let index32: UInt32
    /// A retained `InstanceBox<T>` once a `.shared` instance exists; nil for
    /// every other kind. Near the start so that a resolve of an existing
    /// instance reads one cache line of the definition, not two.
    @usableFromInline
    let sharedBox = Atomic<UnsafeRawPointer?>(nil)
    let key: DefinitionKey
    /// See `graphIndex`.
    @usableFromInline
    let graphIndex32: Int32
    /// Position in the owner's registration order. Guarded by the owner's writer lock.
    private var order32: UInt32 = 0

    /// This definition's counter in each thread's cycle check
    /// (`ResolutionContext.enterNested`).
    @inlinable
    var index: Int { Int(index32) }

    /// The slot of this definition's instances in each thread's
    /// `GraphInstances`; -1 unless `kind` is `.graph`.
    @inlinable
    var graphIndex: Int { Int(graphIndex32) }

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
        takesArguments ? SignatureTypes.shared.types(of: key.signature) : []
    }

    /// The type resolves ask for (`T` of `Definition<T>`).
    var serviceType: Any.Type {
        preconditionFailure("Syringe: every definition is a Definition<T>")
    }

    /// `argumentTypes` are those of `key.signature`: recorded once per
    /// signature, not kept here.
    init(kind: Kind, key: DefinitionKey, argumentTypes: [Any.Type]) {
        self.kind = kind
        self.key = key
        if !argumentTypes.isEmpty {
            SignatureTypes.shared.record(argumentTypes, for: key.signature)
        }
        // Dense indices count definitions alive at once: far below 2³¹.
        self.index32 = UInt32(DenseIndices.definitions.take())
        self.graphIndex32 = kind == .graph ? Int32(DenseIndices.graphs.take()) : -1
    }

    deinit {
        DenseIndices.definitions.giveBack(index)
        if graphIndex >= 0 {
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
    func takeSharedInstance() -> AnyObject? { nil }

    /// Whether the created shared instance (if any) can be used as `U`; for diagnostics.
    func sharedInstanceConforms<U>(to type: U.Type) -> Bool { false }
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
    /// of the enum retains and releases its context on every resolve.)
    @usableFromInline
    typealias Factory = @Sendable (Resolver, UnsafeRawPointer) throws -> T

    /// A retained `Hooks<T>` once `onResolved` was called.
    @usableFromInline
    let hooks = Atomic<UnsafeRawPointer?>(nil)
    /// The `.weak` state; nil for the other kinds.
    @usableFromInline
    let weakBox: WeakInstanceBox<T>?
    @usableFromInline
    let factory: Factory

    @usableFromInline
    init(kind: Kind, key: DefinitionKey, argumentTypes: [Any.Type], factory: @escaping Factory) {
        self.factory = factory
        self.weakBox = kind == .weak ? WeakInstanceBox<T>() : nil
        super.init(kind: kind, key: key, argumentTypes: argumentTypes)
    }

    override var serviceType: Any.Type { T.self }


    deinit {
        if let box = sharedBox.load(ordering: .acquiring) {
            Unmanaged<InstanceBox<T>>.fromOpaque(box).release()
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
        return Unmanaged<InstanceBox<T>>.fromOpaque(box)._withUnsafeGuaranteedRef { $0.value }
    }

    /// Publishes a new `.shared` instance and returns its box. Call with the
    /// definition claimed (see `InstanceCreation`).
    @usableFromInline
    func publishShared(_ value: T) -> UnsafeRawPointer {
        let box = UnsafeRawPointer(Unmanaged.passRetained(InstanceBox(value)).toOpaque())
        // Release: the box's `value` is visible to every acquire load that sees the pointer.
        sharedBox.store(box, ordering: .releasing)
        return box
    }

    /// Takes back the instance in `box` if it is still the published one
    /// (`releaseSharedInstances` may have dropped it since). Returns the box
    /// to retire: readers may still be reading it.
    @usableFromInline
    func retractShared(_ box: UnsafeRawPointer) -> AnyObject? {
        guard sharedBox.compareExchange(expected: box, desired: nil, ordering: .acquiringAndReleasing).exchanged else {
            return nil
        }
        return Unmanaged<InstanceBox<T>>.fromOpaque(box).takeRetainedValue()
    }

    override func takeSharedInstance() -> AnyObject? {
        guard let box = sharedBox.exchange(nil, ordering: .acquiringAndReleasing) else {
            return nil
        }
        return Unmanaged<InstanceBox<T>>.fromOpaque(box).takeRetainedValue()
    }

    override func destroyGraphInstance(at value: UnsafeMutableRawPointer) {
        if GraphInstances.fitsInline(T.self) {
            value.assumingMemoryBound(to: T.self).deinitialize(count: 1)
        } else {
            Unmanaged<InstanceBox<T>>.fromOpaque(value.load(as: UnsafeRawPointer.self)).release()
        }
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
        let next = Hooks<T>(callbacks: (previous?.callbacks ?? []) + [hook])
        let old = hooks.exchange(UnsafeRawPointer(Unmanaged.passRetained(next).toOpaque()), ordering: .acquiringAndReleasing)
        return old.map { Unmanaged<Hooks<T>>.fromOpaque($0).takeRetainedValue() }
    }
}

/// The `onResolved` callbacks of one definition. Immutable; replaced as a whole.
@usableFromInline
final class Hooks<T>: @unchecked Sendable {
    @usableFromInline
    typealias Callback = @Sendable (Resolver, T) throws -> Void

    @usableFromInline
    let callbacks: [Callback]

    init(callbacks: [Callback]) {
        self.callbacks = callbacks
    }
}
