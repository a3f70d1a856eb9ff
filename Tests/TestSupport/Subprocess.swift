// Subprocess: a child process of a test, started, signalled and waited for without a thread of the
// cooperative pool ever blocking (test support, shared by HTTPWireTests and WireCLITests).
//
// Foundation's `Process` starts the child, but its waits block: `waitUntilExit()` sleeps until the child
// ends and `readDataToEndOfFile()` until it closes its output. Here the child's stdout and stderr go to
// files in a temporary directory (no pipe can fill up and stall the child, and a test can look at the output
// while the child runs), and starting, waiting and reading those files all happen on a DedicatedThread; the
// awaiting test resumes through a continuation. A test whose task is cancelled while it waits (its time
// limit passed) kills the child, so a hung tool cannot outlive its test. Every program the tests run goes
// through here: docs/check-samples.sh and its compiles, python3, the nginx script, make-certs.sh, flock,
// mount, and the `wire` binary. This file knows nothing about those programs.

import Foundation

/// A child process started for a test.
///
/// ```swift
/// let result = try await Subprocess.run("/usr/bin/env", ["python3", "-c", script, path])
/// try #require(result.status == 0, "python3 failed: \(result.errorText)")
///
/// let server = try await Subprocess.start(wire, ["serve"])   // runs on; signal it, then finish it
/// server.send(SIGINT)
/// #expect(try await server.finish().status == 0)
/// ```
public final class Subprocess: @unchecked Sendable {
    // @unchecked: every stored property is set in init and never changes; `Process` is only asked for its
    // pid, state and termination after it started, which Foundation answers from any thread.

    /// What a finished child left behind.
    public struct Result: Sendable {
        /// The exit status, or 128 + N when signal N ended the child (as a shell reports it).
        public var status: Int32
        /// Everything the child wrote to stdout (and to stderr, when the two were merged).
        public var standardOutput: [UInt8]
        /// Everything the child wrote to stderr; empty when it was merged into stdout.
        public var standardError: [UInt8]

        /// stdout as UTF-8 text.
        public var outputText: String { String(decoding: standardOutput, as: UTF8.self) }
        /// stderr as UTF-8 text.
        public var errorText: String { String(decoding: standardError, as: UTF8.self) }
    }

    /// Where the child's stdin comes from.
    public enum Input: Sendable {
        /// /dev/null: the child reads end of file at once.
        case nullDevice
        /// An empty pipe that stays open until ``closeInput()`` or ``finish()``: for a child that must wait
        /// on its stdin (`flock -o FILE cat`).
        case openPipe
    }

    private let process = Process()
    /// The temporary directory holding the output files; removed by `finish()`.
    private let directory: URL
    private let outputURL: URL
    /// nil when stderr is merged into stdout.
    private let errorURL: URL?
    private let inputPipe: Pipe?

    private init(
        executable: String, arguments: [String], workingDirectory: String?, environment: [String: String],
        input: Input, mergesErrorIntoOutput: Bool
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpwire-child-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        outputURL = directory.appendingPathComponent("stdout")
        errorURL = mergesErrorIntoOutput ? nil : directory.appendingPathComponent("stderr")
        for url in [outputURL] + (errorURL.map { [$0] } ?? []) {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
            }
        }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        switch input {
        case .nullDevice:
            inputPipe = nil
            process.standardInput = FileHandle.nullDevice
        case .openPipe:
            let pipe = Pipe()
            inputPipe = pipe
            process.standardInput = pipe
        }
        let output = try FileHandle(forWritingTo: outputURL)
        let error = try errorURL.map { try FileHandle(forWritingTo: $0) }
        process.standardOutput = output
        process.standardError = error ?? output
        defer {
            // The child has its own copies now; ours would only keep descriptors open in this process.
            try? output.close()
            try? error?.close()
        }
        try process.run()
    }

    /// Starts `executable` with `arguments` and returns at once, so a test can watch or signal the child.
    ///
    /// - Parameters:
    ///   - directory: the child's working directory (this process's, when nil).
    ///   - environment: variables added to (or replacing ones in) this process's environment.
    ///   - input: /dev/null, or a pipe that stays open.
    ///   - mergesErrorIntoOutput: stderr goes to the same file as stdout, in the order they were written.
    public static func start(
        _ executable: String, _ arguments: [String] = [], directory: String? = nil,
        environment: [String: String] = [:], input: Input = .nullDevice, mergesErrorIntoOutput: Bool = false
    ) async throws -> Subprocess {
        try await DedicatedThread.run {
            try Subprocess(
                executable: executable, arguments: arguments, workingDirectory: directory, environment: environment,
                input: input, mergesErrorIntoOutput: mergesErrorIntoOutput)
        }
    }

    /// Runs `executable` with `arguments` to its end: ``start(_:_:directory:environment:input:mergesErrorIntoOutput:)``
    /// followed by ``finish()``.
    public static func run(
        _ executable: String, _ arguments: [String] = [], directory: String? = nil,
        environment: [String: String] = [:], mergesErrorIntoOutput: Bool = false
    ) async throws -> Result {
        let child = try await start(
            executable, arguments, directory: directory, environment: environment,
            mergesErrorIntoOutput: mergesErrorIntoOutput)
        return try await child.finish()
    }

    /// The child's process id.
    public var pid: Int32 { process.processIdentifier }

    /// Sends `signal` (SIGINT, SIGKILL, ...) to the child, if it still runs.
    public func send(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Closes the write end of an ``Input/openPipe`` stdin: the child reads end of file.
    public func closeInput() {
        try? inputPipe?.fileHandleForWriting.close()
    }

    /// Whether the child still runs.
    public var isRunning: Bool { process.isRunning }

    /// The bytes the child has written to stderr so far (read off the pool); empty when it goes to stdout.
    public func errorSoFar() async -> [UInt8] {
        guard let url = errorURL else { return [] }
        return await DedicatedThread.run { Array((try? Data(contentsOf: url)) ?? Data()) }
    }

    /// The bytes the child has written to stdout so far (read off the pool).
    public func outputSoFar() async -> [UInt8] {
        let url = outputURL
        return await DedicatedThread.run { Array((try? Data(contentsOf: url)) ?? Data()) }
    }

    /// Closes the child's stdin pipe (if any), waits for the child to end and returns what it left; call
    /// it once. If the calling task is cancelled meanwhile, the child is killed with SIGKILL, so the wait
    /// still ends. The temporary output files are removed.
    public func finish() async throws -> Result {
        closeInput()
        return try await withTaskCancellationHandler {
            try await DedicatedThread.run { [self] in
                process.waitUntilExit()
                defer { try? FileManager.default.removeItem(at: directory) }
                let status =
                    process.terminationReason == .uncaughtSignal
                    ? 128 + process.terminationStatus : process.terminationStatus
                return Result(
                    status: status, standardOutput: Array(try Data(contentsOf: outputURL)),
                    standardError: Array(try errorURL.map { try Data(contentsOf: $0) } ?? Data()))
            }
        } onCancel: {
            send(SIGKILL)
        }
    }
}
