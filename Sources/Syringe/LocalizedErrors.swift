#if canImport(FoundationEssentials)
public import FoundationEssentials
#elseif canImport(Foundation)
public import Foundation
#endif

// `error.localizedDescription` is what most apps log. Without these
// conformances it reads "The operation could not be completed.
// (Syringe.ResolutionError error 1.)"; with them, each error's full
// description: the request, the path and the near matches.

extension ResolutionError: LocalizedError {
    /// The full diagnostic, as `description`, for `localizedDescription`.
    ///
    /// ```swift
    /// catch { logger.error("\(error.localizedDescription)") }
    /// ```
    public var errorDescription: String? { description }
}

extension ValidationError: LocalizedError {
    /// Every problem, as `description`, for `localizedDescription`.
    ///
    /// ```swift
    /// catch { logger.error("\(error.localizedDescription)") }
    /// ```
    public var errorDescription: String? { description }
}

extension DisposalError: LocalizedError {
    /// What the disposers threw, as `description`, for `localizedDescription`.
    ///
    /// ```swift
    /// catch { logger.error("\(error.localizedDescription)") }
    /// ```
    public var errorDescription: String? { description }
}
