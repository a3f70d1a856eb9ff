// WireTransferTests: `wire download` and `wire upload` run as a user runs them — a download killed with
// SIGKILL and run again resumes with Range + If-Range into a byte-identical file, a second download to the
// same file while one runs exits 23 without disturbing it, Ctrl-C exits 130 and keeps the partial data, the
// progress bar appears on a terminal and not in a pipe, and a multipart upload reaches the server whole.

import FixtureServer
import Foundation
import HTTPWire
import TestSupport
import Testing

@Suite(.serialized) struct WireTransferTests {
    /// A fresh directory for one test's files.
    private func makeDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wire-transfer-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    /// Waits (up to `timeout`, scaled) until `path` holds at least `bytes` bytes, written by `process`. A
    /// process that ends first stops the wait, and the failure says how it ended. (A loaded run once saw
    /// the part file "stay at 0 bytes" with wire ended and nothing on stderr: the whole paced download had
    /// finished and renamed its part file while the test was kept from looking. The server's `hold_at`
    /// now stops every body this suite acts on part-way until the test releases it.)
    private func waitForFile(
        _ path: String, atLeast bytes: Int, by process: RunningWire, timeout: Duration = .seconds(20)
    ) async throws {
        _ = await eventually(within: timeout) { fileSize(path) >= bytes || !process.isRunning }
        let size = fileSize(path)
        let stderr = size >= bytes ? "" : await process.errorSoFar()
        try #require(
            size >= bytes, "\(path) stayed at \(size) bytes; wire \(process.isRunning ? "running" : "ended"): \(stderr)"
        )
    }

    /// Pieces of 10 KB every `pieceInterval` ms: 1 MB takes 100 intervals, two seconds at scale 1.
    private var pieceInterval: Int { Int((20 * TestTime.scale).rounded(.up)) }

    /// 1 MB in 10 KB pieces every ``pieceInterval`` ms that stops before byte `holdAt` until
    /// `server.releaseHeldBodies()`: a test acts part-way, then releases the rest.
    private func slowURL(_ server: FixtureServer, holdAt: Int) -> String {
        server.baseURL + "bytes/1000000?interval_ms=\(pieceInterval)&piece=10000&hold_at=\(holdAt)"
    }

    /// Starts `wire download` of ``slowURL(_:holdAt:)`` (held at `bytes` + 100 KB) into
    /// `directory/file.bin`, and waits until its part file holds `bytes` bytes.
    private func startSlowDownload(
        from server: FixtureServer, into directory: String, atLeast bytes: Int
    ) async throws -> (url: String, target: String, process: RunningWire) {
        let url = slowURL(server, holdAt: bytes + 100_000)
        let target = directory + "/file.bin"
        let process = try await WireProcess.start(["download", url, "-o", target])
        try await waitForFile(target + ".part", atLeast: bytes, by: process)
        return (url, target, process)
    }

    private func reference(_ url: String) async throws -> [UInt8] {
        let client = HTTPClient()
        let body = try await client.get(url).body
        await client.shutdown()
        return body
    }

    @Test(
        "a download killed with SIGKILL resumes with Range and If-Range into an identical file",
        .timeLimit(.scaledMinutes(1))
    )
    func killedAndResumed() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withFixtureServer { server in
            let (url, target, first) = try await startSlowDownload(from: server, into: directory, atLeast: 300_000)
            // The resume record is committed every 250 ms: wait for a commit past the bytes seen.
            try #require(
                await eventually {
                    (await Download.storedProgress(destination: target))?.receivedBytes ?? 0 >= 300_000
                },
                "no resume record committed 300 000 bytes")
            first.send(SIGKILL)
            let killed = try await first.finish()
            #expect(killed.status == 128 + SIGKILL)
            #expect(!FileManager.default.fileExists(atPath: target))
            // The dead process's lock file stays, but the kernel dropped its flock: the next run takes it.
            #expect(FileManager.default.fileExists(atPath: target + ".part.lock"))

            server.releaseHeldBodies()
            let second = try await WireProcess.run(["download", url, "-o", target])
            #expect(second.status == 0, "\(second.standardError)")
            let last = try #require(server.requestLog.last)
            let range = try #require(last.fields["Range"])
            #expect(range.hasPrefix("bytes=") && range != "bytes=0-")
            #expect(last.fields["If-Range"] == "\"bytes-1000000-0\"")
            let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: target)))
            #expect(written == (try await reference(server.baseURL + "bytes/1000000")))
            #expect(!FileManager.default.fileExists(atPath: target + ".part"))
            #expect(!FileManager.default.fileExists(atPath: target + ".part.lock"))
        }
    }

    @Test(
        "a second wire download to the same file exits 23 at once and the first one finishes",
        .timeLimit(.scaledMinutes(1)))
    func concurrentDownload() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withFixtureServer { server in
            let (url, target, first) = try await startSlowDownload(from: server, into: directory, atLeast: 100_000)
            let second = try await WireProcess.run(["download", url, "-o", target, "--restart"])
            #expect(second.status == 23)
            #expect(
                second.standardError
                    == "wire: error: cannot write \(target): another download to it is running (errno 16)\n")
            server.releaseHeldBodies()
            let finished = try await first.finish()
            #expect(finished.status == 0, "\(finished.standardError)")
            #expect(server.requestLog.count == 1)
            let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: target)))
            #expect(written == (try await reference(server.baseURL + "bytes/1000000")))
        }
    }

    @Test("Ctrl-C exits 130 and keeps the partial file for the next run", .timeLimit(.scaledMinutes(1)))
    func interrupted() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withFixtureServer { server in
            let url = slowURL(server, holdAt: 200_000)
            let target = directory + "/file.bin"
            let running = try await WireProcess.start(["download", url, "-o", target])
            try await waitForFile(target + ".part", atLeast: 100_000, by: running)
            running.send(SIGINT)
            let result = try await running.finish()
            #expect(result.status == 130)
            #expect(result.standardError == "wire: error: interrupted\n")
            let kept = fileSize(target + ".part")
            #expect(kept >= 100_000 && kept <= 200_000)
            #expect(FileManager.default.fileExists(atPath: target + ".part.resume"))

            server.releaseHeldBodies()
            let resumed = try await WireProcess.run(["download", url, "-o", target])
            #expect(resumed.status == 0)
            #expect(server.requestLog.last?.fields["Range"] != nil)
            #expect(fileSize(target) == 1_000_000)
        }
    }

    @Test("the progress bar is drawn on a terminal and absent in a pipe", .timeLimit(.scaledMinutes(1)))
    func progressBar() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withFixtureServer { server in
            let url = server.baseURL + "bytes/300000?interval_ms=20&piece=30000"
            let terminal = try await WireProcess.underPseudoTerminal(
                ["download", url, "-o", directory + "/a"], columns: 100)
            #expect(terminal.status == 0)
            #expect(terminal.standardOutput.contains("\r"))
            #expect(terminal.standardOutput.contains("100% ["))
            #expect(terminal.standardOutput.contains("293.0 KiB / 293.0 KiB"))

            let piped = try await WireProcess.run(["download", url, "-o", directory + "/b"])
            #expect(piped.status == 0)
            #expect(piped.standardError.isEmpty)
            #expect(piped.standardOutput.isEmpty)

            let forced = try await WireProcess.run(["download", url, "-o", directory + "/c", "--restart", "--progress"])
            #expect(forced.standardError.contains("100% ["))
        }
    }

    @Test(
        "during a stall the bar shows every byte that came before it",
        .timeLimit(.scaledMinutes(1)),
        arguments: ["get", "download"])
    func progressBarDuringStall(command: String) async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withFixtureServer { server in
            // 300,000 bytes come at once, then the server holds the body until the test releases it. A bar
            // redrawn only when bytes arrive (at most ten a second) shows the first piece of the burst.
            let url = server.baseURL + "bytes/1000000?hold_at=300000"
            let running = try await WireProcess.start([
                command, url, "-o", directory + "/held", "--progress", "--max-time", "60",
            ])
            let shown = await eventually(within: .seconds(30)) { await running.errorSoFar().contains("293.0 KiB") }
            server.releaseHeldBodies()
            let result = try await running.finish()
            #expect(shown, "\(result.standardError)")
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardError.contains("976.6 KiB"))
        }
    }

    @Test("upload sends fields and files as one multipart/form-data body", .timeLimit(.scaledMinutes(1)))
    func upload() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let image = [UInt8](repeating: 0xAB, count: 70_000)
        try Data(image).write(to: URL(fileURLWithPath: directory + "/photo.png"))
        try await withFixtureServer { server in
            let result = try await WireProcess.run([
                "upload", server.baseURL + "echo", "-F", "caption=Dunes at dawn",
                "-F", "photo=@\(directory)/photo.png;type=image/png;filename=dunes.png",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            let head = try #require(server.requestLog.last)
            #expect(head.method == .post)
            #expect(head.fields["Content-Type"]?.hasPrefix("multipart/form-data; boundary=") == true)
            let length = try #require(head.fields["Content-Length"].flatMap { Int($0) })
            #expect(length > 70_000)
            #expect(result.standardOutput.contains("Dunes at dawn"))
            #expect(result.standardOutput.contains("filename=\\\"dunes.png\\\""))
        }
    }
}
