// MultipartFormTests: multipart/form-data bodies written by MultipartForm and read back by Python's email
// parser, compared part by part and byte for byte.

import Foundation
import HTTPWire
import TestSupport
import Testing

@testable import HTTPWire

@Suite struct MultipartFormTests {
    /// Bytes that look like framing: CRLF, lone CR and LF, `--`, a fake delimiter and a close delimiter.
    static let trickyBytes: [UInt8] =
        Array("\r\n--\r\n--HTTPWireBoundary\r\n\r\n--HTTPWireBoundaryAAAA--\r\n\r\r\n\n--".utf8) + [
            0, 0xFF, 0xFE, 0x0D,
        ]

    @Test("every kind of part survives a round trip through Python's parser", .timeLimit(.scaledMinutes(1)))
    func roundTrip() async throws {
        let directory = try TemporaryDirectory()
        let binary = Self.trickyBytes + pseudoRandomBytes(count: 200_000, seed: 1) + Self.trickyBytes
        let binaryPath = try directory.file("data.bin", binary)
        let pdfPath = try directory.file("résumé ✓.pdf", Array("%PDF-1.4\r\n--\r\n".utf8))
        let emptyPath = try directory.file("empty.txt", [])
        let firstPhoto = try directory.file("a.HEIC", pseudoRandomBytes(count: 3000, seed: 2) + Self.trickyBytes)
        let secondPhoto = try directory.file("b.jpg", pseudoRandomBytes(count: 5, seed: 3))
        let largeData = pseudoRandomBytes(count: 40_000, seed: 4) + Self.trickyBytes
        let smallData = Self.trickyBytes

        var form = MultipartForm()
        form.addField(name: "title", value: "Holiday\r\nline two")
        form.addField(name: "名前", value: "Zoë ✓")
        form.addFile(name: "binary", path: binaryPath)
        form.addFile(name: "cv", path: pdfPath)
        form.addFile(name: "empty", path: emptyPath)
        form.addFiles(name: "userfile[]", paths: [firstPhoto, secondPhoto])
        form.addData(name: "thumb", data: largeData, fileName: "thumb.png")
        form.addData(name: "raw", data: smallData)
        form.addData(name: "typed", data: smallData, fileName: "x.png", contentType: MediaType("image/webp"))
        form.addField(name: "empty-field", value: "")

        let body = try form.prepare()
        let bytes = try collectBody(body, blockSize: 4096)
        #expect(Int64(bytes.count) == body.contentLength)

        let parsed = try await PythonMultipartParser.parse(bytes, boundary: body.boundary)
        #expect(parsed.isMultipart)
        #expect(parsed.defects.isEmpty)
        #expect(parsed.preamble == nil)
        #expect((parsed.epilogue ?? "").isEmpty)

        // name, file name, content type, payload — written out by hand, not derived from the library.
        let expected: [(String, String?, String?, [UInt8])] = [
            ("title", nil, nil, Array("Holiday\r\nline two".utf8)),
            ("名前", nil, nil, Array("Zoë ✓".utf8)),
            ("binary", "data.bin", "application/octet-stream", binary),
            ("cv", "résumé ✓.pdf", "application/pdf", Array("%PDF-1.4\r\n--\r\n".utf8)),
            ("empty", "empty.txt", "text/plain", []),
            ("userfile[]", "a.HEIC", "image/heic", pseudoRandomBytes(count: 3000, seed: 2) + Self.trickyBytes),
            ("userfile[]", "b.jpg", "image/jpeg", pseudoRandomBytes(count: 5, seed: 3)),
            ("thumb", "thumb.png", "image/png", largeData),
            ("raw", nil, "application/octet-stream", smallData),
            ("typed", "x.png", "image/webp", smallData),
            ("empty-field", nil, nil, []),
        ]
        try #require(parsed.parts.count == expected.count)
        for (part, (name, fileName, contentType, payload)) in zip(parsed.parts, expected) {
            #expect(part.defects.isEmpty, "\(name)")
            #expect(part.disposition == "form-data")
            #expect(part.name == name)
            #expect(part.filename == fileName, "\(name)")
            #expect(part.contentType == contentType, "\(name)")
            #expect(part.payload == payload, "\(name): \(part.payload.count) bytes, expected \(payload.count)")
            let headerNames = contentType == nil ? ["content-disposition"] : ["content-disposition", "content-type"]
            #expect(part.headerNames == headerNames, "\(name)")
        }
    }

    @Test("the body starts with the delimiter and ends with the close delimiter", .timeLimit(.scaledMinutes(1)))
    func framing() throws {
        var form = MultipartForm()
        form.addField(name: "a", value: "1")
        var generator = SeededGenerator(state: 42)
        let body = try form.prepare(using: &generator)
        let text = String(decoding: try collectBody(body), as: UTF8.self)
        let expected =
            "--\(body.boundary)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--\(body.boundary)--\r\n"
        #expect(text == expected)
        #expect(body.contentType == "multipart/form-data; boundary=\(body.boundary)")
        #expect(body.boundary.count == 40)
        #expect(body.boundary.hasPrefix("HTTPWireBoundary"))
        #expect(body.boundary.dropFirst(16).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
    }

    @Test("boundaries differ from one prepare() to the next")
    func boundariesAreRandom() throws {
        let form = MultipartForm()
        let boundaries = try Set((0..<8).map { _ in try form.prepare().boundary })
        #expect(boundaries.count == 8)
    }

    @Test("a form with no parts is only the close delimiter")
    func emptyForm() throws {
        let body = try MultipartForm().prepare()
        #expect(try collectBody(body) == Array("--\(body.boundary)--\r\n".utf8))
        #expect(body.contentLength == Int64(body.boundary.utf8.count + 6))
    }

    @Test("a boundary that occurs in in-memory data is replaced", .timeLimit(.scaledMinutes(1)))
    func boundaryCollisionInData() async throws {
        // The same seed draws the same first boundary: learn it from an empty form, then hide it in the data.
        var probe = SeededGenerator(state: 7)
        let firstBoundary = try MultipartForm().prepare(using: &probe).boundary
        let data = Array("before\r\n--\(firstBoundary)\r\nafter".utf8)

        var form = MultipartForm()
        form.addData(name: "payload", data: data, fileName: "p.bin")
        var generator = SeededGenerator(state: 7)
        let body = try form.prepare(using: &generator)
        #expect(body.boundary != firstBoundary)

        let bytes = try collectBody(body)
        let parsed = try await PythonMultipartParser.parse(bytes, boundary: body.boundary)
        try #require(parsed.parts.count == 1)
        #expect(parsed.parts[0].payload == data)
    }

    @Test("a boundary that occurs in a field value or a name is replaced", .timeLimit(.scaledMinutes(1)))
    func boundaryCollisionInHead() async throws {
        var probe = SeededGenerator(state: 99)
        let firstBoundary = try MultipartForm().prepare(using: &probe).boundary

        var form = MultipartForm()
        form.addField(name: "x\(firstBoundary)", value: "v")
        form.addField(name: "y", value: "--\(firstBoundary)--")
        var generator = SeededGenerator(state: 99)
        let body = try form.prepare(using: &generator)
        #expect(body.boundary != firstBoundary)
        let parsed = try await PythonMultipartParser.parse(try collectBody(body), boundary: body.boundary)
        #expect(parsed.parts.map(\.name) == ["x\(firstBoundary)", "y"])
        #expect(parsed.parts.last?.payload == Array("--\(firstBoundary)--".utf8))
    }

    @Test("quotes, backslashes, CR and LF in names cannot break the part head", .timeLimit(.scaledMinutes(1)))
    func hostileNames() async throws {
        let name = "a\"b\\\r\nContent-Type: text/evil\r\n\r\n"
        let fileName = "x\".txt\"; name=\"other\r\n--\u{0}\t"
        var form = MultipartForm()
        form.addData(name: name, data: Array("payload".utf8), fileName: fileName)
        form.addField(name: "after", value: "ok")
        let body = try form.prepare()
        let bytes = try collectBody(body)

        let expectedLine =
            "Content-Disposition: form-data; name=\"a%22b%5C%0D%0AContent-Type: text/evil%0D%0A%0D%0A\"; "
            + "filename=\"x%22.txt%22; name=%22other%0D%0A--%00%09\"\r\n"
        #expect(String(decoding: bytes, as: UTF8.self).contains(expectedLine))

        let parsed = try await PythonMultipartParser.parse(bytes, boundary: body.boundary)
        try #require(parsed.parts.count == 2)
        #expect(parsed.parts[0].headerNames == ["content-disposition", "content-type"])
        #expect(parsed.parts[0].name == "a%22b%5C%0D%0AContent-Type: text/evil%0D%0A%0D%0A")
        #expect(parsed.parts[0].filename == "x%22.txt%22; name=%22other%0D%0A--%00%09")
        #expect(parsed.parts[0].contentType == "application/octet-stream")
        #expect(parsed.parts[0].payload == Array("payload".utf8))
        #expect(parsed.parts[1].name == "after")
    }

    @Test("every reader replays the same bytes", .timeLimit(.scaledMinutes(1)))
    func replay() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("f.csv", pseudoRandomBytes(count: 70_000, seed: 5))
        var form = MultipartForm()
        form.addField(name: "a", value: "1")
        form.addFile(name: "f", path: path)
        let body = try form.prepare()

        var partial = body.makeReader()
        _ = partial.next()
        #expect(partial.bytesProduced > 0)

        let first = try collectBody(body, blockSize: 1000)
        let second = try collectBody(body, blockSize: 65_536)
        #expect(first == second)
        #expect(Int64(first.count) == body.contentLength)
        #expect(body.fileRegions.map(\.length) == [70_000])

        var reader = body.makeReader()
        while reader.next() != nil {}
        #expect(reader.bytesProduced == body.contentLength)
    }

    @Test("large in-memory data is its own segment, small parts share one write")
    func segmentLayout() throws {
        var form = MultipartForm()
        form.addField(name: "a", value: "1")
        form.addField(name: "b", value: "2")
        form.addData(name: "big", data: [UInt8](repeating: 7, count: 100_000))
        let body = try form.prepare()
        var reader = body.makeReader()
        var sizes: [Int64] = []
        while let segment = reader.next() {
            sizes.append(segment.byteCount)
        }
        #expect(sizes.count == 3)
        #expect(sizes[1] == 100_000)
    }

    @Test("a missing file or a directory fails prepare() with the path and errno")
    func unreadableFiles() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.url.appendingPathComponent("missing.txt").path
        var form = MultipartForm()
        form.addFile(name: "f", path: missing)
        #expect(throws: HTTPWireError.localReadFailed(path: missing, errno: ENOENT)) { try form.prepare() }

        var folder = MultipartForm()
        folder.addFile(name: "f", path: directory.url.path)
        #expect(throws: HTTPWireError.localReadFailed(path: directory.url.path, errno: EISDIR)) {
            try folder.prepare()
        }
    }

    @Test("a file that changes size after prepare() makes sending throw", .timeLimit(.scaledMinutes(1)))
    func fileChangedAfterPrepare() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("grows.txt", Array(repeating: 65, count: 1000))
        var form = MultipartForm()
        form.addFile(name: "f", path: path)
        let body = try form.prepare()

        try directory.file("grows.txt", Array(repeating: 65, count: 1500))
        #expect(throws: HTTPWireError.localFileChanged(path: path, expectedSize: 1000, actualSize: 1500)) {
            try collectBody(body)
        }
        try directory.file("grows.txt", Array(repeating: 65, count: 10))
        #expect(throws: HTTPWireError.localFileChanged(path: path, expectedSize: 1000, actualSize: 10)) {
            try collectBody(body)
        }
    }
}
