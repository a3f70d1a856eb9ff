// GetCommand: `wire get URL [URL ...]` (edge layer). One library call per URL — `client.stream(request)`,
// then the body is read piece by piece into BodyOutput — over one HTTPClient, so URLs of the same origin
// reuse the kept-alive connection, as curl does. `--parallel N` sends up to N requests at once through the
// pool with `client.send` and still writes the bodies in the order given. As in curl, a URL that fails does
// not stop the others: its error is reported and the next URL fetched, and the last URL's outcome is the
// exit code (`--fail-early` stops at the first failure instead). This file is also example code: it shows
// the streaming and the concurrent use of one client.

import HTTPWire
import HTTPWireCodec

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `wire get`.
enum GetCommand {
    static func run(_ command: ParsedCommand) async throws {
        let output = BodyOutput(for: command)
        do {
            try await ClientSettings.withClient(for: command, recordingHeadsFor: output) { client in
                if command.parallel > 1 && command.urls.count > 1 {
                    try await fetchConcurrently(command, client: client, into: output)
                } else {
                    let last = command.urls.count - 1
                    for (index, url) in command.urls.enumerated() {
                        do {
                            try await fetch(url, command, client: client, into: output)
                        } catch  where index < last && goesOn(after: error, command) {
                            reportAndGoOn(error, command)
                        }
                    }
                }
                // The last bytes go out before the client closes its connections, not after.
                try output.flush()
            }
        } catch {
            // What arrived before the failure is written out, as curl does (a truncated body shows as far
            // as it came); the error still decides the exit code.
            try? output.close()
            throw error
        }
        try output.close()
    }

    /// One URL, streamed: the body goes out as it arrives, so memory stays flat for any size. Runs on its
    /// caller's executor (the reactor's, main.swift): no executor switch around each URL's awaits. Inlined
    /// into `run`'s loop, so each URL does not allocate an async frame of its own (callgrind: ~350
    /// instructions per GET, the frame's task-allocator calls).
    @inline(__always)
    nonisolated(nonsending) private static func fetch(
        _ url: String, _ command: ParsedCommand, client: HTTPClient, into output: BodyOutput
    ) async throws {
        let request = HTTPRequest(
            method: ClientSettings.method(for: command, default: .get), url: ClientSettings.url(url, for: command),
            fields: ClientSettings.fields(for: command))
        let response: HTTPStreamingResponse
        do {
            response = try await client.stream(request)
        } catch {
            throw ClientSettings.noAnswer(error, url: request.url, for: command, into: output)
        }
        // ClientSettings.reporting's steps, spelled out: its closure would cost each GET of the loop a frame.
        do {
            try output.begin(
                version: response.version, status: response.status, reason: response.reason,
                fields: response.fields, for: command)
            let bar =
                showsProgress(command) ? LiveProgressBar(ProgressBar(total: response.expectedContentLength)) : nil
            defer { bar?.stop() }
            var received: Int64 = 0
            for try await piece in response.body {
                try output.writeBody(piece)
                received += Int64(piece.count)
                bar?.update(transferred: received)
            }
            bar?.finish()
            try ClientSettings.checkAfterBody(response.status, for: command)
        } catch {
            throw ClientSettings.failed(error, after: response, for: command, into: output)
        }
        try ClientSettings.writeOut(response, for: command, into: output)
    }

    /// Up to `--parallel` requests in flight, made by that many worker tasks (see ParallelWindow for why
    /// not a task per URL); a finished body is written by the worker that completes the run of bodies in
    /// the order given, or parked until every earlier URL is written (OrderedDelivery). At most four
    /// windows' worth of bodies are held, so a slow first URL cannot make memory grow without bound.
    private static func fetchConcurrently(
        _ command: ParsedCommand, client: HTTPClient, into output: BodyOutput
    ) async throws {
        let fields = ClientSettings.fields(for: command)
        let urls = command.urls  // each with -G's query added only when its request is made: no second list
        let method = ClientSettings.method(for: command, default: .get)
        let window = ParallelWindow(count: urls.count, limit: 4 * command.parallel)
        let last = urls.count - 1
        let delivery = OrderedDelivery<Fetched, BodyOutput>(
            sink: output,
            write: { output, fetched in
                do {
                    switch fetched.result {
                    case .success(let response):
                        do {
                            try output.begin(
                                version: response.version, status: response.status, reason: response.reason,
                                fields: response.fields, for: command)
                            try output.writeBody(response.body)
                            try ClientSettings.checkAfterBody(response.status, for: command)
                        } catch {
                            // The -w report with the failure's exit code, as for one URL.
                            throw ClientSettings.failed(error, after: response, for: command, into: output)
                        }
                        try ClientSettings.writeOut(response, for: command, into: output)
                    case .failure(let error):
                        throw ClientSettings.noAnswer(
                            error, url: ClientSettings.url(urls[fetched.index], for: command), for: command,
                            into: output)
                    }
                } catch  where fetched.index < last && goesOn(after: error, command) {
                    reportAndGoOn(error, command)
                }
            },
            written: { window.written(upTo: $0) })
        try await withTaskCancellationHandler {
            try await withThrowingTaskGroup(of: Void.self) { group in
                // However this ends, no worker may stay suspended in the window, or the group would wait
                // for it: the first error (a request's or a write's) closes it.
                defer { window.close() }
                for _ in 0..<min(command.parallel, urls.count) {
                    group.addTask {
                        while let index = await window.next() {
                            let result: Result<HTTPResponse, any Error>
                            do {
                                result = .success(
                                    try await client.send(
                                        HTTPRequest(
                                            method: method, url: ClientSettings.url(urls[index], for: command),
                                            fields: fields)))
                            } catch  where goesOn(after: error, command) {
                                // Written in its turn, like a body: the error line and -w report in order.
                                result = .failure(error)
                            }
                            try delivery.deliver(index, Fetched(index: index, result: result))
                        }
                    }
                }
                // next(), not waitForAll(): it rethrows the first error at once, while waitForAll would
                // wait for workers that wait for the failed URL's body.
                while try await group.next() != nil {}
            }
        } onCancel: {
            window.close()
        }
        // Every worker returned without an error, so every URL was handed out, fetched (or failed, and that
        // was reported) and written, unless the window was closed by cancellation.
        try Task.checkCancellation()
        assert(delivery.writtenCount == urls.count, "parallel get ended with bodies unwritten")
    }

    /// One URL's outcome in a parallel get, delivered in the order given.
    private struct Fetched: Sendable {
        let index: Int
        let result: Result<HTTPResponse, any Error>
    }

    /// Whether `wire get` goes on to the next URL after `error`, as curl does without `--fail-early`: not
    /// after Ctrl-C, and not when the output cannot be written (curl's exit 23: the next body could not be
    /// either). The last URL's outcome is the exit code, so a failure before it is only reported.
    private static func goesOn(after error: any Error, _ command: ParsedCommand) -> Bool {
        guard !command.failEarly, !(error is CancellationError) else { return false }
        if case .localWriteFailed = error as? HTTPWireError { return false }
        return true
    }

    /// The error line a failure would have ended wire with (unless -s), for a URL that is not the last.
    private static func reportAndGoOn(_ error: any Error, _ command: ParsedCommand) {
        if command.showsErrors { Terminal.writeError(ExitCode.errorText(for: error)) }
    }

    /// A bar only when asked for, or when stderr is a terminal and the body goes to a file (a body on the
    /// terminal and a bar on the same screen would scramble each other).
    private static func showsProgress(_ command: ParsedCommand) -> Bool {
        ProgressBar.isShown(
            requested: command.progress,
            stderrIsTerminal: command.output != nil && Terminal.isTerminal(STDERR_FILENO))
    }
}
