import CSyringeTable

/// The observed path of a resolve: taken only while `syr_observed()` says
/// an observation is active somewhere (a tracer, a validation pass). It
/// runs the engine as usual, timed, then reports the event and the edge
/// from the registration that asked. Generic but not inlinable: one
/// unspecialised copy, so that observing costs programs nothing in size.
extension Container {
    /// `produceSlowly` while something observes.
    @usableFromInline
    @inline(never)
    func produceObserved<T>(_ definition: Unmanaged<Definition<T>>, holder: Unmanaged<Container>, arguments: UnsafeRawPointer) throws(ResolutionError) -> T {
        let context = ResolutionContext.current
        let found = definition.takeUnretainedValue()
        guard !context.notifying, let observation = context.observation ?? Observation.current?.observation ?? nearestObservation() else {
            if let instance = found.sharedInstance() {
                return instance
            }
            return try produceUnobserved(definition, holder: holder, arguments: arguments)
        }
        // The outermost observed resolve on this thread names the
        // observation for everything it builds, in whatever container.
        let owns = context.observation == nil
        if owns {
            context.observation = observation
        }
        defer {
            if owns {
                context.observation = nil
            }
        }
        let requester = context.requester
        let depth = context.observedDepth
        let before = context.creations
        let start = ContinuousClock.now
        let result: Result<T, ResolutionError>
        if let instance = found.sharedInstance() {
            result = .success(instance)
        } else {
            result = Result { () throws(ResolutionError) -> T in
                try produceUnobserved(definition, holder: holder, arguments: arguments)
            }
        }
        let duration = ContinuousClock.now - start
        let outcome: ResolutionEvent.Outcome
        switch result {
        case .success: outcome = context.creations != before ? .created : .reused
        case .failure: outcome = .failed
        }
        let event = report(found, heldBy: holder.takeUnretainedValue(), requester: requester, to: observation,
                           outcome: outcome, depth: depth, duration: duration, error: result.failure)
        context.deliver(event, to: observation)
        return try result.get()
    }

    /// Records the edge from `requester` to one resolve of `definition`
    /// (held by `holder`, asked from this container), and returns the
    /// resolve's event, to deliver. Inside a read-side section.
    func report(_ definition: AnyDefinition, heldBy holder: Container,
                requester: (definition: AnyDefinition, origin: DependencyGraph.Edge.Origin)?,
                to observation: Observation, outcome: ResolutionEvent.Outcome, depth: Int, duration: Duration,
                error: ResolutionError?) -> ResolutionEvent {
        if let requester, let from = self.holder(of: requester.definition).flatMap({ NodeIdentity.of(requester.definition, heldBy: $0) }),
           let to = NodeIdentity.of(definition, heldBy: holder) {
            observation.record(ObservedEdge(from: from, to: to, origin: requester.origin),
                               target: to.holder == .scope ? .scopeHeld(definition.kind) : nil)
        }
        return ResolutionEvent(type: definition.serviceType, name: definition.key.name,
                               argumentTypes: definition.argumentTypes.map(TypeName.of), scope: Scope(definition.kind),
                               outcome: outcome, depth: depth, duration: duration, error: error)
    }

    /// Reports a request that found no registration: a failed event, and an
    /// edge to a missing node. Part of `notRegistered`.
    func observeMissing(_ type: Any.Type, key: DefinitionKey, argumentTypes: [Any.Type], error: ResolutionError, asyncParent: AsyncFrame?) {
        let context = ResolutionContext.current
        guard !context.notifying,
              let observation = (asyncParent == nil ? context.observation : nil) ?? Observation.current?.observation ?? nearestObservation() else {
            return
        }
        let requester = asyncParent.map { (definition: $0.definition, origin: DependencyGraph.Edge.Origin.factory) } ?? context.requester
        let names = argumentTypes.map(TypeName.of)
        if let requester, let from = holder(of: requester.definition).flatMap({ NodeIdentity.of(requester.definition, heldBy: $0) }) {
            observation.record(ObservedEdge(from: from, to: NodeIdentity(holder: .missing, key: key), origin: requester.origin),
                               target: .missing(type: TypeName.of(type), name: key.name, argumentTypes: names))
        }
        let event = ResolutionEvent(type: type, name: key.name, argumentTypes: names, scope: nil, outcome: .failed,
                                    depth: asyncParent?.depth ?? context.observedDepth, duration: .zero, error: error)
        context.deliver(event, to: observation)
    }

    /// `produceAsync` while something observes. A synchronous registration is
    /// reported by the synchronous engine it is handed to, not here.
    @usableFromInline
    nonisolated(nonsending) func produceAsyncObserved<T>(_ definition: Definition<T>, holder: Container, arguments: UnsafeRawPointer, parent: AsyncFrame?) async throws(ResolutionError) -> T {
        guard definition.isAsync else {
            return try await produceAsyncSlowly(definition, holder: holder, arguments: arguments, parent: parent)
        }
        let around = parent?.unlessEnded
        guard let observation = Observation.current?.observation ?? nearestObservation() else {
            if let box = definition.sharedBoxInSection() {
                return box.value(as: T.self)
            }
            return try await Self.produceAsyncUnobserved(definition, in: .passUnretained(self), holder: .passUnretained(holder), arguments: arguments, parent: parent)
        }
        let resolve = ObservedResolve(observation: observation)
        let start = ContinuousClock.now
        let result: Result<T, ResolutionError>
        if let box = definition.sharedBoxInSection() {
            result = .success(box.value(as: T.self))
        } else {
            // Bound for this resolve: the resolves its factory makes, in
            // this task or its children, find the observation here, and the
            // engine marks `resolve` where it creates this instance.
            result = await Observation.withCurrent(resolve) { () async -> Result<T, ResolutionError> in
                do throws(ResolutionError) {
                    return .success(try await Self.produceAsyncUnobserved(definition, in: .passUnretained(self), holder: .passUnretained(holder), arguments: arguments, parent: parent))
                } catch {
                    return .failure(error)
                }
            }
        }
        let duration = ContinuousClock.now - start
        let outcome: ResolutionEvent.Outcome
        switch result {
        case .success: outcome = resolve.created ? .created : .reused
        case .failure: outcome = .failed
        }
        let section = syr_read_enter()
        let event = report(definition, heldBy: holder, requester: around.map { ($0.definition, .factory) }, to: observation,
                           outcome: outcome, depth: around?.depth ?? 0, duration: duration, error: result.failure)
        syr_read_exit(section)
        // No synchronous resolve is in progress on this thread (an async
        // resolve never runs inside one): delivered at once, and what the
        // handler resolves is a resolve of its own, not observed.
        ResolutionContext.current.deliver(event, to: observation)
        return try result.get()
    }
}

extension Result {
    /// The error, if this is a failure.
    var failure: Failure? {
        if case .failure(let error) = self {
            return error
        }
        return nil
    }
}

/// Marks an observed async resolve's creations (see `Observation.markCreated`).
/// A caseless enum rather than static methods of `Container`: a static
/// method of a class takes the class's metadata, which the async engine's
/// code inlined into a factory fetched before each factory call to keep
/// across its await.
@usableFromInline
enum ObservedCreation {
    /// Tells the observed async resolve in progress in this task, if
    /// anything observes, that it created its instance. The flag first:
    /// reading the task-local cost every creation about 120 instructions,
    /// observed or not.
    @inlinable
    @inline(__always)
    static func markIfObserved() {
        if syr_observed() {
            mark()
        }
    }

    /// `markIfObserved` once something observes.
    @usableFromInline
    static func mark() {
        Observation.current?.markCreated()
    }
}
