/// What `validate()` checked, and what it could not.
///
/// ```swift
/// let report = try container.validate()
/// print(report)
/// // 41 registrations validated; not validated:
/// //   • Endpoint(String, Int): takes runtime arguments; give it a sample with `SampleArguments.add(for:name:arguments:)`
/// ```
public struct ValidationReport: Sendable, CustomStringConvertible {
    /// A registration the pass could not check.
    public struct Skipped: Sendable, Hashable {
        /// Why a registration was not checked.
        public enum Reason: Sendable, Hashable {
            /// It takes runtime arguments, and `SampleArguments` had none for it.
            case runtimeArguments
            /// Its factory is async or isolated to the main actor, and the pass
            /// was the synchronous `validate()`; `validateAsync()` checks it.
            case asyncFactory
        }

        /// The registration as error paths print it, e.g. `Endpoint(String, Int)`.
        public let registration: String
        /// Why it was not checked.
        public let reason: Reason
        /// For `.asyncFactory`: the factory is a synchronous one isolated to
        /// the main actor, which the report says rather than "async".
        let onMainActor: Bool

        init(registration: String, reason: Reason, onMainActor: Bool = false) {
            self.registration = registration
            self.reason = reason
            self.onMainActor = onMainActor
        }
    }

    /// The registrations checked, as error paths print them, in
    /// registration order: the container's own, then each parent's (not
    /// the order the pass checked them in).
    public let validated: [String]
    /// The registrations not checked, and why.
    public let skipped: [Skipped]

    /// `41 registrations validated`, then what was not, one per line.
    public var description: String {
        var text = "\(validated.count) registration\(validated.count == 1 ? "" : "s") validated"
        if !skipped.isEmpty {
            text += "; not validated:"
            for item in skipped {
                switch item.reason {
                case .runtimeArguments:
                    text += "\n  • \(item.registration): takes runtime arguments; give it a sample with `SampleArguments.add(for:name:arguments:)`"
                case .asyncFactory:
                    let factory = item.onMainActor ? "isolated to the main actor" : "async"
                    text += "\n  • \(item.registration): its factory is \(factory); `validateAsync()` checks it"
                }
            }
        }
        return text
    }
}

/// Everything `validate()` found wrong, at once.
///
/// ```swift
/// do {
///     try container.validate()
/// } catch {
///     print(error)   // Syringe found 3 problems in 41 validated registrations: … each with its path and near matches
///     for problem in error.problems { if case .notRegistered = problem.reason { … } }
/// }
/// ```
public struct ValidationError: Error, Sendable, CustomStringConvertible {
    /// Each problem once, as a resolve would have reported it (its reason,
    /// path and near matches), in the order found.
    public let problems: [ResolutionError]
    /// What disposers threw when the pass closed the scope it resolved in.
    public let disposalFailures: [DisposalError.Failure]
    /// What was checked and what was not.
    public let report: ValidationReport

    /// Every problem, numbered, as `ResolutionError` prints it, then what
    /// was not validated.
    public var description: String {
        let count = problems.count + disposalFailures.count
        var text = "Syringe found \(count) problem\(count == 1 ? "" : "s") in \(report.validated.count) validated registration\(report.validated.count == 1 ? "" : "s"):"
        for (index, problem) in problems.enumerated() {
            let lines = problem.description.split(separator: "\n", omittingEmptySubsequences: false)
            text += "\n\n\(index + 1). " + lines.joined(separator: "\n   ")
        }
        for (index, failure) in disposalFailures.enumerated() {
            text += "\n\n\(problems.count + index + 1). disposing \(failure.service) after validation threw \(TypeName.bounded(String(describing: failure.error)))."
        }
        if !report.skipped.isEmpty {
            text += "\n\n" + report.description
        }
        return text
    }
}
