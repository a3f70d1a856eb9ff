// wire: the curl-like command-line client of HTTPWire (edge layer).
// The entry point: parse the arguments, print the version or a help text, or run a command; turn whatever
// it throws into one `wire: error: ...` line and curl's exit code. Ctrl-C cancels the running command
// (exit 130; `wire serve`, which runs until Ctrl-C, exits 0); a second Ctrl-C ends the process at once.
// SIGPIPE is ignored: a reader that closes the pipe (`wire get URL | head -c 10`) makes write(2) fail with
// EPIPE, which BodyOutput reports as curl's exit 23, instead of killing wire mid-write. No HTTP here.

import CSystem
import Dispatch
import HTTPWire
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Prints the error text for `error` (unless `-s` without `-S` asked for silence) and exits with its code.
func exit(reporting error: any Error, quietly: Bool = false) -> Never {
    if !quietly { Terminal.writeError(ExitCode.errorText(for: error)) }
    exit(ExitCode(for: error).rawValue)
}

/// How many SIGINTs have arrived while a command runs, and the handler that counts them.
enum Interrupts {
    static let count = Atomic<Int>(0)

    /// Delivers SIGINT to a dispatch source instead of killing the process, so the command can unwind
    /// (close connections, keep a partial download resumable): the first cancels `task`, the second exits
    /// at once. A static function, so the handler is not isolated to the main actor: it runs on a
    /// dispatch queue.
    static func cancelOnInterrupt(_ task: Task<Void, any Error>) -> any DispatchSourceSignal {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            if count.add(1, ordering: .relaxed).newValue > 1 { _exit(ExitCode.interrupted.rawValue) }
            task.cancel()
        }
        source.resume()
        return source
    }
}

// One malloc arena for the whole process, set before any thread allocates. glibc gives each thread that
// allocates while another holds the lock an arena of its own, and each keeps its own free memory: with the
// reactor, the blocking worker and Dispatch's threads that was ~0.6 MiB more peak RSS for 20,000 GETs at 64
// in flight (16.6 against 16.0 MiB, 7 runs each), at the same speed (0.31 s): wire allocates almost only on
// the reactor thread, so the one lock is not contended (docs/benchmarks.md, "Memory").
mallopt(M_ARENA_MAX, 1)
signal(SIGPIPE, SIG_IGN)

let invocation: Invocation
do {
    // The words straight from argv: `CommandLine.arguments` would keep an array of them for the whole run
    // (16 bytes a word: 320 KB for `wire get` with 20,000 URLs) next to the parsed command's own.
    let words = (1..<Int(CommandLine.argc)).map { String(cString: CommandLine.unsafeArgv[$0]!) }
    invocation = try Arguments.parse(words)
} catch {
    exit(reporting: error)
}

switch invocation {
case .version:
    Terminal.writeOutput(Help.versionLine + "\n")
case .help(let command):
    Terminal.writeOutput(command.map(Help.text(for:)) ?? Help.topLevel)
case .run(let command):
    // Transfer commands run on HTTPWire's reactor thread (`HTTPClient.reactorExecutor`): like curl, wire is
    // then one event loop, and each response resumes the command on the thread that saw it arrive instead of
    // waking a second one. `serve` and `demo` host the fixture server, whose handlers read files with
    // blocking calls, so they stay on the cooperative pool.
    let onReactor = command.command != .serve && command.command != .demo
    let task = Task(executorPreference: onReactor ? HTTPClient.reactorExecutor : nil) {
        try await Commands.run(command)
    }
    let interrupts = Interrupts.cancelOnInterrupt(task)
    let result = MainThread.wait(for: task)
    interrupts.cancel()
    // After Ctrl-C the outcome is "interrupted", even if the command ended some other way while unwinding.
    if Interrupts.count.load(ordering: .relaxed) > 0 && command.command != .serve {
        exit(reporting: CancellationError(), quietly: !command.showsErrors)
    }
    if case .failure(let error) = result { exit(reporting: error, quietly: !command.showsErrors) }
}
exit(ExitCode.success.rawValue)
