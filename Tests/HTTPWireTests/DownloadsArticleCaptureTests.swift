// DownloadsArticleCaptureTests: keeps the exchanges quoted in the "Downloads and resuming" article true
// (docs test).
//
// The article shows a download cut off mid-body, the resume record it leaves, the resumed request with
// `Range` and `If-Range` and the server's 206, and the same resume after the file changed on the server (a
// 200 and a fresh start). These tests stage exactly that: an HTTPClient downloads from the fixture server
// through a RecordingRelay, which drops the first connection after a known number of body bytes and records
// every exchange. The recording is made stable (the kernel's port replaced by the article's 8080) and every
// quoted block must appear verbatim in the article. Alongside, the tests check the facts the article states
// about the outcome: the bytes kept, the offset resumed from, the restart reason, the files on disk. To
// update the article after a deliberate change, run the suite with HTTPWIRE_CAPTURE_OUT=/some/file and paste
// the blocks it writes there.

import FixtureServer
import Foundation
import HTTPWireCodec
import TestSupport
import Testing

@testable import HTTPWire

@Suite(.serialized) struct DownloadsArticleCaptureTests {
    /// The article: this file is Tests/HTTPWireTests/DownloadsArticleCaptureTests.swift.
    static let articlePath =
        String(#filePath.split(separator: "/Tests/HTTPWireTests/").first ?? "")
        + "/Sources/HTTPWire/HTTPWire.docc/DownloadsAndResuming.md"

    /// The port the article shows in place of the one of a run.
    static let shownPort = 8080
    /// The file's size and where the first connection is cut.
    static let size = 1_000_000
    static let cut = 400_000
    /// The validators of the file before and after it changes on the server (the ETags derive from the bytes).
    static let lastModified = "Thu, 01 Jan 2026 08:00:00 GMT"
    static let changedLastModified = "Fri, 02 Jan 2026 09:30:00 GMT"

    /// What the staged downloads put on the wire and on disk.
    struct Capture {
        /// The first attempt (cut), the resumed attempt, and the resume after the file changed: one
        /// exchange each, stable, the response cut to its head.
        var first: RecordingRelay.Exchange
        var resumed: RecordingRelay.Exchange
        var changed: RecordingRelay.Exchange
        /// The resume record left by the cut attempt, stable.
        var record: String
        /// What the second download reported.
        var resumedResult: DownloadResult
        /// What the third download reported: its events and result.
        var changedEvents: [DownloadEvent]
        var changedResult: DownloadResult
        /// The files the downloads produced, read back.
        var resumedFile: [UInt8]?
        var changedFile: [UInt8]?
        var storedProgressAfterCut: TransferProgress?
        var content: [UInt8]
        var changedContent: [UInt8]
    }

    /// Stages the three downloads and records them.
    static func capture() async throws -> Capture {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        return try await withFixtureServer { server in
            let content = DownloadScratch.pattern(size, seed: 1)
            let changedContent = DownloadScratch.pattern(size, seed: 2)
            server.setFile("disk.img", contents: content, lastModified: lastModified)
            let relay = try RecordingRelay.start(targetPort: server.port)
            var configuration = ClientConfiguration()
            configuration.baseURL = "http://127.0.0.1:\(relay.port)/"

            // One client per download, so each starts on a new connection (the relay cuts by connection).
            func download(to destination: String, cut: Int? = nil) async throws -> Download {
                if let cut { relay.cutNextResponse(afterBodyBytes: cut) }
                let client = HTTPClient(configuration: configuration)
                let download = client.download(from: "files/disk.img", to: destination)
                _ = try? await download.result()
                await client.shutdown()
                return download
            }

            // 1. A fresh download, cut after `cut` body bytes: it fails and leaves the part file and record.
            let destination = scratch.file("disk.img")
            let first = try await download(to: destination, cut: cut)
            await #expect(throws: HTTPWireError.bodyTruncated(expected: Int64(size), received: Int64(cut))) {
                try await first.result()
            }
            let recordBytes = try #require(await DownloadScratch.contents(destination + ".part.resume"))
            let record = String(decoding: recordBytes, as: UTF8.self)
            let storedProgress = await Download.storedProgress(forDestination: destination)

            // 2. The same download again: it resumes from the record.
            let resumed = try await download(to: destination)
            let resumedResult = try await resumed.result()
            let resumedFile = await DownloadScratch.contents(destination)

            // 3. Cut again, then the file changes on the server before the resume.
            let changedDestination = scratch.file("changed.img")
            _ = try await download(to: changedDestination, cut: cut)
            server.setFile("disk.img", contents: changedContent, lastModified: changedLastModified)
            let changed = try await download(to: changedDestination)
            var changedEvents: [DownloadEvent] = []
            for await event in changed.events { changedEvents.append(event) }
            let changedResult = try await changed.result()
            let changedFile = await DownloadScratch.contents(changedDestination)

            await relay.stop()
            let exchanges = relay.exchanges
            try #require(exchanges.count == 4, "expected four connections, got \(exchanges.count)")
            func stable(_ exchange: RecordingRelay.Exchange) -> RecordingRelay.Exchange {
                let head = RecordingRelay.headEnd(in: exchange.response).map { Array(exchange.response[..<$0]) }
                return RecordingRelay.Exchange(
                    request: Array(stabilize(String(decoding: exchange.request, as: UTF8.self), port: relay.port).utf8),
                    response: Array(
                        stabilize(String(decoding: head ?? exchange.response, as: UTF8.self), port: relay.port).utf8))
            }
            return Capture(
                first: stable(exchanges[0]), resumed: stable(exchanges[1]), changed: stable(exchanges[3]),
                record: stabilize(record, port: relay.port), resumedResult: resumedResult,
                changedEvents: changedEvents, changedResult: changedResult, resumedFile: resumedFile,
                changedFile: changedFile, storedProgressAfterCut: storedProgress, content: content,
                changedContent: changedContent)
        }
    }

    static func stabilize(_ text: String, port: Int) -> String {
        text.replacingOccurrences(of: "127.0.0.1:\(port)", with: "127.0.0.1:\(shownPort)")
    }

    /// Bytes as the article quotes them: CRLF shown as a line break, the final line breaks left out.
    static func quoted(_ bytes: [UInt8]) -> String {
        var text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// Every block the article must quote, in article order.
    static func quotedBlocks(_ capture: Capture) -> [(what: String, text: String)] {
        [
            ("the resume record after the cut", quoted(Array(capture.record.utf8))),
            ("the first request head", quoted(capture.first.request)),
            ("the first response head", quoted(capture.first.response)),
            ("the resumed request head", quoted(capture.resumed.request)),
            ("the resumed response head", quoted(capture.resumed.response)),
            ("the response head after the file changed", quoted(capture.changed.response)),
        ]
    }

    /// The value of a field in a quoted head (`Name: value` lines), nil when absent.
    static func field(_ name: String, in head: [UInt8]) -> String? {
        let prefix = name.lowercased() + ": "
        return quoted(head).split(separator: "\n").first { $0.lowercased().hasPrefix(prefix) }
            .map { String($0.dropFirst(prefix.count)) }
    }

    @Test("the article quotes the exchanges and the record a fresh capture produces", .timeLimit(.scaledMinutes(1)))
    func articleMatchesCapture() async throws {
        let capture = try await Self.capture()
        let blocks = Self.quotedBlocks(capture)
        try ArticleQuotes.expectQuoted(blocks, inArticleAt: Self.articlePath)
    }

    @Test("the captured downloads do what the article says they do", .timeLimit(.scaledMinutes(1)))
    func outcomesMatchArticle() async throws {
        let capture = try await Self.capture()
        // The cut attempt: a plain GET, answered 200 with validators; the record counts every byte received.
        #expect(Self.field("Range", in: capture.first.request) == nil)
        #expect(capture.first.response.starts(with: Array("HTTP/1.1 200 OK\r\n".utf8)))
        let entityTag = try #require(Self.field("ETag", in: capture.first.response))
        #expect(capture.record.contains("\ncommitted-bytes: \(Self.cut)\n"))
        #expect(capture.record.contains("\netag: \(entityTag)\n"))
        #expect(capture.storedProgressAfterCut?.receivedBytes == Int64(Self.cut))

        // The resume: Range from the committed count, If-Range with the strong ETag, a 206 that continues there.
        #expect(Self.field("Range", in: capture.resumed.request) == "bytes=\(Self.cut)-")
        #expect(Self.field("If-Range", in: capture.resumed.request) == entityTag)
        #expect(capture.resumed.response.starts(with: Array("HTTP/1.1 206 Partial Content\r\n".utf8)))
        #expect(
            Self.field("Content-Range", in: capture.resumed.response)
                == "bytes \(Self.cut)-\(Self.size - 1)/\(Self.size)")
        #expect(capture.resumedResult.resumedFromBytes == Int64(Self.cut))
        #expect(capture.resumedResult.requests == 1)
        #expect(capture.resumedFile == capture.content)

        // The changed file: the same resume request, answered 200 with a new ETag; the download starts over.
        #expect(capture.changed.request == capture.resumed.request)
        #expect(capture.changed.response.starts(with: Array("HTTP/1.1 200 OK\r\n".utf8)))
        #expect(Self.field("ETag", in: capture.changed.response) != entityTag)
        #expect(capture.changedEvents.contains(.restarted(.serverAnswer(.rangeIgnored))))
        #expect(capture.changedResult.resumedFromBytes == 0)
        #expect(capture.changedFile == capture.changedContent)
    }

    @Test("the record with the validators is on disk before the first body byte", .timeLimit(.scaledMinutes(1)))
    func recordBeforeFirstByte() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        // The server sends the head and then no body at all until it stops.
        let server = try DownloadTestServer(content: DownloadScratch.pattern(Self.size), script: [.stallAfter(0)])
        let client = HTTPClient()
        let destination = scratch.file("early.bin")
        let download = client.download(from: server.url, to: destination)
        for await event in download.events {
            guard case .started = event else { continue }
            // `.started` comes after the part file was opened, before any body byte exists.
            guard case .valid(let record) = ResumeRecord.load(fromPath: destination + ".part.resume") else {
                Issue.record("no record when the body starts")
                break
            }
            #expect(record.committedBytes == 0)
            #expect(record.entityTag == server.entityTag)
            #expect(record.expectedLength == Int64(Self.size))
            #expect(await DownloadScratch.contents(destination + ".part") == [])
            break
        }
        download.cancel()
        await #expect(throws: CancellationError.self) { try await download.result() }
        await client.shutdown()
        await server.stop()
    }
}
