// ChildProcess: runs one measured program to its end and reports its wall time and its own peak RSS
// (benchmark layer). Every contender — curl, HTTPWire's WireBench, URLSessionBench, the wire CLI — is
// started the same way and timed from posix_spawn(3) to wait4(2), so process start-up counts for all of them
// alike.
//
// Peak RSS needs care: posix_spawn uses vfork, and Linux records the hiwater RSS of the memory image a process
// leaves at exec into its ru_maxrss — for a vforked child that is the *driver's* image, so wait4's ru_maxrss
// of a direct child never reads below the driver's own ~13 MiB. So when /usr/bin/time (Debian package `time`)
// is present, each program runs under it: `time` is a small process, its child's ru_maxrss starts from
// time's tiny image, and `time -f %M` writes exactly that child's peak RSS in KiB. Without it, wait4's figure
// is used and is a floor, not a measurement.

import Foundation
import Glibc

/// What one run of a child process took.
struct ChildRun {
    /// Wall-clock seconds from spawn to exit.
    var seconds: Double
    /// Peak resident set size of the child, in KiB (ru_maxrss).
    var peakRSSKiB: Int
    /// The exit status (0 = success), or 128 + signal number.
    var status: Int32
}

/// A failure to start a child process.
struct SpawnFailure: Error, CustomStringConvertible {
    var description: String
}

enum ChildProcess {
    /// Runs `arguments` (the first is an absolute path) with standard input on /dev/null, standard output
    /// written to `output` (/dev/null unless the caller reads what the program prints) and standard error
    /// appended to `errorLog`, waits for it, and returns its timing and peak RSS.
    static func run(_ arguments: [String], output: String = "/dev/null", errorLog: String) throws -> ChildRun {
        guard access(timeProgram, X_OK) == 0 else {
            return try spawnAndWait(arguments, output: output, errorLog: errorLog)
        }
        let report = "/tmp/httpwire-bench-rss.\(getpid())"
        defer { unlink(report) }
        var run = try spawnAndWait(
            [timeProgram, "-f", "%M", "-o", report, "--"] + arguments, output: output, errorLog: errorLog)
        guard let text = try? String(contentsOfFile: report, encoding: .utf8),
            let kibibytes = text.split(separator: "\n").last.flatMap({ Int($0) })
        else { return run }
        run.peakRSSKiB = kibibytes
        return run
    }

    /// GNU time, used only to read a child's own peak RSS.
    static let timeProgram = "/usr/bin/time"

    /// Whether peak RSS figures are exact (under /usr/bin/time) or a floor (wait4 of a vforked child).
    static var measuresRSSExactly: Bool { access(timeProgram, X_OK) == 0 }

    private static func spawnAndWait(_ arguments: [String], output: String, errorLog: String) throws -> ChildRun {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errorLog, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let cArguments = arguments.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid = pid_t()
        let start = monotonicSeconds()
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, cArguments, environ)
        guard spawned == 0 else {
            throw SpawnFailure(description: "cannot start \(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw SpawnFailure(description: "wait4 failed: errno \(errno)") }
        }
        let seconds = monotonicSeconds() - start
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift cannot import: decode the status word by hand.
        let signal = status & 0x7f
        let exitStatus = signal == 0 ? (status >> 8) & 0xff : 128 + signal
        return ChildRun(seconds: seconds, peakRSSKiB: usage.ru_maxrss, status: exitStatus)
    }

    /// Starts a long-running helper (a server) with a pipe on its standard input and output; the first line
    /// it prints is returned. Closing `input` tells it to stop.
    static func startServer(_ arguments: [String], errorLog: String) throws -> (pid: pid_t, input: Int32, line: String)
    {
        var toChild: [Int32] = [0, 0]
        var fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { throw SpawnFailure(description: "pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, errorLog, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        for descriptor in toChild + fromChild { posix_spawn_file_actions_addclose(&actions, descriptor) }
        let cArguments = arguments.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, cArguments, environ)
        close(toChild[0])
        close(fromChild[1])
        guard spawned == 0 else { throw SpawnFailure(description: "cannot start \(arguments[0])") }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(fromChild[0], &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
        close(fromChild[0])
        _ = fcntl(toChild[1], F_SETFD, FD_CLOEXEC)
        return (pid, toChild[1], String(decoding: line, as: UTF8.self))
    }

    /// Closes a server's standard input and reaps it.
    static func stopServer(pid: pid_t, input: Int32) {
        close(input)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// Runs a shell command line for set-up work (not measured); returns its exit status.
    @discardableResult
    static func shell(_ command: String) -> Int32 {
        system(command)
    }

    /// CLOCK_MONOTONIC in seconds.
    static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
