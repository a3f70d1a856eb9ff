// WireProcess: runs the built `wire` binary the way a user does — as a child process with arguments —
// and collects its exit status, stdout and stderr; `underPseudoTerminal` runs it with a terminal on
// stdin, stdout and stderr through util-linux `script`. Test support only; Foundation is fine here.

import Foundation
import Testing

/// What one run of `wire` produced.
struct WireResult {
    var status: Int32
    var standardOutput: String
    var standardError: String
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

    /// Runs `wire arguments...` with stdout and stderr sent to files (so neither pipe can fill and stall the
    /// child) and stdin from /dev/null.
    static func run(_ arguments: [String]) throws -> WireResult {
        try run(executable: executablePath(), arguments: arguments)
    }

    /// Runs `wire` under a pseudo-terminal of `columns` columns: `script -qec` starts a shell whose stdin,
    /// stdout and stderr are the terminal; `-e` returns wire's exit status. stdout and stderr arrive merged,
    /// as a user sees them, with the terminal's newline translation ("\n" becomes "\r\n").
    static func underPseudoTerminal(_ arguments: [String], columns: Int = 80) throws -> WireResult {
        let command = ([try executablePath()] + arguments).map(shellQuoted).joined(separator: " ")
        let shell = "stty cols \(columns) rows 24; exec \(command)"
        return try run(executable: "/usr/bin/script", arguments: ["-qec", shell, "/dev/null"])
    }

    private static func run(executable: String, arguments: [String]) throws -> WireResult {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("wire-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outputURL = directory.appendingPathComponent("stdout")
        let errorURL = directory.appendingPathComponent("stderr")
        try #require(FileManager.default.createFile(atPath: outputURL.path, contents: nil))
        try #require(FileManager.default.createFile(atPath: errorURL.path, contents: nil))
        let output = try FileHandle(forWritingTo: outputURL)
        let error = try FileHandle(forWritingTo: errorURL)
        defer {
            try? output.close()
            try? error.close()
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = error
        try process.run()
        process.waitUntilExit()
        return WireResult(
            status: process.terminationStatus,
            standardOutput: try String(contentsOf: outputURL, encoding: .utf8),
            standardError: try String(contentsOf: errorURL, encoding: .utf8))
    }

    /// `text` as one single-quoted shell word.
    private static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
