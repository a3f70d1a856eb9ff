// Downloads against the fixture server: fresh downloads, file names, status errors, checksums, progress,
// pause and resume, removing data.

import Foundation
import HTTPWire
import HTTPWireCodec
import TestSupport
import Testing

@testable import FixtureServer

@Suite struct DownloadTests {
    @Test("a fresh download lands at the destination, with no part file or record left", .timeLimit(.scaledMinutes(1)))
    func freshDownload() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let contents = DownloadScratch.pattern(3_000_000)
        try await withFixtureServer { server in
            server.setFile("a.bin", contents: contents)
            let client = HTTPClient()
            for zeroCopy in [true, false] {
                var options = DownloadOptions()
                options.allowsZeroCopy = zeroCopy
                let destination = scratch.file("a-\(zeroCopy).bin")
                let result = try await client.download(
                    from: server.baseURL + "files/a.bin", to: destination, options: options
                ).result()
                #expect(result.location == destination)
                #expect(result.bytes == Int64(contents.count))
                #expect(result.resumedFromBytes == 0)
                #expect(await DownloadScratch.contents(destination) == contents)
                #expect(!DownloadScratch.exists(destination + ".part"))
                #expect(!DownloadScratch.exists(destination + ".part.resume"))
                #expect(await Download.isComplete(destination: destination))
            }
            await client.shutdown()
        }
    }

    @Test("a chunked body, decoded in the write block, is written whole", .timeLimit(.scaledMinutes(1)))
    func chunkedDownload() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let client = HTTPClient()
            let reference = try await client.get(server.baseURL + "chunked?chunks=64&size=16384")
            let destination = scratch.file("chunked.bin")
            let result = try await client.download(
                from: server.baseURL + "chunked?chunks=64&size=16384", to: destination
            ).result()
            #expect(result.bytes == 64 * 16384)
            #expect(await DownloadScratch.contents(destination) == reference.body)
            await client.shutdown()
        }
    }

    @Test(
        "a body delimited by the server's close, copied in slice by slice, is written whole",
        .timeLimit(.scaledMinutes(1)))
    func untilCloseDownload() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let client = HTTPClient()
            let reference = try await client.get(server.baseURL + "until-close?bytes=300000")
            #expect(reference.body.count == 300_000)
            let destination = scratch.file("until-close.bin")
            let result = try await client.download(from: server.baseURL + "until-close?bytes=300000", to: destination)
                .result()
            #expect(result.bytes == 300_000)
            #expect(await DownloadScratch.contents(destination) == reference.body)
            await client.shutdown()
        }
    }

    @Test("a non-2xx answer is an error with its status and writes nothing", .timeLimit(.scaledMinutes(1)))
    func statusError() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let client = HTTPClient()
            let destination = scratch.file("missing.bin")
            await #expect(throws: HTTPWireError.httpStatus(404)) {
                try await client.download(from: server.baseURL + "files/missing.bin", to: destination).result()
            }
            await #expect(throws: HTTPWireError.httpStatus(500)) {
                try await client.download(from: server.baseURL + "status/500", toDirectory: scratch.path).result()
            }
            let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
            #expect(left.isEmpty)
            await client.shutdown()
        }
    }

    @Test(
        "the file name comes from Content-Disposition (filename* first), else the URL, and never escapes",
        .timeLimit(.scaledMinutes(1)),
        arguments: [
            ("attachment; filename=\"report.pdf\"", "report.pdf"),
            ("attachment; filename=\"plain.txt\"; filename*=UTF-8''r%C3%A9sum%C3%A9.txt", "résumé.txt"),
            ("attachment; filename=\"../../etc/passwd\"", "passwd"),
            ("attachment; filename=\"..\\\\..\\\\.bashrc\"", "bashrc"),
            ("attachment; filename=\"..\"", "headers"),
        ])
    func fileNames(disposition: String, expected: String) async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let client = HTTPClient()
            let target = try TargetURL(server.baseURL + "headers").appendingQueryItems([
                (name: "Content-Disposition", value: disposition)
            ])
            let download = client.download(from: target.description, toDirectory: scratch.path)
            let result = try await download.result()
            #expect(result.location == scratch.file(expected))
            #expect(download.destination == scratch.file(expected))
            let names = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
            #expect(names == [expected])
            await client.shutdown()
        }
    }

    @Test(
        "SHA-256: a matching digest is reported, a wrong one fails and keeps the file out of place",
        .timeLimit(.scaledMinutes(1)))
    func checksum() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let contents = DownloadScratch.pattern(1_500_000)
        let digest = try #require(SHA256Digest.of(contents))
        try await withFixtureServer { server in
            server.setFile("c.bin", contents: contents)
            let client = HTTPClient()
            for zeroCopy in [true, false] {
                var options = DownloadOptions()
                options.allowsZeroCopy = zeroCopy
                options.expectedSHA256 = digest
                let good = scratch.file("good-\(zeroCopy).bin")
                let result = try await client.download(from: server.baseURL + "files/c.bin", to: good, options: options)
                    .result()
                #expect(result.sha256 == digest)

                let wrong = try #require(SHA256Digest.of(Array("not it".utf8)))
                options.expectedSHA256 = wrong
                let bad = scratch.file("bad-\(zeroCopy).bin")
                await #expect(
                    throws: HTTPWireError.checksumMismatch(expected: wrong.hexString, actual: digest.hexString)
                ) {
                    try await client.download(from: server.baseURL + "files/c.bin", to: bad, options: options).result()
                }
                #expect(!DownloadScratch.exists(bad))
                #expect(await DownloadScratch.contents(bad + ".part") == contents)
            }
            #expect(HTTPWireError.checksumMismatch(expected: "a", actual: "b").exitCode == 32)
            await client.shutdown()
        }
    }

    @Test(
        "progress is monotonic, within the total, and ends at the total with a sane speed",
        .timeLimit(.scaledMinutes(1)))
    func progressIsSane() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let client = HTTPClient()
            var options = DownloadOptions()
            options.progressInterval = .milliseconds(20)
            // 150 bytes, one per 20 ms: at least 3 s, however fast the machine, so a measuring window (1 s)
            // closes before the end — even when a loaded machine starts the transfer's meter late, with bytes
            // already waiting (at 10 ms a byte, a start 0.6 s late on two busy cores left no window closed).
            let download = client.download(
                from: server.baseURL + "drip?bytes=150&interval_ms=20", to: scratch.file("drip.txt"), options: options)
            var snapshots: [TransferProgress] = []
            var started: (offset: Int64, expected: Int64?)?
            for await event in download.events {
                switch event {
                case .progress(let progress): snapshots.append(progress)
                case .started(_, let offset, let expected): started = (offset, expected)
                default: break
                }
            }
            _ = try await download.result()
            #expect(started?.offset == 0)
            #expect(started?.expected == 150)
            // A first, a middle and a last report at least, even if a loaded machine reads the drip in bursts.
            #expect(snapshots.count >= 3)
            // At most one report of new bytes per byte. A count can repeat: when a loaded machine holds the
            // transfer a second, the stall is reported with the same count and a falling speed (by design).
            #expect(Set(snapshots.map(\.receivedBytes)).count <= 150)
            #expect(zip(snapshots, snapshots.dropFirst()).allSatisfy { $0.receivedBytes <= $1.receivedBytes })
            #expect(snapshots.allSatisfy { $0.expectedBytes == 150 && $0.receivedBytes <= 150 })
            #expect(snapshots.last?.receivedBytes == 150)
            #expect(snapshots.last?.fraction == 1)
            // The speed depends on how fast this machine happens to run, so it is held only to what no timing can
            // change: finite and positive (every closed window holds a byte), and at most 150 B/s, because a
            // window lasts at least a second and the whole body is 150 bytes. An idle machine shows ~50 B/s.
            let speeds = snapshots.compactMap(\.bytesPerSecond)
            #expect(!speeds.isEmpty)
            #expect(speeds.allSatisfy { $0.isFinite && $0 > 0 && $0 <= 150 }, "\(speeds)")
            #expect(snapshots.compactMap(\.estimatedTimeRemaining).allSatisfy { $0 >= .zero })
            #expect(snapshots.last?.estimatedTimeRemaining == .zero)
            await client.shutdown()
        }
    }

    @Test("503 is retried as the policy says, then reported as httpStatus(503)", .timeLimit(.scaledMinutes(1)))
    func statusRetry() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let client = HTTPClient()
            var options = DownloadOptions()
            options.retry = RetryPolicy(maxRetries: 2, initialBackoff: .milliseconds(5))
            let download = client.download(
                from: server.baseURL + "status/503?retry_after=0", to: scratch.file("busy"), options: options)
            var delays: [Duration] = []
            for await event in download.events {
                if case .retrying(_, let delay, let error) = event {
                    #expect(error == .httpStatus(503))
                    delays.append(delay)
                }
            }
            await #expect(throws: HTTPWireError.httpStatus(503)) { try await download.result() }
            #expect(delays == [.zero, .zero])  // Retry-After: 0 replaces the backoff
            #expect(server.requestLog.count == 3)
            let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
            #expect(left.isEmpty)
            await client.shutdown()
        }
    }
}
