// ResponseDecoderTests: the response decoder's rules, each checked for every way of splitting the input.

import HTTPWireCodec
import Testing

@Suite struct ResponseDecoderTests {
    /// Decodes `text` with every split, fails the test if any split disagrees, and returns the outcome.
    private func decode(
        _ text: String, method: Method = .get, endOfStream: Bool = true, limits: CodecLimits = CodecLimits(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> DecodedResponse {
        let (outcome, differing) = DecoderTestDriver.responseForEverySplit(
            text, method: method, endOfStream: endOfStream, limits: limits)
        #expect(differing.isEmpty, "splits disagree: \(differing)", sourceLocation: sourceLocation)
        return outcome
    }

    // MARK: Heads

    @Test("reads a Content-Length response and leaves the bytes after it unread")
    func contentLength() throws {
        let outcome = decode(
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nServer: t\r\n\r\nhelloHTTP/1.1", endOfStream: false)
        let head = try #require(outcome.head)
        #expect(head.status == .ok && head.reason == "OK" && head.version == .http1_1)
        #expect(head.fields.map(\.name) == ["Content-Length", "Server"])
        #expect(outcome.body == Array("hello".utf8))
        #expect(outcome.framing == .contentLength(5))
        #expect(outcome.trailers == HTTPFields())
        #expect(outcome.isKeepAlive)
        #expect(outcome.unconsumed == Array("HTTP/1.1".utf8))
    }

    @Test("accepts a status line without reason, with or without the SP")
    func emptyReason() throws {
        for line in ["HTTP/1.1 200\r\n", "HTTP/1.1 200 \r\n"] {
            let outcome = decode(line + "Content-Length: 0\r\n\r\n")
            #expect(outcome.error == nil)
            #expect(outcome.head?.status.rawValue == 200)
            #expect(outcome.head?.reason == "")
        }
    }

    @Test("keeps the reason phrase and HTTP/1.0 version as sent")
    func http10() throws {
        let outcome = decode("HTTP/1.0 404 Not  Found\r\nContent-Length: 2\r\n\r\nno")
        #expect(outcome.head?.version == .http1_0)
        #expect(outcome.head?.status == .notFound)
        #expect(outcome.head?.reason == "Not  Found")
        #expect(!outcome.isKeepAlive)
    }

    @Test("fields keep order and duplicates, values are trimmed, bare LF ends lines")
    func fields() throws {
        let outcome = decode(
            "HTTP/1.1 200 OK\nSet-Cookie: a=1 \r\nX-Empty:\r\nset-cookie:\t b=2\t\n\r\n", method: .head)
        let fields = try #require(outcome.head?.fields)
        #expect(fields.map(\.name) == ["Set-Cookie", "X-Empty", "set-cookie"])
        #expect(fields.values(for: "set-cookie") == ["a=1", "b=2"])
        #expect(fields["x-empty"] == "")
    }

    @Test("replaces obs-fold with one space (RFC 9112 §5.2)")
    func obsFold() throws {
        let outcome = decode("HTTP/1.1 200 OK\r\nX-Long: first\r\n   second \r\n\tthird\r\nContent-Length: 0\r\n\r\n")
        #expect(outcome.head?.fields["x-long"] == "first second third")
        #expect(outcome.head?.fields.count == 2)
    }

    @Test("a folded framing field is framed by its whole value (RFC 9112 §5.2, §6.1)")
    func obsFoldedFraming() throws {
        // An empty Transfer-Encoding line alone names no coding; its continuation names chunked.
        let chunked = decode(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding:\r\n chunked\r\nConnection: keep-alive,\r\n\tclose\r\n\r\n"
                + "3\r\nabc\r\n0\r\n\r\n")
        #expect(chunked.error == nil)
        #expect(chunked.framing == .chunked)
        #expect(chunked.body == Array("abc".utf8))
        #expect(!chunked.isKeepAlive, "the folded `close` must reach the keep-alive decision")
        // A Content-Length continued into a second number is invalid, as the joined value `1 0` is.
        let split = decode("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n 0\r\n\r\n0123456789")
        #expect(split.error != nil)
        // A second Content-Length whose number is on its continuation line still conflicts with the first.
        let second = decode("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length:\r\n 6\r\n\r\n01234")
        #expect(second.error == .conflictingContentLength(["5", "6"]))
    }

    @Test("decodes obs-text in values with replacement characters")
    func obsText() throws {
        var bytes = Array("HTTP/1.1 200 OK\r\nX-Name: caf".utf8)
        bytes += [0xC3, 0xA9, 0x20, 0xFF]
        bytes += Array("\r\nContent-Length: 0\r\n\r\n".utf8)
        let (outcome, differing) = DecoderTestDriver.responseForEverySplit(bytes: bytes)
        #expect(differing.isEmpty)
        #expect(outcome.head?.fields["x-name"] == "café \u{FFFD}")
    }

    @Test(
        "refuses malformed field lines",
        arguments: [
            ("NoColon\r\n", CodecError.invalidFieldLine(preview: "NoColon")),
            ("Name : value\r\n", .invalidFieldLine(preview: "Name : value")),
            (": value\r\n", .invalidFieldLine(preview: ": value")),
            ("Bad(Name): v\r\n", .invalidFieldLine(preview: "Bad(Name): v")),
            ("X: a\u{0}b\r\n", .invalidFieldLine(preview: "X: a\\x00b")),
            ("X: a\rb\r\n", .bareCarriageReturn),
            ("X: a\r\r\n", .bareCarriageReturn),
            (" X: leading\r\n", .invalidFieldLine(preview: " X: leading")),
        ])
    func badFieldLines(line: String, expected: CodecError) {
        let outcome = decode("HTTP/1.1 200 OK\r\n" + line + "Content-Length: 0\r\n\r\n")
        #expect(outcome.error == expected)
        #expect(outcome.head == nil)
    }

    // MARK: Status lines

    @Test(
        "refuses what is not an HTTP/1.x status line, from the first 8 bytes",
        arguments: [
            (
                "\u{16}\u{03}\u{01}\u{00}\u{a5}\u{01}\u{00}\u{00}\u{a1}",
                CodecError.invalidStatusLine(preview: "\\x16\\x03\\x01\\x00\\xc2\\xa5\\x01\\x00")
            ),
            ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", .invalidStatusLine(preview: "PRI * HT")),
            ("http/1.1 200 OK\r\n\r\n", .invalidStatusLine(preview: "http/1.1")),
            ("HTTP/2 200\r\n\r\n", .unsupportedVersion(preview: "HTTP/2")),
            ("HTTP/3.0 200 OK\r\n\r\n", .unsupportedVersion(preview: "HTTP/3.0")),
            ("HTTP/1.x 200 OK\r\n\r\n", .invalidStatusLine(preview: "HTTP/1.x")),
            ("HTTP/1.1  200 OK\r\n\r\n", .invalidStatusLine(preview: "HTTP/1.1  200 OK")),
            ("HTTP/1.1 20 OK\r\n\r\n", .invalidStatusLine(preview: "HTTP/1.1 20 OK")),
            ("HTTP/1.1 2000 OK\r\n\r\n", .invalidStatusLine(preview: "HTTP/1.1 2000 OK")),
            ("HTTP/1.1 099 Low\r\n\r\n", .invalidStatusLine(preview: "HTTP/1.1 099 Low")),
            ("HTTP/1.1 200 O\rK\r\n\r\n", .bareCarriageReturn),
            ("H\n\nXXXXXXXX", .invalidStatusLine(preview: "H\\n\\nXXXXX")),
            ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n", .unexpectedUpgrade),
        ])
    func badStatusLines(text: String, expected: CodecError) {
        #expect(decode(text).error == expected)
    }

    @Test("fails fast on a TLS record without waiting for a line end or more bytes")
    func failsFast() {
        var decoder = ResponseDecoder()
        decoder.feed([0x16, 0x03, 0x03, 0x00, 0x7A, 0x02, 0x00, 0x00])
        #expect(throws: CodecError.invalidStatusLine(preview: "\\x16\\x03\\x03\\x00z\\x02\\x00\\x00")) {
            try decoder.nextEvent()
        }
        // The error sticks: the connection is unusable.
        #expect(throws: CodecError.self) { try decoder.nextEvent() }
        #expect(!decoder.isKeepAlive)
    }

    // MARK: Interim responses

    @Test("delivers 1xx responses, then the final one")
    func informational() throws {
        let outcome = decode(
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n"
                + "HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok")
        #expect(outcome.informational.map(\.status.rawValue) == [100, 103, 102])
        #expect(outcome.informational[1].fields["link"] == "</a.css>")
        #expect(outcome.head?.status == .created)
        #expect(outcome.body == Array("ok".utf8))
    }

    // MARK: Framing

    @Test("HEAD, 204 and 304 responses have no body whatever their fields say")
    func noBody() {
        let head = decode("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nNEXT", method: .head, endOfStream: false)
        #expect(head.framing == BodyFraming.none)
        #expect(head.body.isEmpty && head.trailers == HTTPFields())
        #expect(head.unconsumed == Array("NEXT".utf8))
        #expect(head.isKeepAlive)
        for status in [204, 304] {
            let outcome = decode(
                "HTTP/1.1 \(status) X\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc", endOfStream: false
            )
            #expect(outcome.error == nil && outcome.framing == BodyFraming.none)
            #expect(outcome.unconsumed == Array("abc".utf8))
        }
    }

    @Test("reads until close without length information, and never keeps the connection")
    func untilClose() {
        let outcome = decode("HTTP/1.1 200 OK\r\nConnection: keep-alive\r\n\r\nall of this is body")
        #expect(outcome.framing == .untilClose)
        #expect(outcome.body == Array("all of this is body".utf8))
        #expect(outcome.trailers == HTTPFields())
        #expect(!outcome.isKeepAlive)
        let identity = decode("HTTP/1.1 200 OK\r\nTransfer-Encoding: identity\r\n\r\nxyz")
        #expect(identity.framing == .untilClose && identity.body == Array("xyz".utf8))
    }

    @Test("decodes a chunked body with extensions and trailers")
    func chunked() {
        let outcome = decode(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value\r\nhello\r\n00006 \r\n world\r\n0\r\nX-Checksum: abc\r\nX-Time: 12\r\n\r\nREST",
            endOfStream: false)
        #expect(outcome.error == nil)
        #expect(outcome.framing == .chunked)
        #expect(outcome.body == Array("hello world".utf8))
        #expect(outcome.trailers == ["X-Checksum": "abc", "X-Time": "12"])
        #expect(outcome.unconsumed == Array("REST".utf8))
        #expect(outcome.isKeepAlive)
    }

    @Test(
        "applies the Content-Length and Transfer-Encoding rules of RFC 9112 §6.3",
        arguments: [
            ("Content-Length: 5\r\nContent-Length: 5\r\n", Result<BodyFraming, CodecError>.success(.contentLength(5))),
            ("Content-Length: 5, 5\r\n", .success(.contentLength(5))),
            ("Content-Length: 005\r\n", .success(.contentLength(5))),
            ("Content-Length: 1,2\r\n", .failure(.conflictingContentLength(["1,2"]))),
            ("Content-Length: 5\r\nContent-Length: 6\r\n", .failure(.conflictingContentLength(["5", "6"]))),
            ("Content-Length: abc\r\n", .failure(.invalidContentLength("abc"))),
            ("Content-Length: -1\r\n", .failure(.invalidContentLength("-1"))),
            ("Content-Length: 5,\r\n", .failure(.invalidContentLength("5,"))),
            ("Content-Length: \r\n", .failure(.invalidContentLength(""))),
            ("Content-Length: 99999999999999999999\r\n", .failure(.invalidContentLength("99999999999999999999"))),
            ("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", .failure(.contentLengthWithTransferEncoding)),
            ("Transfer-Encoding: gzip\r\n", .failure(.unsupportedTransferCoding("gzip"))),
            ("Transfer-Encoding: gzip, chunked\r\n", .failure(.unsupportedTransferCoding("gzip"))),
            (
                "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
                .failure(.unsupportedTransferCoding("chunked, chunked"))
            ),
            ("Transfer-Encoding: Chunked\r\n", .success(.chunked)),
        ])
    func framingRules(fields: String, expected: Result<BodyFraming, CodecError>) {
        let outcome = decode("HTTP/1.1 200 OK\r\n" + fields + "\r\n", endOfStream: false)
        switch expected {
        case .success(let framing):
            #expect(outcome.error == nil)
            #expect(outcome.framing == framing)
        case .failure(let error):
            #expect(outcome.error == error)
        }
    }

    @Test(
        "keep-alive follows the version and Connection tokens",
        arguments: [
            ("HTTP/1.1", "", true), ("HTTP/1.1", "Connection: close\r\n", false),
            ("HTTP/1.1", "Connection: Upgrade, CLOSE\r\n", false), ("HTTP/1.0", "", false),
            ("HTTP/1.0", "Connection: Keep-Alive\r\n", true), ("HTTP/1.0", "Connection: keep-alive, close\r\n", false),
        ])
    func keepAlive(version: String, connection: String, expected: Bool) {
        let outcome = decode("\(version) 200 OK\r\n\(connection)Content-Length: 1\r\n\r\nx")
        #expect(outcome.isKeepAlive == expected)
    }

    @Test("an HTTP/1.0 response with Transfer-Encoding is decoded but not kept (RFC 9112 §6.1)")
    func http10Chunked() {
        let outcome = decode("HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n0\r\n\r\n")
        #expect(outcome.framing == .chunked && outcome.error == nil)
        #expect(!outcome.isKeepAlive)
    }

    // MARK: End of stream

    @Test(
        "reports where the stream ended",
        arguments: [
            ("", CodecError.truncatedHead(received: 0)),
            ("HTTP/1.1 200 OK\r\nContent-Le", .truncatedHead(received: 27)),
            ("HTTP/1.", .truncatedHead(received: 7)),
            ("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", .truncatedBody(expected: 10, received: 3)),
            (
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3\r\nab",
                .truncatedBody(expected: nil, received: 7)
            ),
            (
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r",
                .truncatedBody(expected: nil, received: 5)
            ),
            (
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: y\r\n",
                .truncatedBody(expected: nil, received: 0)
            ),
        ])
    func truncation(text: String, expected: CodecError) {
        #expect(decode(text).error == expected)
    }

    // MARK: Limits

    @Test("refuses a head past maxHeadBytes as soon as the limit is passed, not after reading everything")
    func headLimit() {
        var limits = CodecLimits()
        limits.maxHeadBytes = 64
        var decoder = ResponseDecoder(limits: limits)
        var fed = Array("HTTP/1.1 200 OK\r\n".utf8)
        decoder.feed(fed)
        var thrown: CodecError?
        for _ in 0..<1000 where thrown == nil {
            do {
                #expect(try decoder.nextEvent() == .needMoreData)
                let piece = Array("X-Filler: abcdef\r\n".utf8)
                fed += piece
                decoder.feed(piece)
            } catch {
                thrown = error
            }
        }
        #expect(thrown == .headTooLarge(limit: 64, seen: 65))
        #expect(fed.count < 64 + 18 + 1)
        // A head of exactly the limit is fine.
        let exact = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX: " + String(repeating: "a", count: 64 - 43) + "\r\n\r\n"
        #expect(exact.utf8.count == 64)
        #expect(decode(exact, limits: limits).error == nil)
        #expect(
            decode(exact.replacingOccurrences("X: a", "X: aa"), limits: limits).error
                == .headTooLarge(limit: 64, seen: 65))
    }

    @Test("refuses more fields than maxFieldCount, counting them all")
    func fieldLimit() {
        var limits = CodecLimits()
        limits.maxFieldCount = 3
        let fields = (0..<5).map { "X-\($0): v\r\n" }.joined()
        #expect(decode("HTTP/1.1 200 OK\r\n\(fields)\r\n", limits: limits).error == .tooManyFields(limit: 3, seen: 5))
        let folded = "HTTP/1.1 200 OK\r\nA: 1\r\n 2\r\n 3\r\nB: 1\r\nContent-Length: 0\r\n\r\n"
        #expect(decode(folded, limits: limits).error == nil)
    }

    // MARK: Connection reuse and zero copy

    @Test("decodes pipelined responses one at a time")
    func pipelined() throws {
        var decoder = ResponseDecoder()
        decoder.expectResponse(to: .head)
        decoder.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n".utf8))
        guard case .head = try decoder.nextEvent() else { Issue.record("expected a head"); return }
        #expect(try decoder.nextEvent() == .end(trailers: HTTPFields()))
        #expect(try decoder.nextEvent() == .paused)
        #expect(try decoder.nextEvent() == .paused)
        decoder.expectResponse(to: .get)
        guard case .head(let second) = try decoder.nextEvent() else { Issue.record("expected a head"); return }
        #expect(second.status == .noContent)
        #expect(try decoder.nextEvent() == .end(trailers: HTTPFields()))
        #expect(decoder.unconsumedBytes.isEmpty)
        decoder.expectResponse(to: .get)
        #expect(try decoder.nextEvent() == .needMoreData)
        decoder.feed([UInt8]())
        #expect(throws: CodecError.truncatedHead(received: 0)) { try decoder.nextEvent() }
    }

    @Test("hands body bytes out as slices of the fed array, without copying")
    func zeroCopy() throws {
        let head = Array("HTTP/1.1 200 OK\r\nContent-Length: 4096\r\n\r\n".utf8)
        let bytes = head + [UInt8](repeating: 7, count: 4096)
        var decoder = ResponseDecoder()
        decoder.feed(bytes)
        _ = try decoder.nextEvent()
        guard case .body(let body) = try decoder.nextEvent() else { Issue.record("expected body"); return }
        #expect(body.count == 4096)
        let bodyAddress = body.withUnsafeBufferPointer { $0.baseAddress }
        let expected = bytes.withUnsafeBufferPointer { $0.baseAddress! + head.count }
        #expect(bodyAddress == expected)
    }

    @Test("lets go of a fed buffer once it is used up, so the owner can reuse it without a copy")
    func releasesBuffer() throws {
        var buffer = Array("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc".utf8)
        let address = buffer.withUnsafeBufferPointer { $0.baseAddress }
        var decoder = ResponseDecoder()
        decoder.feed(buffer[...])
        _ = try decoder.nextEvent()
        #expect(try decoder.nextEvent() == .body(ArraySlice("abc".utf8)))
        // The body slice was dropped above; writing into the buffer must not reallocate it.
        buffer.withUnsafeMutableBufferPointer { $0[0] = 0 }
        #expect(buffer.withUnsafeBufferPointer { $0.baseAddress } == address)
        #expect(try decoder.nextEvent() == .end(trailers: HTTPFields()))
    }

    @Test("lets the owner move a Content-Length body out of band")
    func outOfBand() throws {
        var decoder = ResponseDecoder()
        decoder.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc".utf8))
        _ = try decoder.nextEvent()
        #expect(decoder.identityBodyBytesRemaining == nil)  // three bytes are still buffered
        #expect(try decoder.nextEvent() == .body(ArraySlice("abc".utf8)))
        #expect(decoder.identityBodyBytesRemaining == 7)
        decoder.bodyBytesMovedOutOfBand(5)
        #expect(decoder.identityBodyBytesRemaining == 2)
        #expect(try decoder.nextEvent() == .needMoreData)
        decoder.feed(Array("deNEXT".utf8))
        #expect(try decoder.nextEvent() == .body(ArraySlice("de".utf8)))
        #expect(decoder.identityBodyBytesRemaining == nil)
        #expect(try decoder.nextEvent() == .end(trailers: HTTPFields()))
        #expect(Array(decoder.unconsumedBytes) == Array("NEXT".utf8))
    }
}

extension String {
    /// A small replace so the tests do not need Foundation.
    fileprivate func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

@Suite struct ResponseDecoderSplitTests {
    /// Valid messages to mutate: every framing, interim responses, trailers, folds.
    private static let seeds = [
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX: a\r\n b\r\n\r\nhelloHTTP/1.1 204 No Content\r\n\r\n",
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "3;x=y\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nT: 1\r\n\r\nrest",
        "HTTP/1.0 200 OK\nConnection: keep-alive\nContent-Length: 3, 3\n\nxyz",
        "HTTP/1.1 304 Not Modified\r\nETag: \"a\"\r\nContent-Length: 9\r\n\r\n",
        "HTTP/1.1 200 OK\r\n\r\nuntil close",
    ]

    @Test("mutated messages decode the same way for every split")
    func mutations() {
        var random = DriverRandom(seed: 42)
        var limits = CodecLimits()
        limits.maxHeadBytes = 96
        limits.maxChunkLineBytes = 12
        limits.maxTrailerBytes = 24
        let alphabet = Array("\r\n :;,0123456789abcdefHTP/.xX\t\u{0}".utf8) + [0x80, 0xFF]
        for iteration in 0..<400 {
            var bytes = Array(Self.seeds[iteration % Self.seeds.count].utf8)
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let position = Int(random.next() % UInt64(bytes.count))
                let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
                switch random.next() % 3 {
                case 0: bytes[position] = byte
                case 1: bytes.insert(byte, at: position)
                default: bytes.remove(at: position)
                }
            }
            for endOfStream in [true, false] {
                let (_, differing) = DecoderTestDriver.responseForEverySplit(
                    bytes: bytes, endOfStream: endOfStream, limits: limits)
                #expect(differing.isEmpty, "input \(ByteClasses.escapedPreview(bytes, limit: 200)): \(differing)")
            }
        }
    }
}
