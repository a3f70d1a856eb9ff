// SegmentedDownloadTests: one file over several connections against the fixture server — the Range
// requests it sends (If-Range with the strong tag), the fall-backs to one stream (no Accept-Ranges, a weak
// tag), a resume of every segment from a record, a file changed mid-way, work stealing, and pause/resume.

import Foundation
import HTTPWireCodec
import TestSupport
import Testing

@testable import FixtureServer
@testable import HTTPWire

@Suite struct SegmentedDownloadTests {
    static let mebibyte = 1 << 20

    /// Options for `segments` connections that all start at once, the file cut in equal parts (no probe),
    /// so the ranges asked for are known in advance; the probe has tests of its own below.
    static func options(
        segments: Int, sha256 content: [UInt8]? = nil, probe: Duration = .zero
    ) -> DownloadOptions {
        var options = DownloadOptions()
        options.segments = segments
        options.segmentProbe = probe
        options.expectedSHA256 = content.flatMap { SHA256Digest.of($0) }
        return options
    }

    /// The `Range` fields of the requests for `path`, in order.
    static func ranges(_ server: FixtureServer, path: String) -> [String?] {
        server.requestLog.filter { $0.target.hasPrefix(path) }.map { $0.fields["Range"] }
    }

    @Test("four connections fetch four ranges with If-Range and produce the same bytes", .timeLimit(.scaledMinutes(1)))
    func fourSegments() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(8 * Self.mebibyte)
        try await withFixtureServer { server in
            server.setFile("s.bin", contents: content, etag: "\"s1\"")
            let destination = scratch.file("s.bin")
            let download = HTTPClient().download(
                from: server.baseURL + "files/s.bin", to: destination,
                options: Self.options(segments: 4, sha256: content))
            let result = try await download.result()
            #expect(result.sha256 == SHA256Digest.of(content))
            // Four, and more when a connection that finished early stole from another.
            #expect(result.requests >= 4)
            #expect(await DownloadScratch.contents(destination) == content)
            #expect(!DownloadScratch.exists(destination + ".part.resume"))
            let log = server.requestLog.filter { $0.target.hasPrefix("/files/s.bin") }
            #expect(log.first?.fields["Range"] == nil)
            #expect(
                Set(log.map { $0.fields["Range"] }).isSuperset(of: [
                    nil, "bytes=2097152-4194303", "bytes=4194304-6291455", "bytes=6291456-8388607",
                ]))
            #expect(log.dropFirst().allSatisfy { $0.fields["If-Range"] == "\"s1\"" })
        }
    }

    /// Downloads a file of `mebibytes` named `name` over up to four connections with `probe`, from the
    /// fixture server at `query`'s pace; checks the bytes and the SHA-256, and returns the result and the
    /// `Range` fields the server saw, in order.
    static func probedDownload(
        _ name: String, mebibytes: Int = 8, query: String = "", probe: Duration
    ) async throws -> (result: DownloadResult, ranges: [String?]) {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(mebibytes * Self.mebibyte)
        return try await withFixtureServer { server in
            server.setFile(name, contents: content, etag: "\"\(name)\"")
            let destination = scratch.file(name)
            let result = try await HTTPClient().download(
                from: server.baseURL + "files/\(name)\(query)", to: destination,
                options: Self.options(segments: 4, sha256: content, probe: probe)
            ).result()
            #expect(result.sha256 == SHA256Digest.of(content))
            #expect(await DownloadScratch.contents(destination) == content)
            return (result, Self.ranges(server, path: "/files/\(name)"))
        }
    }

    @Test(
        "with a probe, a server that sends the whole file fast keeps one stream, and the end does not wait for the probe",
        .timeLimit(.scaledMinutes(1)))
    func fastServerKeepsOneStream() async throws {
        // A probe far longer than the test's time limit: only the first connection's end can stop it.
        let (result, ranges) = try await Self.probedDownload("f.bin", probe: .seconds(3600))
        #expect(result.requests == 1)
        #expect(ranges == [nil])
    }

    @Test(
        "with a probe, a server that paces each connection gets the other connections once the probe has seen it",
        .timeLimit(.scaledMinutes(1)))
    func pacedServerGetsSegments() async throws {
        // 16 KiB every 5 ms per connection (~3 MB/s): 16 MiB alone would take 5 s, so the rest needs more
        // than a second even if a loaded machine runs the probe's first look seconds late.
        let (_, ranges) = try await Self.probedDownload(
            "p.bin", mebibytes: 16, query: "?interval_ms=5&piece=16384", probe: .milliseconds(100))
        #expect(ranges.first == .some(nil), "the first request is the plain GET")
        // Three joined connections, each asking from past what the first one had reached.
        let starts = ranges.dropFirst().compactMap { $0.flatMap { Int($0.dropFirst(6).prefix { $0 != "-" }) } }
        #expect(starts.count >= 3, "\(ranges)")
        #expect(starts.allSatisfy { $0 > 0 })
    }

    @Test("a server without Accept-Ranges gets one stream", .timeLimit(.scaledMinutes(1)))
    func noAcceptRanges() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let count: Int64 = 4 << 20
            let url = server.baseURL + "bytes/\(count)?range=ignore"
            let destination = scratch.file("n.bin")
            let result = try await HTTPClient().download(from: url, to: destination, options: Self.options(segments: 4))
                .result()
            #expect(result.requests == 1)
            #expect(await DownloadScratch.contents(destination) == GeneratedBytes.bytes(0..<count))
        }
    }

    @Test("a weak ETag keeps one stream: pieces of a weakly equal file may differ", .timeLimit(.scaledMinutes(1)))
    func weakTag() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(4 * Self.mebibyte)
        try await withFixtureServer { server in
            server.setFile("w.bin", contents: content, etag: "W/\"w1\"")
            let destination = scratch.file("w.bin")
            let result = try await HTTPClient().download(
                from: server.baseURL + "files/w.bin", to: destination, options: Self.options(segments: 4)
            ).result()
            #expect(result.requests == 1)
            #expect(Self.ranges(server, path: "/files/w.bin") == [nil])
        }
    }

    /// Leaves a full-length part file and a version 2 record with `segments`, as a killed run leaves them;
    /// bytes past each count are garbage, which must never reach the result.
    static func stageSegments(
        _ destination: String, content: [UInt8], url: String, entityTag: String, segments: [ResumeSegment]
    ) async throws {
        var staged = [UInt8](repeating: 0xEE, count: content.count)
        for segment in segments {
            let lower = Int(segment.range.lowerBound)
            let present = lower..<(lower + Int(segment.committedBytes))
            staged.replaceSubrange(present, with: content[present])
        }
        try await TestFiles.write(staged, to: destination + ".part")
        let record = ResumeRecord(
            url: try TargetURL(url).description, entityTag: entityTag, lastModified: nil,
            expectedLength: Int64(content.count), committedBytes: 0
        ).counting(0, segments: segments)
        try record.write(toPath: destination + ".part.resume")
    }

    @Test("a record with segments resumes every segment from its own count", .timeLimit(.scaledMinutes(1)))
    func resumesEverySegment() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(6 * Self.mebibyte)
        let megabyte = Int64(Self.mebibyte)
        try await withFixtureServer { server in
            server.setFile("r.bin", contents: content, etag: "\"r1\"")
            let url = server.baseURL + "files/r.bin"
            let destination = scratch.file("r.bin")
            try await Self.stageSegments(
                destination, content: content, url: url, entityTag: "\"r1\"",
                segments: [
                    ResumeSegment(range: 0..<(2 * megabyte), committedBytes: 700_000),
                    ResumeSegment(range: (2 * megabyte)..<(4 * megabyte), committedBytes: 2 * megabyte),
                    ResumeSegment(range: (4 * megabyte)..<(6 * megabyte), committedBytes: 123_456),
                ])
            let result = try await HTTPClient().download(
                from: url, to: destination, options: Self.options(segments: 2, sha256: content)
            ).result()
            #expect(result.resumedFromBytes == 700_000 + 2 * megabyte + 123_456)
            #expect(await DownloadScratch.contents(destination) == content)
            let ranges = Set(Self.ranges(server, path: "/files/r.bin"))
            #expect(ranges.isSuperset(of: ["bytes=700000-2097151", "bytes=4317760-6291455"]))
            #expect(!ranges.contains(nil))
        }
    }

    @Test("a file changed since the record starts over from byte zero", .timeLimit(.scaledMinutes(1)))
    func changedFileStartsOver() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let old = DownloadScratch.pattern(4 * Self.mebibyte, seed: 1)
        let new = DownloadScratch.pattern(4 * Self.mebibyte, seed: 2)
        let megabyte = Int64(Self.mebibyte)
        try await withFixtureServer { server in
            server.setFile("c.bin", contents: new, etag: "\"new\"")
            let url = server.baseURL + "files/c.bin"
            let destination = scratch.file("c.bin")
            try await Self.stageSegments(
                destination, content: old, url: url, entityTag: "\"old\"",
                segments: [
                    ResumeSegment(range: 0..<(2 * megabyte), committedBytes: 1000),
                    ResumeSegment(range: (2 * megabyte)..<(4 * megabyte), committedBytes: 1000),
                ])
            let download = HTTPClient().download(from: url, to: destination, options: Self.options(segments: 2))
            let (events, _) = try await DownloadResumeTests.run(download)
            #expect(events.contains(.restarted(.serverAnswer(.representationChanged))))
            #expect(await DownloadScratch.contents(destination) == new)
        }
    }

    @Test(
        "a connection that finishes early steals half of the largest remaining segment", .timeLimit(.scaledMinutes(1)))
    func workStealing() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(8 * Self.mebibyte)
        let megabyte = Int64(Self.mebibyte)
        try await withFixtureServer { server in
            server.setFile("k.bin", contents: content, etag: "\"k1\"")
            // Paced: 64 KiB every 5 ms, so the big segment is still running when the small one ends.
            let url = server.baseURL + "files/k.bin?interval_ms=5&piece=65536"
            let destination = scratch.file("k.bin")
            try await Self.stageSegments(
                destination, content: content, url: url, entityTag: "\"k1\"",
                segments: [
                    ResumeSegment(range: 0..<megabyte, committedBytes: megabyte - 1000),
                    ResumeSegment(range: megabyte..<(8 * megabyte), committedBytes: 0),
                ])
            let result = try await HTTPClient().download(
                from: url, to: destination, options: Self.options(segments: 2, sha256: content)
            ).result()
            #expect(await DownloadScratch.contents(destination) == content)
            let starts = Self.ranges(server, path: "/files/k.bin").compactMap { range -> Int64? in
                guard let range, range.hasPrefix("bytes=") else { return nil }
                return Int64(range.dropFirst(6).prefix { $0 != "-" })
            }
            // The two segments' own requests, then at least one steal inside the large segment.
            #expect(starts.contains(megabyte - 1000))
            #expect(starts.contains(megabyte))
            #expect(starts.contains { $0 > 2 * megabyte })
            #expect(result.requests >= 3)
        }
    }

    @Test(
        "pause stops every connection with its bytes counted; resume continues each segment",
        .timeLimit(.scaledMinutes(1)))
    func pauseAndResume() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let count = 8 * Self.mebibyte
        let content = GeneratedBytes.bytes(0..<Int64(count))
        try await withFixtureServer { server in
            // Held three quarters into each of the four segments until the test releases them: the download
            // cannot finish before the pause, however long a loaded machine keeps this task from looking at
            // its events, and every segment is still open when it pauses. Not paced: the holds make pacing
            // unnecessary, and it only made the test slow on a busy machine.
            let holds = (0..<4).map { String($0 * count / 4 + 3 * count / 16) }.joined(separator: ",")
            let url = server.baseURL + "bytes/\(count)?hold_at=\(holds)"
            let destination = scratch.file("p.bin")
            // The held bodies wait for the test, however long a loaded machine keeps it away: the idle timeout
            // must not end the download meanwhile.
            var configuration = ClientConfiguration()
            configuration.timeouts.idle = .seconds(600)
            // Every write reports progress. With the default interval, a download that got all its bytes up
            // to the holds within the first interval reported none, and then nothing more came to report:
            // waitForProgress waited out the test's minute (two full-suite runs, and 2 of 3 runs beside two
            // CPU hogs, before this).
            var options = Self.options(segments: 4, sha256: content)
            options.progressInterval = .zero
            let download = HTTPClient(configuration: configuration).download(
                from: url, to: destination, options: options)
            await download.waitForProgress(atLeast: 1 << 20)
            download.pause()
            var pausedAt: Int64?
            var seen: [DownloadEvent] = []
            for await event in download.events {
                seen.append(event)
                if case .paused(let progress) = event {
                    pausedAt = progress.receivedBytes
                    break
                }
            }
            guard let paused = pausedAt else {
                let outcome: String
                do {
                    _ = try await download.result()
                    outcome = "finished"
                } catch {
                    outcome = "\(error)"
                }
                Issue.record("no .paused event; after the pause: \(seen); the download: \(outcome)")
                return
            }
            guard case .valid(let record) = ResumeRecord.load(fromPath: destination + ".part.resume") else {
                Issue.record("no valid record after the pause")
                return
            }
            #expect(record.segments.count >= 2)
            #expect(record.committedBytes == paused)
            server.releaseHeldBodies()
            download.resume()
            let result = try await download.result()
            #expect(result.sha256 == SHA256Digest.of(content))
            #expect(await DownloadScratch.contents(destination) == content)
        }
    }
}

extension SegmentedDownloadTests {
    @Test(
        "a segment answered with the whole file (ranges ignored) starts over as one stream",
        .timeLimit(.scaledMinutes(1)))
    func rangeIgnoredFallsBack() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let count = 4 * Self.mebibyte
        let content = GeneratedBytes.bytes(0..<Int64(count))
        let megabyte = Int64(Self.mebibyte)
        try await withFixtureServer { server in
            let url = server.baseURL + "bytes/\(count)?range=ignore"
            let destination = scratch.file("i.bin")
            try await Self.stageSegments(
                destination, content: content, url: url,
                entityTag: GeneratedBytes.entityTag(count: Int64(count), seed: 0),
                segments: [
                    ResumeSegment(range: 0..<(2 * megabyte), committedBytes: 1000),
                    ResumeSegment(range: (2 * megabyte)..<(4 * megabyte), committedBytes: 1000),
                ])
            let download = HTTPClient().download(from: url, to: destination, options: Self.options(segments: 2))
            let (events, _) = try await DownloadResumeTests.run(download)
            #expect(events.contains(.restarted(.serverAnswer(.rangeIgnored))))
            #expect(await DownloadScratch.contents(destination) == content)
            #expect(server.requestLog.last?.fields["Range"] == nil)
        }
    }
}
