// ValidationTests: opt-in response validation (per client and per request) — a failing response throws
// `unacceptableResponse` with its status, head and a bounded body preview, mapped to exit 22, and the
// server's JSON error decodes from it; `decode` refuses a non-2xx the same way.

import FixtureServer
import HTTPWireCodec
import HTTPWireTesting
import TestSupport
import Testing

@testable import HTTPWire

@Suite struct ValidationTests {
    struct APIError: Codable, Equatable, Sendable {
        var code: String
        var message: String
    }

    struct User: Codable, Equatable, Sendable {
        var id: Int
        var name: String
    }

    static let routes = [
        TestRoute(.get, "/users/42", try! .json(User(id: 42, name: "Ada"))),
        TestRoute(.get, "/users/7", try! .json(APIError(code: "not_found", message: "no user 7"), status: 404)),
        TestRoute(.get, "/page", .text("<html>oops</html>", fields: ["Content-Type": "text/html"])),
        TestRoute(.get, "/huge-error", TestResponse(status: 500, body: Array(repeating: 0x78, count: 200_000))),
        TestRoute(.get, "/empty", TestResponse(status: 204)),
    ]

    @Test("without validation every status is returned as it came", .timeLimit(.scaledMinutes(1)))
    func offByDefault() async throws {
        try await withTestServer(routes: Self.routes) { (server: TestServer) async throws in
            let client = makeClient(server)
            #expect(try await client.get("users/7").status == .notFound)
            await client.shutdown()
        }
    }

    @Test("a failing status throws with the head and the body; the JSON error decodes", .timeLimit(.scaledMinutes(1)))
    func statusFailure() async throws {
        try await withTestServer(routes: Self.routes) { (server: TestServer) async throws in
            let client = makeClient(server) { $0.validation = .successful }
            #expect(try await client.get("users/42").decode(User.self) == User(id: 42, name: "Ada"))
            let error = try await #require(throws: HTTPWireError.self) { _ = try await client.get("users/7") }
            guard case .unacceptableResponse(let rejected) = error else {
                Issue.record("not unacceptableResponse: \(error)")
                return
            }
            #expect(rejected.status == .notFound)
            #expect(rejected.head.fields["Content-Type"] == "application/json")
            #expect(rejected.url.pathAndQuery == "/users/7")
            #expect(rejected.isBodyPreviewComplete)
            #expect(try rejected.decode(APIError.self) == APIError(code: "not_found", message: "no user 7"))
            #expect(error.exitCode == 22)
            #expect("\(error)" == "unacceptable response: status 404 not accepted (accepted: 200-299)")
            // The small error body was read to its end: the connection is reused.
            #expect(try await client.get("users/42").status == .ok)
            #expect(server.connectionCount == 1)
            await client.shutdown()
        }
    }

    @Test("content types are checked by type/subtype, with wildcards", .timeLimit(.scaledMinutes(1)))
    func contentTypes() async throws {
        try await withTestServer(routes: Self.routes) { (server: TestServer) async throws in
            let client = makeClient(server) {
                $0.validation = ResponseValidation(statuses: 200..<300, contentTypes: ["application/json"])
            }
            #expect(try await client.get("users/42").status == .ok)
            await #expect {
                _ = try await client.get("page")
            } throws: { error in
                guard case HTTPWireError.unacceptableResponse(let rejected) = error,
                    case .contentType(let received, _) = rejected.rule
                else { return false }
                return received == "text/html" && rejected.bodyPreviewText == "<html>oops</html>"
            }
            // No body, no Content-Type: nothing to object to.
            #expect(try await client.get("empty").status == .noContent)
            let wildcard = makeClient(server) { $0.validation = ResponseValidation(contentTypes: ["text/*"]) }
            #expect(try await wildcard.get("page").status == .ok)
            await client.shutdown()
            await wildcard.shutdown()
        }
    }

    @Test("a request can turn its client's validation on or off", .timeLimit(.scaledMinutes(1)))
    func perRequest() async throws {
        try await withTestServer(routes: Self.routes) { (server: TestServer) async throws in
            let strict = makeClient(server) { $0.validation = .successful }
            #expect(
                try await strict.get("users/7", options: RequestOptions(validation: .acceptingAll)).status == .notFound)
            let lenient = makeClient(server)
            await #expect(throws: HTTPWireError.self) {
                _ = try await lenient.get("users/7", options: RequestOptions(validation: .successful))
            }
            // Accepting a 404 explicitly.
            let accepting = RequestOptions(validation: ResponseValidation(statuses: Array(200..<300) + [404]))
            #expect(try await strict.get("users/7", options: accepting).status == .notFound)
            await strict.shutdown()
            await lenient.shutdown()
        }
    }

    @Test("the body preview is bounded; a longer body is cut and its connection closed", .timeLimit(.scaledMinutes(1)))
    func boundedPreview() async throws {
        try await withTestServer(routes: Self.routes) { (server: TestServer) async throws in
            let client = makeClient(server) { $0.validation = .successful }
            let error = try await #require(throws: HTTPWireError.self) { _ = try await client.get("huge-error") }
            guard case .unacceptableResponse(let rejected) = error else { return }
            #expect(rejected.bodyPreview.count == UnacceptableResponse.bodyPreviewLimit)
            #expect(!rejected.isBodyPreviewComplete)
            #expect(try await client.get("users/42").status == .ok)
            #expect(server.connectionCount == 2)
            await client.shutdown()
        }
    }

    @Test("decode refuses a non-2xx with the same error, whatever the validation", .timeLimit(.scaledMinutes(1)))
    func decodeOnError() async throws {
        try await withTestServer(routes: Self.routes) { (server: TestServer) async throws in
            let client = makeClient(server)
            let response = try await client.get("users/7")
            #expect {
                _ = try response.decode(User.self)
            } throws: { error in
                guard case HTTPWireError.unacceptableResponse(let rejected) = error else { return false }
                return (try? rejected.decode(APIError.self))?.code == "not_found"
            }
            await client.shutdown()
        }
    }

    @Test("status sets print as ranges")
    func ranges() {
        #expect(UnacceptableResponse.ranges(Set(200..<300).union([304, 404, 405])) == "200-299, 304, 404-405")
        #expect(UnacceptableResponse.ranges([]) == "none")
    }

    private func makeClient(_ server: TestServer, _ configure: (inout ClientConfiguration) -> Void = { _ in })
        -> HTTPClient
    {
        var configuration = ClientConfiguration()
        configuration.baseURL = server.baseURL
        configure(&configuration)
        return HTTPClient(configuration: configuration)
    }
}
