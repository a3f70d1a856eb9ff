// DemoTour: the scenarios of `wire demo` (edge layer). Each scenario runs the example of the same name from
// Sources/Examples — the one copy of its code — against the embedded server, and then checks what it
// returned and what the server saw with `expect`, which prints each claim and throws when one is false. The
// tour adds only what an example cannot do itself: the files to upload, the expected SHA-256 of a download,
// a second `wire` process killed with SIGKILL, the file replaced on the server while a download is paused.
// Files live in a temporary directory removed at the end.

import Examples
import FixtureServer
import HTTPWire
import HTTPWireCodec
import HTTPWireTransport

#if canImport(Glibc)
    import Glibc
#endif

/// The tour: one server, one client (logging heads), one scratch directory.
final class DemoTour {
    let server: FixtureServer
    let configuration: ClientConfiguration
    let client: HTTPClient
    let directory: String

    private init(server: FixtureServer, configuration: ClientConfiguration, directory: String) {
        self.server = server
        self.configuration = configuration
        self.client = HTTPClient(configuration: configuration)
        self.directory = directory
    }

    /// Starts the server on a free port and a client whose logger prints every head, indented.
    static func start() async throws -> DemoTour {
        var template = Array("/tmp/wire-demo-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw HTTPWireError.localWriteFailed(path: "/tmp/wire-demo-XXXXXX", errno: errno)
        }
        let server = try await FixtureServer.start()
        var configuration = ClientConfiguration()
        configuration.logger = { event in
            let text = ClientSettings.verboseText(event)
            Terminal.writeOutput(text.split(separator: "\n").map { "    " + $0 + "\n" }.joined())
        }
        return DemoTour(server: server, configuration: configuration, directory: String(cString: made))
    }

    var base: String { server.baseURL }

    /// The scenarios in order: a title and what runs.
    private var scenarios: [(String, () async throws -> Void)] {
        [
            ("GET JSON", getJSON), ("POST JSON", postJSON), ("a URL with non-ASCII text", nonASCII),
            ("default fields and a base URL", fieldsAndBaseURL), ("a timeout per phase", timeouts),
            ("several images and fields uploaded with progress", upload),
            ("a download with progress and speed", download), ("a download named by the server", suggestedName),
            ("pause and resume", pauseAndResume),
            ("a download whose process is killed, resumed from disk", killedAndResumed),
            ("the server's file changes between attempts", changedFile),
            ("one file over four connections (segments)", segmented),
            ("many downloads in one manager, remembered in a catalogue", manageDownloads),
            ("responses reused from an HTTP cache, then revalidated", cachedResponses),
            ("live server-sent events, resumed across reconnections", liveEvents),
            ("deleting downloaded data", deleteData),
        ]
    }

    var scenarioCount: Int { scenarios.count }

    /// Runs every scenario; returns the titles of those that failed.
    func run() async -> [String] {
        say("wire demo: an HTTPWire tour against the embedded server at \(base)\n")
        var failed: [String] = []
        for (number, (title, scenario)) in scenarios.enumerated() {
            say("\n\(number + 1). \(title)\n")
            do {
                try await scenario()
            } catch {
                say("  FAILED: \(error)\n")
                failed.append(title)
            }
        }
        say("\n\(scenarios.count - failed.count) of \(scenarios.count) scenarios did what they say.\n")
        return failed
    }

    /// Stops client and server and removes the scratch directory.
    func finish() async {
        await client.shutdown()
        await server.stop()
        _ = ChildProcess.start(["/bin/rm", "-rf", directory])?.wait()
    }

    // MARK: Scenarios: each runs its example, then checks it

    private func getJSON() async throws {
        let greeting = try await GetJSON.run(client: client, url: base + "json", log: log)
        try expect(greeting.isFixture && greeting.numbers == [1, 2, 3], "200 with the JSON decoded")
    }

    private func postJSON() async throws {
        let (sent, echoed) = try await PostJSON.run(client: client, url: base + "json", log: log)
        try expect(echoed == sent, "the server echoed the encoded value back")
    }

    private func nonASCII() async throws {
        let response = try await NonASCIIURL.run(client: client, baseURL: base, log: log)
        let target = server.requestLog.last?.target ?? ""
        try expect(
            response.status == .ok && target == "/echo/caf%C3%A9?q=cr%C3%A8me%20br%C3%BBl%C3%A9e%20%26%20co",
            "non-ASCII text, spaces and & went out percent-encoded as UTF-8")
    }

    private func fieldsAndBaseURL() async throws {
        let response = try await FieldsAndBaseURL.run(baseURL: base, configuration: configuration, log: log)
        let request = server.requestLog.last
        try expect(response.status == .ok && request?.target == "/echo", "the path was resolved against the base URL")
        try expect(
            request?.fields["User-Agent"] == "photo-sync/2.1" && request?.fields["Accept"] == "application/json",
            "the default fields went out, the User-Agent replaced")
        try expect(request?.fields["Authorization"] == "Bearer example-token", "the request's own field went out")
    }

    private func timeouts() async throws {
        let phase = try await PhaseTimeouts.run(
            url: base + "delay?ms=5000", idle: .milliseconds(500), configuration: configuration, log: log)
        try expect(phase == .head, "a head later than the idle timeout is timedOut(.head), exit 28")
        let own = try await PhaseTimeouts.perRequest(
            url: base + "delay?ms=5000", total: .milliseconds(500), configuration: configuration, log: log)
        try expect(own == .total, "a request's own total timeout overrides the client's: timedOut(.total), exit 28")
    }

    private func upload() async throws {
        var files: [String] = []
        for (index, name) in ["dunes.png", "oasis.png", "camp.png"].enumerated() {
            let path = directory + "/" + name
            try writeFile(path, Self.pattern(count: 1_500_000 + index * 100_000, seed: UInt64(index)))
            files.append(path)
        }
        let (response, reported) = try await UploadImages.run(
            client: client, url: base + "upload", files: files, log: log)
        let sent = Int(server.requestLog.last?.fields["Content-Length"] ?? "") ?? -1
        try expect(
            response.status == .ok && response.text.contains("\"size\":\(sent)"), "the server read all \(sent) bytes")
        try expect(reported == Int64(sent), "progress ended at the full body")
        try expect(response.text.contains("multipart\\/form-data; boundary="), "sent as multipart/form-data")
    }

    private func download() async throws {
        let started = ContinuousClock.now
        // Paced to take about 1.5 s: the speed is measured over one-second windows, so the later quarters
        // show it.
        let result = try await DownloadWithProgress.run(
            client: client, url: base + "bytes/16000000?interval_ms=25&piece=262144",
            destination: directory + "/big.bin", expectedSHA256: try await digest(of: base + "bytes/16000000"),
            log: log)
        let seconds = Self.seconds(ContinuousClock.now - started)
        say(
            "  \(result.bytes) bytes in \(Self.decimal(seconds)) s, \(ProgressBar.byteText(Int64(Double(result.bytes) / max(seconds, 0.001))))/s\n"
        )
        try expect(result.bytes == 16_000_000 && result.sha256 != nil, "16 MB on disk, SHA-256 verified")
    }

    private func suggestedName() async throws {
        // The server suggests "../Q3 report.csv"; only the last path component is kept.
        let disposition = "attachment%3B%20filename%3D%22..%2FQ3%20report.csv%22"
        let folder = directory + "/exports"
        guard mkdir(folder, 0o755) == 0 else { throw HTTPWireError.localWriteFailed(path: folder, errno: errno) }
        let saved = try await SuggestedFileName.run(
            client: client, url: base + "headers?Content-Disposition=\(disposition)", directory: folder, log: log)
        try expect(saved == folder + "/Q3 report.csv", "saved under the suggested name, inside the directory")
    }

    private func pauseAndResume() async throws {
        var options = DownloadOptions()
        options.expectedSHA256 = try await digest(of: base + "bytes/4000000")
        let (pausedAt, result) = try await PauseAndResume.run(
            client: client, url: base + "bytes/4000000?interval_ms=10&piece=65536",
            destination: directory + "/paused.bin", pause: .milliseconds(300), options: options, log: log)
        let range = server.requestLog.last?.fields["Range"]
        try expect(pausedAt > 0 && result.requests == 2, "paused once, then one more request")
        try expect(range == "bytes=\(pausedAt)-", "the second request asked for the rest only (\(range ?? "no Range"))")
        try expect(result.sha256 != nil, "the joined file has the right SHA-256")
    }

    private func killedAndResumed() async throws {
        let path = directory + "/killed.bin"
        let url = base + "bytes/6000000?interval_ms=10&piece=65536"
        guard
            let child = ChildProcess.start([
                ChildProcess.currentExecutable, "download", url, "-o", path, "--no-progress",
            ])
        else { throw DemoCheckFailed(claim: "a second wire process started") }
        say("  started `wire download` as process \(child.pid)\n")
        let deadline = ContinuousClock.now + .seconds(20)
        while Self.fileSize(path + ".part") < 1_500_000 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(300))  // one commit of the resume record (every 250 ms)
        child.send(SIGKILL)
        let status = child.wait()
        let stored = await Download.storedProgress(destination: path)
        say("  killed with SIGKILL (status \(status)); the record on disk counts \(stored?.receivedBytes ?? 0) bytes\n")
        try expect(status == 128 + SIGKILL && (stored?.receivedBytes ?? 0) > 0, "the process died, its bytes stayed")
        var options = DownloadOptions()
        options.expectedSHA256 = try await digest(of: base + "bytes/6000000")
        let result = try await ResumeAfterCrash.run(
            client: client, url: url, destination: path, options: options, log: log)
        let last = server.requestLog.last
        try expect(
            result.resumedFromBytes > 0 && last?.fields["Range"] == "bytes=\(result.resumedFromBytes)-"
                && last?.fields["If-Range"] != nil,
            "resumed at byte \(result.resumedFromBytes) with Range and If-Range")
        try expect(result.sha256 != nil && result.bytes == 6_000_000, "the file is whole (SHA-256 verified)")
    }

    private func changedFile() async throws {
        let version1 = Self.pattern(count: 1_000_000, seed: 11)
        let version2 = Self.pattern(count: 1_000_000, seed: 12)
        server.setFile("report.csv", contents: version1)
        let path = directory + "/report.csv"
        let (restarted, _) = try await ChangedFile.run(
            client: client, url: base + "files/report.csv?interval_ms=10&piece=32768", destination: path,
            whilePaused: {
                self.server.setFile("report.csv", contents: version2)
                self.log("the server's file is replaced (new ETag)")
            }, log: log)
        try expect(restarted, "the If-Range mismatch was noticed")
        try expect(try readFile(path) == version2, "the file is the new version, not old and new bytes spliced")
    }

    private func segmented() async throws {
        let content = Self.pattern(count: 8_000_000, seed: 13)
        server.setFile("segments.bin", contents: content)
        // Paced per connection (4 MB/s), as a server that limits each one: the first connection runs alone for
        // the probe (250 ms), the rest would take it ~2 s, so three more join and four get four times as much.
        let result = try await SegmentedDownload.run(
            client: client, url: base + "files/segments.bin?interval_ms=16&piece=65536",
            destination: directory + "/segments.bin", segments: 4, expectedSHA256: SHA256Digest.of(content), log: log)
        let ranges = server.requestLog.filter { $0.target.hasPrefix("/files/segments.bin") }.compactMap {
            $0.fields["Range"]
        }
        try expect(result.requests >= 4 && ranges.count >= 3, "one GET, then a Range request per other segment")
        try expect(result.sha256 != nil, "the file assembled from four responses has the right SHA-256")
    }

    private func manageDownloads() async throws {
        let contents = (0..<3).map { Self.pattern(count: 2_000_000, seed: 20 + UInt64($0)) }
        for (index, bytes) in contents.enumerated() { server.setFile("batch-\(index).bin", contents: bytes) }
        let urls = contents.indices.map { base + "files/batch-\($0).bin" }
        let catalogue = directory + "/catalogue"
        let output = directory + "/batch"
        try FileSystem.createDirectories(catalogue)
        try FileSystem.createDirectories(output)
        let items = try await ManageDownloads.run(
            client: client, catalogueDirectory: catalogue, outputDirectory: output, urls: urls, log: Self.sendableLog)
        let whole = try items.indices.allSatisfy { try readFile(items[$0].destination) == contents[$0] }
        try expect(
            items.count == 3 && items.allSatisfy { if case .completed = $0.state { true } else { false } } && whole,
            "three downloads, two at a time, each file whole")
        // The same command again, as after a restart: the catalogue knows every item is done.
        let served = server.requestsServed
        let again = try await ManageDownloads.run(
            client: client, catalogueDirectory: catalogue, outputDirectory: output, urls: [], log: Self.sendableLog)
        try expect(
            again.count == 3 && server.requestsServed == served,
            "a new manager on the same catalogue lists the three, and fetches nothing again")
    }

    private func cachedResponses() async throws {
        // Last changed a week ago: fresh for a day by RFC 9111's heuristic (10% of its age, at most a day).
        let weekAgo = Int64(time(nil)) - 7 * 86_400
        server.setFile(
            "catalogue.json", contents: Array(#"{"items": [1, 2, 3]}"#.utf8),
            lastModified: HTTPDate.imfFixdate(secondsSinceEpoch: weekAgo))
        let logged = server.requestLog.count
        let statuses = try await CachedResponses.run(url: base + "files/catalogue.json", log: log)
        let requests = server.requestLog.dropFirst(logged).filter { $0.target == "/files/catalogue.json" }
        try expect(statuses == [.miss, .hit, .revalidated], "stored, reused with no request, then revalidated")
        try expect(
            requests.count == 2 && requests.last?.fields["If-None-Match"] != nil,
            "two requests reached the server, the second conditional on the stored ETag (answered 304)")
    }

    private func liveEvents() async throws {
        let logged = server.requestLog.count
        let events = try await LiveEvents.run(
            client: client, url: base + "events?count=5&per_connection=2&retry_ms=50", log: log)
        let requests = server.requestLog.dropFirst(logged).filter { $0.target.hasPrefix("/events") }
        try expect(events.map(\.lastEventID) == ["1", "2", "3", "4", "5"], "events 1 to 5, each once, in order")
        try expect(
            requests.map { $0.fields["Last-Event-ID"] ?? "-" } == ["-", "2", "4", "5"],
            "four requests: the first, two reconnections after events 2 and 4, and the one answered 204")
    }

    private func deleteData() async throws {
        let paths = ["big.bin", "paused.bin", "killed.bin", "report.csv", "segments.bin"].map { directory + "/" + $0 }
        try await DeleteDownload.run(destinations: paths, log: log)
        let candidates = paths.flatMap { path -> [String] in [path, path + ".part", path + ".part.resume"] }
        let left = candidates.filter { path in access(path, F_OK) == 0 }
        try expect(left.isEmpty, "no file, part file or record is left")
    }

    // MARK: Helpers

    private func say(_ text: String) { Terminal.writeOutput(text) }

    /// `log` for an example that calls it from its own tasks (the manager's progress reporter).
    private static let sendableLog: @Sendable (String) -> Void = { Terminal.writeOutput("  " + $0 + "\n") }

    /// An example's own lines, indented under the scenario's title.
    private func log(_ line: String) { say("  " + line + "\n") }

    /// Prints the claim when it holds; throws when it does not.
    private func expect(_ condition: Bool, _ claim: String) throws {
        guard condition else { throw DemoCheckFailed(claim: claim) }
        say("  ok: \(claim)\n")
    }

    /// The SHA-256 of a URL's body, fetched in memory by a quiet client of its own (the expected value for
    /// a download; its heads would only clutter the tour).
    private func digest(of url: String) async throws -> SHA256Digest? {
        let quiet = HTTPClient()
        let body = try await quiet.get(url).body
        await quiet.shutdown()
        return SHA256Digest.of(body)
    }

    /// `count` bytes of a simple deterministic pattern (xorshift), different for every seed.
    static func pattern(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    private func writeFile(_ path: String, _ bytes: [UInt8]) throws {
        let output = BodyOutput(path: path)
        try output.write(bytes)
        try output.close()
    }

    private func readFile(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw HTTPWireError.localReadFailed(path: path, errno: errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while case let count = read(fd, &chunk, chunk.count), count > 0 { bytes += chunk[..<count] }
        return bytes
    }

    private static func fileSize(_ path: String) -> Int64 {
        var status = stat()
        return stat(path, &status) == 0 ? Int64(status.st_size) : 0
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `x.yy` without Foundation's formatting.
    private static func decimal(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
