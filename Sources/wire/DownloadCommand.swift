// DownloadCommand: `wire download URL [-o FILE | --dir DIR] [--restart] [--sha256 HEX] [--retry N]
// [--limit-rate RATE]`
// (edge layer). One library call, `client.download(from:to:options:)` (or `toDirectory:`), whose events
// drive the progress bar. The bytes go to FILE.part with a resume record beside it; re-running the same
// command after Ctrl-C, `kill -9` or a dropped connection resumes with Range + If-Range, and a server-side
// change restarts from zero instead of splicing old and new bytes. Without -o or --dir the file lands in the
// current directory under the server's or the URL's name, sanitised by the library (like curl -OJ).

import HTTPWire

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `wire download`.
enum DownloadCommand {
    static func run(_ command: ParsedCommand) async throws {
        var options = DownloadOptions()
        options.restart = command.restart
        options.expectedSHA256 = command.sha256.flatMap { SHA256Digest(hex: $0) }
        options.retry = command.retries > 0 ? RetryPolicy(maxRetries: command.retries) : .none
        options.maxBytesPerSecond = command.limitRate
        options.fields = ClientSettings.fields(for: command)
        let showsProgress = ProgressBar.isShown(
            requested: command.progress, stderrIsTerminal: Terminal.isTerminal(STDERR_FILENO))
        let verbose = command.verbose
        try await ClientSettings.withClient(for: command) { client in
            let url = command.urls[0]
            let download =
                if let output = command.output {
                    client.download(from: url, to: output, options: options)
                } else {
                    client.download(from: url, toDirectory: command.directory ?? ".", options: options)
                }
            let observer = Task { await observe(download.events, showsProgress: showsProgress, verbose: verbose) }
            do {
                let result = try await download.result()
                await observer.value
                if showsProgress || verbose {
                    Terminal.writeError("wire: saved \(result.location) (\(result.bytes) bytes)\n")
                }
            } catch {
                // Ctrl-C or a failure: the partial file and its record stay for the next run.
                await observer.value
                throw error
            }
        }
    }

    /// Draws the bar from progress events and notes resumes, restarts and retries on their own lines.
    static func observe(_ events: AsyncStream<DownloadEvent>, showsProgress: Bool, verbose: Bool) async {
        var bar: ProgressBar?
        let notes = showsProgress || verbose
        func note(_ text: String) {
            if bar != nil { Terminal.writeError("\n") }
            Terminal.writeError("wire: " + text + "\n")
        }
        for await event in events {
            switch event {
            case .started(let destination, let offset, let expectedBytes):
                if notes && offset > 0 { note("resuming \(destination) at byte \(offset)") }
                if showsProgress { bar = ProgressBar(total: expectedBytes, alreadyTransferred: offset) }
            case .progress(let progress):
                if let frame = bar?.update(transferred: progress.receivedBytes) { Terminal.writeError(frame) }
            case .restarted(let cause):
                if notes { note("starting again from byte 0: " + explanation(of: cause)) }
            case .retrying(let attempt, let delay, let error):
                note("attempt \(attempt) failed (\(error)); retrying in \(delay)")
            case .paused, .resumed:
                break
            case .finished:
                if var finished = bar {
                    Terminal.writeError(finished.finish())
                    bar = nil
                }
            }
        }
        if bar != nil { Terminal.writeError("\n") }
    }

    /// Why the partial data was thrown away, in words (RFC 9110 §13.1.5: If-Range makes a server that
    /// changed the file answer 200 with all of it).
    static func explanation(of cause: ResumeRestartCause) -> String {
        switch cause {
        case .requested: return "--restart was given"
        case .notResumable(let reason):
            switch reason {
            case .noPartialFile, .noRecord, .nothingCommitted: return "nothing usable on disk"
            case .differentURL: return "the partial data came from another URL"
            case .partialFileTooShort: return "the partial file is shorter than its record says"
            case .noValidator: return "the server gave no ETag or Last-Modified to resume safely against"
            case .methodNotResumable: return "only a GET without a body can be resumed"
            }
        case .serverAnswer(let reason):
            switch reason {
            case .rangeIgnored: return "the server sent the whole file (it changed, or ignores Range)"
            case .representationChanged: return "the server's file changed (new validator)"
            case .unexpectedRangeStart(let expected, let received):
                return "the server answered from byte \(received) instead of \(expected)"
            case .lengthChanged(let expected, let received):
                return "the file's length changed from \(expected) to \(received) bytes"
            case .notSatisfiable: return "the server cannot serve the rest (416)"
            }
        }
    }
}
