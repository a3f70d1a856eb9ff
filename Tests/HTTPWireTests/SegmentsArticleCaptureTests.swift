// SegmentsArticleCaptureTests: keeps the segment exchange quoted in the "Downloads and resuming" article
// true (docs test). A 4 MiB file is downloaded over two connections through a RecordingRelay; the second
// connection's request (`Range` for the second half, `If-Range` with the strong ETag) and the server's 206
// head must appear verbatim in the article, with the kernel's port shown as 8080. To update the article,
// run the suite with HTTPWIRE_CAPTURE_OUT=/some/file and paste the blocks it writes there.

import FixtureServer
import Foundation
import HTTPWireCodec
import TestSupport
import Testing

@testable import HTTPWire

@Suite(.serialized) struct SegmentsArticleCaptureTests {
    static let size = 4 << 20
    static let lastModified = "Thu, 01 Jan 2026 08:00:00 GMT"

    @Test(
        "the article quotes one segment's request and response as a fresh capture has them",
        .timeLimit(.scaledMinutes(1)))
    func articleQuotesSegment() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let content = DownloadScratch.pattern(Self.size, seed: 3)
            server.setFile("disk.img", contents: content, lastModified: Self.lastModified)
            let relay = try RecordingRelay.start(targetPort: server.port)
            var configuration = ClientConfiguration()
            configuration.baseURL = "http://127.0.0.1:\(relay.port)/"
            let client = HTTPClient(configuration: configuration)
            var options = DownloadOptions()
            options.segments = 2
            options.segmentProbe = .zero  // both connections at once, the file cut in halves
            let destination = scratch.file("disk.img")
            let result = try await client.download(from: "files/disk.img", to: destination, options: options).result()
            await client.shutdown()
            await relay.stop()
            #expect(await DownloadScratch.contents(destination) == content)
            #expect(result.requests >= 2)
            let second = "Range: bytes=\(Self.size / 2)-\(Self.size - 1)\r\n"
            let exchange = try #require(
                relay.exchanges.first { String(decoding: $0.request, as: UTF8.self).contains(second) },
                "no request for the second segment")
            let head = RecordingRelay.headEnd(in: exchange.response).map { Array(exchange.response[..<$0]) }
            func stable(_ bytes: [UInt8]) -> String {
                DownloadsArticleCaptureTests.quoted(
                    Array(
                        DownloadsArticleCaptureTests.stabilize(String(decoding: bytes, as: UTF8.self), port: relay.port)
                            .utf8))
            }
            let request = stable(exchange.request)
            let response = stable(head ?? exchange.response)
            #expect(response.hasPrefix("HTTP/1.1 206 Partial Content\n"))
            #expect(response.contains("Content-Range: bytes \(Self.size / 2)-\(Self.size - 1)/\(Self.size)\n"))
            #expect(request.contains("If-Range: \""))
            try ArticleQuotes.expectQuoted(
                [("the second segment's request head", request), ("the second segment's response head", response)],
                inArticleAt: DownloadsArticleCaptureTests.articlePath)
        }
    }
}

extension SegmentsArticleCaptureTests {
    @Test("the article's segmented record is one the decoder accepts, with the counts it states")
    func articleRecordDecodes() throws {
        let article = try String(contentsOfFile: DownloadsArticleCaptureTests.articlePath, encoding: .utf8)
        let block = try #require(
            ArticleQuotes.fencedBlocks(in: article).first {
                $0.hasPrefix("httpwire-resume 2\nurl: https://example.test/disk.img")
            })
        let record = try ResumeRecord(decoding: Array((block + "\n").utf8))
        #expect(record.segments.count == 3)
        #expect(record.committedBytes == record.segments.reduce(0) { $0 + $1.committedBytes })
        #expect(ResumeSegment.merged(record.segments) == record.segments)
        #expect(record.segments.last?.range.upperBound == record.expectedLength)
    }
}
