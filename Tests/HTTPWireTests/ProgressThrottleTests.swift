// ProgressThrottleTests: the rate limit on progress keeps its trailing edge — a burst that ends inside an
// interval is reported when the interval ends — alone and through whole downloads (one stream and
// segments) whose server sends a burst and then holds the body.

import HTTPWireCodec
import HTTPWireTransport
import TestSupport
import Testing

@testable import FixtureServer
@testable import HTTPWire

@Suite struct ProgressThrottleTests {
    @Test("the newest snapshot held back inside an interval is reported when the interval ends")
    func trailingEdge() async throws {
        let reports = LockedState<[Int64]>([])
        let throttle = ProgressThrottle(interval: .seconds(1)) { progress in
            reports.withLock { $0.append(progress.receivedBytes) }
        }
        for bytes in [100, 200, 300] as [Int64] {
            throttle.offer(TransferProgress(receivedBytes: bytes, expectedBytes: 1000))
        }
        // Without a trailing edge nothing more is ever reported: no offer comes after the interval.
        #expect(await eventually(within: .seconds(20)) { reports.withLock { $0.last } == 300 })
        let seen = reports.withLock { $0 }
        #expect(seen == seen.sorted() && seen.count <= 3, "\(seen)")
        #expect(await eventually { throttle.scheduledTimer == nil })
    }

    @Test("finish reports at once, leaves no timer on the reactor, and nothing comes after it")
    func finishCancelsTheTimer() async throws {
        let reports = LockedState<[Int64]>([])
        let throttle = ProgressThrottle(interval: .seconds(600)) { progress in
            reports.withLock { $0.append(progress.receivedBytes) }
        }
        throttle.offer(TransferProgress(receivedBytes: 100, expectedBytes: nil))
        let timer = try #require(throttle.scheduledTimer)
        #expect(timer.isScheduled)
        #expect(reports.withLock { $0.isEmpty })
        throttle.finish(with: TransferProgress(receivedBytes: 150, expectedBytes: nil))
        #expect(reports.withLock { $0 } == [150])
        #expect(throttle.scheduledTimer == nil)
        // The cancellation reaches the reactor thread asynchronously.
        #expect(await eventually { !timer.isScheduled })
        throttle.offer(TransferProgress(receivedBytes: 200, expectedBytes: nil))
        throttle.finish(with: TransferProgress(receivedBytes: 250, expectedBytes: nil))
        #expect(throttle.scheduledTimer == nil)
        #expect(reports.withLock { $0 } == [150])
    }

    /// Downloads `count` bytes whose body the server holds at `holds` (one per segment), waits until the
    /// download's progress shows every byte before the holds, then releases them and checks the result.
    func downloadHeld(count: Int, holds: [Int], segments: Int, expectedProgress: Int64) async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let url = server.baseURL + "bytes/\(count)?hold_at=\(holds.map(String.init).joined(separator: ","))"
            var configuration = ClientConfiguration()
            // The held bodies wait for the test, however long a loaded machine keeps it away.
            configuration.timeouts.idle = .seconds(600)
            var options = DownloadOptions()
            options.segments = segments
            options.segmentProbe = .zero
            let digest = SHA256Digest.of(GeneratedBytes.bytes(0..<Int64(count)))
            options.expectedSHA256 = digest
            // Far longer than the burst before the holds takes on loopback: every byte of it arrives within
            // the first interval, so only the interval's end can report it.
            options.progressInterval = .milliseconds(500)
            let download = HTTPClient(configuration: configuration).download(
                from: url, to: scratch.file("held.bin"), options: options)
            let reached = await eventually(within: .seconds(30)) {
                download.progress.receivedBytes == expectedProgress
            }
            #expect(reached, "progress stuck at \(download.progress.receivedBytes) of \(expectedProgress)")
            server.releaseHeldBodies()
            let result = try await download.result()
            #expect(result.sha256 == digest)
            #expect(download.progress.receivedBytes == Int64(count))
        }
    }

    @Test("a download that got a burst and then stalls shows the whole burst", .timeLimit(.scaledMinutes(1)))
    func singleStreamStall() async throws {
        try await downloadHeld(count: 1 << 20, holds: [300_000], segments: 1, expectedProgress: 300_000)
    }

    @Test(
        "a segmented download that stalls on every connection shows every byte before the stalls",
        .timeLimit(.scaledMinutes(1)))
    func segmentedStall() async throws {
        let mebibyte = 1 << 20
        try await downloadHeld(
            count: 8 * mebibyte, holds: [mebibyte, 5 * mebibyte], segments: 2,
            expectedProgress: Int64(2 * mebibyte))
    }
}
