// SetCookieTests: `Set-Cookie` values as servers send them, read by RFC 6265 §5.2 — name and value,
// every attribute, the last-one-wins rule, the values that are ignored and the fields that are dropped
// whole. Tables of raw header values, each with what the parser must make of it.

import HTTPWireCodec
import Testing

@Suite struct SetCookieTests {
    /// One raw value and the fields expected from it.
    struct Case: Sendable, CustomTestStringConvertible {
        var raw: String
        var name: String
        var value: String
        var expires: Int64? = nil
        var maxAge: Int64? = nil
        var domain: String? = nil
        var path: String? = nil
        var isSecure = false
        var isHTTPOnly = false
        var sameSite: String? = nil
        var testDescription: String { raw }
    }

    static let cases: [Case] = [
        Case(raw: "SID=31d4d96e407aad42", name: "SID", value: "31d4d96e407aad42"),
        Case(
            raw: "SID=31d4d96e407aad42; Path=/; Secure; HttpOnly", name: "SID", value: "31d4d96e407aad42",
            path: "/", isSecure: true, isHTTPOnly: true),
        Case(
            raw: "lang=en-US; Path=/; Domain=example.com", name: "lang", value: "en-US", domain: "example.com",
            path: "/"),
        // §5.2.3: the leading dot is dropped and the domain lower-cased.
        Case(raw: "a=1; domain=.Example.COM", name: "a", value: "1", domain: "example.com"),
        // §5.2.1: every HTTP-date form, and Netscape's.
        Case(raw: "a=1; Expires=Sun, 06 Nov 1994 08:49:37 GMT", name: "a", value: "1", expires: 784_111_777),
        Case(raw: "a=1; expires=Sunday, 06-Nov-94 08:49:37 GMT", name: "a", value: "1", expires: 784_111_777),
        Case(raw: "a=1; EXPIRES=Sun Nov  6 08:49:37 1994", name: "a", value: "1", expires: 784_111_777),
        Case(raw: "a=1; Expires=Sun, 06-Nov-1994 08:49:37 GMT", name: "a", value: "1", expires: 784_111_777),
        // An Expires that is not a date is ignored; the cookie stays.
        Case(raw: "a=1; Expires=never", name: "a", value: "1"),
        // §5.2.2: Max-Age, negative and zero kept as numbers (the jar makes them "now").
        Case(raw: "a=1; Max-Age=3600", name: "a", value: "1", maxAge: 3600),
        Case(raw: "a=1; Max-Age=0", name: "a", value: "1", maxAge: 0),
        Case(raw: "a=1; Max-Age=-5", name: "a", value: "1", maxAge: -5),
        Case(raw: "a=1; Max-Age=99999999999999999999999", name: "a", value: "1", maxAge: Int64.max),
        Case(raw: "a=1; Max-Age=1h", name: "a", value: "1"),
        Case(raw: "a=1; Max-Age=+5", name: "a", value: "1"),
        Case(raw: "a=1; Max-Age=", name: "a", value: "1"),
        // Both kept; the jar lets Max-Age win (§5.3 step 3).
        Case(
            raw: "a=1; Expires=Sun, 06 Nov 1994 08:49:37 GMT; Max-Age=60", name: "a", value: "1",
            expires: 784_111_777, maxAge: 60),
        // §5.2.4: a path not starting with / is the default path.
        Case(raw: "a=1; Path=docs", name: "a", value: "1"),
        Case(raw: "a=1; Path=", name: "a", value: "1"),
        Case(raw: "a=1; Path=/docs/", name: "a", value: "1", path: "/docs/"),
        // The last attribute of each name wins, an invalid later Path included.
        Case(raw: "a=1; Path=/x; Path=/y", name: "a", value: "1", path: "/y"),
        Case(raw: "a=1; Path=/x; Path=y", name: "a", value: "1"),
        Case(raw: "a=1; Domain=a.test; Domain=b.test", name: "a", value: "1", domain: "b.test"),
        // An empty Domain is ignored (§5.2.3 SHOULD).
        Case(raw: "a=1; Domain=", name: "a", value: "1"),
        Case(raw: "a=1; Domain=.", name: "a", value: "1"),
        // SameSite kept as written; unknown attributes ignored.
        Case(raw: "a=1; SameSite=Lax; Priority=High; Partitioned", name: "a", value: "1", sameSite: "Lax"),
        // Whitespace trimmed around names, values and attributes; attribute names in any case.
        Case(raw: "  a  =  1  ;  sEcUrE  ;httponly", name: "a", value: "1", isSecure: true, isHTTPOnly: true),
        // The value keeps its quotes and any `=` after the first.
        Case(raw: #"a="quoted value""#, name: "a", value: #""quoted value""#),
        Case(raw: "token=abc==; Path=/", name: "token", value: "abc==", path: "/"),
        // An empty value is a cookie.
        Case(raw: "a=; Max-Age=0", name: "a", value: "", maxAge: 0),
        // Empty attributes between semicolons are nothing.
        Case(raw: "a=1;;; Secure;", name: "a", value: "1", isSecure: true),
    ]

    @Test("reads name, value and every attribute", arguments: cases)
    func reads(_ expected: Case) throws {
        let cookie = try #require(SetCookie(parsing: expected.raw))
        #expect(cookie.name == expected.name)
        #expect(cookie.value == expected.value)
        #expect(cookie.expires == expected.expires)
        #expect(cookie.maxAge == expected.maxAge)
        #expect(cookie.domain == expected.domain)
        #expect(cookie.path == expected.path)
        #expect(cookie.isSecure == expected.isSecure)
        #expect(cookie.isHTTPOnly == expected.isHTTPOnly)
        #expect(cookie.sameSite == expected.sameSite)
    }

    @Test(
        "drops a field with no name-value pair, an empty name, or control characters",
        arguments: ["", "novalue", "; Path=/", "=1", "  =1; Path=/", "a=1\u{0}b", "a=1\r\nX: y", "a\u{7F}=1"])
    func dropped(raw: String) {
        #expect(SetCookie(parsing: raw) == nil)
    }

    @Test("limits the bytes of one field to 4096 by default, or the limit given")
    func limits() {
        let fits = "a=" + String(repeating: "v", count: SetCookie.defaultMaxBytes - 2)
        #expect(SetCookie(parsing: fits)?.value.utf8.count == SetCookie.defaultMaxBytes - 2)
        #expect(SetCookie(parsing: fits + "v") == nil)
        #expect(SetCookie(parsing: "a=12345", maxBytes: 6) == nil)
        #expect(SetCookie(parsing: "a=1234", maxBytes: 6)?.value == "1234")
    }

    @Test("keeps a tab inside a value, which RFC 6265bis allows")
    func tab() {
        #expect(SetCookie(parsing: "a=x\ty")?.value == "x\ty")
    }
}
