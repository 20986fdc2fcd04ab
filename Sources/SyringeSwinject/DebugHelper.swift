#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
@_spi(SyringeSwinject) import Syringe

/// Told of every resolve that finds nothing, with what was asked and what is
/// registered (the container's and its ancestors' registrations).
protocol DebugHelper {
    func resolutionFailed<Service>(serviceType: Service.Type, key: ServiceKey, availableRegistrations: [ServiceKey: ServiceEntryProtocol])
}

/// The default debug helper: logs the request and the registrations of the
/// same service type through `Container.loggingFunction`.
final class LoggingDebugHelper: DebugHelper {
    func resolutionFailed<Service>(serviceType: Service.Type, key: ServiceKey, availableRegistrations: [ServiceKey: ServiceEntryProtocol]) {
        var lines = [
            "Swinject: Resolution failed. Expected registration:",
            "\t{ Service: \(serviceType)\(key.name.map { ", Name: \"\($0)\"" } ?? "")\(key.option.map { ", \($0)" } ?? ""), "
                + "Factory: \(key.argumentsType) -> \(key.serviceType) }",
            "Available registrations:",
        ]
        lines += availableRegistrations
            .filter { $0.value is ServiceEntry<Service> }
            .map { "\t{ " + $0.value.describeWithKey($0.key) + " }" }
            .sorted()
        Container.log(lines.joined(separator: "\n"))
    }
}

extension Container {
    /// Where the container's diagnostics go: failed resolves with the
    /// registrations that were available, and circular dependencies that
    /// never end. By default they are printed when the environment variable
    /// `SWINJECT_LOGGING_ENABLED` is `1` when the first is logged (Swinject
    /// reads it at each message), and it is nil otherwise; set a function to
    /// send them elsewhere, or nil to turn them off.
    ///
    /// ```swift
    /// Container.loggingFunction = { message in logger.debug("\(message)") }
    /// Container.loggingFunction = nil
    /// ```
    public static var loggingFunction: (@Sendable (String) -> Void)? {
        get { loggingLock.withLock { loggingStorage } }
        set { loggingLock.withLock { loggingStorage = newValue } }
    }

    // Syringe's pthread lock rather than `Mutex`, which ThreadSanitizer does
    // not see on Linux.
    private static let loggingLock = Lock()
    nonisolated(unsafe) private static var loggingStorage: (@Sendable (String) -> Void)? = printIfEnabled

    /// The default: `print`, when `SWINJECT_LOGGING_ENABLED` is `1`, read once
    /// (Swinject reads it on every message). Nil otherwise, so that a failed
    /// resolve with logging off describes nothing: listing every registration
    /// takes each ancestor's writer lock and builds a string per entry.
    private static let printIfEnabled: (@Sendable (String) -> Void)? = {
        guard let enabled = getenv("SWINJECT_LOGGING_ENABLED"), String(cString: enabled) == "1" else {
            return nil
        }
        return { print($0) }
    }()

    static func log(_ message: String) {
        loggingFunction?(message)
    }
}
