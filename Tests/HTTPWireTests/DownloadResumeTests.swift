// Resuming against the fixture server from a partial download staged by hand (as a crash leaves it):
// every answer a server can give to `Range` + `If-Range` — 206 at the offset, a changed file, Range
// ignored, 416 for a complete file, a 206 at the wrong place — and the restart option.

import Foundation
import HTTPWireCodec
import TestSupport
import Testing

@testable import FixtureServer
@testable import HTTPWire

@Suite struct DownloadResumeTests {
    /// Leaves `prefix` in `destination.part` and a record counting it, as an interrupted run would.
    static func stagePartial(
        _ destination: String, prefix: [UInt8], url: String, entityTag: String?, expectedLength: Int64?,
        committed: Int64? = nil
    ) async throws {
        try await TestFiles.write(Array(prefix), to: destination + ".part")
        let record = ResumeRecord(
            url: try TargetURL(url).description, entityTag: entityTag, lastModified: nil,
            expectedLength: expectedLength, committedBytes: committed ?? Int64(prefix.count))
        try record.write(toPath: destination + ".part.resume")
    }

    /// The events of a download and its result.
    static func run(_ download: Download) async throws -> ([DownloadEvent], DownloadResult) {
        var events: [DownloadEvent] = []
        for await event in download.events where !isProgress(event) { events.append(event) }
        return (events, try await download.result())
    }

    static func isProgress(_ event: DownloadEvent) -> Bool {
        if case .progress = event { return true }
        return false
    }

    @Test("a 206 at the offset is appended: Range and If-Range in the request log", .timeLimit(.scaledMinutes(1)))
    func resumesWithIfRange() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(2_000_000)
        try await withFixtureServer { server in
            server.setFile("r.bin", contents: content, etag: "\"r1\"")
            let url = server.baseURL + "files/r.bin"
            let destination = scratch.file("r.bin")
            // Bytes past the committed count are what a crash may leave: they must be cut off, not kept.
            var staged = Array(content[..<700_000])
            staged += [UInt8](repeating: 0xEE, count: 5000)
            try await Self.stagePartial(
                destination, prefix: staged, url: url, entityTag: "\"r1\"", expectedLength: 2_000_000,
                committed: 700_000)
            let client = HTTPClient()
            let (events, result) = try await Self.run(client.download(from: url, to: destination))
            #expect(result.resumedFromBytes == 700_000)
            #expect(events.first == .started(destination: destination, offset: 700_000, expectedBytes: 2_000_000))
            #expect(await DownloadScratch.contents(destination) == content)
            let request = try #require(server.requestLog.last)
            #expect(request.fields["Range"] == "bytes=700000-")
            #expect(request.fields["If-Range"] == "\"r1\"")
            await client.shutdown()
        }
    }

    @Test("a file replaced on the server is downloaded again, never spliced", .timeLimit(.scaledMinutes(1)))
    func changedFileRestarts() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let old = DownloadScratch.pattern(1_000_000, seed: 1)
        let new = DownloadScratch.pattern(1_000_000, seed: 2)
        try await withFixtureServer { server in
            server.setFile("c.bin", contents: old)
            let url = server.baseURL + "files/c.bin"
            let destination = scratch.file("c.bin")
            let client = HTTPClient()
            let head = try await client.head(url)
            try await Self.stagePartial(
                destination, prefix: Array(old[..<400_000]), url: url, entityTag: head.fields["ETag"],
                expectedLength: 1_000_000)
            server.setFile("c.bin", contents: new)
            let (events, result) = try await Self.run(client.download(from: url, to: destination))
            #expect(events.contains(.restarted(.serverAnswer(.rangeIgnored))))
            #expect(result.resumedFromBytes == 0)
            #expect(await DownloadScratch.contents(destination) == new)
            #expect(server.requestLog.last?.fields["If-Range"] == head.fields["ETag"])
            await client.shutdown()
        }
    }

    @Test("a server that ignores Range gets a fresh download", .timeLimit(.scaledMinutes(1)))
    func rangeIgnored() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let url = server.baseURL + "bytes/500000?range=ignore"
            let expected = GeneratedBytes.bytes(0..<500_000)
            let destination = scratch.file("ignored.bin")
            try await Self.stagePartial(
                destination, prefix: [UInt8](repeating: 1, count: 100_000), url: url,
                entityTag: GeneratedBytes.entityTag(count: 500_000, seed: 0), expectedLength: 500_000)
            let client = HTTPClient()
            let (events, result) = try await Self.run(client.download(from: url, to: destination))
            #expect(events.contains(.restarted(.serverAnswer(.rangeIgnored))))
            #expect(result.resumedFromBytes == 0)
            #expect(await DownloadScratch.contents(destination) == expected)
            #expect(server.requestLog.last?.fields["Range"] == "bytes=100000-")
            await client.shutdown()
        }
    }

    @Test("416 for a part file that is already complete finishes without a body", .timeLimit(.scaledMinutes(1)))
    func completeFile416() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(300_000)
        try await withFixtureServer { server in
            server.setFile("done.bin", contents: content, etag: "\"d1\"")
            let url = server.baseURL + "files/done.bin"
            let destination = scratch.file("done.bin")
            try await Self.stagePartial(
                destination, prefix: content, url: url, entityTag: "\"d1\"", expectedLength: 300_000)
            let client = HTTPClient()
            var options = DownloadOptions()
            options.expectedSHA256 = SHA256Digest.of(content)
            let (_, result) = try await Self.run(client.download(from: url, to: destination, options: options))
            #expect(result.bytes == 300_000)
            #expect(result.sha256 == SHA256Digest.of(content))
            #expect(await DownloadScratch.contents(destination) == content)
            #expect(server.requestLog.count == 1)
            #expect(server.requestLog.last?.fields["Range"] == "bytes=300000-")
            await client.shutdown()
        }
    }

    @Test("416 with another length starts over", .timeLimit(.scaledMinutes(1)))
    func mismatched416() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(300_000)
        try await withFixtureServer { server in
            server.setFile("short.bin", contents: content, etag: "\"s1\"")
            let url = server.baseURL + "files/short.bin"
            let destination = scratch.file("short.bin")
            // The record believes in a longer file than the server now has.
            try await Self.stagePartial(
                destination, prefix: [UInt8](repeating: 7, count: 350_000), url: url, entityTag: "\"s1\"",
                expectedLength: 400_000)
            let client = HTTPClient()
            let (events, _) = try await Self.run(client.download(from: url, to: destination))
            #expect(events.contains(.restarted(.serverAnswer(.notSatisfiable(completeLength: 300_000)))))
            #expect(await DownloadScratch.contents(destination) == content)
            #expect(server.requestLog.map { $0.fields["Range"] } == ["bytes=350000-", nil])
            await client.shutdown()
        }
    }

    @Test("a 206 that starts at the wrong byte is never appended", .timeLimit(.scaledMinutes(1)))
    func shiftedRange() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let url = server.baseURL + "bytes/400000?range=shift"
            let expected = GeneratedBytes.bytes(0..<400_000)
            let destination = scratch.file("shifted.bin")
            try await Self.stagePartial(
                destination, prefix: Array(expected[..<100_000]), url: url,
                entityTag: GeneratedBytes.entityTag(count: 400_000, seed: 0), expectedLength: 400_000)
            let client = HTTPClient()
            let (events, result) = try await Self.run(client.download(from: url, to: destination))
            #expect(
                events.contains(.restarted(.serverAnswer(.unexpectedRangeStart(expected: 100_000, received: 100_001)))))
            #expect(result.resumedFromBytes == 0)
            #expect(await DownloadScratch.contents(destination) == expected)
            #expect(server.requestLog.map { $0.fields["Range"] } == ["bytes=100000-", nil])
            await client.shutdown()
        }
    }

    @Test("the restart option discards partial data and sends no Range", .timeLimit(.scaledMinutes(1)))
    func restartOption() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(200_000)
        try await withFixtureServer { server in
            server.setFile("again.bin", contents: content, etag: "\"a1\"")
            let url = server.baseURL + "files/again.bin"
            let destination = scratch.file("again.bin")
            try await Self.stagePartial(
                destination, prefix: Array(content[..<50_000]), url: url, entityTag: "\"a1\"", expectedLength: 200_000)
            let client = HTTPClient()
            var options = DownloadOptions()
            options.restart = true
            let (events, result) = try await Self.run(client.download(from: url, to: destination, options: options))
            #expect(events.first == .restarted(.requested))
            #expect(result.resumedFromBytes == 0)
            #expect(await DownloadScratch.contents(destination) == content)
            #expect(server.requestLog.last?.fields["Range"] == nil)
            await client.shutdown()
        }
    }

    @Test("a part file without a record, or for another URL, is not trusted", .timeLimit(.scaledMinutes(1)))
    func untrustedPartial() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(200_000)
        try await withFixtureServer { server in
            server.setFile("u.bin", contents: content, etag: "\"u1\"")
            let url = server.baseURL + "files/u.bin"
            let client = HTTPClient()
            let noRecord = scratch.file("norecord.bin")
            _ = FileManager.default.createFile(atPath: noRecord + ".part", contents: Data(repeating: 9, count: 1000))
            let (events, _) = try await Self.run(client.download(from: url, to: noRecord))
            #expect(events.contains(.restarted(.notResumable(.noRecord))))
            #expect(await DownloadScratch.contents(noRecord) == content)

            let otherURL = scratch.file("other.bin")
            try await Self.stagePartial(
                otherURL, prefix: Array(content[..<1000]), url: server.baseURL + "files/elsewhere.bin",
                entityTag: "\"u1\"", expectedLength: 200_000)
            let (otherEvents, _) = try await Self.run(client.download(from: url, to: otherURL))
            #expect(otherEvents.contains(.restarted(.notResumable(.differentURL))))
            #expect(await DownloadScratch.contents(otherURL) == content)
            #expect(server.requestLog.allSatisfy { $0.fields["Range"] == nil })
            await client.shutdown()
        }
    }
}
