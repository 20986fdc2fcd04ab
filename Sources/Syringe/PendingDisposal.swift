import Synchronization

/// An instance waiting for its owner's `close()`, with its disposers bound
/// to it.
///
/// `@unchecked Sendable`: the instance need not be `Sendable`, but it is
/// handed from the thread that created it to the one that closes its owner
/// exactly once, through the owner's writer lock (or, for `abandon()`, a
/// task that nothing else touches), and its disposers run one at a time.
struct PendingDisposal: @unchecked Sendable {
    /// When the instance was created (`CreationOrder`): `close()` disposes
    /// the highest first.
    let order: UInt64
    /// The registration, for the `DisposalError` text.
    let definition: AnyDefinition
    /// The instance's disposers, each bound to the instance: its
    /// `Disposable` or `AsyncDisposable` conformance (asked here, when the
    /// owner closes, not on every creation, and remembered per type:
    /// `DisposableConformance`), then the registration's
    /// `onDispose` closures in the order they were added. Empty for an
    /// instance without any: it is only retired.
    var disposers: Steps { Steps(first: firstDisposer, rest: moreDisposers) }
    /// The first of `disposers`, kept apart from the others: most instances
    /// have exactly one (a conformance or one `onDispose`), and an array
    /// for it was an allocation per instance disposed.
    private let firstDisposer: Step?
    private let moreDisposers: [Step]
    /// The `.shared` box the instance was taken from, retired after disposal:
    /// a resolve that began before the close may still be reading it.
    let retiring: InstanceBox?

    /// One disposer, bound to its instance: a closure that holds a copy of
    /// it, or one that takes its address in the box `retiring` (which keeps
    /// it there until the entry is dropped). Synchronous ones stay so, for
    /// a synchronous `validate()`, which cannot await.
    enum Step {
        case sync(() throws -> Void)
        case async(() async throws -> Void)
        case syncInPlace(@Sendable (UnsafeRawPointer) throws -> Void, UnsafeRawPointer)
        case asyncInPlace(@Sendable (UnsafeRawPointer) async throws -> Void, UnsafeRawPointer)

        var isSynchronous: Bool {
            switch self {
            case .sync, .syncInPlace: true
            case .async, .asyncInPlace: false
            }
        }

        /// Runs the disposer if it is synchronous; skips it if it is not.
        func runIfSynchronous() throws {
            switch self {
            case .sync(let body): try body()
            case .syncInPlace(let body, let address): try body(address)
            case .async, .asyncInPlace: break
            }
        }

        func run() async throws {
            switch self {
            case .sync(let body): try body()
            case .async(let body): try await body()
            case .syncInPlace(let body, let address): try body(address)
            case .asyncInPlace(let body, let address): try await body(address)
            }
        }
    }

    /// An instance's disposers in order: the first, then the rest.
    struct Steps: Sequence {
        let first: Step?
        let rest: [Step]

        var isEmpty: Bool { first == nil }

        func makeIterator() -> Iterator {
            Iterator(first: first, rest: rest.makeIterator())
        }

        struct Iterator: IteratorProtocol {
            var first: Step?
            var rest: IndexingIterator<[Step]>

            mutating func next() -> Step? {
                if let step = first {
                    first = nil
                    return step
                }
                return rest.next()
            }
        }
    }

    /// One of a registration's disposers, not yet bound: given the address
    /// of an instance (a `T`, for a `Definition<T>`'s) and whether it stays
    /// there until disposed, the disposer bound to it (to a copy of it when
    /// it does not stay). See `Hooks.disposers`.
    typealias Binder = @Sendable (UnsafeRawPointer, _ stays: Bool) -> Step

    /// `retiring`, if any, is the box that holds `instance`: it keeps it
    /// there, where in-place disposers find it, until the entry is dropped.
    init<T>(order: UInt64, of definition: Definition<T>, instance: T, retiring: InstanceBox?) {
        self.order = order
        self.definition = definition
        var first = DisposableConformance.disposer(for: instance, boxedIn: retiring)
        var more: [Step] = []
        if let hooks = definition.loadHooks(), hooks.hasDisposers {
            if let retiring {
                Self.bind(hooks.disposers, to: UnsafeRawPointer(retiring.instance(as: T.self)), stays: true, first: &first, more: &more)
            } else {
                withUnsafePointer(to: instance) { address in
                    Self.bind(hooks.disposers, to: UnsafeRawPointer(address), stays: false, first: &first, more: &more)
                }
            }
        }
        self.firstDisposer = first
        self.moreDisposers = more
        self.retiring = retiring
    }

    /// Binds each of `binders` to the instance at `address`, in order, into
    /// `first` if it is still empty, then `more`.
    private static func bind(_ binders: [Binder], to address: UnsafeRawPointer, stays: Bool, first: inout Step?, more: inout [Step]) {
        for bind in binders {
            let step = bind(address, stays)
            if first == nil {
                first = step
            } else {
                more.append(step)
            }
        }
    }

    /// This entry once its disposers have run: only the box to keep. The
    /// disposers go, and with them the references they hold to the instance.
    var disposed: PendingDisposal {
        PendingDisposal(order: order, definition: definition, retiring: retiring)
    }

    private init(order: UInt64, definition: AnyDefinition, retiring: InstanceBox?) {
        self.order = order
        self.definition = definition
        self.firstDisposer = nil
        self.moreDisposers = []
        self.retiring = retiring
    }

    /// Whether every disposer is synchronous.
    var isSynchronous: Bool {
        disposers.allSatisfy(\.isSynchronous)
    }

    /// Runs every disposer, each even if an earlier one threw; returns what
    /// they threw.
    func dispose() async -> [DisposalError.Failure] {
        var failures: [DisposalError.Failure] = []
        for disposer in disposers {
            do {
                try await disposer.run()
            } catch {
                failures.append(DisposalError.Failure(service: definition.stepText, error: error))
            }
        }
        return failures
    }

    /// `dispose()` for an instance whose disposers are all synchronous.
    func disposeSynchronously() -> [DisposalError.Failure] {
        var failures: [DisposalError.Failure] = []
        for disposer in disposers {
            do {
                try disposer.runIfSynchronous()
            } catch {
                failures.append(DisposalError.Failure(service: definition.stepText, error: error))
            }
        }
        return failures
    }

    /// Disposes an instance that a resolve created while its owner was being
    /// closed, and that was never handed out. Nobody is waiting for the
    /// outcome (the resolve has failed with `.closed`, and `close()` may have
    /// returned), so what a disposer throws here is dropped.
    func abandon() {
        Task {
            _ = await dispose()
            if let retiring {
                Reclamation.retire(retiring)
            }
        }
    }
}

/// Instances handed, in order, to the one task that disposes them.
///
/// `@unchecked Sendable` for the reason `PendingDisposal` is: nothing else
/// touches them once they are taken from their owner.
struct PendingDisposals: @unchecked Sendable {
    let items: [PendingDisposal]
}

/// The order in which instances with disposers were created, across all
/// containers: a scope disposes its own `.scoped` instances and the `.new`
/// ones it tracked in one sequence, newest first.
@usableFromInline
enum CreationOrder {
    private static let counter = Atomic<UInt64>(0)

    @usableFromInline
    static func next() -> UInt64 {
        counter.wrappingAdd(1, ordering: .relaxed).newValue
    }
}
