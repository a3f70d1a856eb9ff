// DemoTour: the scenarios of `wire demo`, each a short use of the public API against the embedded server
// (edge layer): GET and POST JSON, a non-ASCII URL, a multipart upload of several images with progress,
// a download with progress and speed, pause and resume, a download whose process is killed (SIGKILL) and
// which resumes from disk with Range + If-Range, a file that changes on the server between attempts (a
// restart, not a splice), and deleting downloaded data. Each scenario states its claims with `expect`,
// which prints them and throws when one is false. Files live in a temporary directory removed at the end.

import FixtureServer
import HTTPWire
import HTTPWireCodec

#if canImport(Glibc)
    import Glibc
#endif

/// The tour: one server, one client (logging heads), one scratch directory.
final class DemoTour {
    let server: FixtureServer
    let client: HTTPClient
    let directory: String
    let showsProgress = Terminal.isTerminal(STDERR_FILENO)

    private init(server: FixtureServer, client: HTTPClient, directory: String) {
        self.server = server
        self.client = client
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
        return DemoTour(
            server: server, client: HTTPClient(configuration: configuration), directory: String(cString: made))
    }

    var base: String { server.baseURL }

    /// The scenarios in order: a title and what runs.
    private var scenarios: [(String, () async throws -> Void)] {
        [
            ("GET JSON", getJSON), ("POST JSON", postJSON), ("a URL with non-ASCII text", nonASCII),
            ("several images and fields uploaded with progress", upload),
            ("a download with progress and speed", download), ("pause and resume", pauseAndResume),
            ("a download whose process is killed, resumed from disk", killedAndResumed),
            ("the server's file changes between attempts", changedFile), ("deleting downloaded data", deleteData),
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

    // MARK: Scenarios

    private struct Greeting: Decodable {
        var isFixture: Bool
        var message: String
        var numbers: [Int]
        enum CodingKeys: String, CodingKey {
            case isFixture = "is_fixture", message, numbers
        }
    }

    private func getJSON() async throws {
        let response = try await client.get(base + "json")
        let greeting = try response.decode(Greeting.self)
        say("  decoded: \"\(greeting.message)\", numbers \(greeting.numbers)\n")
        try expect(
            response.status == .ok && greeting.isFixture && greeting.numbers == [1, 2, 3], "200 with the JSON decoded")
    }

    private struct Note: Codable, Equatable {
        var title: String
        var tags: [String]
    }

    private func postJSON() async throws {
        let note = Note(title: "Dunes at dawn", tags: ["desert", "morning"])
        let response = try await client.post(base + "json", json: note)
        try expect(try response.decode(Note.self) == note, "the server echoed the encoded value back")
    }

    private func nonASCII() async throws {
        let response = try await client.get(base + "echo/café?q=crème brûlée")
        let target = server.requestLog.last?.target ?? ""
        say("  request target on the wire: \(target)\n")
        try expect(
            response.status == .ok && target == "/echo/caf%C3%A9?q=cr%C3%A8me%20br%C3%BBl%C3%A9e",
            "non-ASCII text and spaces went out percent-encoded as UTF-8")
    }

    private func upload() async throws {
        var form = MultipartForm()
        form.addField(name: "album", value: "Holiday")
        form.addField(name: "caption", value: "Dunes, oasis, camp")
        for (index, name) in ["dunes.png", "oasis.png", "camp.png"].enumerated() {
            let path = directory + "/" + name
            try writeFile(path, Self.pattern(count: 1_500_000 + index * 100_000, seed: UInt64(index)))
            form.addFile(name: "photos[]", path: path, contentType: MediaType("image/png"))
        }
        let upload = client.upload(form, to: base + "upload")
        var bar: ProgressBar?
        var last: TransferProgress?
        for await progress in upload.progress {
            last = progress
            if showsProgress {
                if bar == nil { bar = ProgressBar(total: progress.expectedBytes) }
                if let frame = bar?.update(transferred: progress.receivedBytes) { Terminal.writeError(frame) }
            }
        }
        if var bar { Terminal.writeError(bar.finish()) }
        let response = try await upload.response
        let sent = Int(server.requestLog.last?.fields["Content-Length"] ?? "") ?? -1
        say("  \(last?.receivedBytes ?? 0) of \(sent) body bytes reported sent; server says: \(response.text)\n")
        try expect(
            response.status == .ok && response.text.contains("\"size\":\(sent)"), "the server read all \(sent) bytes")
        try expect(last?.receivedBytes == Int64(sent), "progress ended at the full body")
        try expect(response.text.contains("multipart\\/form-data; boundary="), "sent as multipart/form-data")
    }

    private func download() async throws {
        let url = base + "bytes/16000000?interval_ms=4&piece=262144"
        var options = DownloadOptions()
        options.expectedSHA256 = try await digest(of: base + "bytes/16000000")
        let started = ContinuousClock.now
        let download = client.download(from: url, to: directory + "/big.bin", options: options)
        let observer = observe(download)
        let result = try await download.result()
        await observer.value
        let seconds = Self.seconds(ContinuousClock.now - started)
        say(
            "  \(result.bytes) bytes in \(Self.decimal(seconds)) s, \(ProgressBar.byteText(Int64(Double(result.bytes) / max(seconds, 0.001))))/s\n"
        )
        try expect(result.bytes == 16_000_000 && result.sha256 != nil, "16 MB on disk, SHA-256 verified")
    }

    private func pauseAndResume() async throws {
        let path = directory + "/paused.bin"
        var options = DownloadOptions()
        options.expectedSHA256 = try await digest(of: base + "bytes/4000000")
        let download = client.download(
            from: base + "bytes/4000000?interval_ms=10&piece=65536", to: path, options: options)
        var pausedAt: Int64?
        for await event in download.events {
            switch event {
            case .progress(let progress) where progress.receivedBytes >= 1_000_000 && pausedAt == nil:
                download.pause()
                pausedAt = -1
            case .paused(let progress):
                pausedAt = progress.receivedBytes
                say("  paused at \(progress.receivedBytes) bytes; resuming in 300 ms\n")
                try? await Task.sleep(for: .milliseconds(300))
                download.resume()
            default:
                break
            }
        }
        let result = try await download.result()
        let range = server.requestLog.last?.fields["Range"]
        try expect((pausedAt ?? 0) > 0 && result.requests == 2, "paused once, then one more request")
        try expect(
            range == "bytes=\(pausedAt ?? 0)-", "the second request asked for the rest only (\(range ?? "no Range"))")
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
        let download = client.download(from: url, to: path, options: options)
        let observer = observe(download)
        let result = try await download.result()
        await observer.value
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
        let download = client.download(from: base + "files/report.csv?interval_ms=10&piece=32768", to: path)
        var restarted = false
        var paused = false
        for await event in download.events {
            switch event {
            case .progress(let progress) where progress.receivedBytes >= 256 * 1024 && !paused:
                paused = true
                download.pause()
            case .paused(let progress):
                server.setFile("report.csv", contents: version2)
                say("  paused at \(progress.receivedBytes) bytes; the server's file is replaced (new ETag)\n")
                download.resume()
            case .restarted(let cause):
                restarted = true
                say("  the download starts again from byte 0: \(DownloadCommand.explanation(of: cause))\n")
            default:
                break
            }
        }
        _ = try await download.result()
        try expect(restarted, "the If-Range mismatch was noticed")
        try expect(try readFile(path) == version2, "the file is the new version, not old and new bytes spliced")
    }

    private func deleteData() async throws {
        let paths = ["big.bin", "paused.bin", "killed.bin", "report.csv"].map { directory + "/" + $0 }
        for path in paths {
            try await Download.removeData(destination: path)
        }
        let candidates = paths.flatMap { path -> [String] in [path, path + ".part", path + ".part.resume"] }
        let left = candidates.filter { path in access(path, F_OK) == 0 }
        say("  removed \(paths.count) downloads with Download.removeData(destination:)\n")
        try expect(left.isEmpty, "no file, part file or record is left")
    }

    // MARK: Helpers

    /// Draws the download's progress (on a terminal) and its resume and restart notes, as `wire download` does.
    private func observe(_ download: Download) -> Task<Void, Never> {
        let events = download.events
        let showsProgress = self.showsProgress
        return Task { await DownloadCommand.observe(events, showsProgress: showsProgress, verbose: true) }
    }

    private func say(_ text: String) { Terminal.writeOutput(text) }

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
