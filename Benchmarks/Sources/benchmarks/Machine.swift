#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the results were measured on, printed at the top of every run.
struct Machine {
    let cpu: String
    let logicalCPUs: Int
    let architecture: String
    let system: String
    let compiler: String
    let date: String
    /// /proc/loadavg's 1-minute load when the run started: other work on the machine skews results.
    let load: String

    static func current() -> Machine {
        var names = utsname()
        uname(&names)
        func field<T>(_ value: inout T) -> String {
            withUnsafeBytes(of: &value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        return Machine(
            cpu: cpuModel(),
            logicalCPUs: sysconf(Int32(_SC_NPROCESSORS_ONLN)),
            architecture: field(&names.machine),
            system: "\(field(&names.sysname)) \(field(&names.release))",
            compiler: compilerVersion,
            date: isoDate(),
            load: loadAverage()
        )
    }

    /// The "model name" line of /proc/cpuinfo.
    private static func cpuModel() -> String {
        guard let file = fopen("/proc/cpuinfo", "r") else { return "unknown CPU" }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0 {
            let text = String(cString: line!)
            if text.hasPrefix("model name") || text.hasPrefix("Model") || text.hasPrefix("cpu model") {
                if let colon = text.firstIndex(of: ":") {
                    return String(text[text.index(after: colon)...]).trimmingSpaces()
                }
            }
        }
        return "unknown CPU"
    }

    private static func loadAverage() -> String {
        guard let file = fopen("/proc/loadavg", "r") else { return "n/a" }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 128)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return "n/a" }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(text.split(separator: " ").first ?? "n/a")
    }

    private static func isoDate() -> String {
        var seconds = time(nil)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S UTC", &parts)
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension String {
    func trimmingSpaces() -> String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}

/// The version of the compiler that built this binary.
let compilerVersion: String = {
    #if compiler(>=6.5)
    return "6.5 or later"
    #elseif compiler(>=6.4)
    return "6.4"
    #elseif compiler(>=6.3.4)
    return "6.3.4 or later 6.3"
    #elseif compiler(>=6.3.3)
    return "6.3.3"
    #elseif compiler(>=6.3.2)
    return "6.3.2"
    #elseif compiler(>=6.3.1)
    return "6.3.1"
    #elseif compiler(>=6.3)
    return "6.3"
    #elseif compiler(>=6.2)
    return "6.2"
    #elseif compiler(>=6.1)
    return "6.1"
    #else
    return "older than 6.1"
    #endif
}()
