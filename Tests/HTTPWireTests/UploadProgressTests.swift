// UploadProgressTests: upload progress as a person sees it — monotonic, ending exactly at the total,
// arriving steadily while the bytes go out (against a sink that reads slowly), with speed and time left —
// and the two pieces behind it stepped by hand: the progress meter and the sendfile(2) piece sizer.

import FixtureServer
import Foundation
import HTTPWireCodec
import HTTPWireTransport
import TestSupport
import Testing

@testable import HTTPWire

@Suite struct UploadProgressTests {
    @Test(
        "progress arrives steadily during a slow upload and ends at the total", .timeLimit(.scaledMinutes(1)),
        arguments: [false, true])
    func steadyProgress(asForm: Bool) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("photo.raw").path
        let size: Int64 = 24 << 20
        try await UploadHarness.writeLargeFile(at: path, size: size)
        // ~25 MB/s: about a second, long enough for dozens of reports and a measured speed.
        let sink = try SlowSink.start(bytesPerRead: 64 * 1024, pause: .milliseconds(2))
        let client = HTTPClient()
        // Two views of the same values: the callback sees every report the meter makes, on the sender's side;
        // the stream keeps only the newest one when its reader is slow (a loaded machine resumes the reading
        // task late), so it is checked for order and the end, and the callback for how many and how small.
        let sent = LockedState<[(receivedBytes: Int64, serverHad: Int64)]>([])
        var request =
            asForm
            ? HTTPRequest(
                method: .post, url: sink.url,
                body: .multipart(MultipartForm(fields: ["album": "Dunes"], files: ["photos[]": path])))
            : HTTPRequest(method: .post, url: sink.url, body: .file(path: path))
        request.uploadProgress = { progress in
            let serverHad = sink.received.current
            sent.withLock { $0.append((progress.receivedBytes, serverHad)) }
        }
        let upload = client.upload(request)
        var reports: [(progress: TransferProgress, serverHad: Int64)] = []
        for await progress in upload.progress { reports.append((progress, sink.received.current)) }
        let response = try await upload.response
        let received = await sink.stop()
        await client.shutdown()

        let total = try #require(reports.last?.progress.expectedBytes)
        #expect(response.status == .ok && received == total && response.text == String(total))
        #expect(asForm ? total > size : total == size)
        let counts = reports.map(\.progress.receivedBytes)
        // Non-decreasing: a machine that stalls the writer for a second gets a quiet report (same count).
        #expect(zip(counts, counts.dropFirst()).allSatisfy { $0 <= $1 }, "going backwards")
        #expect(counts.last == total)
        #expect(reports.allSatisfy { $0.progress.expectedBytes == total })
        #expect(reports.contains { $0.serverHad < total / 2 }, "the stream's first value came after half the body")
        // During, not only at the end: most reports came while the server still had much to read, and
        // pieces stayed small at this speed (the sizer aims at ~50 ms, here ~1-2 MiB).
        let every = sent.withLock { $0 }
        let sentCounts = every.map(\.receivedBytes)
        #expect(zip(sentCounts, sentCounts.dropFirst()).allSatisfy { $0 <= $1 }, "the callback's values go back")
        #expect(sentCounts.last == total)
        #expect(every.count >= 12, "\(every.count) reports")
        #expect(every.filter { $0.serverHad < total / 2 }.count >= 5)
        let largestStep = zip(sentCounts, sentCounts.dropFirst()).map { $1 - $0 }.max() ?? 0
        #expect(largestStep <= 4 << 20, "a step of \(largestStep) bytes")
        // In time, the sizer keeps pieces near 50 ms; that is not asserted here, because a machine busy
        // with the other suites resumes tasks late and only ever makes pieces smaller (see pieceSizer()).
        // A second in, speed and time left are known and sane.
        let measured = reports.filter { $0.progress.bytesPerSecond != nil }
        #expect(!measured.isEmpty)
        #expect(measured.allSatisfy { ($0.progress.bytesPerSecond ?? 0) > 0 })
        #expect(measured.last?.progress.estimatedTimeRemaining == .zero)
    }

    @Test("the callback on HTTPRequest sees the same monotonic, metered values", .timeLimit(.scaledMinutes(1)))
    func callbackVariant() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("data").path
        let size: Int64 = 9 << 20
        try await UploadHarness.writeLargeFile(at: path, size: size)
        try await withFixtureServer { server in
            let client = try await UploadHarness.client(for: server)
            defer { Task { await client.shutdown() } }
            let seen = LockedState<[Int64]>([])
            var request = HTTPRequest(method: .put, url: "redirect-to?status=308&url=%2Fsink", body: .file(path: path))
            request.uploadProgress = { progress in seen.withLock { $0.append(progress.receivedBytes) } }
            let response = try await client.send(request)
            #expect(response.fields["X-Received-Bytes"] == String(size))
            let counts = seen.withLock { $0 }
            #expect(zip(counts, counts.dropFirst()).allSatisfy { $0 <= $1 })
            #expect(counts.last == size)
        }
    }

    @Test(
        "a server that stops reading: the callback keeps coming with the same count and a falling speed",
        .timeLimit(.scaledMinutes(1)))
    func stalledUpload() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("stalled.raw").path
        let size: Int64 = 24 << 20
        try await UploadHarness.writeLargeFile(at: path, size: size)
        // ~25 MB/s for 20 MB (a measured speed), then nothing read for 3 s: the socket buffers fill and the
        // writer blocks with nothing to report.
        let sink = try SlowSink.start(
            bytesPerRead: 64 * 1024, pause: .milliseconds(2), holdAfter: 20_000_000, hold: .seconds(3).scaled)
        let client = HTTPClient()
        let seen = LockedState<[TransferProgress]>([])
        var request = HTTPRequest(method: .post, url: sink.url, body: .file(path: path))
        request.uploadProgress = { progress in seen.withLock { $0.append(progress) } }
        let response = try await client.send(request)
        _ = await sink.stop()
        await client.shutdown()
        #expect(response.status == .ok)
        let reports = seen.withLock { $0 }
        let counts = reports.map(\.receivedBytes)
        #expect(zip(counts, counts.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(counts.last == size)
        // Quiet reports: the count of the one before, and a speed under the one before (recorded quiet time).
        let quiet = zip(reports, reports.dropFirst()).filter { $0.receivedBytes == $1.receivedBytes }
        #expect(!quiet.isEmpty, "no report during the stall (\(reports.count) reports)")
        #expect(
            quiet.contains { (($1.bytesPerSecond ?? .infinity) < ($0.bytesPerSecond ?? 0)) }, "the speed did not fall")
    }

    @Test("the quiet check runs only while an attempt is sending: a complete body or attemptEnded() stops it")
    func quietCheckStops() {
        let meter = UploadProgressMeter { _ in }
        #expect(meter.scheduledQuietTimer == nil)
        meter.report(TransferProgress(receivedBytes: 100, expectedBytes: 1000))
        #expect(meter.scheduledQuietTimer != nil)
        meter.report(TransferProgress(receivedBytes: 1000, expectedBytes: 1000))
        #expect(meter.scheduledQuietTimer == nil)  // the body is out
        meter.report(TransferProgress(receivedBytes: 10, expectedBytes: nil))  // a replay of unknown length
        #expect(meter.scheduledQuietTimer != nil)
        meter.attemptEnded()
        #expect(meter.scheduledQuietTimer == nil)
    }

    @Test("the meter never goes backwards when a replay starts again from zero")
    func meterAcrossReplay() {
        let delivered = LockedState<[TransferProgress]>([])
        let meter = UploadProgressMeter { progress in delivered.withLock { $0.append(progress) } }
        for sent: Int64 in [100, 400, 1000, 200, 600, 1000, 1000] {
            meter.report(TransferProgress(receivedBytes: sent, expectedBytes: 1000))
        }
        let values = delivered.withLock { $0 }
        #expect(values.map(\.receivedBytes) == [100, 400, 1000])
        #expect(values.allSatisfy { $0.expectedBytes == 1000 })
    }

    @Test("the meter measures speed from every byte sent, replays included")
    func meterSpeed() async throws {
        let delivered = LockedState<[TransferProgress]>([])
        let meter = UploadProgressMeter { progress in delivered.withLock { $0.append(progress) } }
        let clock = ContinuousClock()
        let start = clock.now
        var sent: Int64 = 0
        // At least 10 ms of sleep, then 1 MB, until 0.7 s and 30 reports have passed: past the meter's first
        // 500 ms window however slowly a loaded machine resumes the sleeps. Sleeping first matters: a report
        // at the window's start would put 1 MB in the window with no time for it (one CI run measured
        // 100,001,491 B/s that way).
        while clock.now - start < .milliseconds(700) || sent < 30_000_000 {
            try await Task.sleep(for: .milliseconds(10))
            sent += 1_000_000
            meter.report(TransferProgress(receivedBytes: sent, expectedBytes: nil))
        }
        let last = try #require(delivered.withLock { $0.last })
        let speed = try #require(last.bytesPerSecond)
        // At most 100 MB/s by construction: each 1 MB follows 10 ms or more (the meter and the sleeps share
        // ContinuousClock); sleeps only lengthen the intervals, and a late resumption too.
        #expect(speed > 0 && speed <= 100_000_000, "\(speed)")
        #expect(last.estimatedTimeRemaining == nil)  // no total, no time left
    }

    @Test("the sendfile piece size grows on a fast link, shrinks on a slow one, within its bounds")
    func pieceSizer() {
        var sizer = UploadPieceSizer()
        #expect(sizer.nextPieceBytes == UploadPieceSizer.minimumBytes)
        for _ in 0..<20 { sizer.pieceSent(bytes: sizer.nextPieceBytes, in: .milliseconds(1)) }
        #expect(sizer.nextPieceBytes == UploadPieceSizer.maximumBytes)
        #expect(UploadPieceSizer.maximumBytes == 4 << 20)  // a progress report at least every 4 MiB
        // A short piece (the end of a file) says nothing about the link.
        sizer.pieceSent(bytes: 10, in: .seconds(2))
        #expect(sizer.nextPieceBytes == UploadPieceSizer.maximumBytes)
        sizer.pieceSent(bytes: sizer.nextPieceBytes, in: .milliseconds(300))
        #expect(sizer.nextPieceBytes == UploadPieceSizer.maximumBytes / 2)
        for _ in 0..<20 { sizer.pieceSent(bytes: sizer.nextPieceBytes, in: .milliseconds(300)) }
        #expect(sizer.nextPieceBytes == UploadPieceSizer.minimumBytes)
        // Within the target band it holds still.
        sizer.pieceSent(bytes: sizer.nextPieceBytes, in: .milliseconds(40))
        #expect(sizer.nextPieceBytes == UploadPieceSizer.minimumBytes)
    }
}
