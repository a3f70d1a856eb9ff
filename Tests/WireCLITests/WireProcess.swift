// WireProcess: runs the built `wire` binary the way a user does — as a child process with arguments —
// and collects its exit status, stdout and stderr; `underPseudoTerminal` runs it with a terminal on
// stdin, stdout and stderr through util-linux `script`. The children are TestSupport's Subprocess: every
// wait happens on a thread of its own, never on the cooperative pool or a dispatch queue.
// Test support only; Foundation is fine here.

import Foundation
import TestSupport
import Testing

/// What one run of `wire` produced.
struct WireResult {
    var status: Int32
    var standardOutput: String
    var standardError: String
    /// stdout as bytes, for bodies that are not text.
    var outputBytes: [UInt8] = []

    init(_ result: Subprocess.Result) {
        status = result.status
        standardOutput = result.outputText
        standardError = result.errorText
        outputBytes = result.standardOutput
    }
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
        return WireResult(try await Subprocess.run("/usr/bin/script", ["-qec", shell, "/dev/null"]))
    }

    /// Runs `wire arguments...` to its end.
    static func run(_ arguments: [String], in directory: String? = nil) async throws -> WireResult {
        WireResult(try await Subprocess.run(try executablePath(), arguments, directory: directory))
    }

    /// Starts `wire arguments...` and returns at once, so a test can signal it mid-way; `finish` it after.
    static func start(_ arguments: [String], in directory: String? = nil) async throws -> RunningWire {
        RunningWire(try await Subprocess.start(try executablePath(), arguments, directory: directory))
    }

    /// Runs a shell command line (`sh -c`) in which `$WIRE` is the wire binary, for pipelines.
    static func shell(_ commandLine: String) async throws -> WireResult {
        WireResult(
            try await Subprocess.run("/bin/sh", ["-c", commandLine], environment: ["WIRE": try executablePath()]))
    }

    /// `text` as one single-quoted shell word.
    private static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// A `wire` process that is still running: watch its output, signal it, then wait for its result.
struct RunningWire: Sendable {
    let child: Subprocess

    init(_ child: Subprocess) {
        self.child = child
    }

    /// Sends `signal` (SIGINT, SIGKILL, ...) to the child.
    func send(_ signal: Int32) {
        child.send(signal)
    }

    /// What the child has written to stdout so far, as text.
    func outputSoFar() async -> String {
        String(decoding: await child.outputSoFar(), as: UTF8.self)
    }

    /// Whether the child still runs.
    var isRunning: Bool { child.isRunning }

    /// What the child has written to stderr so far, as text.
    func errorSoFar() async -> String {
        String(decoding: await child.errorSoFar(), as: UTF8.self)
    }

    /// Waits for the child to end (off the cooperative pool) and collects its output.
    func finish() async throws -> WireResult {
        WireResult(try await child.finish())
    }
}
