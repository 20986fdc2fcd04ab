import CSyringeTable

/// `validate()`: every wiring problem of a container at once.
extension Container {
    /// Checks every registration of this container and its parents, and
    /// throws one `ValidationError` listing every problem found, each as a
    /// resolve would report it (path, near matches): missing registrations,
    /// runtime-argument mismatches, cycles, captive dependencies, aliases
    /// whose instance is not of their type, factories that throw. Returns
    /// what was checked and what could not be.
    ///
    /// What the pass runs, and what it keeps:
    /// - A registration made with `autoregister` is checked from its
    ///   initialiser's parameter types, without running it: each parameter
    ///   must be registered where its resolve would look, and so on through
    ///   the autoregistered initialisers they lead to (cycles, captive
    ///   dependencies, disposers nobody would run, async registrations
    ///   asked for synchronously: not one whose `.shared` instance existed
    ///   before the pass, which the resolve returns, nor a main-actor one
    ///   when validating on the main actor, where the resolve runs it). What
    ///   only running shows is not checked for them: whether the
    ///   initialiser throws, and what their `onResolved` callbacks resolve.
    ///   The pass does not create a `.shared` one, unless a registration it
    ///   runs (a factory closure) resolves it: that creates it, as in the
    ///   app. An alias (`implements`) of one is checked through it, not
    ///   resolved; whether its instance is of the alias's type is not
    ///   checked. Where such a walk from a `.shared` or `.weak` initialiser
    ///   above every scope reaches a registration that is not autoregistered
    ///   (a factory closure), that registration is resolved again from the
    ///   container the singleton's creation resolves from, as that creation
    ///   would: so a `.scoped` instance its factory asks for is reported as
    ///   captive. (A `.shared` one registered in a scope lives no longer
    ///   than the scope: what it takes from it is not captive.)
    /// - Every other registration is resolved once, as a request would:
    ///   its factory runs, and so do the factories of what it resolves.
    ///   A factory stops at its first failing resolve, so a problem behind
    ///   another in the same factory shows once the first is fixed.
    ///   Registrations with runtime arguments run with the arguments in
    ///   `samples`, or are listed as not validated. Async factories are
    ///   listed as not validated: `validateAsync()` runs them.
    /// - Resolves run in a scope made for the pass (a child of this
    ///   container), so `.scoped` registrations resolve as in a request.
    ///   In a plain descendant of a scope, a `.scoped` registration resolves
    ///   in that scope, with that scope's registrations, not this
    ///   container's: the pass resolves those in a second scope of its own,
    ///   under that one, never in it. The pass closes its scopes at the
    ///   end, disposing what it created there
    ///   (`validate()` disposes on a task of its own, without seeing what
    ///   the disposers throw, when any of them is async; `validateAsync()`
    ///   awaits them and reports what they throw).
    /// - `.shared` instances created by the pass are **kept** (those of the
    ///   registrations it runs): validating
    ///   at start-up doubles as eager creation, so the first request does
    ///   not pay for it, and nothing with side effects (a database
    ///   connection) is made twice. An instance that existed before the
    ///   pass is not rebuilt; its factory succeeded when it was created.
    ///   `.new`, `.graph` and `.weak` instances are dropped.
    ///
    /// A per-request value registered in each scope (`scope.register(…)`) is
    /// missing from the application container: validate a scope that has
    /// sample ones to check what depends on them.
    ///
    /// The edges the pass sees are kept for `dependencyGraph()`.
    ///
    /// ```swift
    /// let app = Container()
    /// AppAssembly().assemble(into: app)
    /// try app.validate()   // at start-up, or in a test (SyringeTesting: `expectValid(app)`)
    /// ```
    @discardableResult
    public func validate(samples: SampleArguments = SampleArguments()) throws(ValidationError) -> ValidationReport {
        let pass = ValidationPass(container: self, samples: samples)
        pass.begin()
        let context = ResolutionContext.current
        let outer = context.observation
        context.observation = pass.observation
        for root in pass.roots {
            guard pass.shouldRun(root, async: false) else { continue }
            pass.run(root) { definition, holder, arguments throws(ResolutionError) in
                try definition.resolveForValidation(from: pass.asked(for: definition), holder: holder, arguments: arguments)
            }
        }
        // Those a synchronous resolve cannot run (async ones) are
        // `validateAsync()`'s: the walk reported what such a resolve does.
        for probe in pass.checkDeclaredParameters() where pass.synchronousFailure(of: probe.definition) == nil {
            pass.run(probe) { probe throws(ResolutionError) in
                try probe.definition.resolveForValidation(from: probe.resolving, holder: probe.holder, arguments: Container.noArguments)
            }
        }
        context.observation = outer
        return try pass.end(disposalFailures: pass.closeScopesSynchronously())
    }

    /// `validate()` that also runs async factories, and awaits the disposal
    /// of what the pass created in its scope. Synchronous registrations run
    /// first, so a synchronous factory that resolves an async registration is
    /// reported whatever the order of registration, unless that
    /// registration's `.shared` instance existed before the pass (then the
    /// resolve returns it, as it would in the app).
    ///
    /// ```swift
    /// try await app.validateAsync()
    /// ```
    @discardableResult
    nonisolated(nonsending) public func validateAsync(samples: SampleArguments = SampleArguments()) async throws(ValidationError) -> ValidationReport {
        let pass = ValidationPass(container: self, samples: samples)
        pass.begin()
        // Synchronous registrations first: once the pass has created an
        // async `.shared` instance, a synchronous factory's resolve of it
        // returns it, so whether such a resolve was reported depended on
        // which registration came first. Before every async root, it is
        // reported unless the instance existed before the pass.
        let running = pass.roots.filter { pass.shouldRun($0, async: true) }
        let roots = running.filter { !$0.definition.isAsync } + running.filter(\.definition.isAsync)
        // Bound for the pass: every async resolve, and every synchronous one
        // it hands to the synchronous engine, reports to the pass.
        await Observation.withCurrent(ObservedResolve(observation: pass.observation)) {
            for root in roots {
                let arguments = pass.arguments(for: root)
                do throws(ResolutionError) {
                    try await root.definition.resolveForValidationAsync(from: pass.asked(for: root.definition), holder: root.holder,
                                                                        arguments: arguments.pointer)
                    pass.passed(root)
                } catch {
                    pass.failed(root, error)
                }
                arguments.free()
            }
            for probe in pass.checkDeclaredParameters() {
                do throws(ResolutionError) {
                    try await probe.definition.resolveForValidationAsync(from: probe.resolving, holder: probe.holder,
                                                                         arguments: Container.noArguments)
                } catch {
                    pass.failed(probe, error)
                }
            }
        }
        return try await pass.end(disposalFailures: pass.closeScopes())
    }
}

/// One `validate()` run: its roots, its scope, what it found.
final class ValidationPass {
    /// A registration to check, and the container holding it.
    struct Root {
        let definition: AnyDefinition
        let holder: Container
        /// The initialiser's parameter types, for an autoregistered one.
        let parameters: [Any.Type]?
        /// Whether it is an alias (`implements`) of an autoregistered
        /// registration: resolving it would run the initialiser, so it is
        /// checked as that one is, through its target.
        let aliasesInitializer: Bool

        /// Whether the walk of declared parameters checks it, rather than a resolve.
        var isCheckedWithoutRunning: Bool { parameters != nil || aliasesInitializer }
    }

    let container: Container
    let samples: SampleArguments
    /// Where the pass resolves: a scope, so that `.scoped` registrations
    /// resolve as in a request.
    let scope: Container
    /// Where the pass makes `.scoped` instances: `scope`, unless the
    /// container is a plain descendant of a scope. A real resolve from it
    /// makes them in that scope, with that scope's registrations, which do
    /// not include its descendants': the pass makes them in a scope of its
    /// own under that one, which sees the same, rather than in the user's.
    let scopedScope: Container
    let observation = Observation()
    /// The container's registrations, nearest first, then each parent's.
    let roots: [Root]
    /// The registration each alias (`implements`) forwards to.
    let aliasTargets: [ObjectIdentifier: AnyDefinition]
    /// The async registrations whose `.shared` instance existed when the
    /// pass began: a synchronous resolve returns it, as in the app. Those
    /// the pass creates do not count: they would not exist in the app.
    private var sharedBeforePass: Set<ObjectIdentifier> = []
    /// Steps that registrations of more than one key print (see `identity`).
    private let ambiguousSteps: Set<String>
    private var problems: [ResolutionError] = []
    private var problemIndex: [String: Int] = [:]
    /// The roots checked: reported in the order of `roots`, whatever
    /// order they were checked in (autoregistered ones after the others,
    /// `validateAsync()`'s synchronous ones before its async ones).
    private var validated: Set<ObjectIdentifier> = []
    private var skipped: [ValidationReport.Skipped] = []

    init(container: Container, samples: SampleArguments) {
        self.container = container
        self.samples = samples
        let scope = Container(parent: container, isScope: true)
        self.scope = scope
        if let nearest = container.nearestScope?.takeUnretainedValue(), nearest !== container {
            scopedScope = Container(parent: nearest, isScope: true)
        } else {
            scopedScope = scope
        }
        var roots: [Root] = []
        var aliasTargets: [ObjectIdentifier: AnyDefinition] = [:]
        var walked: Container? = container
        while let current = walked {
            let (ordered, parameters, aliases) = current.writerLock.withLock {
                (current.registry.ordered, current.registry.parameters, current.registry.aliases)
            }
            // An alias is held with its target, by the same container.
            for case let target? in ordered {
                for alias in aliases[ObjectIdentifier(target)] ?? [] {
                    aliasTargets[ObjectIdentifier(alias)] = target
                }
            }
            for case let definition? in ordered where definition.kind != .scopeLocal {
                let aliased = aliasTargets[ObjectIdentifier(definition)].map { parameters[ObjectIdentifier($0)] != nil } ?? false
                roots.append(Root(definition: definition, holder: current, parameters: parameters[ObjectIdentifier(definition)],
                                  aliasesInitializer: aliased))
            }
            walked = current.parent
        }
        self.roots = roots
        self.aliasTargets = aliasTargets
        // By key: a child's registration that overrides its parent's prints
        // as the parent's does, and is not what makes a step ambiguous.
        var steps: [String: DefinitionKey] = [:]
        var ambiguous: Set<String> = []
        for root in roots {
            let key = root.definition.key
            if let other = steps.updateValue(key, forKey: root.definition.stepText), other != key {
                ambiguous.insert(root.definition.stepText)
            }
        }
        ambiguousSteps = ambiguous
    }

    func begin() {
        for root in roots where root.definition.isAsync && root.definition.sharedBox.load(ordering: .acquiring) != nil {
            sharedBeforePass.insert(ObjectIdentifier(root.definition))
        }
        observation.setRecording(true)
    }

    /// The container to resolve `definition` from: a `.scoped` one, or an
    /// alias of one, from where the pass makes `.scoped` instances.
    func asked(for definition: AnyDefinition) -> Container {
        definition.kind == .scoped || definition.kind == .forwardToScoped ? scopedScope : scope
    }

    /// The container whose registrations `definition`'s factory resolves
    /// with, when it is resolved from `resolving` and held by `holder`, as
    /// the engine decides it: a `.shared` or `.weak` one, its holder; a
    /// `.scoped` one, the nearest scope (where none is, the walk goes on
    /// from `resolving`, the captive dependency reported); any other, `resolving`.
    func container(resolving definition: AnyDefinition, heldBy holder: Container, from resolving: Container) -> Container {
        switch definition.kind {
        case .shared, .weak:
            return holder
        case .scoped:
            return resolving === scope ? scopedScope : resolving.nearestScope?.takeUnretainedValue() ?? resolving
        default:
            return resolving
        }
    }

    /// Why a synchronous resolve of `definition` fails, as the engine's
    /// does, or nil if it does not: an async registration's factory cannot
    /// run, unless its `.shared` instance existed before the pass (the
    /// resolve returns it); a main-actor one runs when the resolve is on
    /// the main actor, and fails elsewhere.
    func synchronousFailure(of definition: AnyDefinition) -> ResolutionError.Reason? {
        guard definition.isAsync, !sharedBeforePass.contains(ObjectIdentifier(definition)) else {
            return nil
        }
        guard definition.factoryRunsOnMainActor else {
            return .registeredAsync
        }
        return MainActorCheck.isCurrent ? nil : .isolatedToMainActor
    }

    /// The scope `definition` is registered in when its disposers would
    /// have no owner, resolved from `resolving`, as its resolve reports it:
    /// a `.weak` one always (nobody owns it), a `.new` or `.graph` one where
    /// no scope is (a singleton's creation above every scope); else nil.
    func ownerlessScope(of definition: AnyDefinition, resolvingFrom resolving: Container) -> Scope? {
        let scopeless = resolving.nearestScope == nil
        let ownerless: Scope? = switch definition.kind {
        case .weak: .weak
        case .new where scopeless: .new
        case .graph where scopeless: .graph
        default: nil
        }
        return ownerless != nil && definition.hasDisposers ? ownerless : nil
    }

    /// Closes the pass's scopes, disposing what it made there; what the
    /// disposers threw, unless one is async (see `closeSynchronously`).
    func closeScopesSynchronously() -> [DisposalError.Failure] {
        let failures = scope.closeSynchronously()
        return scopedScope === scope ? failures : failures + scopedScope.closeSynchronously()
    }

    /// Closes the pass's scopes, awaiting their disposers; what they threw.
    nonisolated(nonsending) func closeScopes() async -> [DisposalError.Failure] {
        var failures: [DisposalError.Failure] = []
        for closing in scopedScope === scope ? [scope] : [scope, scopedScope] {
            do {
                try await closing.close()
            } catch {
                failures += error.failures
            }
        }
        return failures
    }

    /// Whether `root` is resolved by the pass; records why not, if not.
    func shouldRun(_ root: Root, async: Bool) -> Bool {
        if root.isCheckedWithoutRunning {
            return false   // checked by `checkDeclaredParameters`, without running
        }
        if root.definition.isAsync && !async {
            skipped.append(.init(registration: root.definition.stepText, reason: .asyncFactory,
                                 onMainActor: root.definition.factoryRunsOnMainActor))
            return false
        }
        if root.definition.takesArguments && samples.samples[root.definition.key] == nil {
            skipped.append(.init(registration: root.definition.stepText, reason: .runtimeArguments))
            return false
        }
        return true
    }

    /// The arguments to resolve `root` with: its sample's, on the heap, or none.
    func arguments(for root: Root) -> (pointer: UnsafeRawPointer, free: () -> Void) {
        guard root.definition.takesArguments, let sample = samples.samples[root.definition.key] else {
            return (Container.noArguments, {})
        }
        let pointer = sample.make()
        return (UnsafeRawPointer(pointer), { sample.free(pointer) })
    }

    /// Resolves `root` with `resolve`, recording the outcome.
    func run(_ root: Root, _ resolve: (AnyDefinition, Container, UnsafeRawPointer) throws(ResolutionError) -> Void) {
        let arguments = arguments(for: root)
        defer { arguments.free() }
        do throws(ResolutionError) {
            try resolve(root.definition, root.holder, arguments.pointer)
            passed(root)
        } catch {
            failed(root, error)
        }
    }

    /// Resolves `probe` with `resolve`, recording what fails.
    func run(_ probe: Probe, _ resolve: (Probe) throws(ResolutionError) -> Void) {
        do throws(ResolutionError) {
            try resolve(probe)
        } catch {
            failed(probe, error)
        }
    }

    /// A probe's failure, with the path from the root that led to it. A
    /// `.scoped` registration it found no scope for is captured by the
    /// singleton the probe stands in for.
    func failed(_ probe: Probe, _ error: ResolutionError) {
        let path = probe.path + error.path
        if case .noScope = error.reason {
            let scope: Scope = probe.captor.kind == .weak ? .weak : .shared
            add(error.with(reason: .captiveDependency(captor: probe.captor.stepText, captorScope: scope), path: path))
        } else {
            add(error.with(reason: error.reason, path: path))
        }
    }

    func passed(_ root: Root) {
        validated.insert(ObjectIdentifier(root.definition))
    }

    func failed(_ root: Root, _ error: ResolutionError) {
        validated.insert(ObjectIdentifier(root.definition))
        // A request the root made itself: the root is who made it.
        add(error, requester: error.path.count == 2 ? root.definition : nil)
    }

    /// A registration that is not autoregistered, which an autoregistered
    /// `.shared` or `.weak` initialiser (`captor`) depends on, directly or
    /// through autoregistered `.new` and `.graph` ones: only running its
    /// factory shows what it resolves, and the singleton's creation runs
    /// it from the container the singleton resolves from (`resolving`),
    /// above every scope. (A singleton held under a scope is not probed: a
    /// probe would make instances in the user's scope; the registration is
    /// run as a root, in the pass's scope.)
    struct Probe {
        let definition: AnyDefinition
        let holder: Container
        let resolving: Container
        let captor: AnyDefinition
        /// The steps from the root to the initialiser that takes it.
        let path: [String]
    }

    /// Checks each autoregistered initialiser's parameters where its
    /// resolves would look for them, through every autoregistered
    /// initialiser they lead to (a `.shared` one capturing a `.scoped`
    /// instance two levels down is still captive), and the cycles among
    /// such initialisers. Returns the registrations to resolve as the
    /// singletons' creations would (see `Probe`).
    func checkDeclaredParameters() -> [Probe] {
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        var parameters: [ObjectIdentifier: [Any.Type]] = [:]
        for root in roots {
            if let types = root.parameters {
                parameters[ObjectIdentifier(root.definition)] = types
            }
        }
        var walk = DeclaredWalk(pass: self, parameters: parameters)
        for root in roots where root.isCheckedWithoutRunning {
            let definition = root.definition
            validated.insert(ObjectIdentifier(definition))
            // An alias of an initialiser is walked as its target, the
            // registration its resolve produces: that one's own root.
            guard root.parameters != nil else { continue }
            let resolving = container(resolving: definition, heldBy: root.holder, from: scope)
            // As its resolve does, before running anything (only a `.weak`
            // root: the others resolve from the pass's scope or their holder).
            if let ownerless = ownerlessScope(of: definition, resolvingFrom: resolving) {
                add(definition.error(.disposerWithoutOwner(scope: ownerless), path: [definition.stepText]))
            }
            walk.visit(definition, heldBy: root.holder, resolvingFrom: resolving, captor: definition.isSingleton ? definition : nil,
                       path: [definition], isAsync: definition.isAsync)
        }
        var cycles = CycleSearch(next: walk.next)
        for root in roots where root.parameters != nil {
            cycles.visit(root.definition)
        }
        for cycle in cycles.found {
            add(cycle[0].error(.cycle, path: cycle.map(\.stepText)))
        }
        return walk.probes
    }

    /// The static walk of `checkDeclaredParameters`. Each registration is
    /// walked once per (container it resolves from, singleton that would
    /// capture it): what it finds depends on nothing else, so the walk is
    /// linear in the graph, not in its paths.
    ///
    /// An alias is seen through: its resolve produces its target from the
    /// container it was resolved from, in the target's frame (an alias has
    /// none of its own), so the walk goes to the target as if the parameter
    /// had found it.
    struct DeclaredWalk {
        let pass: ValidationPass
        let parameters: [ObjectIdentifier: [Any.Type]]
        /// Each autoregistered definition's autoregistered parameters.
        var next: [ObjectIdentifier: [CycleSearch.Dependency]] = [:]
        /// Once per (registration, container it is resolved from).
        private(set) var probes: [Probe] = []
        private var seen: Set<[ObjectIdentifier?]> = []
        private var probed: Set<[ObjectIdentifier]> = []

        init(pass: ValidationPass, parameters: [ObjectIdentifier: [Any.Type]]) {
            self.pass = pass
            self.parameters = parameters
        }

        mutating func visit(_ definition: AnyDefinition, heldBy holder: Container, resolvingFrom resolving: Container,
                            captor: AnyDefinition?, path: [AnyDefinition], isAsync: Bool) {
            let id = ObjectIdentifier(definition)
            guard seen.insert([id, ObjectIdentifier(resolving), captor.map(ObjectIdentifier.init)]).inserted else { return }
            for (found, foundHolder, alias) in dependencies(of: definition, heldBy: holder, resolvingFrom: resolving, path: path) {
                // The alias is a step of the path, as in the resolve's errors
                // (see `ResolutionError.throughAlias`).
                let path = alias.map { path + [$0] } ?? path
                check(found, heldBy: foundHolder, requester: definition, resolvingFrom: resolving, captor: captor,
                      path: path, isAsync: isAsync)
                guard parameters[ObjectIdentifier(found)] != nil else { continue }
                if !(next[id]?.contains { $0.target === found && $0.alias === alias } ?? false) {
                    next[id, default: []].append(CycleSearch.Dependency(target: found, alias: alias))
                }
                guard !path.contains(where: { $0 === found }) else { continue }   // a cycle: `CycleSearch` reports it
                visit(found, heldBy: foundHolder, resolvingFrom: pass.container(resolving: found, heldBy: foundHolder, from: resolving),
                      captor: found.isSingleton ? found : captor, path: path + [found], isAsync: found.isAsync)
            }
        }

        /// The registrations `definition`'s initialiser parameters resolve,
        /// found from `resolving`, an alias's target for the alias (and the
        /// alias): reports those that are missing, and records the edges.
        private func dependencies(of definition: AnyDefinition, heldBy holder: Container, resolvingFrom resolving: Container,
                                  path: [AnyDefinition]) -> [(AnyDefinition, Container, alias: AnyDefinition?)] {
            var dependencies: [(AnyDefinition, Container, alias: AnyDefinition?)] = []
            for type in parameters[ObjectIdentifier(definition)] ?? [] {
                guard let (found, foundHolder) = resolving.locateDefinition(of: type) else {
                    pass.add(resolving.missingParameter(type, path: path.map(\.stepText)), requester: definition)
                    continue
                }
                if let from = NodeIdentity.of(definition, heldBy: holder), let to = NodeIdentity.of(found, heldBy: foundHolder) {
                    pass.observation.record(ObservedEdge(from: from, to: to, origin: .initializer),
                                            target: to.holder == .scope ? .scopeHeld(found.kind) : nil)
                }
                // The alias and its target have one holder.
                if let target = pass.aliasTargets[ObjectIdentifier(found)] {
                    dependencies.append((target, foundHolder, alias: found))
                } else {
                    dependencies.append((found, foundHolder, alias: nil))
                }
            }
            return dependencies
        }

        /// Reports what resolving `found` from `resolving` for `requester`
        /// fails with before its factory runs, or, for a registration that
        /// is not walked, what would make its factory run (a probe).
        /// `scopeless`: a singleton's creation above every scope, where a
        /// `.scoped` instance is captive (and a `.new` or `.graph` one with
        /// disposers has no owner: see `ownerlessScope`).
        private mutating func check(_ found: AnyDefinition, heldBy foundHolder: Container, requester: AnyDefinition,
                                    resolvingFrom resolving: Container, captor: AnyDefinition?, path: [AnyDefinition], isAsync: Bool) {
            let steps = (path + [found]).map(\.stepText)
            let scopeless = resolving.nearestScope == nil
            if found.kind == .scoped, scopeless, let captor {
                pass.add(found.error(.captiveDependency(captor: captor.stepText, captorScope: captor.kind == .weak ? .weak : .shared), path: steps),
                         requester: requester)
                return
            }
            if !isAsync, let reason = pass.synchronousFailure(of: found) {
                pass.add(found.error(reason, path: steps), requester: requester)
                return
            }
            if let ownerless = pass.ownerlessScope(of: found, resolvingFrom: resolving) {
                pass.add(found.error(.disposerWithoutOwner(scope: ownerless), path: steps), requester: requester)
            }
            // A singleton that is not autoregistered is a root the pass
            // resolves from its holder, where its own captives show.
            if let captor, scopeless, parameters[ObjectIdentifier(found)] == nil, !found.isSingleton,
               probed.insert([ObjectIdentifier(found), ObjectIdentifier(resolving)]).inserted {
                probes.append(Probe(definition: found, holder: foundHolder, resolving: resolving, captor: captor,
                                    path: path.map(\.stepText)))
            }
        }
    }

    /// Depth-first search with the usual three colours over the
    /// autoregistered initialisers: each edge is followed once, and one that
    /// leads back onto the current path is a cycle.
    struct CycleSearch {
        /// An initialiser's parameter: the registration it resolves, and
        /// the alias it asks for it by, if any.
        struct Dependency {
            let target: AnyDefinition
            let alias: AnyDefinition?
        }

        let next: [ObjectIdentifier: [Dependency]]
        private var done: Set<ObjectIdentifier> = []
        /// The path: each registration, with the alias it was reached by.
        private var stack: [Dependency] = []
        /// Each cycle's steps, from its first registration back to it,
        /// aliases included, as a resolve's cycle error lists them.
        private(set) var found: [[AnyDefinition]] = []

        init(next: [ObjectIdentifier: [Dependency]]) {
            self.next = next
        }

        mutating func visit(_ definition: AnyDefinition, through alias: AnyDefinition? = nil) {
            let id = ObjectIdentifier(definition)
            guard !done.contains(id) else { return }
            stack.append(Dependency(target: definition, alias: alias))
            for dependency in next[id] ?? [] {
                if let start = stack.firstIndex(where: { $0.target === dependency.target }) {
                    let steps = stack[(start + 1)...] + [dependency]
                    found.append([stack[start].target] + steps.flatMap { [$0.alias, $0.target].compactMap { $0 } })
                } else {
                    visit(dependency.target, through: dependency.alias)
                }
            }
            stack.removeLast()
            done.insert(id)
        }
    }

    /// Keeps `error` unless the same problem was found already; of two
    /// sightings, the one with the shorter path (closer to its cause) stays.
    /// `requester`: the registration that made the failed request, when the
    /// caller knows it.
    func add(_ error: ResolutionError, requester: AnyDefinition? = nil) {
        let key = identity(of: error, requester: requester)
        if let index = problemIndex[key] {
            if error.path.count < problems[index].path.count {
                problems[index] = error
            }
            return
        }
        problemIndex[key] = problems.count
        problems.append(error)
    }

    /// What makes two errors the same problem, whichever root found them:
    /// a cycle is its set of steps; a fault of a registration (a throwing
    /// factory, say), that registration; a faulty request, the request and
    /// the registration that made it.
    ///
    /// The request by its type's identity, not only its text: two types of
    /// one name from two modules (`ModuleA.Config`, `ModuleB.Config`) print
    /// alike, and were one problem. The requester by its step, unless two
    /// registrations print that step alike: then by its identity when the
    /// caller knows it, else by the whole path to it (a problem reached from
    /// two roots may then be listed twice, rather than two listed once).
    private func identity(of error: ResolutionError, requester: AnyDefinition?) -> String {
        let request = "\(ObjectIdentifier(error.type)) \(error.request)"
        let reason: String
        switch error.reason {
        case .cycle:
            let steps = error.path
            let start = steps.dropLast().lastIndex(of: steps.last ?? "") ?? 0
            return "cycle " + Set(steps[start...]).sorted().joined(separator: " ")
        // A fault of the registration itself, wherever it was reached from.
        case .factoryFailed: return "factory " + request
        case .incompatibleAlias: return "alias " + request
        case .disposerWithoutOwner: return "disposer " + request
        case .closed: return "closed " + request
        // A fault of the request: once per registration that makes it.
        case .notRegistered: reason = "missing"
        case .argumentMismatch: reason = "arguments"
        case .noScope: reason = "noScope"
        case .captiveDependency: reason = "captive"
        case .registeredAsync: reason = "async"
        case .cancelled: reason = "cancelled"
        case .isolatedToMainActor: reason = "mainActor"
        }
        let step = error.path.dropLast().last ?? ""
        let from = !ambiguousSteps.contains(step) ? step
            : requester.map { "\(ObjectIdentifier($0))" } ?? error.path.dropLast().joined(separator: " → ")
        return "\(reason) \(request) from \(from)"
    }

    /// Ends the pass: keeps its edges for `dependencyGraph()` and throws what it found.
    func end(disposalFailures: [DisposalError.Failure]) throws(ValidationError) -> ValidationReport {
        observation.setRecording(false)
        container.observation.absorb(observation)
        // A sample no registration takes (other argument types, a wrong
        // name): its registration was listed as not validated, and the
        // sample would otherwise go unnoticed.
        let keys = Set(roots.map(\.definition.key))
        for error in samples.samples.filter({ !keys.contains($0.key) }).values.map({ $0.unmatched(container) })
            .sorted(by: { $0.request < $1.request }) {
            add(error)
        }
        let checked = roots.filter { validated.contains(ObjectIdentifier($0.definition)) }
        let report = ValidationReport(validated: checked.map(\.definition.stepText), skipped: skipped)
        guard problems.isEmpty && disposalFailures.isEmpty else {
            throw ValidationError(problems: problems, disposalFailures: disposalFailures, report: report)
        }
        return report
    }
}

extension Container {
    /// The argument-free, unnamed registration of `type` a resolve from
    /// here finds, and its holder. Inside a read-side section.
    func locateDefinition(of type: Any.Type) -> (AnyDefinition, Container)? {
        locate(type: typeIdentity(type), signature: NoArguments.identity).map {
            (Unmanaged<AnyDefinition>.fromOpaque($0.definition).takeUnretainedValue(), $0.holder.takeUnretainedValue())
        }
    }

    /// The error for an autoregistered initialiser's parameter of `type`
    /// that nothing is registered for, seen from this container; `path`
    /// leads to the initialiser.
    func missingParameter(_ type: Any.Type, path: [String]) -> ResolutionError {
        func missing<P>(_: P.Type) -> ResolutionError {
            notRegistered(P.self, name: nil, signature: NoArguments.identity, argumentTypes: [],
                          path: path + [TypeName.step(P.self, name: nil, argumentTypes: [])], observed: false)
        }
        return missing(type)
    }
}
