// DownloadRateLimitTests: a rate limit slows a download to its budget — paced on reactor timers, shared
// across downloads when the limiter is shared. Only lower bounds on time are checked here (a loaded
// machine can make a transfer slower, never faster); the accuracy (±10% over 5 s) is measured by
// `make bench`, not by a timed test.

import Foundation
import TestSupport
import Testing

@testable import FixtureServer
@testable import HTTPWire

@Suite struct DownloadRateLimitTests {
    @Test("spending a budget waits until the bytes are due, less one burst", .timeLimit(.scaledMinutes(1)))
    func limiterPaces() async throws {
        let limiter = DownloadRateLimiter(bytesPerSecond: 1_000_000)
        let start = ContinuousClock.now
        for _ in 0..<50 { try await limiter.spend(10_000) }
        // 500,000 bytes at 1 MB/s: due at 0.5 s, of which 0.1 s may be spent ahead.
        #expect(ContinuousClock.now - start >= .milliseconds(390))
    }

    @Test(
        "maxBytesPerSecond slows a download, on the splice and the copying path", .timeLimit(.scaledMinutes(1)),
        arguments: [true, false])
    func downloadIsLimited(zeroCopy: Bool) async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let client = HTTPClient()
            var options = DownloadOptions()
            options.allowsZeroCopy = zeroCopy
            options.maxBytesPerSecond = 400_000
            let start = ContinuousClock.now
            let result = try await client.download(
                from: server.baseURL + "bytes/800000", to: scratch.file("r.bin"), options: options
            ).result()
            let elapsed = ContinuousClock.now - start
            #expect(result.bytes == 800_000)
            // Due at 2 s; one burst (0.1 s) and one read round (at most 40 kB here) may come early.
            #expect(elapsed >= .milliseconds(1_700), "took \(elapsed)")
            #expect(await DownloadScratch.contents(scratch.file("r.bin")) == GeneratedBytes.bytes(0..<800_000))
            await client.shutdown()
        }
    }

    @Test("a shared limiter holds two downloads to one budget together", .timeLimit(.scaledMinutes(1)))
    func sharedLimit() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let client = HTTPClient()
            var options = DownloadOptions()
            options.sharedRateLimiter = DownloadRateLimiter(bytesPerSecond: 500_000)
            let start = ContinuousClock.now
            let first = client.download(
                from: server.baseURL + "bytes/500000?seed=1", to: scratch.file("a"), options: options)
            let second = client.download(
                from: server.baseURL + "bytes/500000?seed=2", to: scratch.file("b"), options: options)
            _ = try await (first.result(), second.result())
            // 1,000,000 bytes at 500 kB/s together: due at 2 s.
            #expect(ContinuousClock.now - start >= .milliseconds(1_700))
            await client.shutdown()
        }
    }
}
