// RequestEncoderTests: golden bytes for request heads, URL-derived targets, framing and injection attempts.

import HTTPWireCodec
import Testing

@Suite struct RequestEncoderTests {
    /// Encodes a head and returns the bytes as text (CRLF kept) for readable golden comparisons.
    private func encoded(_ head: RequestHead, framing: RequestBodyFraming = .none) throws -> String {
        var buffer: [UInt8] = []
        try RequestEncoder.encodeHead(head, framing: framing, into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// A GET head for `url`, the way the client builds one.
    private func getHead(_ url: TargetURL, fields: HTTPFields = HTTPFields()) -> RequestHead {
        var all: HTTPFields = ["Host": url.hostFieldValue]
        for field in fields { all.append(field) }
        return RequestHead(method: .get, target: url.pathAndQuery, fields: all)
    }

    @Test("a GET head is the request line, the fields in order, and a blank line")
    func simpleGet() throws {
        let url = try TargetURL("http://example.com/search?q=swift")
        let fields: HTTPFields = ["User-Agent": "wire/1.0", "Accept": "*/*", "accept": "text/plain"]
        #expect(
            try encoded(getHead(url, fields: fields))
                == "GET /search?q=swift HTTP/1.1\r\nHost: example.com\r\nUser-Agent: wire/1.0\r\nAccept: */*\r\n"
                + "accept: text/plain\r\n\r\n")
    }

    @Test(
        "targets and Host values derived from typed URLs",
        arguments: [
            ("http://h/a b", "/a%20b", "h"),
            ("http://h/\u{641C}\u{7D22}?q=\u{4E2D}\u{6587}", "/%E6%90%9C%E7%B4%A2?q=%E4%B8%AD%E6%96%87", "h"),
            ("http://h/caf\u{E9}?x=cr\u{E8}me br\u{FB}l\u{E9}e", "/caf%C3%A9?x=cr%C3%A8me%20br%C3%BBl%C3%A9e", "h"),
            ("http://h/a%20b?c=%2B", "/a%20b?c=%2B", "h"),
            ("http://h/50%off?p=5%", "/50%25off?p=5%25", "h"),
            ("http://example.com", "/", "example.com"),
            ("http://example.com?x", "/?x", "example.com"),
            ("http://[2001:db8::1]:8080/v", "/v", "[2001:db8::1]:8080"),
            ("https://[::1]/", "/", "[::1]"),
            ("http://example.com:80/", "/", "example.com"),
            ("https://example.com:443/", "/", "example.com"),
            ("http://example.com:8080/", "/", "example.com:8080"),
        ])
    func urlTargets(input: String, target: String, host: String) throws {
        let url = try TargetURL(input)
        #expect(try encoded(getHead(url)) == "GET \(target) HTTP/1.1\r\nHost: \(host)\r\n\r\n")
    }

    @Test("query items reach the wire escaped")
    func queryItemsOnTheWire() throws {
        let url = try TargetURL("http://h/find").appendingQueryItems([
            (name: "q", value: "a+b & c=d #e 5%"), (name: "lang", value: "\u{4E2D}\u{6587}"),
        ])
        #expect(
            try encoded(getHead(url))
                == "GET /find?q=a%2Bb%20%26%20c%3Dd%20%23e%205%25&lang=%E4%B8%AD%E6%96%87 HTTP/1.1\r\nHost: h\r\n\r\n")
    }

    @Test("the framing field is written from the framing")
    func framing() throws {
        let head = RequestHead(method: .post, target: "/up", fields: ["Host": "h"])
        #expect(try encoded(head, framing: .none) == "POST /up HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(
            try encoded(head, framing: .contentLength(0)) == "POST /up HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n"
        )
        #expect(
            try encoded(head, framing: .contentLength(1 << 40))
                == "POST /up HTTP/1.1\r\nHost: h\r\nContent-Length: 1099511627776\r\n\r\n")
        #expect(
            try encoded(head, framing: .contentLength(.max))
                == "POST /up HTTP/1.1\r\nHost: h\r\nContent-Length: 9223372036854775807\r\n\r\n")
        #expect(
            try encoded(head, framing: .chunked) == "POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
    }

    @Test("the version, other methods and other target forms are written as given")
    func versionsAndMethods() throws {
        let head = RequestHead(method: "PROPFIND", target: "*", version: .http1_0)
        #expect(try encoded(head) == "PROPFIND * HTTP/1.0\r\n\r\n")
        let proxied = RequestHead(method: .get, target: "http://h:8080/p?q", fields: ["Host": "h:8080"])
        #expect(try encoded(proxied) == "GET http://h:8080/p?q HTTP/1.1\r\nHost: h:8080\r\n\r\n")
    }

    @Test("values with bytes 0x80-0xFF are sent as their UTF-8 bytes")
    func nonASCIIValues() throws {
        var buffer: [UInt8] = []
        let head = RequestHead(method: .get, target: "/", fields: ["X-Name": "caf\u{E9} \u{4E2D}"])
        try RequestEncoder.encodeHead(head, framing: .none, into: &buffer)
        let expected =
            Array("GET / HTTP/1.1\r\nX-Name: caf".utf8) + [0xC3, 0xA9, 0x20, 0xE4, 0xB8, 0xAD]
            + Array("\r\n\r\n".utf8)
        #expect(buffer == expected)
    }

    @Test("encoding appends to what the buffer already holds")
    func appends() throws {
        var buffer = Array("previous".utf8)
        try RequestEncoder.encodeHead(RequestHead(method: .head, target: "/"), framing: .none, into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "previousHEAD / HTTP/1.1\r\n\r\n")
    }

    // MARK: Injection attempts

    @Test(
        "values with CR, LF, NUL or control bytes throw instead of starting a new line",
        arguments: [
            "a\r\nInjected: yes", "a\nb", "a\rb", "a\u{0}b", "a\u{7F}", "\u{1}", "ok\r\n\r\nGET /evil HTTP/1.1",
        ])
    func injectedValues(value: String) {
        var buffer = Array("keep".utf8)
        let head = RequestHead(method: .get, target: "/", fields: ["Host": "h", "X-Data": value])
        #expect(throws: CodecError.invalidFieldValue(name: "X-Data")) {
            try RequestEncoder.encodeHead(head, framing: .none, into: &buffer)
        }
        #expect(buffer == Array("keep".utf8))
    }

    @Test(
        "names that are not tokens throw",
        arguments: ["Bad Name", "Bad:Name", "", "X\r\nEvil", "\u{DC}nicode", "Name\u{0}", "(x)"])
    func badNames(name: String) {
        var buffer: [UInt8] = []
        let head = RequestHead(method: .get, target: "/", fields: HTTPFields([HTTPField(name: name, value: "v")]))
        #expect(throws: CodecError.invalidFieldName(name)) {
            try RequestEncoder.encodeHead(head, framing: .none, into: &buffer)
        }
        #expect(buffer.isEmpty)
    }

    @Test("methods that are not tokens throw", arguments: ["GET /x", "G\r\nET", "", "G\u{E9}T"])
    func badMethods(method: String) {
        var buffer: [UInt8] = []
        #expect(throws: CodecError.invalidMethod(method)) {
            try RequestEncoder.encodeHead(
                RequestHead(method: Method(rawValue: method), target: "/"), framing: .none, into: &buffer)
        }
        #expect(buffer.isEmpty)
    }

    @Test("targets with spaces or control bytes throw", arguments: ["/a b", "/a\r\nHost: evil", "", "/caf\u{E9}"])
    func badTargets(target: String) {
        var buffer: [UInt8] = []
        #expect {
            try RequestEncoder.encodeHead(RequestHead(method: .get, target: target), framing: .none, into: &buffer)
        } throws: { error in
            guard case .invalidURL(let url, _) = error as? CodecError else { return false }
            return url == target
        }
        #expect(buffer.isEmpty)
    }

    @Test("the encoder's byte checks agree with ByteClasses for every ASCII byte")
    func agreesWithByteClasses() {
        for byte in UInt8(0)...0x7F {
            let text = String(Unicode.Scalar(byte))
            let nameAccepted = (try? RequestEncoder.validate(HTTPField(name: "A" + text, value: "v"))) != nil
            #expect(nameAccepted == ByteClasses.isTokenByte(byte), "name byte \(byte)")
            let valueAccepted = (try? RequestEncoder.validate(HTTPField(name: "A", value: "v" + text + "v"))) != nil
            #expect(valueAccepted == ByteClasses.isFieldValueByte(byte), "value byte \(byte)")
        }
    }

    // MARK: Framing fields from the caller

    @Test(
        "caller-supplied Content-Length or Transfer-Encoding throw, whatever the framing",
        arguments: ["Content-Length", "content-length", "Transfer-Encoding", "TRANSFER-ENCODING"],
        [RequestBodyFraming.none, .contentLength(3), .chunked])
    func framingFieldsRefused(name: String, framing: RequestBodyFraming) {
        var buffer: [UInt8] = []
        let head = RequestHead(method: .post, target: "/", fields: HTTPFields([HTTPField(name: name, value: "3")]))
        #expect(throws: CodecError.framingFieldNotAllowed(name: name)) {
            try RequestEncoder.encodeHead(head, framing: framing, into: &buffer)
        }
        #expect(buffer.isEmpty)
    }

    @Test("a negative Content-Length throws")
    func negativeLength() {
        var buffer: [UInt8] = []
        #expect(throws: CodecError.invalidContentLength("-1")) {
            try RequestEncoder.encodeHead(
                RequestHead(method: .post, target: "/"), framing: .contentLength(-1), into: &buffer)
        }
    }

    // MARK: Early validation

    @Test("validation can run when a request is built")
    func earlyValidation() throws {
        try RequestEncoder.validate(["Accept": "text/html", "X-Empty": "", "X-Tab": "a\tb"] as HTTPFields)
        try RequestEncoder.validate(Method.patch)
        #expect(throws: CodecError.invalidFieldValue(name: "X")) {
            try RequestEncoder.validate(HTTPField(name: "X", value: "a\nb"))
        }
        #expect(throws: CodecError.framingFieldNotAllowed(name: "Content-Length")) {
            try RequestEncoder.validate(["Content-Length": "1"] as HTTPFields)
        }
        #expect(throws: CodecError.invalidMethod("BAD METHOD")) {
            try RequestEncoder.validate(Method(rawValue: "BAD METHOD"))
        }
    }
}
