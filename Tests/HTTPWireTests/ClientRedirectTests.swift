// Redirects end to end (RFC 9110 §15.4): the status × method matrix, the limit (exit 47), relative and
// non-ASCII Locations (RFC 3986 §5.2), credentials dropped when the origin changes, bodies that cannot be
// sent twice (exit 65), and targets that are not http or https.

import FixtureServer
import HTTPWire
import HTTPWireCodec
import TestSupport
import Testing

@Suite struct ClientRedirectTests {
    /// One row of the redirect matrix: a request redirected with `status`, and what reaches the target.
    struct Hop: Sendable, CustomStringConvertible {
        var status: Int
        var method: Method
        var expectedMethod: Method
        /// Whether the body (and its Content-Type) is sent again to the target.
        var keepsBody: Bool
        var description: String { "\(status) \(method) → \(expectedMethod)\(keepsBody ? " with body" : "")" }
    }

    static let hops: [Hop] = [
        // 301 and 302: POST becomes GET (§15.4.2, §15.4.3 "for historical reasons"); others keep all.
        Hop(status: 301, method: .get, expectedMethod: .get, keepsBody: false),
        Hop(status: 301, method: .post, expectedMethod: .get, keepsBody: false),
        Hop(status: 301, method: .put, expectedMethod: .put, keepsBody: true),
        Hop(status: 302, method: .post, expectedMethod: .get, keepsBody: false),
        Hop(status: 302, method: .delete, expectedMethod: .delete, keepsBody: false),
        Hop(status: 302, method: .patch, expectedMethod: .patch, keepsBody: true),
        // 303: GET for everything but HEAD (§15.4.4).
        Hop(status: 303, method: .post, expectedMethod: .get, keepsBody: false),
        Hop(status: 303, method: .put, expectedMethod: .get, keepsBody: false),
        Hop(status: 303, method: .head, expectedMethod: .head, keepsBody: false),
        // 307 and 308: method and body unchanged (§15.4.8, §15.4.9).
        Hop(status: 307, method: .post, expectedMethod: .post, keepsBody: true),
        Hop(status: 307, method: .get, expectedMethod: .get, keepsBody: false),
        Hop(status: 308, method: .put, expectedMethod: .put, keepsBody: true),
        Hop(status: 308, method: .post, expectedMethod: .post, keepsBody: true),
    ]

    @Test("status × method: what the redirect target receives", .timeLimit(.scaledMinutes(1)), arguments: hops)
    func matrix(_ hop: Hop) async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            let hasBody = hop.method != .get && hop.method != .head && hop.method != .delete
            let request = HTTPRequest(
                method: hop.method, url: "redirect-to?url=/echo&status=\(hop.status)",
                fields: hasBody ? ["Content-Type": "text/plain"] : [:],
                body: hasBody ? .bytes(Array("payload".utf8)) : .empty)
            let response = try await client.send(request)
            #expect(response.status == .ok)
            #expect(response.url.pathAndQuery == "/echo")
            let target = try #require(server.requestLog.last)
            #expect(target.method == hop.expectedMethod)
            #expect(target.target == "/echo")
            #expect(target.fields["Content-Type"] == (hop.keepsBody ? "text/plain" : nil))
            if hop.expectedMethod != .head {
                let echo = try ClientFixture.decode(ClientFixture.Echo.self, response)
                #expect(echo.body == (hop.keepsBody ? "payload" : ""))
            }
            #expect(client.connectionsOpened == 1)
            await client.shutdown()
        }
    }

    @Test("ten redirects are followed; the eleventh is exit 47", .timeLimit(.scaledMinutes(1)))
    func limit() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            #expect(try await client.get("redirect/10").url.pathAndQuery == "/json")
            let error = try await #require(throws: HTTPWireError.self) { _ = try await client.get("redirect/11") }
            #expect(error == .tooManyRedirects(limit: 10))
            #expect(error.exitCode == 47)
            #expect(error.description == "more than 10 redirects")
            await client.shutdown()

            let strict = ClientFixture.client(for: server) { $0.redirects = RedirectPolicy(maxRedirects: 2) }
            await #expect(throws: HTTPWireError.tooManyRedirects(limit: 2)) { _ = try await strict.get("redirect/3") }
            await strict.shutdown()

            let none = ClientFixture.client(for: server) { $0.redirects = RedirectPolicy(maxRedirects: 0) }
            let unfollowed = try await none.get("redirect/1")
            #expect(unfollowed.status == .found && unfollowed.fields["Location"] == "/json")
            await none.shutdown()
        }
    }

    @Test(
        "a relative or non-ASCII Location is resolved against the current URL", .timeLimit(.scaledMinutes(1)),
        arguments: [
            ("echo/a/../b?x=1", "/echo/b?x=1"),
            ("/echo/./c", "/echo/c"),
            ("/echo/café", "/echo/caf%C3%A9"),
            ("/echo/a b", "/echo/a%20b"),
            ("/echo/%41", "/echo/%41"),
        ])
    func relativeLocation(location: String, expectedTarget: String) async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            let response = try await client.get("redirect-to", query: [QueryItem(name: "url", value: location)])
            #expect(response.status == .ok)
            #expect(server.requestLog.last?.target == expectedTarget)
            #expect(response.url.pathAndQuery == expectedTarget)
            await client.shutdown()
        }
    }

    @Test("an absolute Location to another port works (network-path reference too)", .timeLimit(.scaledMinutes(1)))
    func absoluteLocation() async throws {
        try await withFixtureServer { first in
            try await withFixtureServer { second in
                let client = ClientFixture.client(for: first)
                let absolute = try await client.get(
                    "redirect-to", query: [QueryItem(name: "url", value: second.baseURL + "json")])
                #expect(absolute.url.port == second.port)
                let networkPath = "//127.0.0.1:\(second.port)/echo"
                let relative = try await client.get("redirect-to", query: [QueryItem(name: "url", value: networkPath)])
                #expect(relative.url.port == second.port && relative.url.pathAndQuery == "/echo")
                #expect(second.requestsServed == 2)
                await client.shutdown()
            }
        }
    }

    @Test("credentials are dropped when the origin changes, kept when it does not", .timeLimit(.scaledMinutes(1)))
    func credentials() async throws {
        try await withFixtureServer { first in
            try await withFixtureServer { second in
                let client = ClientFixture.client(for: first)
                let fields: HTTPFields = [
                    "Authorization": "Bearer t", "Cookie": "c=1", "Proxy-Authorization": "Basic p", "X-Keep": "yes",
                ]
                let away = try await client.get(
                    "redirect-to", query: [QueryItem(name: "url", value: second.baseURL + "echo")], fields: fields)
                let echoAway = try ClientFixture.decode(ClientFixture.Echo.self, away)
                #expect(echoAway.values("Authorization").isEmpty)
                #expect(echoAway.values("Cookie").isEmpty)
                #expect(echoAway.values("Proxy-Authorization").isEmpty)
                #expect(echoAway.values("X-Keep") == ["yes"])
                #expect(echoAway.values("Host") == ["127.0.0.1:\(second.port)"])

                let home = try await client.get("redirect-to", query: ["url=/echo"], fields: fields)
                let echoHome = try ClientFixture.decode(ClientFixture.Echo.self, home)
                #expect(echoHome.values("Authorization") == ["Bearer t"])
                #expect(echoHome.values("Cookie") == ["c=1"])
                #expect(echoHome.values("Proxy-Authorization") == ["Basic p"])
                await client.shutdown()
            }
        }
    }

    @Test(
        "307 with a body that can be read only once stops with exit 65; 303 turns it into a GET",
        .timeLimit(.scaledMinutes(1)))
    func streamBody() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            func stream() -> RequestBody {
                .stream(
                    AsyncThrowingStream { continuation in
                        continuation.yield(Array("one ".utf8))
                        continuation.yield(Array("shot".utf8))
                        continuation.finish()
                    })
            }
            let error = try await #require(throws: HTTPWireError.self) {
                _ = try await client.send(
                    HTTPRequest(method: .post, url: "redirect-to?url=/echo&status=307", body: stream()))
            }
            #expect(error == .requestBodyNotReplayable)
            #expect(error.exitCode == 65)
            let seeOther = try await client.send(
                HTTPRequest(method: .post, url: "redirect-to?url=/echo&status=303", body: stream()))
            #expect(try ClientFixture.decode(ClientFixture.Echo.self, seeOther).method == "GET")
            await client.shutdown()
        }
    }

    @Test("a redirect to a scheme other than http or https is not followed", .timeLimit(.scaledMinutes(1)))
    func otherScheme() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            let error = try await #require(throws: HTTPWireError.self) {
                _ = try await client.get("redirect-to", query: ["url=ftp://127.0.0.1/file"])
            }
            guard case .invalidURL = error else {
                Issue.record("expected invalidURL, got \(error)")
                return
            }
            #expect(server.requestsServed == 1)
            await client.shutdown()
        }
    }

    @Test(
        "a redirect that fails (too many, unreplayable body, other scheme) gives its connection back",
        .timeLimit(.scaledMinutes(1)))
    func failedRedirectReleasesConnection() async throws {
        try await withFixtureServer { server in
            // One connection per origin: a lease the failed redirect kept would make the next request wait
            // for it forever, and `shutdown()`, which waits for every lease, would never return.
            let client = ClientFixture.client(for: server) {
                $0.pool.maxConnectionsPerOrigin = 1
                $0.redirects = RedirectPolicy(maxRedirects: 1)
            }
            let once = RequestBody.stream(
                AsyncThrowingStream { continuation in
                    continuation.yield(Array("once".utf8))
                    continuation.finish()
                })
            let failing: [@Sendable () async throws -> HTTPResponse] = [
                { try await client.get("redirect/2") },
                {
                    try await client.send(
                        HTTPRequest(method: .post, url: "redirect-to?url=/echo&status=307", body: once))
                },
                { try await client.get("redirect-to", query: ["url=ftp://127.0.0.1/file"]) },
            ]
            for (index, request) in failing.enumerated() {
                await #expect(throws: HTTPWireError.self, "request \(index)") { _ = try await request() }
                let after = try await client.get("json")
                #expect(after.status == .ok, "after request \(index)")
            }
            await client.shutdown()
        }
    }
}
