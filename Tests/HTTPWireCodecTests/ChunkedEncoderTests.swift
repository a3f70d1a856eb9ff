// ChunkedEncoderTests: golden bytes for chunks, chunk headers, the last chunk and trailers; and the
// server-side ResponseEncoder, which shares the field writer.

import HTTPWireCodec
import Testing

@Suite struct ChunkedEncoderTests {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test("a chunk is hex size, CRLF, data, CRLF")
    func chunks() {
        var buffer: [UInt8] = []
        ChunkedEncoder.encodeChunk(Array("hello".utf8), into: &buffer)
        #expect(text(buffer) == "5\r\nhello\r\n")

        buffer = []
        ChunkedEncoder.encodeChunk([UInt8](repeating: 0x61, count: 255), into: &buffer)
        #expect(text(buffer) == "ff\r\n" + String(repeating: "a", count: 255) + "\r\n")

        buffer = []
        let large = [UInt8](repeating: 0x62, count: 4096)
        ChunkedEncoder.encodeChunk(large[100...], into: &buffer)
        #expect(buffer.prefix(6) == ArraySlice("f9c\r\nb".utf8))
        #expect(buffer.count == 5 + 3996 + 2)
        #expect(buffer.suffix(2) == [0x0D, 0x0A])
    }

    @Test("an empty chunk writes nothing, since a zero-size chunk would end the body")
    func emptyChunk() {
        var buffer = Array("x".utf8)
        ChunkedEncoder.encodeChunk([UInt8](), into: &buffer)
        ChunkedEncoder.encodeChunk(Array("abc".utf8)[3...], into: &buffer)
        #expect(buffer == Array("x".utf8))
    }

    @Test(
        "chunk headers for zero-copy writers",
        arguments: [
            (1, "1\r\n"), (15, "f\r\n"), (16, "10\r\n"), (65536, "10000\r\n"), (Int.max, "7fffffffffffffff\r\n"),
        ])
    func headers(size: Int, expected: String) {
        #expect(text(ChunkedEncoder.chunkHeader(size: size)) == expected)
        var buffer = Array("a".utf8)
        ChunkedEncoder.appendChunkHeader(size: size, into: &buffer)
        #expect(text(buffer) == "a" + expected)
    }

    @Test("header, data and terminator written separately equal one encoded chunk")
    func zeroCopyMatches() {
        let data = Array("zero-copy body".utf8)
        var whole: [UInt8] = []
        ChunkedEncoder.encodeChunk(data, into: &whole)
        let pieces = ChunkedEncoder.chunkHeader(size: data.count) + data + ChunkedEncoder.chunkDataTerminator
        #expect(pieces == whole)
    }

    @Test("the last chunk carries optional trailers and the final CRLF")
    func lastChunk() throws {
        var buffer: [UInt8] = []
        try ChunkedEncoder.encodeLastChunk(into: &buffer)
        #expect(text(buffer) == "0\r\n\r\n")

        buffer = []
        ChunkedEncoder.encodeChunk(Array("abc".utf8), into: &buffer)
        try ChunkedEncoder.encodeLastChunk(trailers: ["Checksum": "sha-256=:x:", "X-Rows": "3"], into: &buffer)
        #expect(text(buffer) == "3\r\nabc\r\n0\r\nChecksum: sha-256=:x:\r\nX-Rows: 3\r\n\r\n")
    }

    @Test("bad trailers throw and leave the buffer as it was")
    func badTrailers() {
        var buffer = Array("3\r\nabc\r\n".utf8)
        #expect(throws: CodecError.invalidFieldValue(name: "X")) {
            try ChunkedEncoder.encodeLastChunk(trailers: ["X": "1\r\n\r\nGET /evil HTTP/1.1"], into: &buffer)
        }
        #expect(throws: CodecError.invalidFieldName("Bad Name")) {
            try ChunkedEncoder.encodeLastChunk(trailers: ["Bad Name": "1"], into: &buffer)
        }
        #expect(throws: CodecError.framingFieldNotAllowed(name: "Content-Length")) {
            try ChunkedEncoder.encodeLastChunk(trailers: ["Content-Length": "1"], into: &buffer)
        }
        #expect(buffer == Array("3\r\nabc\r\n".utf8))
    }
}

@Suite struct ResponseEncoderTests {
    private func encoded(status: Int, reason: String, fields: HTTPFields, version: HTTPVersion = .http1_1) throws
        -> String
    {
        var buffer: [UInt8] = []
        try ResponseEncoder.encodeHead(version: version, status: status, reason: reason, fields: fields, into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    @Test("a response head is the status line, the fields in order, and a blank line")
    func golden() throws {
        #expect(
            try encoded(status: 200, reason: "OK", fields: ["Content-Length": "5", "Content-Type": "text/plain"])
                == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\n")
        #expect(
            try encoded(status: 206, reason: "", fields: ["Transfer-Encoding": "chunked"], version: .http1_0)
                == "HTTP/1.0 206 \r\nTransfer-Encoding: chunked\r\n\r\n")
    }

    @Test("bad statuses, reasons and fields throw")
    func rejects() {
        var buffer: [UInt8] = []
        let ok: HTTPFields = ["A": "b"]
        #expect(throws: CodecError.invalidStatusLine(preview: "status 99")) {
            try ResponseEncoder.encodeHead(version: .http1_1, status: 99, reason: "", fields: ok, into: &buffer)
        }
        #expect(throws: CodecError.invalidStatusLine(preview: "status 1000")) {
            try ResponseEncoder.encodeHead(version: .http1_1, status: 1000, reason: "", fields: ok, into: &buffer)
        }
        #expect(throws: CodecError.invalidStatusLine(preview: "OK\\r\\nSet-Cookie: x")) {
            try ResponseEncoder.encodeHead(
                version: .http1_1, status: 200, reason: "OK\r\nSet-Cookie: x", fields: ok, into: &buffer)
        }
        #expect(throws: CodecError.invalidFieldValue(name: "Location")) {
            try ResponseEncoder.encodeHead(
                version: .http1_1, status: 302, reason: "Found", fields: ["Location": "/a\r\nX: y"], into: &buffer)
        }
        #expect(throws: CodecError.contentLengthWithTransferEncoding) {
            try ResponseEncoder.encodeHead(
                version: .http1_1, status: 200, reason: "OK",
                fields: ["Content-Length": "1", "Transfer-Encoding": "chunked"], into: &buffer)
        }
        #expect(buffer.isEmpty)
    }
}
