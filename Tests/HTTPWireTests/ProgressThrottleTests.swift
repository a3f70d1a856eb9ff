// ProgressThrottleTests: the rate limit on progress keeps its trailing edge — a burst that ends inside an
// interval is reported when the interval ends — and reports a quiet spell with a fresh snapshot, alone and
// through whole downloads (one stream and segments) whose server sends a burst and then holds the body.

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

    @Test("a quiet spell is reported with refreshed snapshots, and nothing after finish")
    func quietSpell() async throws {
        let reports = LockedState<[Int64]>([])
        let refreshes = LockedState(0)
        let throttle = ProgressThrottle(
            interval: .milliseconds(10),
            refresh: {
                // Each refresh says how many came before it, so the reports show they are fresh.
                refreshes.withLock { count in
                    count += 1
                    return TransferProgress(receivedBytes: Int64(count), expectedBytes: nil)
                }
            },
            report: { progress in reports.withLock { $0.append(progress.receivedBytes) } })
        // No offer at all: a transfer whose server never sends a byte still shows it is alive, once a second.
        #expect(await eventually(within: .seconds(30)) { reports.withLock { $0.count } >= 2 })
        // Rescheduled after each check (eventually: a check in progress holds none for a moment).
        #expect(await eventually { throttle.scheduledQuietTimer != nil })
        throttle.finish(with: TransferProgress(receivedBytes: 100, expectedBytes: nil))
        let timer = throttle.scheduledQuietTimer
        #expect(timer == nil)
        let seen = reports.withLock { $0 }
        #expect(seen.last == 100 && Array(seen.dropLast()) == Array(1...Int64(seen.count - 1)), "\(seen)")
        // Nothing more: the quiet check was cancelled with the rest.
        try await Task.sleep(for: .milliseconds(1500))
        #expect(reports.withLock { $0 } == seen)
    }

    @Test("a refreshed snapshot made while a newer one was offered is dropped")
    func refreshOvertaken() async throws {
        let reports = LockedState<[Int64]>([])
        let holder = LockedState<ProgressThrottle?>(nil)
        let throttle = ProgressThrottle(
            interval: .milliseconds(10),
            refresh: {
                // Bytes arrive while the refresh is made (outside the throttle's lock): the offer is newer.
                holder.withLock { $0 }?.offer(TransferProgress(receivedBytes: 500, expectedBytes: nil))
                return TransferProgress(receivedBytes: 400, expectedBytes: nil)
            },
            report: { progress in reports.withLock { $0.append(progress.receivedBytes) } })
        holder.withLock { $0 = throttle }
        #expect(await eventually(within: .seconds(30)) { reports.withLock { $0.count } >= 2 })
        throttle.finish(with: TransferProgress(receivedBytes: 600, expectedBytes: nil))
        let seen = reports.withLock { $0 }
        #expect(!seen.contains(400) && seen.last == 600 && seen.dropLast().allSatisfy { $0 == 500 }, "\(seen)")
    }

    /// Downloads `count` bytes whose body the server holds at `holds` (one per segment), waits until the
    /// download's progress shows every byte before the holds and, while they are held, a speed measured
    /// and then falling; then releases them and checks the result.
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
            // The stall itself is reported: the meter closes its windows with no bytes, so a speed is
            // measured (the burst took less than a window) and then falls. Without quiet-spell reports the
            // last snapshot, from inside the first window, stays: no speed at all.
            var stalledSpeed: Double?
            let measured = await eventually(within: .seconds(30)) {
                let progress = download.progress
                stalledSpeed = progress.receivedBytes == expectedProgress ? progress.bytesPerSecond : nil
                return stalledSpeed != nil
            }
            #expect(measured, "no speed during the stall: \(download.progress)")
            if let stalledSpeed {
                let fell = await eventually(within: .seconds(30)) {
                    (download.progress.bytesPerSecond ?? .infinity) < stalledSpeed
                }
                #expect(fell, "speed stuck at \(stalledSpeed) during the stall: \(download.progress)")
                #expect(download.progress.receivedBytes == expectedProgress)
            }
            server.releaseHeldBodies()
            let result = try await download.result()
            #expect(result.sha256 == digest)
            #expect(download.progress.receivedBytes == Int64(count))
        }
    }

    @Test(
        "a download that got a burst and then stalls shows the whole burst, then its speed falling",
        .timeLimit(.scaledMinutes(2)))
    func singleStreamStall() async throws {
        try await downloadHeld(count: 1 << 20, holds: [300_000], segments: 1, expectedProgress: 300_000)
    }

    @Test(
        "a segmented download that stalls on every connection shows every byte before the stalls, then its speed falling",
        .timeLimit(.scaledMinutes(2)))
    func segmentedStall() async throws {
        let mebibyte = 1 << 20
        try await downloadHeld(
            count: 8 * mebibyte, holds: [mebibyte, 5 * mebibyte], segments: 2,
            expectedProgress: Int64(2 * mebibyte))
    }
}
