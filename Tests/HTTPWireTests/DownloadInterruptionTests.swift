// Downloads interrupted on purpose: cancelled mid-way and resumed, paused and resumed, retried after the
// connection dropped, data removed while running. The server stops or drops at a known byte, so every
// count below is exact.

import Foundation
import HTTPWireCodec
import TestSupport
import Testing

@testable import HTTPWire

@Suite struct DownloadInterruptionTests {
    static let size = 1_000_000
    static let half = 400_000

    @Test(
        "a cancelled download keeps its bytes, and the next one continues with Range and If-Range",
        .timeLimit(.scaledMinutes(1)), arguments: [true, false])
    func cancelThenResume(zeroCopy: Bool) async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(Self.size)
        let server = try DownloadTestServer(content: content, script: [.stallAfter(Self.half)])
        let client = HTTPClient()
        var options = DownloadOptions()
        options.allowsZeroCopy = zeroCopy
        options.progressInterval = .zero
        let destination = scratch.file("big.bin")

        let first = client.download(from: server.url, to: destination, options: options)
        await first.waitForProgress(atLeast: Int64(Self.half))
        #expect(Download.isDownloading(destination: destination))
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.result() }
        #expect(!Download.isDownloading(destination: destination))
        #expect(await DownloadScratch.contents(destination + ".part") == Array(content[..<Self.half]))
        guard case .valid(let record) = ResumeRecord.load(fromPath: destination + ".part.resume") else {
            Issue.record("no record after cancelling")
            return
        }
        #expect(record.committedBytes == Int64(Self.half))
        #expect(record.entityTag == server.entityTag)
        #expect(record.expectedLength == Int64(Self.size))
        let stored = await Download.storedProgress(forDestination: destination)
        #expect(stored?.receivedBytes == Int64(Self.half))
        #expect(stored?.expectedBytes == Int64(Self.size))

        // The digest covers the bytes kept from the first run as well as the new ones.
        options.expectedSHA256 = SHA256Digest.of(content)
        let result = try await client.download(from: server.url, to: destination, options: options).result()
        #expect(result.resumedFromBytes == Int64(Self.half))
        #expect(result.sha256 == SHA256Digest.of(content))
        #expect(await DownloadScratch.contents(destination) == content)
        #expect(server.requests.ranges == [nil, "bytes=\(Self.half)-"])
        #expect(server.requests.ifRanges == [nil, server.entityTag])
        #expect(await Download.storedProgress(forDestination: destination) == nil)
        await client.shutdown()
        await server.stop()
    }

    @Test("pause commits what arrived; resume continues from there", .timeLimit(.scaledMinutes(1)))
    func pauseAndResume() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(Self.size)
        let server = try DownloadTestServer(content: content, script: [.stallAfter(Self.half)])
        let client = HTTPClient()
        var options = DownloadOptions()
        options.progressInterval = .zero
        let destination = scratch.file("paused.bin")
        let download = client.download(from: server.url, to: destination, options: options)
        var sawPause = false
        var sawResume = false
        for await event in download.events {
            switch event {
            case .progress(let progress) where progress.receivedBytes >= Int64(Self.half) && !sawPause:
                download.pause()
            case .paused(let progress):
                sawPause = true
                #expect(progress.receivedBytes == Int64(Self.half))
                #expect(download.isPaused)
                let stored = await Download.storedProgress(forDestination: destination)
                #expect(stored?.receivedBytes == Int64(Self.half))
                download.resume()
            case .resumed:
                sawResume = true
            default:
                break
            }
        }
        let result = try await download.result()
        #expect(sawPause && sawResume)
        #expect(!download.isPaused)
        #expect(result.resumedFromBytes == 0)
        #expect(result.requests == 2)
        #expect(await DownloadScratch.contents(destination) == content)
        #expect(server.requests.ranges == [nil, "bytes=\(Self.half)-"])
        await client.shutdown()
        await server.stop()
    }

    @Test("a dropped connection is retried from the bytes on disk, never from zero", .timeLimit(.scaledMinutes(1)))
    func retryResumes() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(Self.size)
        let server = try DownloadTestServer(content: content, script: [.dropAfter(300_000), .dropAfter(300_000)])
        let client = HTTPClient()
        var options = DownloadOptions()
        options.retry = RetryPolicy(maxRetries: 3, initialBackoff: .milliseconds(10))
        let destination = scratch.file("retried.bin")
        let download = client.download(from: server.url, to: destination, options: options)
        var retries: [HTTPWireError] = []
        for await event in download.events {
            if case .retrying(_, _, let error) = event { retries.append(error) }
        }
        let result = try await download.result()
        #expect(await DownloadScratch.contents(destination) == content)
        #expect(retries.count == 2)
        #expect(retries.allSatisfy { if case .bodyTruncated = $0 { true } else { false } })
        #expect(server.requests.ranges == [nil, "bytes=300000-", "bytes=600000-"])
        // Every byte crossed the network once: nothing was fetched twice.
        #expect(server.requests.bodyBytesSent == Self.size)
        #expect(result.requests == 3)
        await client.shutdown()
        await server.stop()
    }

    @Test(
        "without retries a dropped connection fails with bodyTruncated and keeps the bytes",
        .timeLimit(.scaledMinutes(1)))
    func dropWithoutRetry() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(Self.size)
        let server = try DownloadTestServer(content: content, script: [.dropAfter(250_000)])
        let client = HTTPClient()
        let destination = scratch.file("dropped.bin")
        await #expect(throws: HTTPWireError.bodyTruncated(expected: Int64(Self.size), received: 250_000)) {
            try await client.download(from: server.url, to: destination).result()
        }
        #expect(await DownloadScratch.contents(destination + ".part") == Array(content[..<250_000]))
        #expect(await Download.storedProgress(forDestination: destination)?.receivedBytes == 250_000)
        #expect(!DownloadScratch.exists(destination))
        await client.shutdown()
        await server.stop()
    }

    @Test("removing data while downloading cancels first, then deletes everything", .timeLimit(.scaledMinutes(1)))
    func removeWhileDownloading() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(Self.size)
        let server = try DownloadTestServer(content: content, script: [.stallAfter(Self.half)])
        let client = HTTPClient()
        var options = DownloadOptions()
        options.progressInterval = .zero
        let destination = scratch.file("removed.bin")
        let download = client.download(from: server.url, to: destination, options: options)
        await download.waitForProgress(atLeast: Int64(Self.half))
        try await Download.removeData(forDestination: destination)
        await #expect(throws: CancellationError.self) { try await download.result() }
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
        #expect(left.isEmpty)
        #expect(await Download.storedProgress(forDestination: destination) == nil)

        // A finished file is removed too.
        _ = try await client.download(from: server.url, to: destination).result()
        #expect(await Download.isComplete(destination: destination))
        try await Download.removeData(forDestination: destination)
        #expect(!DownloadScratch.exists(destination))
        #expect(!(await Download.isComplete(destination: destination)))
        await client.shutdown()
        await server.stop()
    }

    @Test("a second download to the same destination is refused while the first runs", .timeLimit(.scaledMinutes(1)))
    func oneDownloadPerDestination() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let server = try DownloadTestServer(content: DownloadScratch.pattern(Self.size), script: [.stallAfter(1000)])
        let client = HTTPClient()
        var options = DownloadOptions()
        options.progressInterval = .zero
        let destination = scratch.file("busy.bin")
        let first = client.download(from: server.url, to: destination, options: options)
        await first.waitForProgress(atLeast: 1000)
        await #expect(throws: HTTPWireError.localWriteFailed(path: destination, errno: EBUSY)) {
            try await client.download(from: server.url, to: destination).result()
        }
        first.cancel()
        _ = try? await first.result()
        await client.shutdown()
        await server.stop()
    }
}
