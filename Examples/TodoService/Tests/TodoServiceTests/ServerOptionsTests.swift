import Foundation
import Testing

/// `TodoServer`'s command line, run as a process: the binary is built
/// beside the test bundle (`swift build --build-tests` builds every target).
@Suite struct ServerOptionsTests {
    struct Run {
        var status: Int32
        var output: String
    }

    func todoServer(_ arguments: String...) throws -> Run {
        let binary = try #require(
            Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent("TodoServer"),
            "no test bundle path"
        )
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "TodoServer is not built at \(binary.path)")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self))
    }

    @Test(arguments: ["-1", "65536", "99999", "eighty"])
    func aPortOutside0To65535IsAUsageError(port: String) throws {
        // A database it cannot open: were the port accepted, the server
        // would stop there with status 1 rather than start listening.
        let run = try todoServer("--port", port, "--database", "/nonexistent/todos.sqlite")
        #expect(run.status == 2)
        #expect(run.output.contains("--port is a number from 0 to 65535"), "\(run.output)")
    }

    @Test(arguments: ["0", "-2", "soon"])
    func aShutdownTimeoutThatIsNotAPositiveNumberIsAUsageError(seconds: String) throws {
        let run = try todoServer("--shutdown-timeout", seconds, "--database", "/nonexistent/todos.sqlite")
        #expect(run.status == 2)
        #expect(run.output.contains("--shutdown-timeout is a number of seconds above 0"), "\(run.output)")
    }

    @Test(arguments: ["--help", "-h"])
    func helpPrintsTheUsageAndExits0(flag: String) throws {
        let run = try todoServer(flag)
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("usage: TodoServer"), "\(run.output)")
    }
}
