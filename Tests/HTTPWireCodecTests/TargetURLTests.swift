// TargetURLTests: parsing, normalisation, percent-encoding, query items and RFC 3986 §5 resolution.

import HTTPWireCodec
import Testing

@Suite struct TargetURLTests {
    // MARK: Parsing and normalisation

    @Test(
        "absolute URLs are normalised",
        arguments: [
            // input, scheme, host, port, pathAndQuery
            ("HTTP://Example.COM/Path", "http", "example.com", 80, "/Path"),
            ("http://example.com", "http", "example.com", 80, "/"),
            ("http://example.com?x=1", "http", "example.com", 80, "/?x=1"),
            ("https://example.com:443/a", "https", "example.com", 443, "/a"),
            ("https://example.com:8443/a", "https", "example.com", 8443, "/a"),
            ("http://example.com:/a", "http", "example.com", 80, "/a"),
            ("http://example.com:080/a", "http", "example.com", 80, "/a"),
            ("http://h/a#fragment", "http", "h", 80, "/a"),
            ("http://h/a?q=1#fragment", "http", "h", 80, "/a?q=1"),
            ("http://h/a/./b/../c", "http", "h", 80, "/a/c"),
            ("  http://h/a \r\n", "http", "h", 80, "/a"),
            ("http://192.168.0.1:8080/", "http", "192.168.0.1", 8080, "/"),
            ("http://[::1]:8080/x", "http", "::1", 8080, "/x"),
            ("http://[2001:DB8:0:0:0:0:0:1]/", "http", "2001:db8::1", 80, "/"),
            ("http://[::ffff:192.0.2.1]/", "http", "::ffff:c000:201", 80, "/"),
            ("http://[1:0:0:2:0:0:0:3]/", "http", "1:0:0:2::3", 80, "/"),
            ("http://[1:0:0:2:0:0:3:4]/", "http", "1::2:0:0:3:4", 80, "/"),
            ("http://[1:2:3:4:5:6:7:0]/", "http", "1:2:3:4:5:6:7:0", 80, "/"),
            ("http://[::]/", "http", "::", 80, "/"),
            ("http://my_host.example./", "http", "my_host.example.", 80, "/"),
        ])
    func parses(input: String, scheme: String, host: String, port: Int, pathAndQuery: String) throws {
        let url = try TargetURL(input)
        #expect(url.scheme.rawValue == scheme)
        #expect(url.host == host)
        #expect(url.port == port)
        #expect(url.pathAndQuery == pathAndQuery)
    }

    @Test("the Host value omits default ports and brackets IPv6")
    func hostFieldValue() throws {
        #expect(try TargetURL("http://example.com:80/").hostFieldValue == "example.com")
        #expect(try TargetURL("https://example.com:443/").hostFieldValue == "example.com")
        #expect(try TargetURL("https://example.com:80/").hostFieldValue == "example.com:80")
        #expect(try TargetURL("http://example.com:8080/").hostFieldValue == "example.com:8080")
        #expect(try TargetURL("http://[::1]:8080/").hostFieldValue == "[::1]:8080")
        #expect(try TargetURL("https://[::1]/").hostFieldValue == "[::1]")
        // Every number of digits a port can have.
        for port in [1, 9, 10, 99, 100, 443, 1000, 8080, 10000, 65535] {
            #expect(try TargetURL("http://h:\(port)/").hostFieldValue == "h:\(port)")
            #expect(try TargetURL("http://[::1]:\(port)/").hostFieldValue == "[::1]:\(port)")
        }
        #expect(try TargetURL("HTTPS://[::1]:443/p?q#f").description == "https://[::1]/p?q")
    }

    @Test("IP addresses are told apart from names")
    func ipAddresses() throws {
        #expect(try TargetURL("http://10.0.0.1/").isIPAddress)
        #expect(try TargetURL("http://[fe80::1]/").isIPAddress)
        #expect(try !TargetURL("http://example.com/").isIPAddress)
        #expect(try !TargetURL("http://1.example/").isIPAddress)
    }

    @Test(
        "bad URLs throw invalidURL with a reason",
        arguments: [
            ("ftp://h/", "unsupported scheme"),
            ("example.com/path", "missing scheme"),
            ("localhost:8080/x", "unsupported scheme"),
            ("", "missing scheme"),
            ("http:/path", "missing host"),
            ("http:///path", "missing host"),
            ("http://:8080/", "missing host"),
            ("http://a@b@h/", "more than one \"@\""),
            ("http://us er@h/", "user name or password"),
            ("http://h:0/", "out of range"),
            ("http://h:65536/", "out of range"),
            ("http://h:99999999999999999999999/", "out of range"),
            ("http://h:8a/", "invalid port"),
            ("http://[::1/", "closing"),
            ("http://[::g]/", "invalid IPv6"),
            ("http://[1:2:3:4:5:6:7:8:9]/", "invalid IPv6"),
            ("http://[1::2::3]/", "invalid IPv6"),
            ("http://[1:2:3:4:5:6:7]/", "invalid IPv6"),
            ("http://[::1]x/", "unexpected text"),
            ("http://[fe80::1%25eth0]/", "zone"),
            ("http://\u{4F8B}\u{5B50}.\u{6D4B}\u{8BD5}/", "non-ASCII"),
            ("http://b\u{FC}cher.example/", "non-ASCII"),
            ("http://exa mple.com/", "invalid character"),
            ("http://exa%41mple.com/", "invalid character"),
            ("http://256.1.1.1/", "invalid IPv4"),
            ("http://127.1/", "invalid IPv4"),
            ("http://010.0.0.1/", "invalid IPv4"),
            ("http://0x7f.0.0.1/", "invalid IPv4"),
        ])
    func rejects(input: String, reasonWord: String) {
        #expect {
            try TargetURL(input)
        } throws: { error in
            guard case .invalidURL(let url, let reason) = error as? CodecError else { return false }
            return url == Self.redacted(input) && reason.contains(reasonWord)
        }
    }

    /// `text` as an error shows it: the user information before the last `@` of the authority (the one
    /// the parser splits at) replaced by `[redacted]`, so a password never reaches a log.
    static func redacted(_ text: String) -> String {
        let characters = Array(text)
        guard
            let slash = (0..<max(0, characters.count - 1)).first(where: {
                characters[$0] == "/" && characters[$0 + 1] == "/"
            })
        else { return text }
        let start = slash + 2
        let end = characters[start...].firstIndex(where: { "/?#".contains($0) }) ?? characters.count
        guard let at = characters[start..<end].lastIndex(of: "@") else { return text }
        return String(characters[..<start]) + "[redacted]" + String(characters[at...])
    }

    // MARK: Percent-encoding of typed text

    @Test(
        "typed paths and queries are percent-encoded as UTF-8, existing escapes kept",
        arguments: [
            ("http://h/a b", "/a%20b"),
            ("http://h/a b?q=x y", "/a%20b?q=x%20y"),
            ("http://h/\u{641C}\u{7D22}?q=\u{4E2D}\u{6587}", "/%E6%90%9C%E7%B4%A2?q=%E4%B8%AD%E6%96%87"),
            ("http://h/caf\u{E9}/na\u{EF}ve?x=\u{E9}", "/caf%C3%A9/na%C3%AFve?x=%C3%A9"),
            ("http://h/a%20b%2Fc?x=%41", "/a%20b%2Fc?x=%41"),
            ("http://h/caf%c3%a9", "/caf%c3%a9"),
            ("http://h/100%?p=5%", "/100%25?p=5%25"),
            ("http://h/%zz%4", "/%25zz%254"),
            ("http://h/p?a=/b?c&d=e;f", "/p?a=/b?c&d=e;f"),
            ("http://h/<a>\"{b}|\\^`[c]", "/%3Ca%3E%22%7Bb%7D%7C%5C%5E%60%5Bc%5D"),
            ("http://h/~user/a-b_c.d!$&'()*+,;=:@", "/~user/a-b_c.d!$&'()*+,;=:@"),
            ("http://h/tab\there", "/tab%09here"),
        ])
    func percentEncodes(input: String, pathAndQuery: String) throws {
        #expect(try TargetURL(input).pathAndQuery == pathAndQuery)
    }

    @Test("encoding is idempotent: an encoded URL parses to itself")
    func idempotent() throws {
        let first = try TargetURL("http://h/caf\u{E9} 100%/\u{4E2D}?q=a b%zz")
        let second = try TargetURL(first.description)
        #expect(second == first)
        #expect(first.pathAndQuery == "/caf%C3%A9%20100%25/%E4%B8%AD?q=a%20b%25zz")
    }

    // MARK: Query items

    @Test("query items escape + & = # % and spaces")
    func queryItems() throws {
        let base = try TargetURL("http://h/s")
        let url = base.appendingQueryItems([(name: "q", value: "a+b & c=d #1 100%")])
        #expect(url.pathAndQuery == "/s?q=a%2Bb%20%26%20c%3Dd%20%231%20100%25")
        #expect(
            base.appendingQueryItems([(name: "a b", value: ""), (name: "k", value: "\u{E9}")]).pathAndQuery
                == "/s?a%20b=&k=%C3%A9")
        #expect(base.appendingQueryItems([(name: "v", value: "%41")]).pathAndQuery == "/s?v=%2541")
        #expect(base.appendingQueryItems([]) == base)
    }

    @Test("query items join an existing query")
    func queryItemsJoin() throws {
        let item = [(name: "y", value: "2")]
        #expect(try TargetURL("http://h/s?x=1").appendingQueryItems(item).pathAndQuery == "/s?x=1&y=2")
        #expect(try TargetURL("http://h/s?").appendingQueryItems(item).pathAndQuery == "/s?y=2")
        #expect(try TargetURL("http://h/s?x=1&").appendingQueryItems(item).pathAndQuery == "/s?x=1&y=2")
        #expect(try TargetURL("http://h").appendingQueryItems(item).pathAndQuery == "/?y=2")
    }

    @Test("a server decoding the query reads back exactly the pairs given")
    func queryItemsRoundTrip() throws {
        let items = [
            (name: "q", value: "a+b=c&d"), (name: "x y", value: "#frag?"), (name: "\u{4E2D}", value: "100% sure"),
            (name: "empty", value: ""), (name: "slash/colon:", value: "caf\u{E9}\u{301}"),
        ]
        let url = try TargetURL("http://h/p").appendingQueryItems(items)
        let query = try #require(url.pathAndQuery.split(separator: "?", maxSplits: 1).last)
        let decoded = query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (name: Self.formDecode(parts[0]), value: Self.formDecode(parts[1]))
        }
        #expect(decoded.map(\.name) == items.map(\.name))
        #expect(decoded.map(\.value) == items.map(\.value))
    }

    /// What a typical server does with a query component: `+` is a space, `%XX` is a byte.
    private static func formDecode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next() {
                bytes.append(UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) ?? 0)
            } else {
                bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: Last path segment

    @Test("the last path segment is decoded, and unsafe file names are refused")
    func lastPathSegment() throws {
        #expect(try TargetURL("http://h/docs/r%C3%A9sum%C3%A9.pdf?x=1").lastPathSegment == "r\u{E9}sum\u{E9}.pdf")
        #expect(try TargetURL("http://h/a b.txt").lastPathSegment == "a b.txt")
        #expect(try TargetURL("http://h/docs/").lastPathSegment == nil)
        #expect(try TargetURL("http://h").lastPathSegment == nil)
        #expect(try TargetURL("http://h/a/..%2F..%2Fetc%2Fpasswd").lastPathSegment == nil)
        #expect(try TargetURL("http://h/a/%2e%2e").lastPathSegment == nil)
        #expect(try TargetURL("http://h/a/nul%00").lastPathSegment == nil)
    }
}
