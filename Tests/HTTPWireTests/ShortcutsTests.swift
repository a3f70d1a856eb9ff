// ShortcutsTests: the Swift fit of the API — `URL` and `Data` overloads beside strings and bytes, the
// `patch`, `head` and `options` shortcuts, and `import HTTPWire` alone being enough (this file imports
// nothing else from the package but the test server).

import HTTPWire
import HTTPWireTesting
import TestSupport
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite struct ShortcutsTests {
    @Test("URL and Data go wherever strings and bytes go", .timeLimit(.scaledMinutes(1)))
    func foundationTypes() async throws {
        try await withTestServer(routes: [TestRoute(nil, "/items*", .text("ok"))]) {
            (server: TestServer) async throws in
            let client = HTTPClient()
            let url = try #require(URL(string: server.baseURL + "items?x=1"))
            #expect(try await client.get(url).data == Data("ok".utf8))
            _ = try await client.post(url, body: .data(Data([1, 2, 3])))
            #expect(server.requests.last?.body == [1, 2, 3])
            _ = try await client.send(HTTPRequest(method: .put, url: url, body: .data(Data("x".utf8))))
            #expect(server.requests.last?.method == .put)
            #expect(server.requests.last?.target == "/items?x=1")
            await client.shutdown()
        }
    }

    @Test("patch, head and options send their methods", .timeLimit(.scaledMinutes(1)))
    func methods() async throws {
        struct Change: Encodable, Sendable { var name: String }
        try await withTestServer(routes: [
            TestRoute(
                nil, "/thing",
                TestResponse(status: 200, fields: ["Allow": "GET, PATCH, OPTIONS"], body: Array("thing".utf8)))
        ]) { (server: TestServer) async throws in
            let client = server.client()
            _ = try await client.patch("thing", json: Change(name: "new"))
            #expect(server.requests.last?.method == .patch)
            #expect(server.requests.last?.text == #"{"name":"new"}"#)
            let options = try await client.options("thing")
            #expect(server.requests.last?.method == .options)
            #expect(options.fields["Allow"] == "GET, PATCH, OPTIONS")
            let head = try await client.head("thing")
            #expect(head.body.isEmpty)
            #expect(head.fields["Content-Length"] == "5")
            await client.shutdown()
        }
    }
}
