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
    ///   initialiser's parameter types, without running it (a cycle between
    ///   such registrations too).
    /// - Every other registration is resolved once, as a request would:
    ///   its factory runs, and so do the factories of what it resolves.
    ///   A factory stops at its first failing resolve, so a problem behind
    ///   another in the same factory shows once the first is fixed.
    ///   Registrations with runtime arguments run with the arguments in
    ///   `samples`, or are listed as not validated. Async factories are
    ///   listed as not validated: `validateAsync()` runs them.
    /// - Resolves run in a scope made for the pass (a child of this
    ///   container), so `.scoped` registrations resolve as in a request;
    ///   the pass closes it at the end, disposing what it created there.
    /// - `.shared` instances created by the pass are **kept**: validating
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
                try definition.resolveForValidation(from: pass.scope, holder: holder, arguments: arguments)
            }
        }
        context.observation = outer
        pass.checkDeclaredParameters()
        return try pass.end(disposalFailures: pass.scope.closeSynchronously())
    }

    /// `validate()` that also runs async factories, and awaits the disposal
    /// of what the pass created in its scope.
    ///
    /// ```swift
    /// try await app.validateAsync()
    /// ```
    @discardableResult
    nonisolated(nonsending) public func validateAsync(samples: SampleArguments = SampleArguments()) async throws(ValidationError) -> ValidationReport {
        let pass = ValidationPass(container: self, samples: samples)
        pass.begin()
        let roots = pass.roots.filter { pass.shouldRun($0, async: true) }
        // Bound for the pass: every async resolve, and every synchronous one
        // it hands to the synchronous engine, reports to the pass.
        await Observation.$current.withValue(ObservedResolve(observation: pass.observation)) {
            for root in roots {
                let arguments = pass.arguments(for: root)
                do throws(ResolutionError) {
                    try await root.definition.resolveForValidationAsync(from: pass.scope, holder: root.holder, arguments: arguments.pointer)
                    pass.passed(root)
                } catch {
                    pass.failed(root, error)
                }
                arguments.free()
            }
        }
        pass.checkDeclaredParameters()
        var disposalFailures: [DisposalError.Failure] = []
        do {
            try await pass.scope.close()
        } catch {
            disposalFailures = error.failures
        }
        return try pass.end(disposalFailures: disposalFailures)
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
    }

    let container: Container
    let samples: SampleArguments
    /// Where the pass resolves: a scope, so that `.scoped` registrations
    /// resolve as in a request.
    let scope: Container
    let observation = Observation()
    /// The container's registrations, nearest first, then each parent's.
    let roots: [Root]
    private var problems: [ResolutionError] = []
    private var problemIndex: [String: Int] = [:]
    private var validated: [String] = []
    private var skipped: [ValidationReport.Skipped] = []

    init(container: Container, samples: SampleArguments) {
        self.container = container
        self.samples = samples
        self.scope = Container(parent: container, isScope: true)
        var roots: [Root] = []
        var walked: Container? = container
        while let current = walked {
            let (ordered, parameters) = current.writerLock.withLock { (current.registry.ordered, current.registry.parameters) }
            for case let definition? in ordered where definition.kind != .scopeLocal {
                roots.append(Root(definition: definition, holder: current, parameters: parameters[ObjectIdentifier(definition)]))
            }
            walked = current.parent
        }
        self.roots = roots
    }

    func begin() {
        observation.setRecording(true)
    }

    /// Whether `root` is resolved by the pass; records why not, if not.
    func shouldRun(_ root: Root, async: Bool) -> Bool {
        if root.parameters != nil {
            return false   // checked by `checkDeclaredParameters`, without running
        }
        if root.definition.isAsync && !async {
            skipped.append(.init(registration: root.definition.stepText, reason: .asyncFactory))
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

    func passed(_ root: Root) {
        validated.append(root.definition.stepText)
    }

    func failed(_ root: Root, _ error: ResolutionError) {
        validated.append(root.definition.stepText)
        add(error)
    }

    /// Checks each autoregistered initialiser's parameters where its
    /// resolves would look for them, and the cycles among such initialisers.
    func checkDeclaredParameters() {
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        // Each autoregistered definition's parameters that are themselves autoregistered.
        var next: [ObjectIdentifier: [AnyDefinition]] = [:]
        let declared = roots.filter { $0.parameters != nil }
        let autoregistered = Set(declared.map { ObjectIdentifier($0.definition) })
        for root in declared {
            validated.append(root.definition.stepText)
            let resolving = root.definition.resolvesFromHolder ? root.holder : scope
            for type in root.parameters ?? [] {
                if let (found, holder) = resolving.locateDefinition(of: type) {
                    check(root, dependsOn: found)
                    if let from = NodeIdentity.of(root.definition, heldBy: root.holder), let to = NodeIdentity.of(found, heldBy: holder) {
                        observation.report(nil, edge: ObservedEdge(from: from, to: to, origin: .initializer))
                    }
                    if autoregistered.contains(ObjectIdentifier(found)) {
                        next[ObjectIdentifier(root.definition), default: []].append(found)
                    }
                } else {
                    add(resolving.missingParameter(type, of: root.definition))
                }
            }
        }
        for root in declared {
            findCycles(from: root.definition, next: next, path: [], onPath: [])
        }
    }

    /// What resolving `found` from `root`'s initialiser would fail with.
    private func check(_ root: Root, dependsOn found: AnyDefinition) {
        let path = [root.definition.stepText, found.stepText]
        let captor = root.definition
        if captor.kind == .shared || captor.kind == .weak, found.kind == .scoped || found.kind == .forwardToScoped {
            add(found.error(.captiveDependency(captor: captor.stepText, captorScope: captor.kind == .weak ? .weak : .shared), path: path))
        } else if found.isAsync && !captor.isAsync {
            add(found.error(.registeredAsync, path: path))
        }
    }

    /// Depth-first over autoregistered initialisers: a parameter that leads
    /// back onto the current path is a cycle (the engine would report it on
    /// the first resolve).
    private func findCycles(from definition: AnyDefinition, next: [ObjectIdentifier: [AnyDefinition]],
                            path: [AnyDefinition], onPath: Set<ObjectIdentifier>) {
        let path = path + [definition]
        let onPath = onPath.union([ObjectIdentifier(definition)])
        for dependency in next[ObjectIdentifier(definition)] ?? [] {
            if onPath.contains(ObjectIdentifier(dependency)) {
                let start = path.firstIndex { $0 === dependency } ?? 0
                let steps = path[start...].map(\.stepText) + [dependency.stepText]
                add(dependency.error(.cycle, path: steps))
            } else if path.count < 64 {
                findCycles(from: dependency, next: next, path: path, onPath: onPath)
            }
        }
    }

    /// Keeps `error` unless the same problem was found already; of two
    /// sightings, the one with the shorter path (closer to its cause) stays.
    private func add(_ error: ResolutionError) {
        let key = Self.identity(of: error)
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
    private static func identity(of error: ResolutionError) -> String {
        let reason: String
        switch error.reason {
        case .cycle:
            let steps = error.path
            let start = steps.dropLast().lastIndex(of: steps.last ?? "") ?? 0
            return "cycle " + Set(steps[start...]).sorted().joined(separator: " ")
        // A fault of the registration itself, wherever it was reached from.
        case .factoryFailed: return "factory " + error.request
        case .incompatibleAlias: return "alias " + error.request
        case .disposerWithoutOwner: return "disposer " + error.request
        case .closed: return "closed " + error.request
        // A fault of the request: once per registration that makes it.
        case .notRegistered: reason = "missing"
        case .argumentMismatch: reason = "arguments"
        case .noScope: reason = "noScope"
        case .captiveDependency: reason = "captive"
        case .registeredAsync: reason = "async"
        case .cancelled: reason = "cancelled"
        case .isolatedToMainActor: reason = "mainActor"
        }
        return "\(reason) \(error.request) from \(error.path.dropLast().last ?? "")"
    }

    /// Ends the pass: keeps its edges for `dependencyGraph()` and throws what it found.
    func end(disposalFailures: [DisposalError.Failure]) throws(ValidationError) -> ValidationReport {
        observation.setRecording(false)
        container.observation.absorb(observation)
        let report = ValidationReport(validated: validated, skipped: skipped)
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
    /// that nothing is registered for, seen from this container.
    func missingParameter(_ type: Any.Type, of definition: AnyDefinition) -> ResolutionError {
        func missing<P>(_: P.Type) -> ResolutionError {
            notRegistered(P.self, name: nil, signature: NoArguments.identity, argumentTypes: [],
                          path: [definition.stepText, TypeName.step(P.self, name: nil, argumentTypes: [])], observed: false)
        }
        return missing(type)
    }
}
