// UploadMultipartTests: multipart/form-data uploads sent by HTTPClient to the fixture server, echoed back as
// the server received them (`/upload?raw=1`) and parsed by Python's email package — over plain HTTP
// (sendfile path) and TLS (read-and-encrypt path), with binary files full of CRLF and delimiter-like
// bytes, non-ASCII names and empty files; and the same bytes again after a 307 redirect.

import FixtureServer
import Foundation
import HTTPWireCodec
import HTTPWireTransport
import TestSupport
import Testing

@testable import HTTPWire

@Suite struct UploadMultipartTests {
    /// Bytes that look like framing: CRLF, `--`, a fake delimiter and a fake close delimiter.
    static let trickyBytes: [UInt8] =
        Array("\r\n--\r\n--HTTPWireBoundary\r\n\r\n--HTTPWireBoundaryAAAA--\r\n\r\r\n\n--".utf8) + [0, 0xFF, 0x0D]

    /// One expected part: name, file name, content type, payload.
    typealias ExpectedPart = (name: String, fileName: String?, contentType: String?, payload: [UInt8])

    /// A form with every kind of part, and the parts Python should find, written out by hand.
    static func makeForm(in directory: URL) throws -> (MultipartForm, [ExpectedPart]) {
        func file(_ name: String, _ bytes: [UInt8]) throws -> String {
            let url = directory.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            return url.path
        }
        // Over 4 MiB, so the plain path needs several sendfile(2) pieces plus the withheld last block.
        let large = trickyBytes + pseudoRandomBytes(count: 5_000_000, seed: 11) + trickyBytes
        let photo = pseudoRandomBytes(count: 70_000, seed: 12) + trickyBytes
        let tiny: [UInt8] = [0x2D]  // one byte: a single block, the checked last one
        let largePath = try file("big.bin", large)
        let photoPath = try file("Grüße ✓.jpg", photo)
        let tinyPath = try file("dash.txt", tiny)
        let emptyPath = try file("empty.dat", [])

        let form = MultipartForm(
            fields: ["caption": "Dunes at dawn\r\n--not a delimiter", "名前": "Zoë ✓"],
            files: ["photos[]": photoPath, "photos[]": largePath, "note": tinyPath, "nothing": emptyPath])
        let expected: [ExpectedPart] = [
            ("caption", nil, nil, Array("Dunes at dawn\r\n--not a delimiter".utf8)),
            ("名前", nil, nil, Array("Zoë ✓".utf8)),
            ("photos[]", "Grüße ✓.jpg", "image/jpeg", photo),
            ("photos[]", "big.bin", "application/octet-stream", large),
            ("note", "dash.txt", "text/plain", tiny),
            ("nothing", "empty.dat", "application/octet-stream", []),
        ]
        return (form, expected)
    }

    /// Parses the body the server echoed with Python and compares every part byte for byte.
    static func expectParsed(_ response: HTTPResponse, equal expected: [ExpectedPart]) async throws {
        #expect(response.status == .ok)
        let contentType = try #require(response.fields["Content-Type"])
        let boundary = try #require(contentType.components(separatedBy: "boundary=").last)
        #expect(contentType.hasPrefix("multipart/form-data; boundary="))
        // The whole body is framed as RFC 2046 §5.1.1 says: no preamble, no epilogue.
        let startsWithDelimiter = response.body.starts(with: Array("--\(boundary)\r\n".utf8))
        let endsWithCloseDelimiter = response.body.suffix(boundary.utf8.count + 6).elementsEqual(
            Array("--\(boundary)--\r\n".utf8))
        #expect(startsWithDelimiter)
        #expect(endsWithCloseDelimiter)

        let body = response.body
        let parsed = try await PythonMultipartParser.parse(body, boundary: boundary)
        #expect(parsed.isMultipart)
        #expect(parsed.defects.isEmpty)
        #expect(parsed.preamble == nil)
        #expect((parsed.epilogue ?? "").isEmpty)
        try #require(parsed.parts.count == expected.count)
        for (part, want) in zip(parsed.parts, expected) {
            #expect(part.defects.isEmpty, "\(want.name)")
            #expect(part.name == want.name)
            #expect(part.filename == want.fileName, "\(want.name)")
            #expect(part.contentType == want.contentType, "\(want.name)")
            let isSamePayload = part.payload == want.payload
            #expect(isSamePayload, "\(want.name): \(part.payload.count) of \(want.payload.count) bytes")
        }
    }

    @Test(
        "a form arrives byte for byte as Python's parser reads it", .timeLimit(.scaledMinutes(1)),
        arguments: UploadHarness.Transport.allCases)
    func roundTrip(transport: UploadHarness.Transport) async throws {
        let directory = try TemporaryDirectory()
        let url = directory.url
        let (form, expected) = try await DedicatedThread.run { try Self.makeForm(in: url) }
        let contentLength = try form.prepare().contentLength
        try await withFixtureServer(tls: try await UploadHarness.serverTLS(transport)) { server in
            let client = try await UploadHarness.client(for: server)
            defer { Task { await client.shutdown() } }
            let upload = client.upload(form, to: "upload?raw=1")
            var reports: [TransferProgress] = []
            for await progress in upload.progress { reports.append(progress) }
            let response = try await upload.response
            #expect(Int64(response.body.count) == contentLength)
            try await Self.expectParsed(response, equal: expected)
            #expect(reports.last?.receivedBytes == contentLength)
            #expect(reports.last?.expectedBytes == contentLength)
            let head = try #require(server.requestLog.last)
            #expect(head.fields["Content-Length"] == String(contentLength))
            #expect(head.fields["Transfer-Encoding"] == nil)
        }
    }

    @Test(
        "a 307 or 308 redirect sends the whole form again, the same bytes", .timeLimit(.scaledMinutes(1)),
        arguments: [307, 308])
    func replayAfterRedirect(status: Int) async throws {
        let directory = try TemporaryDirectory()
        let url = directory.url
        let (form, expected) = try await DedicatedThread.run { try Self.makeForm(in: url) }
        let contentLength = try form.prepare().contentLength
        try await withFixtureServer { server in
            let client = try await UploadHarness.client(for: server)
            defer { Task { await client.shutdown() } }
            let upload = client.upload(form, to: "redirect-to?status=\(status)&url=%2Fupload%3Fraw%3D1")
            var reports: [Int64] = []
            for await progress in upload.progress { reports.append(progress.receivedBytes) }
            let response = try await upload.response
            #expect(response.url.pathAndQuery == "/upload?raw=1")
            try await Self.expectParsed(response, equal: expected)
            // Both requests were POSTs with the full Content-Length: RFC 9110 §15.4.8 keeps method and body.
            let heads = server.requestLog.suffix(2)
            #expect(heads.map(\.method) == [.post, .post])
            #expect(heads.map { $0.fields["Content-Length"] } == [String(contentLength), String(contentLength)])
            // Progress never went backwards although the body went out twice. (A value may repeat: while the
            // replay has not caught up, or on a loaded machine that holds the writer a second, the meter's
            // once-a-second quiet report repeats the furthest count.)
            #expect(reports == reports.sorted())
            #expect(reports.last == contentLength)
        }
    }

    @Test("a large form's digest matches what the server hashed", .timeLimit(.scaledMinutes(1)))
    func largeFormDigest() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("video.mp4").path
        let size: Int64 = 40 << 20
        try await UploadHarness.writeLargeFile(at: path, size: size)
        var form = MultipartForm()
        form.addField(name: "title", value: "clip")
        form.addFile(name: "video", path: path)
        try await withFixtureServer { server in
            let client = try await UploadHarness.client(for: server)
            defer { Task { await client.shutdown() } }
            let response = try await client.upload(form, to: "upload").response
            let summary = try response.decode(UploadHarness.Summary.self, using: UploadHarness.decoder)
            let boundary = try #require(summary.contentType?.components(separatedBy: "boundary=").last)
            // The body rebuilt by hand from RFC 7578's layout, hashed independently of the writer.
            let head = Array(
                ("--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nclip\r\n"
                    + "--\(boundary)\r\nContent-Disposition: form-data; name=\"video\"; filename=\"video.mp4\"\r\n"
                    + "Content-Type: video/mp4\r\n\r\n").utf8)
            let tail = Array("\r\n--\(boundary)--\r\n".utf8)
            var hasher = SHA256Hasher()
            hasher.update(head)
            let file = try #require(FileHandle(forReadingAtPath: path))
            while let chunk = try file.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(Array(chunk)) }
            try file.close()
            hasher.update(tail)
            let expectedDigest = hasher.finalize().flatMap { SHA256Digest(bytes: $0)?.hexString }
            let expectedSize = Int64(head.count) + size + Int64(tail.count)
            #expect(summary.framing == "content-length")
            #expect(summary.size == expectedSize)
            #expect(summary.sha256 == expectedDigest)
        }
    }
}

extension UploadMultipartTests {
    @Test(
        "a PUT of a form on a connection the server dropped is retried with the whole form",
        .timeLimit(.scaledMinutes(1)))
    func replayOnRetry() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.url
        let (form, expected) = try await DedicatedThread.run { try Self.makeForm(in: url) }
        let contentLength = try form.prepare().contentLength
        let server = try RetryServer.start()
        var configuration = ClientConfiguration()
        configuration.baseURL = server.baseURL
        let logged = LockedState<[HTTPLogEvent.Kind]>([])
        configuration.logger = { event in logged.withLock { $0.append(event.kind) } }
        let client = HTTPClient(configuration: configuration)
        #expect(try await client.get("warm-up").text == "ok")
        let upload = client.upload(form, to: "upload", method: .put)
        var reports: [Int64] = []
        for await progress in upload.progress { reports.append(progress.receivedBytes) }
        let response = try await upload.response
        await client.shutdown()
        let seen = try #require(await server.stop())
        #expect(seen.heads.count == 3)
        #expect(seen.heads.dropFirst().allSatisfy { $0.hasPrefix("PUT /upload ") })
        #expect(Int64(seen.body.count) == contentLength)
        try await Self.expectParsed(response, equal: expected)
        #expect(logged.withLock { $0.contains(.retry) })
        #expect(reports == reports.sorted() && reports.last == contentLength)
    }
}
