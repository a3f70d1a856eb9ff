// AuthenticationTests: Basic (RFC 7617, UTF-8) from `user:pass@` in a URL — removed from the target and
// Host, percent-decoded, redacted in logs — and as an option; Bearer tokens; and the rule that credentials
// never follow a redirect to another origin.

import FixtureServer
import Foundation
import HTTPWire
import HTTPWireCodec
import HTTPWireTesting
import TestSupport
import Testing

@Suite struct AuthenticationTests {
    @Test("RFC 7617's own examples, and the values it forbids")
    func basicValues() throws {
        // RFC 7617 §2: "Aladdin" / "open sesame"; §2.1: "test" / "123£" in UTF-8.
        #expect(
            try Authorization.basic(user: "Aladdin", password: "open sesame").fieldValue()
                == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        #expect(try Authorization.basic(user: "test", password: "123\u{A3}").fieldValue() == "Basic dGVzdDoxMjPCow==")
        #expect(throws: HTTPWireError.self) { try Authorization.basic(user: "a:b", password: "c").fieldValue() }
        #expect(try Authorization.bearer("abc.DEF-_~+/==").fieldValue() == "Bearer abc.DEF-_~+/==")
        #expect(throws: HTTPWireError.self) { try Authorization.bearer("a b").fieldValue() }
        #expect(throws: HTTPWireError.self) { try Authorization.bearer("x\r\nEvil: 1").fieldValue() }
        #expect("\(Authorization.basic(user: "u", password: "secret"))" == "Basic [redacted]")
    }

    @Test(
        "user:password@ in the URL is sent as Basic, and is neither in the target nor in Host",
        .timeLimit(.scaledMinutes(1)))
    func credentialsInURL() async throws {
        try await withTestServer(routes: [TestRoute(.get, "/private", .text("ok"))]) {
            (server: TestServer) async throws in
            let log = LogCollector()
            let client = HTTPClient(
                configuration: {
                    var c = ClientConfiguration(); c.logger = log.logger; return c
                }())
            let url = server.baseURL.replacingOccurrences(of: "://", with: "://ada:p%40ss%3A1@") + "private"
            let response = try await client.get(url)
            #expect(response.status == .ok)
            #expect(!response.url.description.contains("ada"))
            let received = try #require(server.requests.last)
            #expect(received.fields["Authorization"] == "Basic " + Data("ada:p@ss:1".utf8).base64EncodedString())
            #expect(received.target == "/private")
            #expect(received.fields["Host"]?.contains("@") == false)
            let logged = log.all.map(\.text).joined(separator: "\n")
            #expect(!logged.contains("p@ss") && !logged.contains("cEBzcz"))
            #expect(logged.contains("Authorization: [redacted]"))
            await client.shutdown()
        }
    }

    @Test("a base URL's credentials go to its origin; the request's own field wins", .timeLimit(.scaledMinutes(1)))
    func baseURLCredentials() async throws {
        try await withTestServer(routes: [TestRoute(nil, "/*", .text("ok"))]) { (server: TestServer) async throws in
            let client = server.client {
                $0.baseURL = server.baseURL.replacingOccurrences(of: "://", with: "://svc:key@")
            }
            _ = try await client.get("a")
            #expect(
                server.requests.last?.fields["Authorization"] == "Basic " + Data("svc:key".utf8).base64EncodedString())
            _ = try await client.get("b", fields: ["Authorization": "Bearer mine"])
            #expect(server.requests.last?.fields["Authorization"] == "Bearer mine")
            await client.shutdown()
        }
    }

    @Test("options and client credentials: per request wins over the client", .timeLimit(.scaledMinutes(1)))
    func optionCredentials() async throws {
        try await withTestServer(routes: [TestRoute(nil, "/*", .text("ok"))]) { (server: TestServer) async throws in
            let client = server.client { $0.authorization = .bearer("client-token") }
            _ = try await client.get("a")
            #expect(server.requests.last?.fields["Authorization"] == "Bearer client-token")
            var options = RequestOptions()
            options.authorization = .basic(user: "one", password: "off")
            _ = try await client.get("b", options: options)
            #expect(
                server.requests.last?.fields["Authorization"] == "Basic " + Data("one:off".utf8).base64EncodedString())
            await client.shutdown()
        }
    }

    @Test("no credentials follow a redirect to another origin, whatever their source", .timeLimit(.scaledMinutes(1)))
    func crossOrigin() async throws {
        try await withTestServer(routes: [TestRoute(nil, "/landing", .text("elsewhere"))]) {
            (away: TestServer) async throws in
            try await withTestServer(routes: [
                TestRoute(.get, "/go", TestResponse(status: 302, fields: ["Location": away.baseURL + "landing"]))
            ]) { (home: TestServer) async throws in
                let client = home.client { $0.authorization = .bearer("client-token") }
                let url = home.baseURL.replacingOccurrences(of: "://", with: "://ada:pw@") + "go"
                #expect(try await client.get(url).text == "elsewhere")
                #expect(try await client.get("go").text == "elsewhere")
                #expect(away.requests.count == 2)
                #expect(away.requests.allSatisfy { $0.fields["Authorization"] == nil })
                await client.shutdown()
            }
        }
    }

    @Test("credentials in a redirect's Location are not taken", .timeLimit(.scaledMinutes(1)))
    func locationCredentials() async throws {
        try await withTestServer(routes: [TestRoute(nil, "/landing", .text("ok"))]) {
            (server: TestServer) async throws in
            let location = server.baseURL.replacingOccurrences(of: "://", with: "://evil:pw@") + "landing"
            server.add(TestRoute(.get, "/go", TestResponse(status: 302, fields: ["Location": location])))
            let client = server.client()
            #expect(try await client.get("go").status == .ok)
            #expect(server.requests.last?.fields["Authorization"] == nil)
            await client.shutdown()
        }
    }
}
