// ExitCode: how a thrown error ends wire — its process exit status and its one stderr line (edge layer).
// The codes follow curl, so scripts written for curl keep working. HTTPWireError already knows its own
// code (HTTPWireError.exitCode is the one mapping); this file only forwards it and adds the CLI's cases:
// usage mistakes (2) and cancellation by Ctrl-C (130, the shell's 128 + SIGINT).

import HTTPWire

/// A process exit status. `ExitCode(for: error)` says how a failure ends the process;
/// `ExitCode.errorText(for: error)` says what it prints first.
///
/// ```swift
/// do { try await Commands.run(command) } catch {
///     Terminal.writeError(ExitCode.errorText(for: error))
///     exit(ExitCode(for: error).rawValue)
/// }
/// ```
struct ExitCode: RawRepresentable, Equatable, Sendable, CustomStringConvertible {
    var rawValue: Int32

    init(rawValue: Int32) { self.rawValue = rawValue }

    /// The command did what was asked.
    static let success = ExitCode(rawValue: 0)
    /// A failure nothing more specific describes (curl uses 1 for "unsupported protocol" and other failures).
    static let failure = ExitCode(rawValue: 1)
    /// A mistake on the command line (curl's 2, "failed to initialize", is what it returns for bad usage).
    static let usage = ExitCode(rawValue: 2)
    /// Interrupted by SIGINT: 128 + 2, what a shell reports for a process killed by Ctrl-C.
    static let interrupted = ExitCode(rawValue: 130)

    /// The exit status for a thrown error.
    init(for error: any Error) {
        switch error {
        case let error as HTTPWireError: self.init(rawValue: error.exitCode)
        case is UsageError: self = .usage
        case is CancellationError: self = .interrupted
        default: self = .failure
        }
    }

    /// What wire prints on stderr for a thrown error: the line `wire: error: <description>`, and for a usage
    /// mistake a second line naming the help that explains the right usage. Ends with a newline.
    static func errorText(for error: any Error) -> String {
        switch error {
        case let usage as UsageError:
            guard usage.suggestsHelp else { return "wire: error: \(usage.message)\n" }
            let help = usage.command.map { "wire \($0.rawValue) --help" } ?? "wire --help"
            return "wire: error: \(usage.message)\nwire: try '\(help)' for more information\n"
        case is CancellationError:
            return "wire: error: interrupted\n"
        default:
            return "wire: error: \(error)\n"
        }
    }

    var description: String { "exit \(rawValue)" }
}
