import Foundation

/// Runs `swiftc -typecheck` on `source` (a single file is its own
/// `main.swift`) against the Syringe module this test binary was built
/// with; returns the compiler's exit status and output. For tests of what
/// the compiler says about code that uses Syringe (`Tests/Misuse`, README
/// snippets that are whole programs).
func typecheckAgainstSyringe(_ source: URL) throws -> (status: Int32, output: String) {
    // The test binary sits in the build's products folder, beside
    // `Modules/` and the C module's generated module map.
    let products = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    var arguments = ["swiftc", "-typecheck", "-swift-version", "6",
                     "-I", products.appendingPathComponent("Modules").path,
                     "-Xcc", "-fmodule-map-file=\(products.appendingPathComponent("CSyringeTable.build/module.modulemap").path)",
                     // The C table's header includes <xxhash.h>, found as the build finds it.
                     "-Xcc", "-fmodule-map-file=\(root.appendingPathComponent("Sources/CXXHash/module.modulemap").path)"]
    for include in ["/opt/homebrew/include", "/usr/local/include"] where FileManager.default.fileExists(atPath: include) {
        arguments += ["-Xcc", "-I\(include)"]
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments + [source.path]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
