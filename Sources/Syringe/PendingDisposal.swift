import CSyringeTable
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
    private var firstDisposer: Step?
    private var moreDisposers: [Step]
    /// The `.shared` box the instance was taken from, retired after disposal:
    /// a resolve that began before the close may still be reading it.
    let retiring: InstanceBox?

    /// One disposer, bound to its instance: a closure that holds a copy of
    /// it, or one that takes its address in the box `retiring` (which keeps
    /// it there until the entry is dropped). Synchronous ones stay so, for
    /// a synchronous `validate()`, which cannot await.
    enum Step {
        case sync(() throws -> Void)
        case async(AsyncBody)
        case syncInPlace(@Sendable (UnsafeRawPointer) throws -> Void, UnsafeRawPointer)
        case asyncInPlace(AsyncInPlaceBody, UnsafeRawPointer)

        /// Syringe's wrappers around what disposes: they run on the
        /// caller's executor (see `run()`).
        typealias AsyncBody = nonisolated(nonsending) () async throws -> Void
        typealias AsyncInPlaceBody = nonisolated(nonsending) @Sendable (UnsafeRawPointer) async throws -> Void

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

        /// On the caller's executor: a step is Syringe's own wrapper, and
        /// what it wraps (an `onDispose` closure, a `dispose()` method)
        /// switches to where it runs itself. Running the wrapper elsewhere
        /// first was an executor switch more per instance disposed.
        ///
        /// Except in a cancelled task: an async disposer must run whole (a
        /// transaction's rollback), and awaited work checks cancellation
        /// (a database driver's query throws `CancellationError` before it
        /// starts), so there it runs in a task of its own, which the
        /// cancellation does not reach, awaited here. A disposer already
        /// running when its task is cancelled sees the cancellation: Swift
        /// 6.3 has no way to shield a running task from it.
        nonisolated(nonsending) func run() async throws {
            switch self {
            case .sync(let body): try body()
            case .async(let body):
                if Task.isCancelled {
                    try await Self.shielded(body)
                } else {
                    try await body()
                }
            case .syncInPlace(let body, let address): try body(address)
            case .asyncInPlace(let body, let address):
                if Task.isCancelled {
                    try await Self.shielded { try await body(address) }
                } else {
                    try await body(address)
                }
            }
        }

        /// Runs `body` in an unstructured task, which does not inherit the
        /// caller's cancellation (it does its task-local values and
        /// priority), and waits for it.
        @inline(never)
        nonisolated(nonsending) private static func shielded(_ body: @escaping AsyncBody) async throws {
            // @unchecked: the step runs once, and this task is its only
            // user until it ends (see `PendingDisposal`).
            let step = UncheckedSendable(body)
            try await Task { try await step.value() }.value
        }
    }

    /// An instance's disposers in order: the first, then the rest.
    struct Steps: Sequence {
        let first: Step?
        let rest: [Step]

        var isEmpty: Bool { first == nil }

        /// Runs every step, each even if an earlier one threw; appends what
        /// they threw to `errors`.
        nonisolated(nonsending) func run(collecting errors: inout [any Error]) async {
            guard let first else { return }
            do {
                try await first.run()
            } catch {
                errors.append(error)
            }
            // Only when there are more: iterating an empty array is still
            // a retain, a release and an iterator.
            guard !rest.isEmpty else { return }
            for step in rest {
                do {
                    try await step.run()
                } catch {
                    errors.append(error)
                }
            }
        }

        /// `run(collecting:)` for steps that are all synchronous.
        func runSynchronously(collecting errors: inout [any Error]) {
            for step in self {
                do {
                    try step.runIfSynchronous()
                } catch {
                    errors.append(error)
                }
            }
        }

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

    /// A `.shared` or scope-local instance, taken from its registration
    /// with its box, which keeps it where its in-place disposers find it
    /// until the entry is dropped.
    ///
    /// The box is consumed and the instance not copied: the conformance is
    /// asked of the box, and the disposers are bound to the address. Given
    /// the instance and the box, each entry cost a scope's close a retain
    /// and a release of both.
    init<T>(order: UInt64, of definition: Definition<T>, boxed box: consuming InstanceBox) {
        self.order = order
        self.definition = definition
        var first = DisposableConformance.disposer(boxedIn: box, as: T.self)
        var more: [Step] = []
        Self.bindDisposers(of: definition, to: UnsafeRawPointer(box.instance(as: T.self)), stays: true, first: &first, more: &more)
        self.firstDisposer = first
        self.moreDisposers = more
        self.retiring = consume box
    }

    /// A `.new` or `.graph` instance, which has no box: its disposers hold
    /// copies of it.
    init<T>(order: UInt64, of definition: Definition<T>, instance: T) {
        self.order = order
        self.definition = definition
        var first = DisposableConformance.disposer(for: instance)
        var more: [Step] = []
        withUnsafePointer(to: instance) { address in
            Self.bindDisposers(of: definition, to: UnsafeRawPointer(address), stays: false, first: &first, more: &more)
        }
        self.firstDisposer = first
        self.moreDisposers = more
        self.retiring = nil
    }

    /// Binds `definition`'s `onDispose` closures, if it has any, to the
    /// instance at `address`. Its hooks are used where they are, not
    /// retained (a retain and a release per instance disposed), inside a
    /// read-side section: hooks that an `onDispose` added meanwhile
    /// replaced are retired, not freed, until it ends. (Nested in the
    /// resolve's own when an instance is abandoned; the async engine and a
    /// close hold none.)
    private static func bindDisposers<T>(of definition: Definition<T>, to address: UnsafeRawPointer, stays: Bool, first: inout Step?, more: inout [Step]) {
        // The raw pointer first: most registrations have no hooks, and
        // reading it needs no section.
        guard definition.hooks.load(ordering: .acquiring) != nil else {
            return
        }
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        guard let hooks = definition.hooks.load(ordering: .acquiring) else {
            return
        }
        Unmanaged<Hooks<T>>.fromOpaque(hooks)._withUnsafeGuaranteedRef { hooks in
            guard hooks.hasDisposers else { return }
            bind(hooks.disposers, to: address, stays: stays, first: &first, more: &more)
        }
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

    /// Takes the disposers out of this entry, which keeps only its box: the
    /// references the disposers hold to the instance go with them once
    /// they have run. In place, so that neither the entry nor its steps
    /// are copied (each copy retained the registration, the steps and the
    /// box, and released them again).
    mutating func takeDisposers() -> Steps {
        var rest: [Step] = []
        if !moreDisposers.isEmpty {
            swap(&rest, &moreDisposers)
        }
        return Steps(first: firstDisposer.take(), rest: rest)
    }

    /// Whether every disposer is synchronous.
    var isSynchronous: Bool {
        disposers.allSatisfy(\.isSynchronous)
    }

    /// What `errors`, thrown by this entry's disposers, are reported as.
    func failures(_ errors: [any Error]) -> [DisposalError.Failure] {
        let service = definition.stepText
        return errors.map { DisposalError.Failure(service: service, error: $0) }
    }

    /// Runs every disposer, each even if an earlier one threw; returns what
    /// they threw.
    func dispose() async -> [DisposalError.Failure] {
        var errors: [any Error] = []
        await disposers.run(collecting: &errors)
        return errors.isEmpty ? [] : failures(errors)
    }

    /// Disposes an instance that a resolve created while its owner was being
    /// closed, and that was never handed out. Nobody is waiting for the
    /// outcome (the resolve has failed with `.closed`, and `close()` may have
    /// returned), so what a disposer throws here is dropped.
    func abandon() {
        Task {
            _ = await dispose()
            if let retiring {
                Reclamation.retireAndPoll(retiring)
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
