public import Syringe
public import Testing

/// Validates `container` (see `Container.validate(samples:)`) and records
/// one test issue per problem found, each with its path and near matches,
/// at the caller's line. Returns the report: what was checked, and what
/// could not be.
///
/// ```swift
/// @Test func wiringIsComplete() {
///     expectValid(AppWiring.makeContainer())
/// }
/// ```
@discardableResult
public func expectValid(
    _ container: Container,
    samples: SampleArguments = SampleArguments(),
    sourceLocation: SourceLocation = #_sourceLocation
) -> ValidationReport {
    do {
        return try container.validate(samples: samples)
    } catch {
        record(error, sourceLocation: sourceLocation)
        return error.report
    }
}

/// `expectValid` for containers with async factories: validates with
/// `validateAsync`, on the caller's actor (a main-actor test validates
/// main-actor registrations as the app resolves them there).
///
/// ```swift
/// @Test func wiringIsComplete() async {
///     await expectValidAsync(AppWiring.makeContainer())
/// }
/// ```
@discardableResult
nonisolated(nonsending) public func expectValidAsync(
    _ container: Container,
    samples: SampleArguments = SampleArguments(),
    sourceLocation: SourceLocation = #_sourceLocation
) async -> ValidationReport {
    do {
        return try await container.validateAsync(samples: samples)
    } catch {
        record(error, sourceLocation: sourceLocation)
        return error.report
    }
}

private func record(_ error: ValidationError, sourceLocation: SourceLocation) {
    for problem in error.problems {
        Issue.record(Comment(rawValue: problem.description), sourceLocation: sourceLocation)
    }
    for failure in error.disposalFailures {
        Issue.record(Comment(rawValue: "disposing \(failure.service) after validation threw \(failure.error)"), sourceLocation: sourceLocation)
    }
}
