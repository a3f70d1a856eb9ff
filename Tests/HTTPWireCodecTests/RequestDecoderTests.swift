// RequestDecoderTests: the server-side decoder, each rule checked for every way of splitting the input.

import HTTPWireCodec
import Testing

@Suite struct RequestDecoderTests {
    private func decode(
        _ text: String, endOfStream: Bool = true, limits: CodecLimits = CodecLimits(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> DecodedRequest {
        let (outcome, differing) = DecoderTestDriver.requestForEverySplit(
            text, endOfStream: endOfStream, limits: limits)
        #expect(differing.isEmpty, "splits disagree: \(differing)", sourceLocation: sourceLocation)
        return outcome
    }

    @Test("reads a GET without a body and leaves the next request unread")
    func get() throws {
        let outcome = decode(
            "GET /a?b=c HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\nGET /next", endOfStream: false)
        let head = try #require(outcome.head)
        #expect(
            head
                == RequestHead(
                    method: .get, target: "/a?b=c", version: .http1_1,
                    fields: ["Host": "example.com", "Accept": "*/*"]))
        #expect(outcome.framing == BodyFraming.none)
        #expect(outcome.body.isEmpty && outcome.trailers == HTTPFields())
        #expect(outcome.isKeepAlive)
        #expect(outcome.unconsumed == Array("GET /next".utf8))
    }

    @Test("reads Content-Length and chunked bodies")
    func bodies() {
        let sized = decode("POST /up HTTP/1.1\r\nContent-Length: 11\r\n\r\nhello world")
        #expect(sized.framing == .contentLength(11) && sized.body == Array("hello world".utf8))
        let chunked = decode("PUT /up HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nDigest: x\r\n\r\n")
        #expect(chunked.framing == .chunked && chunked.body == Array("abc".utf8))
        #expect(chunked.trailers == ["Digest": "x"])
        let cut = decode("POST /up HTTP/1.1\r\nContent-Length: 11\r\n\r\nhello")
        #expect(cut.error == .truncatedBody(expected: 11, received: 5))
    }

    @Test("skips empty lines before the request line (RFC 9112 §2.2)")
    func leadingEmptyLines() {
        let outcome = decode("\r\n\n\r\nGET / HTTP/1.1\r\n\r\n")
        #expect(outcome.head?.target == "/")
        #expect(outcome.error == nil)
        #expect(decode("\r\n\r\n").error == .truncatedHead(received: 0))
    }

    @Test(
        "refuses malformed request lines",
        arguments: [
            ("GET  / HTTP/1.1", CodecError.invalidRequestLine(preview: "GET  / HTTP/1.1")),
            ("GET / HTTP/1.1 ", .invalidRequestLine(preview: "GET / HTTP/1.1 ")),
            ("GET /", .invalidRequestLine(preview: "GET /")),
            ("G(T / HTTP/1.1", .invalidRequestLine(preview: "G(T / HTTP/1.1")),
            ("GET /caf\u{e9} HTTP/1.1", .invalidRequestLine(preview: "GET /caf\\xc3\\xa9 HTTP/1.1")),
            ("GET / http/1.1", .invalidRequestLine(preview: "GET / http/1.1")),
            ("GET / HTTP/2.0", .unsupportedVersion(preview: "HTTP/2.0")),
            ("GET / HTTP/2", .unsupportedVersion(preview: "HTTP/2")),
            ("GET / HTTP/1.1\rX", .bareCarriageReturn),
            ("\u{16}\u{03}\u{01}", .invalidRequestLine(preview: "\\x16\\x03\\x01")),
        ])
    func badRequestLines(line: String, expected: CodecError) {
        #expect(decode(line + "\r\n\r\n").error == expected)
    }

    @Test("refuses obs-fold and whitespace before the colon (RFC 9112 §5.1, §5.2)")
    func strictFields() {
        #expect(decode("GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n").error == .invalidFieldLine(preview: " b"))
        #expect(decode("GET / HTTP/1.1\r\nHost : a\r\n\r\n").error == .invalidFieldLine(preview: "Host : a"))
        let trailerFold = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: a\r\n b\r\n\r\n"
        #expect(decode(trailerFold).error == .invalidFieldLine(preview: " b"))
    }

    @Test(
        "applies the request framing rules of RFC 9112 §6.3",
        arguments: [
            ("Transfer-Encoding: chunked\r\nContent-Length: 3\r\n", CodecError.contentLengthWithTransferEncoding),
            ("Transfer-Encoding: gzip\r\n", .unsupportedTransferCoding("gzip")),
            ("Transfer-Encoding: identity\r\n", .unsupportedTransferCoding("identity")),
            ("Content-Length: 3\r\nContent-Length: 4\r\n", .conflictingContentLength(["3", "4"])),
            ("Content-Length: 0x10\r\n", .invalidContentLength("0x10")),
        ])
    func framing(fields: String, expected: CodecError) {
        #expect(decode("POST / HTTP/1.1\r\n" + fields + "\r\n").error == expected)
    }

    @Test("keep-alive follows the version, Connection and Transfer-Encoding")
    func keepAlive() {
        #expect(!decode("GET / HTTP/1.1\r\nConnection: close\r\n\r\n").isKeepAlive)
        #expect(!decode("GET / HTTP/1.0\r\n\r\n").isKeepAlive)
        #expect(decode("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").isKeepAlive)
        let chunked10 = "POST / HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
        #expect(!decode(chunked10).isKeepAlive)
    }

    @Test("refuses a request head past maxHeadBytes")
    func headLimit() {
        var limits = CodecLimits()
        limits.maxHeadBytes = 32
        let outcome = decode(
            "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 100), endOfStream: false, limits: limits)
        #expect(outcome.error == .headTooLarge(limit: 32, seen: 33))
    }

    @Test("decodes requests one after another on one connection")
    func pipelined() throws {
        var decoder = RequestDecoder()
        decoder.feed(Array("POST /1 HTTP/1.1\r\nContent-Length: 2\r\n\r\nokGET /2 HTTP/1.1\r\n\r\n".utf8))
        guard case .head(let first) = try decoder.nextEvent() else { Issue.record("expected a head"); return }
        #expect(first.target == "/1")
        #expect(try decoder.nextEvent() == .body(ArraySlice("ok".utf8)))
        #expect(try decoder.nextEvent() == .end(trailers: HTTPFields()))
        #expect(try decoder.nextEvent() == .paused)
        #expect(Array(decoder.unconsumedBytes) == Array("GET /2 HTTP/1.1\r\n\r\n".utf8))
        decoder.prepareForNextRequest()
        guard case .head(let second) = try decoder.nextEvent() else { Issue.record("expected a head"); return }
        #expect(second.method == .get && second.target == "/2")
        #expect(try decoder.nextEvent() == .end(trailers: HTTPFields()))
        decoder.prepareForNextRequest()
        #expect(try decoder.nextEvent() == .needMoreData)
        decoder.feed([UInt8]())
        #expect(throws: CodecError.truncatedHead(received: 0)) { try decoder.nextEvent() }
    }
}

@Suite struct RequestDecoderSplitTests {
    @Test("mutated requests decode the same way for every split")
    func mutations() {
        let seeds = [
            "\r\nPOST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nbodyGET / HTTP/1.1\r\n\r\n",
            "PUT /b?c HTTP/1.0\nTransfer-Encoding: chunked\n\n2\r\nhi\r\n0\r\nT: v\r\n\r\n",
        ]
        var random = DriverRandom(seed: 7)
        var limits = CodecLimits()
        limits.maxHeadBytes = 64
        let alphabet = Array("\r\n :;,0123456789abcdefHTP/.\t\u{0}".utf8) + [0xFF]
        for iteration in 0..<200 {
            var bytes = Array(seeds[iteration % seeds.count].utf8)
            let position = Int(random.next() % UInt64(bytes.count))
            let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
            if random.next() % 2 == 0 { bytes[position] = byte } else { bytes.insert(byte, at: position) }
            let reference = DecoderTestDriver.request(bytes, split: .whole, limits: limits)
            for split in DriverSplit.allCases {
                let other = DecoderTestDriver.request(bytes, split: split, limits: limits)
                #expect(other == reference, "\(split) differs for \(ByteClasses.escapedPreview(bytes, limit: 200))")
            }
        }
    }
}
