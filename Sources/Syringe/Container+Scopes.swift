import CSyringeTable
import Synchronization

/// Request scopes: `.scoped` instances, one per scope, and disposal.
///
/// A scope is a child container made by `makeScope()`. A `.scoped`
/// registration, wherever it is registered, gets one instance per scope: the
/// first resolve in a scope installs a *scope-local* copy of the registration
/// in that scope's own table (`AnyDefinition.Kind.scopeLocal`), which holds
/// the instance exactly as a `.shared` registration holds its own. Every
/// later resolve in the scope finds the copy first and takes the `.shared`
/// fast path, and the scope's `close()` disposes it with the scope's other
/// instances. Making a scope copies nothing: the copies are made on demand,
/// one per `.scoped` registration the scope resolves, and a freed scope
/// gives its copies back for later scopes to reuse (`ScopeLocalPool`).
///
/// Who disposes what, newest instance first:
/// - a container's `close()`: the `.shared` instances it holds;
/// - a scope's `close()`: its `.scoped` instances, the `.shared` instances of
///   registrations made in the scope (per-request values), and the `.new` and
///   `.graph` instances of registrations with `onDispose` resolved through it.
extension Container {
    /// A new scope: a child container whose `.scoped` instances live until
    /// it is closed.
    ///
    /// ```swift
    /// let scope = app.makeScope()
    /// scope.register(type: RequestID.self, dependency: RequestID("b7c1"))
    /// let handler = try scope.tryResolve(type: TodoHandler.self)
    /// try await scope.close()   // disposes what the scope created, newest first
    /// ```
    public func makeScope() -> Container {
        Container(parent: self, isScope: true)
    }

    /// Runs `body` with a new scope and closes the scope when `body` returns
    /// or throws, cancellation included.
    ///
    /// If disposal fails, a `DisposalError` is thrown, carrying `body`'s error
    /// in `bodyError` if it threw too; otherwise `body`'s result or error.
    ///
    /// ```swift
    /// let todos = try await app.withScope { scope in
    ///     try await scope.tryResolve(type: TodoHandler.self).list()
    /// }
    /// ```
    ///
    /// Inlined into the caller, where `R` is known: unspecialised, each
    /// request paid an async frame for this function and memory from the
    /// task's allocator for its `R`.
    @inlinable
    public func withScope<R>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (Container) async throws -> R
    ) async throws -> R {
        let scope = makeScope()
        let value: R
        do {
            value = try await body(scope)
        } catch {
            do {
                try await scope.close()
            } catch let disposal {
                throw disposal.afterBodyFailed(with: error)
            }
            throw error
        }
        try await scope.close()
        return value
    }

    /// Disposes what this container owns, newest first, and closes it: a
    /// later resolve from it is a `ResolutionError` with reason `.closed`.
    ///
    /// Every disposer runs, even when an earlier one throws; what they threw
    /// is thrown afterwards, together, as a `DisposalError`. In a cancelled
    /// task, an async disposer runs in a task of its own, which the
    /// cancellation does not reach (one already running when the task is
    /// cancelled sees it). A second call
    /// returns at once. Instances that `releaseSharedInstances()`, `remove` or
    /// a re-registration dropped earlier are not disposed: they may still be
    /// in use, and go when the last reference to them does. Nor are those
    /// a failed resolve took back because their `onResolved` callbacks did
    /// not all run: they were disposed then, on a task of its own. The disposed
    /// `.shared` and `.scoped` instances' memory goes with the container's
    /// (for a scope, when the request lets go of it).
    ///
    /// A resolve racing `close()` either finishes before it or fails with
    /// `.closed`; an instance such a resolve had just created is disposed
    /// (on a task of its own) and never handed out.
    ///
    /// ```swift
    /// try await app.close()   // at shutdown: the database last, as it was made first
    /// ```
    nonisolated(nonsending) public func close() async throws(DisposalError) {
        guard var pending = takeForClosing() else {
            return
        }
        var failures: [DisposalError.Failure] = []
        // By index, each entry's disposers taken out in place: iterating
        // the list copied every entry (a retain and a release of each of
        // its references) and left the disposers to be dropped afterwards.
        for index in pending.indices {
            let steps = pending[index].takeDisposers()
            guard !steps.isEmpty else { continue }
            var errors: [any Error] = []
            await steps.run(collecting: &errors)
            if !errors.isEmpty {
                failures.append(contentsOf: pending[index].failures(errors))
            }
        }
        keepDisposedBoxes(of: &pending)
        if !failures.isEmpty {
            throw DisposalError(failures: failures)
        }
    }

    /// `close()` for a synchronous caller (`validate()`): when every
    /// disposer of what it owns is synchronous, they run here, newest first,
    /// and what they throw is returned. Otherwise all of them run on a task
    /// of their own, in the same order (an async disposer cannot be awaited
    /// here), as `close()` disposes an instance that a resolve racing it
    /// created; what they throw then is not seen.
    func closeSynchronously() -> [DisposalError.Failure] {
        guard var pending = takeForClosing() else {
            return []
        }
        guard pending.allSatisfy(\.isSynchronous) else {
            let ordered = PendingDisposals(items: pending)
            Task {
                for item in ordered.items {
                    _ = await item.dispose()
                    if let retiring = item.retiring {
                        Reclamation.retireAndPoll(retiring)
                    }
                }
            }
            return []
        }
        var failures: [DisposalError.Failure] = []
        for index in pending.indices {
            var errors: [any Error] = []
            pending[index].takeDisposers().runSynchronously(collecting: &errors)
            if !errors.isEmpty {
                failures.append(contentsOf: pending[index].failures(errors))
            }
        }
        keepDisposedBoxes(of: &pending)
        return failures
    }

    /// Closes this container and takes what it owns, newest first; nil if
    /// it was closed already.
    private func takeForClosing() -> [PendingDisposal]? {
        guard closedFlag.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged else {
            return nil
        }
        var pending: [PendingDisposal] = writerLock.withLock {
            // `tracked`'s buffer, taken over: no copy, and no array at all
            // for a scope that owns nothing to dispose (instances without
            // disposers go to `keptBoxes`, not to this list). At the first
            // instance to dispose, the empty list a freed scope left (see
            // `SpareTables`), or room for every registration's:
            // appending would grow the buffer at each power of two, an
            // allocation each, and a request's scope has two or three.
            var taken = tracked
            tracked = []
            // By address, unretained: iterating the array retained it and
            // each registration, and reading an element retained that one.
            // The registry holds them, and nothing changes it under the lock.
            for index in registry.ordered.indices {
                let held = registry.ordered.withUnsafeBufferPointer { ordered in
                    UnsafeRawPointer(ordered.baseAddress.unsafelyUnwrapped + index).load(as: UnsafeRawPointer?.self)
                }
                guard let held else { continue }
                let item = Unmanaged<AnyDefinition>.fromOpaque(held)._withUnsafeGuaranteedRef {
                    $0.takeSharedInstanceForClosing(keeping: &keptBoxes)
                }
                if let item {
                    if taken.capacity == 0, let spare = SpareTables.takeDisposalList() {
                        taken = spare
                    }
                    if taken.count == taken.capacity {
                        taken.reserveCapacity(taken.count + registry.ordered.count)
                    }
                    taken.append(item)
                }
            }
            return taken
        }
        // Not for none or one, a request's scope's usual count: the sort
        // is a call through the general algorithm even then.
        if pending.count > 1 {
            pending.sort { $0.order > $1.order }
        }
        return pending
    }

    /// After disposal: resolves that began before the close may still read
    /// the boxes, so they are not released here. Nor retired: freeing them
    /// would need the reclaimer's heavy fence, a system call that cost a
    /// request's scope more than all the rest of its work. This container
    /// keeps them until it is freed itself, when no such resolve can be
    /// running: a resolve holds the container it resolves from, which holds
    /// its ancestors, for as long as it runs. Only the boxes: the `.new` and
    /// `.graph` instances a scope tracked went as soon as their disposers
    /// ran (`takeDisposers`). The list itself is what is kept, not a copy
    /// of its boxes: a scope's close allocates nothing beyond it.
    private func keepDisposedBoxes(of pending: inout [PendingDisposal]) {
        guard !pending.isEmpty else { return }
        // Swapped in, not assigned (a retain of the list and a release of
        // the empty one) nor appended: a container closes once.
        writerLock.withLock { swap(&closedEntries, &pending) }
    }

    /// Whether `close()` has been called.
    ///
    /// ```swift
    /// try await scope.close()
    /// scope.isClosed   // true
    /// ```
    public var isClosed: Bool {
        closedFlag.load(ordering: .sequentiallyConsistent)
    }

    /// `isClosed` for a resolve, which needs no ordering: one that misses a
    /// concurrent close is one that began before it.
    @inlinable
    var isClosedNow: Bool {
        closedFlag.load(ordering: .relaxed)
    }

    /// `isClosedNow` for this container or an ancestor: what a resolve that
    /// would create an instance checks, since a child of a closed container
    /// (a request's scope when the app closes) creates nothing either. For
    /// a root, a load of `parent` more than `isClosedNow`; the walk is out
    /// of line. An instance a child already holds is returned without it.
    /// Also what makes a request that finds nothing fail with `.closed`:
    /// a key the container does not hold itself is then found nowhere
    /// (see `locate`).
    @inlinable
    var isClosedOnChainNow: Bool {
        isClosedNow || (parent != nil && hasClosedAncestorNow)
    }

    /// Whether an ancestor of this container is closed (relaxed, as
    /// `isClosedNow`). Unretained: this container holds its ancestors.
    @usableFromInline
    var hasClosedAncestorNow: Bool {
        var walked = parent.map { Unmanaged.passUnretained($0) }
        while let current = walked {
            let (closed, next) = current._withUnsafeGuaranteedRef { container in
                (container.isClosedNow, container.parent.map { Unmanaged.passUnretained($0) })
            }
            if closed {
                return true
            }
            walked = next
        }
        return false
    }

    /// The error for a resolve from a closed container.
    @usableFromInline
    func closedError(_ definition: AnyDefinition) -> ResolutionError {
        definition.error(.closed, path: ResolutionContext.current.pathText(appending: definition.stepText))
    }

    /// A resolve from a container that is closed, or whose ancestor is,
    /// creates nothing: the instance the nearest scope, still open,
    /// already has (see `openScopesInstance`), or `.closed`. Out of line:
    /// only such resolves get here.
    @usableFromInline
    @inline(never)
    func existingInstanceOrClosed<T>(_ definition: Definition<T>, holder: Unmanaged<Container>) throws(ResolutionError) -> T {
        if let box = openScopesInstance(of: definition, holder: holder.takeUnretainedValue()) {
            return box.value(as: T.self)
        }
        throw closedError(definition)
    }

    /// For a resolve whose chain is closed (an ancestor's `close()`): the
    /// instance of the `.scoped` registration `definition`, held by
    /// `holder`, that the nearest scope, still open, already has. An
    /// instance an open scope holds, it still returns, as it returns its
    /// copy of an ancestor's registration, which the lookup finds under
    /// the key. A copy of a registration the scope made itself, or that a
    /// plain child below it holds, is under a key of its own, which the
    /// lookup does not find: without this, such a scope's existing
    /// instance failed with `.closed`.
    func openScopesInstance(of definition: AnyDefinition, holder: Container) -> InstanceBox? {
        guard definition.kind == .scoped, let unretained = nearestScope else { return nil }
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        return unretained._withUnsafeGuaranteedRef { (scope) -> InstanceBox? in
            guard !scope.isClosed else { return nil }
            // Where `scopeLocal(of:heldBy:)` put the copy: under a key of
            // its own, or the registration's (a registration of an ancestor,
            // found this way by `resolveAll`, which asks each registration
            // rather than looking its key up).
            let key = holder === scope ? ScopeLocalCopy.key(ofMadeHere: definition)
                : !scope.isSelfOrAncestor(holder) ? ScopeLocalCopy.key(ofHeldBelow: definition)
                : definition.key
            return scope.copy(of: definition, under: key)?._withUnsafeGuaranteedRef { $0.sharedBoxInSection() }
        }
    }

    /// The scope `.scoped` instances resolved through this container live in:
    /// the nearest scope from here to the root. Unretained: it is this
    /// container or one of its ancestors, which this one holds (a retained
    /// scope was a retain and a release per `.scoped` instance created).
    var nearestScope: Unmanaged<Container>? {
        var container = Unmanaged.passUnretained(self)
        while true {
            let (isScope, parent) = container._withUnsafeGuaranteedRef { current in
                (current.isScope, current.parent.map { Unmanaged.passUnretained($0) })
            }
            if isScope {
                return container
            }
            guard let parent else {
                return nil
            }
            container = parent
        }
    }

    /// `.scoped` and scope-local definitions: this scope's instance, created
    /// once per scope like a `.shared` one.
    @usableFromInline
    func produceScoped<T>(_ definition: Definition<T>, holder: Container, arguments: UnsafeRawPointer, context: ResolutionContext) throws(ResolutionError) -> T {
        guard let scope = nearestScope else {
            throw noScope(for: definition, path: context.pathText(appending: definition.stepText), captor: context.innermostSingleton())
        }
        return try guaranteed(scope) { (scope) throws(ResolutionError) -> T in
            if scope.isClosed {
                throw definition.error(.closed, path: context.pathText(appending: definition.stepText))
            }
            if definition.kind == .scopeLocal && holder === scope {
                return try createShared(definition, holder: scope, arguments: arguments, context: context)
            }
            // Inside this resolve's read-side section: see `scopeLocal`.
            return try guaranteed(scope.scopeLocal(of: definition, heldBy: holder, forAlias: context.forwardingAlias)) { (local) throws(ResolutionError) -> T in
                try scope.produceNested(unsafeDowncast(local, to: Definition<T>.self), holder: scope, arguments: arguments, context: context)
            }
        }
    }

    /// This scope's copy of `definition`, held by `holder`, installed on
    /// first use under the same key, so that later resolves in the scope
    /// find it first, when the key leads to the registration from the
    /// scope (see `copyUnderKey`). A copy the scope's table already has
    /// under the key wins (one installed by a resolve on another thread).
    ///
    /// Two kinds of registration get a key of their own instead, found on
    /// the slow path only (`ScopeLocalCopy`): one made in this scope
    /// itself, which holds the key; and one a plain child container below
    /// this scope holds, which is that child's alone: under the key, the
    /// scope would resolve it as its own, and every other child of the
    /// scope would get the first such copy, built by another child's
    /// factory, in place of its own registration.
    ///
    /// Unretained: the scope's registry holds the copy, and a copy that a
    /// registration made in the scope since replaced is retired, not
    /// freed, while a read-side section could still be using it. So the
    /// caller uses it inside one (a synchronous resolve) or retains it
    /// inside one (`scopeLocalInSection`). Returned retained, each copy
    /// cost a request's resolve a retain and a release more, and a new
    /// copy another pair, its maker's reference and the registry's.
    ///
    /// `forAlias`: asked by an alias's resolve (`implements`), which looks
    /// for an existing copy without the lock first.
    func scopeLocal(of definition: AnyDefinition, heldBy holder: Container, forAlias: Bool = false) -> Unmanaged<AnyDefinition> {
        let key = definition.key
        if holder === self || !isSelfOrAncestor(holder) {
            let madeHere = holder === self
            let ownKey = madeHere ? ScopeLocalCopy.key(ofMadeHere: definition) : ScopeLocalCopy.key(ofHeldBelow: definition)
            // The key of a copy of a registration made here names its type
            // and name only: a copy under it may be of one that the scope
            // replaced since (registered again), whose instance this one
            // must not hand out. (One held below has its registration's
            // identity in its key.)
            if let copy = lookupUnretained(ownKey), !madeHere || Self.isCopy(copy, of: definition) {
                return copy   // lock-free: installed earlier
            }
            return writerLock.withLock {
                if let copy = lookupUnretained(ownKey) {
                    // A resolve that found `definition` before the scope
                    // replaced it gets the copy of the registration that
                    // replaced it, as it would have a moment later, rather
                    // than install a copy of a registration that is gone.
                    if !madeHere || Self.isCopy(copy, of: definition) || !isLive(definition) {
                        return copy
                    }
                }
                // The copy this one replaces, if any, stays with the scope,
                // which disposes its instance when it closes (see `insertLocked`).
                return installLocked(definition.scopeLocalCopy(key: ownKey))
            }
        }
        // Lock-free, for an alias: the copy of `definition` this scope has
        // under the key, installed by an earlier resolve, is what the
        // locked paths below return too. A resolve of the type finds that
        // copy in the scope's table before it gets here, and comes here
        // only for the scope's first resolve of it, when the scope has no
        // copy (a request's, SC1: the lookup would be one more per
        // request); an alias of the type (`implements`) forwards to
        // `definition` itself, comes here on every resolve, and took the
        // writer lock each time.
        if forAlias, let existing = copy(of: definition, under: key) {
            return existing
        }
        return writerLock.withLock {
            let existing = lookupUnretained(key)
            // A request's scope, made from the container that holds the
            // registration: the key leads to `definition` from here unless
            // the scope's table has it. Its first resolve of each `.scoped`
            // registration comes here, so this case goes straight to the
            // copy (the general case below cost a request, SC1, about 140
            // instructions more).
            if parent === holder {
                if existing == nil && !registry.hasHiddenCopies {
                    return installLocked(definition.scopeLocalCopy(key: key))
                }
                if let existing, existing._withUnsafeGuaranteedRef({ $0.kind == .scopeLocal }) {
                    return existing   // installed by a resolve on another thread
                }
            }
            return scopeLocalSlowly(of: definition, key: key, heldBy: holder, existing: existing)
        }
    }

    /// `scopeLocal(of:heldBy:)` for a registration held by an ancestor of
    /// this scope, in general. Call with the writer lock held.
    @inline(never)
    private func scopeLocalSlowly(of definition: AnyDefinition, key: DefinitionKey, heldBy holder: Container,
                                  existing: Unmanaged<AnyDefinition>?) -> Unmanaged<AnyDefinition> {
        // Whether the key leads to `definition` from here, past this
        // scope's own table: a resolve of the type does, but one of an
        // alias of it (`implements`), which forwards to `definition`
        // itself, also gets here when a container between this scope
        // and `holder` registered the type.
        let keyLeadsHere = !isKeyHeld(key, below: holder)
        if let existing, existing._withUnsafeGuaranteedRef({ $0.kind == .scopeLocal }),
           keyLeadsHere || Self.isCopy(existing, of: definition) {
            // A copy installed by a resolve on another thread (or one of
            // a registration of the key that an ancestor replaced since).
            return existing
        }
        return copyUnderKey(of: definition, key: key, publish: keyLeadsHere && existing == nil)
    }

    /// Whether a container between this one (excluded) and `holder`
    /// (excluded) registers `key`. An outer scope's copy under it is no
    /// registration: a lookup from this scope passes over it (see
    /// `walkAncestors`). Nothing to walk for a scope made from the
    /// container that holds the registration. Lock-free reads.
    private func isKeyHeld(_ key: DefinitionKey, below holder: Container) -> Bool {
        var current = parent.map { Unmanaged.passUnretained($0) }
        while let container = current, container.toOpaque() != Unmanaged.passUnretained(holder).toOpaque() {
            let (held, next) = container._withUnsafeGuaranteedRef { container in
                (container.lookupUnretained(key).map { found in found._withUnsafeGuaranteedRef { $0.kind != .scopeLocal } } ?? false,
                 container.parent.map { Unmanaged.passUnretained($0) })
            }
            if held {
                return true
            }
            current = next
        }
        return false
    }

    /// This scope's copy of `definition`, an ancestor's registration,
    /// under the registration's key: the one the scope has already, or a
    /// new one. Published in the table (`publish`) when the key leads to
    /// `definition` from here and nothing else holds it in this scope's
    /// table; otherwise kept in the registry alone, hidden, as a copy that
    /// a registration made in the scope replaced is (see `insertLocked`):
    /// reached by an alias of `definition`, and by the key once the
    /// registration that hides it is removed (see `remove`), never a
    /// second instance in one scope. (Before, the scope's table decided: an
    /// alias got the scope's own registration of the type, a per-request
    /// value, and a copy made for an alias hid an intermediate container's
    /// registration from resolves of the type.) Call with the writer lock held.
    private func copyUnderKey(of definition: AnyDefinition, key: DefinitionKey, publish: Bool) -> Unmanaged<AnyDefinition> {
        // Searched only if the scope hides a copy: the walk retains and
        // releases each of its registrations.
        var found: Unmanaged<AnyDefinition>?
        if registry.hasHiddenCopies {
            for case let copy? in registry.ordered
            where copy.kind == .scopeLocal && copy.key == key && Self.isCopy(.passUnretained(copy), of: definition) {
                found = .passUnretained(copy)
                break
            }
        }
        guard let found else {
            let copy = definition.scopeLocalCopy(key: key)
            if publish {
                return installLocked(copy)
            }
            let unretained = Unmanaged.passUnretained(copy)
            registry.hasHiddenCopies = true
            registry.append(copy)
            return unretained
        }
        if publish {
            _ = table.insert(key, found.toOpaque())
        }
        return found
    }

    /// This scope's copy of `definition` that its table has under `key`,
    /// if it has one there. Lock-free: call inside a read-side section.
    /// Inlined: a call of its own cost an alias's resolve 22 instructions.
    @inline(__always)
    private func copy(of definition: AnyDefinition, under key: DefinitionKey) -> Unmanaged<AnyDefinition>? {
        guard let found = lookupUnretained(key), found._withUnsafeGuaranteedRef({ $0.kind == .scopeLocal }),
              Self.isCopy(found, of: definition) else {
            return nil
        }
        return found
    }

    /// Whether `copy` is a scope's copy of `definition`: copies share their
    /// registration's extras.
    private static func isCopy(_ copy: Unmanaged<AnyDefinition>, of definition: AnyDefinition) -> Bool {
        copy._withUnsafeGuaranteedRef { $0.copiesIdentity } == definition.copiesIdentity
    }

    /// Whether `container` is this container or one of its ancestors.
    /// Walked unretained, as `nearestScope` is: each container holds its
    /// parent, and the caller this one (a retained walk was a retain and a
    /// release per step, on a request's first resolve of each `.scoped`
    /// registration).
    private func isSelfOrAncestor(_ container: Container) -> Bool {
        let wanted = Unmanaged.passUnretained(container).toOpaque()
        var current = Unmanaged.passUnretained(self)
        while current.toOpaque() != wanted {
            guard let parent = current._withUnsafeGuaranteedRef({ $0.parent.map { Unmanaged.passUnretained($0) } }) else {
                return false
            }
            current = parent
        }
        return true
    }

    /// Installs `copy`, a new scope-local copy, moving the caller's
    /// reference into the registry, and returns it unretained. Call with
    /// the writer lock held.
    private func installLocked(_ copy: consuming AnyDefinition) -> Unmanaged<AnyDefinition> {
        let unretained = Unmanaged.passUnretained(copy)
        insertLocked(consume copy)
        return unretained
    }

    /// Gives what this freed scope made back for later scopes: its copies
    /// of `.scoped` registrations to their registrations' pools (see
    /// `ScopeLocalPool`), its boxes, emptied, and its registrations of
    /// given instances to the thread's spares (see `SpareObjects`). From
    /// `deinit` only: no resolve can be using them; anything that
    /// something else still references is left alone.
    func recycleScopeObjects() {
        // What `close()` kept references the registrations it disposed
        // instances of: dropped first, so that those copies are seen
        // unique and given back too, not only those that had nothing to
        // dispose. Moved out of the list one by one, so that each box is
        // held by its entry alone.
        var entries: [PendingDisposal] = []
        swap(&entries, &closedEntries)
        while let entry = entries.popLast() {
            var box = entry.retiring
            _ = consume entry
            SpareObjects.keep(box: &box)
        }
        // The emptied list's storage, for a later scope's `close()`.
        if entries.capacity > 0 {
            SpareTables.keep(disposalList: &entries)
        }
        keptBoxes.drain { SpareObjects.keep(box: &$0) }
        // Through the buffer: one uniqueness check of the list, not one
        // per registration taken out of it.
        registry.ordered.withUnsafeMutableBufferPointer { ordered in
            for index in ordered.indices {
                // Taken, not copied: a copy was a retain and a release more.
                guard var definition = ordered[index].take(), isKnownUniquelyReferenced(&definition) else {
                    continue
                }
                // The list's reference, as an unmanaged one: the retain and
                // the release of the taken one cancel out.
                let owned = Unmanaged.passRetained(definition)
                _ = consume definition
                if !owned._withUnsafeGuaranteedRef({ $0.recycle(owned) }) {
                    owned.release()
                }
            }
        }
    }

    /// `scopeLocal(of:)` for the async engine, which holds no read-side
    /// section of its own.
    func scopeLocalInSection(of definition: AnyDefinition, heldBy holder: Container, forAlias: Bool) -> AnyDefinition {
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        return scopeLocal(of: definition, heldBy: holder, forAlias: forAlias).takeUnretainedValue()
    }

    /// The error for a `.scoped` registration resolved where no scope is:
    /// a captive dependency when a `.shared` or `.weak` factory (`captor`, the
    /// innermost on the path) asked for it, from its own container, above
    /// every scope; otherwise a missing scope.
    func noScope(for definition: AnyDefinition, path: [String], captor: AnyDefinition?) -> ResolutionError {
        if let captor {
            return definition.error(.captiveDependency(captor: captor.stepText, captorScope: captor.kind == .weak ? .weak : .shared), path: path)
        }
        return definition.error(.noScope, path: path)
    }

    /// Hands a `.new` or `.graph` instance with disposers to the nearest
    /// scope, which disposes it when it closes. Call inside the instance's
    /// frame. When there is no open scope, returns the error to fail the
    /// resolve with and the instance's disposal, for the caller to run once
    /// nothing of the resolve can use the instance any more (`abandon()`).
    ///
    /// Refused after its factory ran, not before: the factory may have
    /// opened what the disposers close (a connection), so the instance is
    /// disposed rather than dropped. Whether it is refused is known only
    /// here: its registration's disposers are read once, after the factory,
    /// where an `onDispose` added while it ran counts too, and a scope may
    /// close meanwhile. Checking for an owner before the factory as well
    /// would cost every `.new` resolve a load of the hooks and a walk to the
    /// nearest scope, for a programming error that fails the same way on
    /// every resolve (`.weak` is checked first: its creation is off the hot
    /// path). `captor` names the `.shared` or `.weak` registration whose
    /// factory asked, if any (see `ResolutionError.capturedBy(_:)`).
    func trackForDisposal<T>(_ instance: T, of definition: Definition<T>, path: @autoclosure () -> [String],
                             captor: @autoclosure () -> AnyDefinition?) -> (failure: ResolutionError, disposal: PendingDisposal)? {
        let pending = PendingDisposal(order: CreationOrder.next(), of: definition, instance: instance)
        guard let scope = nearestScope?.takeUnretainedValue() else {
            let failure = definition.error(.disposerWithoutOwner(scope: definition.kind == .graph ? .graph : .new), path: path())
            return (captor().map(failure.capturedBy) ?? failure, pending)
        }
        let tracked = scope.writerLock.withLock { () -> Bool in
            // Under the lock that `close()` takes to collect: either this
            // entry is collected, or the scope is seen closed here.
            guard !scope.isClosed else { return false }
            scope.tracked.append(pending)
            return true
        }
        if !tracked {
            return (definition.error(.closed, path: path()), pending)
        }
        return nil
    }

    /// After a `.shared` or scope-local instance was published in `box`:
    /// if its owner was closed meanwhile, `close()` may have missed it, so it
    /// is taken back and disposed here, and the resolve fails. One of this
    /// check and `close()` always sees the other: each writes (the box; the
    /// closed flag) before it reads the other's, all sequentially consistent.
    /// Whoever takes the box disposes the instance, exactly once.
    func publishOrAbandon<T>(box: UnsafeRawPointer, of definition: Definition<T>, path: @autoclosure () -> [String]) throws(ResolutionError) {
        guard isClosed else { return }
        if let retracted = definition.retractShared(box) {
            definition.abandonRetracted(retracted)
        }
        throw definition.error(.closed, path: path())
    }
}

extension Definition {
    /// Disposes the `.shared` or scope-local instance in `box`, which the
    /// caller took back from this registration (`retractShared`) and so
    /// holds alone: one created while its owner closed (`publishOrAbandon`),
    /// or one a failed resolve takes back because its `onResolved` callbacks
    /// did not all run. Its owner's `close()` takes instances from the box
    /// and can no longer find it, though its factory ran (it may have opened
    /// a transaction); whichever of the two takes the box disposes it, so
    /// it is disposed exactly once. On a task of its own: a disposer may be
    /// async, and the failing resolve does not wait for it. One with nothing
    /// to dispose it (no `onDispose`, no `Disposable` conformance) is only
    /// retired, as `close()` only keeps it.
    func abandonRetracted(_ box: consuming InstanceBox) {
        guard hasDisposers || DisposableConformance.mayConform(boxed: box, as: T.self) else {
            Reclamation.retireAndPoll(box)
            return
        }
        PendingDisposal(order: 0, of: self, boxed: box).abandon()
    }
}

/// The keys a scope keeps its copies of some `.scoped` registrations
/// under, rather than the registration's own (see `Container.scopeLocal`):
/// their signatures are no registration's.
enum ScopeLocalCopy {
    /// The signature of the key of a copy of a registration made in the
    /// scope itself.
    static var identity: UnsafeRawPointer { typeIdentity(ScopeLocalCopy.self) }

    /// The key of the copy of `definition`, made in the scope itself.
    static func key(ofMadeHere definition: AnyDefinition) -> DefinitionKey {
        DefinitionKey(type: definition.key.type, signature: identity, name: definition.key.name)
    }

    /// The key of the copy of `definition`, held by a plain child below the
    /// scope: one per registration, its signature the identity its copies
    /// share with it (`AnyDefinition.copiesIdentity`), which lives as long
    /// as any of them.
    static func key(ofHeldBelow definition: AnyDefinition) -> DefinitionKey {
        DefinitionKey(type: definition.key.type, signature: definition.copiesIdentity, name: definition.key.name)
    }
}
