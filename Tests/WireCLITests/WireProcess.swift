// WireProcess: runs the built `wire` binary the way a user does — as a child process with arguments —
// and collects its exit status, stdout and stderr; `underPseudoTerminal` runs it with a terminal on
// stdin, stdout and stderr through util-linux `script`. Every wait happens on a dispatch thread, never on
// the cooperative pool: the fixture server a test runs wire against needs those threads to answer.
// Test support only; Foundation is fine here.

import Foundation
import Testing

/// What one run of `wire` produced.
struct WireResult {
    var status: Int32
    var standardOutput: String
    var standardError: String
    /// stdout as bytes, for bodies that are not text (empty for runs that only collect text).
    var outputBytes: [UInt8] = []
}

/// Finds and runs the `wire` executable that the test run built.
enum WireProcess {
    /// `wire` sits in the products directory next to the test bundle (`.../debug/HTTPWirePackageTests.xctest`),
    /// whatever the scratch path, because the test target depends on the wire target.
    static func executablePath() throws -> String {
        let testExecutable = try #require(Bundle.main.executableURL, "the test process has no executable URL")
        let candidate = testExecutable.resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("wire").path
        try #require(FileManager.default.isExecutableFile(atPath: candidate), "wire not built at \(candidate)")
        return candidate
    }

    /// Runs `wire` under a pseudo-terminal of `columns` columns: `script -qec` starts a shell whose stdin,
    /// stdout and stderr are the terminal; `-e` returns wire's exit status. stdout and stderr arrive merged,
    /// as a user sees them, with the terminal's newline translation ("\n" becomes "\r\n").
    static func underPseudoTerminal(_ arguments: [String], columns: Int = 80) async throws -> WireResult {
        let command = ([try executablePath()] + arguments).map(shellQuoted).joined(separator: " ")
        let shell = "stty cols \(columns) rows 24; exec \(command)"
        let running = try RunningWire(
            executable: "/usr/bin/script", arguments: ["-qec", shell, "/dev/null"], directory: nil)
        return try await running.finish()
    }

    /// Runs `wire arguments...` without blocking a thread of the cooperative pool while it runs (the fixture
    /// server of the same test needs those threads to answer it).
    static func run(_ arguments: [String], in directory: String? = nil) async throws -> WireResult {
        let running = try start(arguments, in: directory)
        return try await running.finish()
    }

    /// Starts `wire arguments...` and returns at once, so a test can signal it mid-way.
    static func start(_ arguments: [String], in directory: String? = nil) throws -> RunningWire {
        try RunningWire(executable: executablePath(), arguments: arguments, directory: directory)
    }

    /// Runs a shell command line (`sh -c`) in which `$WIRE` is the wire binary, for pipelines.
    static func shell(_ commandLine: String) async throws -> WireResult {
        let running = try RunningWire(
            executable: "/bin/sh", arguments: ["-c", commandLine], directory: nil,
            environment: ["WIRE": try executablePath()])
        return try await running.finish()
    }

    /// `text` as one single-quoted shell word.
    private static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// A `wire` process that is still running: signal it, then wait for its result.
final class RunningWire: @unchecked Sendable {
    private let process = Process()
    private let directory: URL
    private let outputURL: URL
    private let errorURL: URL

    init(
        executable: String, arguments: [String], directory workingDirectory: String?,
        environment: [String: String] = [:]
    )
        throws
    {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("wire-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        outputURL = directory.appendingPathComponent("stdout")
        errorURL = directory.appendingPathComponent("stderr")
        try #require(FileManager.default.createFile(atPath: outputURL.path, contents: nil))
        try #require(FileManager.default.createFile(atPath: errorURL.path, contents: nil))
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
    }

    /// The child's process id.
    var pid: Int32 { process.processIdentifier }

    /// Sends `signal` (SIGINT, SIGKILL, ...) to the child.
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// The bytes the child has written to stdout so far.
    var outputSoFar: Data { (try? Data(contentsOf: outputURL)) ?? Data() }

    /// Waits for the child to end (on a dispatch thread, not the cooperative pool) and collects its output.
    func finish() async throws -> WireResult {
        let process = self.process
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume()
            }
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        let status =
            process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return WireResult(
            status: status, standardOutput: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
            standardError: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self),
            outputBytes: Array(try Data(contentsOf: outputURL)))
    }
}
