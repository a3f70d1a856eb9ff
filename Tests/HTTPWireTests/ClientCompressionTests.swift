// ClientCompressionTests: content decoding through the client against the fixture server — every coding
// and split the /compressed route serves, what is offered in Accept-Encoding and when not, the head the
// caller sees, the typed errors for truncated, corrupt and bomb bodies, streaming and JSON, upload
// responses, and a download that arrives encoded (stored decoded, never resumed with a Range).

import FixtureServer
import HTTPWireCodec
import HTTPWireTesting
import TestSupport
import Testing

@testable import HTTPWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite struct ClientCompressionTests {
    /// A client for `server` with content decoding on.
    static func client(for server: FixtureServer, _ decoding: ContentDecoding = .on) -> HTTPClient {
        ClientFixture.client(for: server) { $0.contentDecoding = decoding }
    }

    @Test(
        "every coding, whole or in 1-byte chunks, decodes to the text; the head loses Content-Encoding and Content-Length",
        .timeLimit(.scaledMinutes(1)),
        arguments: ["gzip", "x-gzip", "deflate", "deflate-raw", "gzip,deflate", "gzip&members=3"])
    func codings(coding: String) async throws {
        try await withFixtureServer { server in
            let client = Self.client(for: server)
            let plain = CompressedRoutes.text(count: 30_000)
            for framing in ["", "&chunked=1&piece=1", "&chunked=1&piece=777"] {
                let response = try await client.get("compressed/30000?coding=\(coding)\(framing)")
                #expect(response.body == plain, "\(coding)\(framing)")
                #expect(!response.fields.contains("Content-Encoding"))
                #expect(!response.fields.contains("Content-Length"))
                #expect(response.fields["X-Accept-Encoding"] == "gzip, deflate")
            }
            await client.shutdown()
        }
    }

    @Test("off by default: nothing offered, the gzip bytes and their fields as sent", .timeLimit(.scaledMinutes(1)))
    func offByDefault() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            let response = try await client.get("compressed/5000?coding=gzip")
            #expect(response.fields["X-Accept-Encoding"] == "none")
            #expect(response.fields["Content-Encoding"] == "gzip")
            #expect(Array(response.body.prefix(2)) == [0x1F, 0x8B])
            #expect(response.fields["Content-Length"] == "\(response.body.count)")
            // On for one request only, and off for one request of a client that has it on.
            var request = HTTPRequest(url: "compressed/5000?coding=gzip")
            request.options.contentDecoding = .on
            #expect(try await client.send(request).body == CompressedRoutes.text(count: 5000))
            let decoding = Self.client(for: server)
            request.options.contentDecoding = .off
            #expect(Array(try await decoding.send(request).body.prefix(2)) == [0x1F, 0x8B])
            await client.shutdown()
            await decoding.shutdown()
        }
    }

    @Test(
        "the caller's own Accept-Encoding replaces the offer; a Range request offers nothing",
        .timeLimit(.scaledMinutes(1)))
    func whatIsOffered() async throws {
        try await withFixtureServer { server in
            let client = Self.client(for: server)
            let own = try await client.get(
                "compressed/100?coding=gzip", fields: ["Accept-Encoding": "br;q=1, gzip;q=0.5"])
            #expect(own.fields["X-Accept-Encoding"] == "br;q=1, gzip;q=0.5")
            #expect(own.body == CompressedRoutes.text(count: 100))
            let ranged = try await client.get("compressed/100?coding=identity", fields: ["Range": "bytes=0-9"])
            #expect(ranged.fields["X-Accept-Encoding"] == "none")
            await client.shutdown()
        }
    }

    @Test(
        "an unknown coding (br) is passed through untouched, with its Content-Encoding", .timeLimit(.scaledMinutes(1)))
    func unknownCoding() async throws {
        try await withFixtureServer { server in
            let client = Self.client(for: server)
            let response = try await client.get("compressed/300?coding=br")
            #expect(response.fields["Content-Encoding"] == "br")
            #expect(response.fields["Content-Length"] == "300")
            #expect(response.body == CompressedRoutes.text(count: 300))
            await client.shutdown()
        }
    }

    @Test(
        "truncated, corrupt and trailing-garbage bodies are typed errors (exit 61), never short bodies",
        .timeLimit(.scaledMinutes(1)))
    func faults() async throws {
        try await withFixtureServer { server in
            let client = Self.client(for: server)
            let cases: [(String, ContentDecodingFailure)] = [
                ("coding=gzip&fault=truncate", .truncated), ("coding=deflate&fault=truncate&chunked=1", .truncated),
                ("coding=gzip&fault=crc", .corrupt("incorrect data check")),
                ("coding=deflate&fault=crc", .corrupt("incorrect data check")),
                ("coding=deflate&fault=garbage", .corrupt("data after the end of the deflate stream")),
            ]
            for (query, failure) in cases {
                let label = query.contains("deflate") ? "deflate" : "gzip"
                await #expect(throws: HTTPWireError.badContentEncoding(coding: label, failure), "\(query)") {
                    _ = try await client.get("compressed/20000?\(query)")
                }
            }
            // The client is still usable: the failed connections were closed, not pooled half-read.
            let after = try await client.get("compressed/10?coding=gzip")
            #expect(after.body == CompressedRoutes.text(count: 10))
            await client.shutdown()
        }
    }

    @Test(
        "a 1 GiB gzip bomb stops at the ratio limit, or at the byte limit, after a few MiB",
        .timeLimit(.scaledMinutes(1)))
    func bomb() async throws {
        try await withFixtureServer { server in
            let client = Self.client(for: server)
            await #expect(throws: HTTPWireError.badContentEncoding(coding: "gzip", .ratioLimit(100))) {
                _ = try await client.get("bomb?size=1073741824")
            }
            var lenient = ContentDecoding.on
            lenient.maxRatio = 1_000_000
            lenient.maxDecodedBytes = 4 << 20
            let strict = Self.client(for: server, lenient)
            let response = try await strict.stream(HTTPRequest(url: "bomb?size=1073741824"))
            var decoded = 0
            await #expect(throws: HTTPWireError.badContentEncoding(coding: "gzip", .decodedBytesLimit(4 << 20))) {
                for try await piece in response.body { decoded += piece.count }
            }
            #expect(decoded <= 4 << 20)
            // What came over the wire is a few KiB: receivedBytes counts it, not the decoded bytes.
            #expect(response.body.receivedBytes < 64 << 10)
            // The whole bomb, when allowed, is exactly 16 MiB of zeros with a valid trailer.
            lenient.maxDecodedBytes = 16 << 20
            let allowing = Self.client(for: server, lenient)
            let whole = try await allowing.stream(HTTPRequest(url: "bomb?size=16777216"))
            var count = 0
            var nonZero = 0
            for try await piece in whole.body {
                count += piece.count
                nonZero += piece.count { $0 != 0 }
            }
            #expect(count == 16 << 20 && nonZero == 0)
            await client.shutdown()
            await strict.shutdown()
            await allowing.shutdown()
        }
    }

    @Test("stream, decode(JSON) and an upload's response all see decoded bytes", .timeLimit(.scaledMinutes(1)))
    func everyPath() async throws {
        let json = Array(#"{"message":"decoded","numbers":[1,2,3]}"#.utf8)
        let gzipJSON = try #require(CompressedRoutes.encoded(json, coding: "gzip")).body
        let fields: HTTPFields = ["Content-Type": "application/json", "Content-Encoding": "gzip"]
        try await withTestServer(routes: [
            TestRoute(.get, "/json.gz", TestResponse(fields: fields, body: gzipJSON)),
            TestRoute(.post, "/upload.gz", TestResponse(fields: fields, body: gzipJSON)),
        ]) { (server: TestServer) async throws in
            let client = server.client { $0.contentDecoding = .on }
            struct Greeting: Decodable, Equatable {
                var message: String
                var numbers: [Int]
            }
            #expect(
                try await client.get("json.gz").decode(Greeting.self)
                    == Greeting(message: "decoded", numbers: [1, 2, 3]))
            var streamed: [UInt8] = []
            let response = try await client.stream(HTTPRequest(url: "json.gz"))
            #expect(response.expectedContentLength == nil)
            for try await piece in response.body { streamed += piece }
            #expect(streamed == json)
            #expect(response.body.receivedBytes == Int64(gzipJSON.count))
            let upload = client.upload(HTTPRequest(method: .post, url: "upload.gz", body: .bytes(Array("hello".utf8))))
            #expect(try await upload.response.body == json)
            await client.shutdown()
        }
    }

    @Test(
        "a download that arrives gzip-encoded is stored decoded and restarts from zero, never resumed with a Range",
        .timeLimit(.scaledMinutes(1)))
    func encodedDownload() async throws {
        // Bytes that do not compress (a fixed pseudo-random sequence), so half the gzip stream decodes to
        // about half the file: the first attempt stores a good part of it before the body is cut.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let plain = (0..<400_000).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        let gzip = try #require(CompressedRoutes.encoded(plain, coding: "gzip")).body
        let fields: HTTPFields = ["Content-Encoding": "gzip", "ETag": "\"v1\"", "Accept-Ranges": "bytes"]
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withTestServer(routes: [
            TestRoute(
                .get, "/file",
                responses: [
                    TestResponse(fields: fields, body: gzip, failure: .truncateBody(afterBytes: gzip.count / 2)),
                    TestResponse(fields: fields, body: gzip),
                ])
        ]) { (server: TestServer) async throws in
            let client = server.client { $0.contentDecoding = .on }
            let destination = scratch.file("file.txt")
            await #expect(throws: HTTPWireError.self) {
                _ = try await client.download(from: "file", to: destination).result()
            }
            // The precondition of the rule under test: decoded bytes are on disk, counted by the record.
            let stored = await DownloadScratch.contents(destination + ".part")?.count ?? 0
            try #require(stored > 0, "the first attempt stored nothing: the test would not show the resume rule")
            let result = try await client.download(from: "file", to: destination).result()
            #expect(result.resumedFromBytes == 0)
            #expect(await DownloadScratch.contents(destination) == plain)
            let requests = server.requests
            #expect(requests.count == 2)
            // Downloads never offer codings, and the decoded part file was not resumed with a Range.
            #expect(requests.allSatisfy { !$0.fields.contains("Accept-Encoding") && !$0.fields.contains("Range") })
            await client.shutdown()
        }
    }
}
