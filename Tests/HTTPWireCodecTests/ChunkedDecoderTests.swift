// ChunkedDecoderTests: the chunked transfer coding on its own (RFC 9112 §7.1), stepping the decoder
// directly and through ResponseDecoder with every split.

import HTTPWireCodec
import Testing

@Suite struct ChunkedDecoderTests {
    /// Runs a whole chunked body through a fresh decoder; returns data, trailers and the leftover input.
    private func decodeWhole(
        _ text: String, limits: CodecLimits = CodecLimits()
    ) throws(CodecError) -> (data: [UInt8], trailers: HTTPFields?, rest: [UInt8]) {
        var decoder = ChunkedDecoder(limits: limits)
        var input = ArraySlice(text.utf8)
        var data: [UInt8] = []
        while true {
            switch try decoder.decode(&input, isEndOfStream: true) {
            case .data(let bytes): data += bytes
            case .end(let trailers): return (data, trailers, Array(input))
            case .needMoreData: return (data, nil, Array(input))
            }
        }
    }

    /// The same body inside a response, checked for every split.
    private func decodeInResponse(
        _ body: String, limits: CodecLimits = CodecLimits(), sourceLocation: SourceLocation = #_sourceLocation
    ) -> DecodedResponse {
        let (outcome, differing) = DecoderTestDriver.responseForEverySplit(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + body, endOfStream: false, limits: limits)
        #expect(differing.isEmpty, "splits disagree: \(differing)", sourceLocation: sourceLocation)
        return outcome
    }

    @Test("decodes chunks, extensions, leading zeros and an empty trailer section")
    func basics() throws {
        let result = try decodeWhole(
            "4\r\nWiki\r\n0005;ext;name=\"quoted value\"\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n000\r\n\r\nafter")
        #expect(result.data == Array("Wikipedia in\r\n\r\nchunks.".utf8))
        #expect(result.trailers == HTTPFields())
        #expect(result.rest == Array("after".utf8))
    }

    @Test("counts decoded data bytes")
    func receivedBytes() throws {
        var decoder = ChunkedDecoder()
        var input = ArraySlice("a\r\n0123456789\r\n2\r\nab".utf8)
        var steps: [ChunkedDecoder.Step] = []
        for _ in 0..<3 { steps.append(try decoder.decode(&input, isEndOfStream: false)) }
        #expect(steps == [.data(ArraySlice("0123456789".utf8)), .data(ArraySlice("ab".utf8)), .needMoreData])
        #expect(decoder.receivedBytes == 12)
    }

    @Test("hands trailers out in order, folded lines joined")
    func trailers() {
        let outcome = decodeInResponse(
            "3\r\nabc\r\n0\r\nX-Sum: 1\r\n  2\r\nX-Sum: 3\nServer-Timing: db;dur=5\r\n\r\nNEXT")
        #expect(outcome.body == Array("abc".utf8))
        #expect(outcome.trailers?.values(for: "x-sum") == ["1 2", "3"])
        #expect(outcome.trailers?["server-timing"] == "db;dur=5")
        #expect(outcome.unconsumed == Array("NEXT".utf8))
    }

    @Test(
        "refuses malformed chunk framing",
        arguments: [
            ("5\r\nhelloXY0\r\n\r\n", CodecError.missingChunkTerminator(preview: "XY")),
            ("5\r\nhello\n0\r\n\r\n", .missingChunkTerminator(preview: "\\n0")),
            ("5\r\nhello\rX0\r\n\r\n", .missingChunkTerminator(preview: "\\rX")),
            ("zz\r\n", .invalidChunkSize(preview: "zz\\r")),
            ("\r\n", .invalidChunkSize(preview: "\\r")),
            ("5\nhello\r\n0\r\n\r\n", .invalidChunkSize(preview: "5")),
            ("5 x\r\nhello\r\n", .invalidChunkSize(preview: "5 x\\r")),
            ("-5\r\n", .invalidChunkSize(preview: "-5\\r")),
            ("5;a\u{0}b\r\nhello\r\n", .invalidChunkSize(preview: "5;a\\x00b\\r")),
            ("5;a\rb\r\nhello\r\n", .invalidChunkSize(preview: "5;a\\rb\\r")),
            ("8000000000000000\r\n", .chunkSizeOverflow(preview: "8000000000000000\\r")),
            ("fffffffffffffffff\r\n", .chunkSizeOverflow(preview: "fffffffffffffffff\\r")),
            ("0\r\nBad Trailer: x\r\n\r\n", .invalidFieldLine(preview: "Bad Trailer: x")),
        ])
    func malformed(body: String, expected: CodecError) {
        #expect(decodeInResponse(body).error == expected)
    }

    @Test("accepts the largest 63-bit chunk size")
    func largestSize() throws {
        var decoder = ChunkedDecoder()
        var input = ArraySlice("7fffffffffffffff\r\nab".utf8)
        #expect(try decoder.decode(&input, isEndOfStream: false) == .data(ArraySlice("ab".utf8)))
        #expect(try decoder.decode(&input, isEndOfStream: false) == .needMoreData)
    }

    @Test("bounds the chunk-size line and the trailer section")
    func limits() {
        var limits = CodecLimits()
        limits.maxChunkLineBytes = 16
        limits.maxTrailerBytes = 32
        #expect(
            decodeInResponse("5;" + String(repeating: "e", count: 12) + "\r\nhello\r\n0\r\n\r\n", limits: limits).error
                == nil)
        let longLine = "5;" + String(repeating: "e", count: 13) + "\r\nhello\r\n0\r\n\r\n"
        #expect(decodeInResponse(longLine, limits: limits).error == .chunkLineTooLong(limit: 16, seen: 17))
        let endless = String(repeating: "0", count: 100)
        #expect(decodeInResponse(endless, limits: limits).error == .chunkLineTooLong(limit: 16, seen: 17))
        let fits = "0\r\nX: " + String(repeating: "t", count: 25) + "\r\n\r\n"
        #expect(decodeInResponse(fits, limits: limits).error == nil)
        let tooBig = "0\r\nX: " + String(repeating: "t", count: 26) + "\r\n\r\n"
        #expect(decodeInResponse(tooBig, limits: limits).error == .trailersTooLarge(limit: 32, seen: 33))
        limits.maxFieldCount = 2
        #expect(
            decodeInResponse("0\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: limits).error
                == .tooManyFields(limit: 2, seen: 3))
    }

    @Test("finds the end of a chunk-size line at the limit when it arrives one byte at a time")
    func sizeLineByteByByte() throws {
        // Found by fuzzing: the decoder searched the whole line again on every byte (quadratic in its length).
        // It now resumes where it stopped; the line must still end, or be refused, at exactly the same byte.
        let limit = CodecLimits().maxChunkLineBytes
        let line = Array("5;".utf8) + [UInt8](repeating: UInt8(ascii: "e"), count: limit - 4) + Array("\r\n".utf8)
        var decoder = ChunkedDecoder()
        var input: ArraySlice<UInt8> = []
        var data: [UInt8] = []
        for byte in line + Array("hello\r\n0\r\n\r\n".utf8) {
            input.append(byte)
            while case .data(let bytes) = try decoder.decode(&input, isEndOfStream: false) { data += bytes }
        }
        #expect(data == Array("hello".utf8))
        #expect(input.isEmpty)

        var tooLong = ChunkedDecoder()
        input = []
        for (index, byte) in (line.dropLast(2) + Array("e\r\n".utf8)).enumerated() {
            input.append(byte)
            do throws(CodecError) {
                let step = try tooLong.decode(&input, isEndOfStream: false)
                #expect(step == .needMoreData)
                #expect(index < limit, "a \(limit + 1)-byte line was not refused")
            } catch {
                #expect(error == .chunkLineTooLong(limit: limit, seen: limit + 1))
                #expect(index == limit, "refused at byte \(index + 1), not \(limit + 1)")
                break
            }
        }
    }

    @Test("reports a truncated body with the data bytes received")
    func truncated() {
        let cases: [(String, Int64)] = [
            ("", 0), ("5", 0), ("5\r\nhel", 3), ("5\r\nhello", 5), ("5\r\nhello\r\n0\r\n", 5),
        ]
        for (body, received) in cases {
            let (outcome, differing) = DecoderTestDriver.responseForEverySplit(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + body)
            #expect(differing.isEmpty)
            #expect(outcome.error == .truncatedBody(expected: nil, received: received))
        }
    }

    @Test("hands large chunk data out as slices of the fed piece")
    func zeroCopy() throws {
        var decoder = ChunkedDecoder()
        let piece = Array("4000\r\n".utf8) + [UInt8](repeating: 1, count: 0x4000) + Array("\r\n0\r\n\r\n".utf8)
        var input = piece[...]
        guard case .data(let data) = try decoder.decode(&input, isEndOfStream: false) else {
            Issue.record("expected data")
            return
        }
        #expect(data.count == 0x4000)
        let address = data.withUnsafeBufferPointer { $0.baseAddress }
        #expect(address == piece.withUnsafeBufferPointer { $0.baseAddress! + 6 })
        #expect(try decoder.decode(&input, isEndOfStream: false) == .end(trailers: HTTPFields()))
        #expect(input.isEmpty)
    }
}
