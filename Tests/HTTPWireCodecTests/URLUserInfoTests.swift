// URLUserInfoTests: `user:password@` in a URL (RFC 3986 §3.2.1) — parsed, percent-decoded, kept out of the
// target, `Host` and the printed URL, and redacted in errors; and the form-urlencoded escaping of
// PercentEncoding (WHATWG URL §5.2, with RFC 3986's unreserved set).

import Testing

@testable import HTTPWireCodec

@Suite struct URLUserInfoTests {
    @Test(
        "userinfo is split at the first colon and percent-decoded",
        arguments: [
            ("http://ada:s3cret@h/", "ada", "s3cret"),
            ("http://ada:p%40ss%3Aw%2Frd@h/", "ada", "p@ss:w/rd"),
            ("http://ada:a:b@h/", "ada", "a:b"),
            ("http://caf%C3%A9:%C2%A3@h/", "caf\u{E9}", "\u{A3}"),
            ("http://ada:@h/", "ada", ""),
            ("http://:only@h/", "", "only"),
        ])
    func parses(input: String, user: String, password: String) throws {
        let url = try TargetURL(input)
        #expect(url.userInfo == URLUserInfo(user: user, password: password))
    }

    @Test("a user without a colon has no password")
    func userOnly() throws {
        #expect(try TargetURL("https://token@h/").userInfo == URLUserInfo(user: "token", password: nil))
        #expect(try TargetURL("https://h/").userInfo == nil)
    }

    @Test("the credentials are part of neither the target, Host nor the printed URL")
    func keptOut() throws {
        let url = try TargetURL("https://ada:s3cret@Example.test:8443/a?b=1")
        #expect(url.host == "example.test")
        #expect(url.port == 8443)
        #expect(url.pathAndQuery == "/a?b=1")
        #expect(url.hostFieldValue == "example.test:8443")
        #expect(url.description == "https://example.test:8443/a?b=1")
        #expect(!"\(url)".contains("s3cret"))
        #expect("\(url.userInfo!)" == "[redacted]")
        // The host after the userinfo is checked as strictly as ever.
        #expect(throws: CodecError.self) { try TargetURL("http://ada:x@exa mple/") }
    }

    @Test("an error about a URL with credentials never shows them")
    func redactedInErrors() {
        for input in ["http://ada:s3cret@h:99999/", "http://ada:s3cret@/", "http://a:s3cret@b@c/"] {
            #expect {
                try TargetURL(input)
            } throws: { error in
                guard case .invalidURL(let shown, _) = error as? CodecError else { return false }
                return !shown.contains("s3cret") && shown.contains("[redacted]@") && !"\(error)".contains("s3cret")
            }
        }
        #expect(URLUserInfo.redacting("http://u:p@h/x@y") == "http://[redacted]@h/x@y")
        #expect(URLUserInfo.redacting("http://h/x@y") == "http://h/x@y")
    }

    @Test("a redirect Location may carry userinfo; relative references drop the base's")
    func resolving() throws {
        let base = try TargetURL("http://ada:pw@h/a/b")
        #expect(try base.resolving("c").userInfo == nil)
        #expect(try base.resolving("http://bob:x@other/").userInfo == URLUserInfo(user: "bob", password: "x"))
    }

    @Test(
        "form encoding: space as +, RFC 3986 unreserved raw, everything else %XX",
        arguments: [
            ("a b", "a+b"),
            ("1+1=2", "1%2B1%3D2"),
            ("a&b", "a%26b"),
            ("~-._", "~-._"),
            ("*", "%2A"),
            ("caf\u{E9}", "caf%C3%A9"),
            ("100%", "100%25"),
            ("%20", "%2520"),
            ("line\r\n", "line%0D%0A"),
        ])
    func formEncoding(input: String, encoded: String) {
        #expect(PercentEncoding.encode(input, for: .form) == encoded)
    }
}
