// DownloadCommand: `wire download URL [-o FILE | --dir DIR] [--restart] [--sha256 HEX] [--retry N]
// [--limit-rate RATE] [--segments N]`, or several URLs (operands and/or `-i LIST`) with `--parallel N`
// (edge layer). One library call, `client.download(from:to:options:)` (or `toDirectory:`), whose events
// drive the progress bar. The bytes go to FILE.part with a resume record beside it; re-running the same
// command after Ctrl-C, `kill -9` or a dropped connection resumes with Range + If-Range, and a server-side
// change restarts from zero instead of splicing old and new bytes. Without -o or --dir the file lands in the
// current directory under the server's or the URL's name, sanitised by the library (like curl -OJ).

import HTTPWire
import HTTPWireCodec
import HTTPWireTransport

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `wire download`.
enum DownloadCommand {
    static func run(_ command: ParsedCommand) async throws {
        var options = DownloadOptions()
        options.restart = command.restart
        options.expectedSHA256 = command.sha256.flatMap { SHA256Digest(hex: $0) }
        options.retry = ClientSettings.retryPolicy(for: command)
        // With segments, the limit is the download's: its connections share one budget.
        options.maxBytesPerSecond = command.limitRate
        options.segments = command.segments
        if let seconds = command.segmentProbeSeconds { options.segmentProbe = .seconds(seconds) }
        options.fields = ClientSettings.fields(for: command)
        let showsProgress = ProgressBar.isShown(
            requested: command.progress, stderrIsTerminal: Terminal.isTerminal(STDERR_FILENO))
        let verbose = command.verbose
        var urls = command.urls
        if let list = command.inputFile { urls += try listedURLs(in: list) }
        if urls.count > 1 || command.inputFile != nil {
            return try await runMany(command, urls: urls, options: options)
        }
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

    /// Several URLs: a `DownloadManager` whose catalogue sits in the target directory (`--dir`, else the
    /// current one), running `--parallel N` at once. Each URL is saved under its last path segment
    /// (numbered when two share a name). Running the same command again restores the catalogue: finished
    /// files are not fetched again, unfinished ones resume with Range. Exits with the first failure's code.
    static func runMany(_ command: ParsedCommand, urls: [String], options: DownloadOptions) async throws {
        guard command.output == nil else {
            throw UsageError(message: "-o names one file; with several URLs use --dir DIR", command: .download)
        }
        var directory = command.directory ?? "."
        if !directory.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: 4096)
            guard getcwd(&buffer, buffer.count) != nil else {
                throw HTTPWireError.localWriteFailed(path: directory, errno: errno)
            }
            let current = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            directory = directory == "." ? current : current + "/" + directory
        }
        try await ClientSettings.withClient(for: command) { client in
            let manager = try await DownloadManager(
                client: client, catalogueDirectory: directory, maxRunning: command.parallel,
                maxRunningPerHost: command.parallel, defaultOptions: options)
            var taken: Set<String> = []
            var ids: [DownloadManagerItem.ID] = []
            for url in urls {
                let segment = (try? TargetURL(url))?.lastPathSegment
                let name = ContentDisposition.downloadFileName(fieldValue: nil, urlLastPathSegment: segment)
                var number = 0
                var chosen = name
                while taken.contains(chosen) {
                    number += 1
                    chosen = DownloadFileNaming.numbered(name, number)
                }
                taken.insert(chosen)
                ids.append(try await manager.add(from: url, to: directory + "/" + chosen))
            }
            await manager.waitUntilIdle()
            var firstFailure: HTTPWireError?
            for id in ids {
                guard let item = manager.item(id) else { continue }
                switch item.state {
                case .completed(let bytes, _):
                    if command.verbose { Terminal.writeError("wire: saved \(item.destination) (\(bytes) bytes)\n") }
                case .failed(let error, _):
                    if command.showsErrors { Terminal.writeError("wire: \(item.url): \(error)\n") }
                    if firstFailure == nil { firstFailure = error }
                case .queued, .running, .paused, .cancelled:
                    break
                }
            }
            if let firstFailure { throw firstFailure }
        }
    }

    /// The URLs listed in the file at `path` (`-i`, aria2's input file): one a line, blank lines and lines
    /// starting with `#` skipped, spaces around a URL dropped. A missing file is exit 26; an empty list is a
    /// usage error.
    static func listedURLs(in path: String) throws -> [String] {
        let bytes: [UInt8]?
        do throws(TransportError) {
            bytes = try FileSystem.contents(ofPath: path, limit: 16 << 20)
        } catch .fileReadFailed(_, _, let code) {
            throw HTTPWireError.localReadFailed(path: path, errno: code)
        } catch {
            throw HTTPWireError.localReadFailed(path: path, errno: EIO)
        }
        guard let bytes else { throw HTTPWireError.localReadFailed(path: path, errno: ENOENT) }
        let urls = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap {
            line -> String? in
            let url = line.trimmingPrefix(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()
            let text = String(url)
            return text.isEmpty || text.hasPrefix("#") ? nil : text
        }
        guard !urls.isEmpty else { throw UsageError(message: "\(path) lists no URL", command: .download) }
        return urls
    }

    /// Draws the bar from progress events and notes resumes, restarts and retries on their own lines.
    static func observe(_ events: AsyncStream<DownloadEvent>, showsProgress: Bool, verbose: Bool) async {
        var bar: LiveProgressBar?
        let notes = showsProgress || verbose
        func note(_ text: String) {
            if let bar { bar.note("wire: " + text) } else { Terminal.writeError("wire: " + text + "\n") }
        }
        for await event in events {
            switch event {
            case .started(let destination, let offset, let expectedBytes):
                if notes && offset > 0 { note("resuming \(destination) at byte \(offset)") }
                if showsProgress {
                    bar?.stop()
                    bar = LiveProgressBar(ProgressBar(total: expectedBytes, alreadyTransferred: offset))
                }
            case .progress(let progress):
                bar?.update(transferred: progress.receivedBytes)
            case .restarted(let cause):
                if notes { note("starting again from byte 0: " + explanation(of: cause)) }
            case .retrying(let attempt, let delay, let error):
                note("attempt \(attempt) failed (\(error)); retrying in \(delay)")
            case .paused, .resumed:
                break
            case .finished:
                bar?.finish()
                bar = nil
            }
        }
        bar?.stop()
    }

    /// Why the partial data was thrown away, in words: the library's sentence (RFC 9110 §13.1.5: If-Range
    /// makes a server that changed the file answer 200 with all of it), with the flag for a restart asked for.
    static func explanation(of cause: ResumeRestartCause) -> String {
        if case .requested = cause { return "--restart was given" }
        return cause.description
    }
}
