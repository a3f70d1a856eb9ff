// ClientCookieTests: a client with a cookie jar against the fixture server's `/cookies` routes — several
// `Set-Cookie` fields in one response, a cookie set by a 103 and by a redirect, the one `Cookie` field on
// the next request, and a redirect to another host that must not carry the first host's cookies.

import FixtureServer
import HTTPWire
import TestSupport
import Testing

@Suite struct ClientCookieTests {
    /// What `/cookies/...` answers (CookieRoutes.Received).
    struct Received: Decodable {
        var cookie: String?
        var cookieFields: Int
        var path: String
    }

    /// `value` percent-encoded for a query parameter (everything but letters and digits).
    static func encoded(_ value: String) -> String {
        value.utf8.map { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                ? String(UnicodeScalar(byte)) : "%" + String(byte, radix: 16, uppercase: true).leftPadded()
        }.joined()
    }

    /// `/cookies/set?` with one parameter per Set-Cookie value, plus extra query text.
    static func setting(_ values: [String], extra: String = "") -> String {
        let query = values.enumerated().map { "c\($0.offset)=\(encoded($0.element))" }.joined(separator: "&")
        return "cookies/set?" + query + extra
    }

    private func received(_ client: HTTPClient, _ path: String) async throws -> Received {
        try ClientFixture.decode(Received.self, try await client.get(path))
    }

    @Test(
        "stores several Set-Cookie fields of one response and sends them in one Cookie field",
        .timeLimit(.scaledMinutes(1)))
    func severalFields() async throws {
        try await withFixtureServer { server in
            let jar = CookieJar()
            let client = ClientFixture.client(for: server) { $0.cookieJar = jar }
            _ = try await client.get(Self.setting(["a=1; Path=/", "b=2; Path=/cookies", "c=3; Path=/elsewhere"]))
            #expect(jar.cookies.map(\.name) == ["a", "b", "c"])
            let echo = try await received(client, "cookies/echo")
            #expect(echo.cookie == "b=2; a=1")
            #expect(echo.cookieFields == 1)
            // No jar, no cookies: the default.
            let plain = ClientFixture.client(for: server)
            #expect(try await received(plain, "cookies/echo").cookie == nil)
            await client.shutdown()
            await plain.shutdown()
        }
    }

    @Test(
        "stores cookies from a 103 interim head and from a redirect, and sends them on the next hop",
        .timeLimit(.scaledMinutes(1)))
    func interimAndRedirect() async throws {
        try await withFixtureServer { server in
            let jar = CookieJar()
            let client = ClientFixture.client(for: server) { $0.cookieJar = jar }
            let path = Self.setting(
                ["hop=1; Path=/"],
                extra: "&interim=\(Self.encoded("early=1; Path=/"))&location=\(Self.encoded("/cookies/landed"))")
            let echo = try await received(client, path)
            #expect(echo.path == "/cookies/landed")
            #expect(echo.cookie == "early=1; hop=1")
            await client.shutdown()
        }
    }

    @Test("a redirect to another host gets that host's cookies only", .timeLimit(.scaledMinutes(1)))
    func otherHost() async throws {
        try await withFixtureServer { server in
            let jar = CookieJar()
            let client = ClientFixture.client(for: server) { $0.cookieJar = jar }
            let other = "http://localhost:\(server.port)/cookies/other"
            jar.store(setCookie: "theirs=1", from: try TargetURL(other))
            let echo = try await received(
                client, Self.setting(["mine=1; Path=/"], extra: "&location=\(Self.encoded(other))"))
            #expect(echo.path == "/cookies/other")
            #expect(echo.cookie == "theirs=1")
            // Back on 127.0.0.1, only its own cookie.
            #expect(try await received(client, "cookies/back").cookie == "mine=1")
            await client.shutdown()
        }
    }

    @Test("keeps a Cookie field the request sets and appends the jar's to it", .timeLimit(.scaledMinutes(1)))
    func ownField() async throws {
        try await withFixtureServer { server in
            let jar = CookieJar()
            let client = ClientFixture.client(for: server) { $0.cookieJar = jar }
            _ = try await client.get(Self.setting(["a=1; Path=/"]))
            var request = HTTPRequest(url: "cookies/echo")
            request.fields["Cookie"] = "own=0"
            let echo = try ClientFixture.decode(Received.self, try await client.send(request))
            #expect(echo.cookie == "own=0; a=1")
            #expect(echo.cookieFields == 1)
            await client.shutdown()
        }
    }

    @Test("Max-Age=0 from the server deletes the cookie", .timeLimit(.scaledMinutes(1)))
    func deletion() async throws {
        try await withFixtureServer { server in
            let jar = CookieJar()
            let client = ClientFixture.client(for: server) { $0.cookieJar = jar }
            _ = try await client.get(Self.setting(["a=1; Path=/", "b=2; Path=/"]))
            _ = try await client.get(Self.setting(["a=; Path=/; Max-Age=0"]))
            #expect(try await received(client, "cookies/echo").cookie == "b=2")
            await client.shutdown()
        }
    }
}

extension String {
    /// Two hex digits: `"a"` becomes `"0a"`.
    fileprivate func leftPadded() -> String { count == 1 ? "0" + self : self }
}
