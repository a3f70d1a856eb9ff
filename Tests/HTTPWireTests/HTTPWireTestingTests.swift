// HTTPWireTestingTests: the test server apps use — their routes (exact, prefix, by method, in turn),
// the failures a client must survive, delays, the built-in routes behind them, and the requests it kept.

import Foundation
import HTTPWire
import HTTPWireCodec
import HTTPWireTesting
import TestSupport
import Testing

@Suite struct HTTPWireTestingTests {
    @Test(
        "routes match by method and path, exactly or by prefix; the rest reaches the built-in routes",
        .timeLimit(.scaledMinutes(1)))
    func matching() async throws {
        try await withTestServer(routes: [
            TestRoute(.get, "/users/42", .text("ada")),
            TestRoute(.delete, "/users/42", TestResponse(status: 204)),
            TestRoute(nil, "/files/*", .text("any file")),
        ]) { (server: TestServer) async throws in
            let client = server.client()
            #expect(try await client.get("users/42").text == "ada")
            #expect(try await client.delete("users/42").status == .noContent)
            #expect(try await client.get("files/a/b.txt?x=1").text == "any file")
            #expect(try await client.get("users/42/more").status == .notFound)  // built-in: no route /users
            #expect(try await client.get("status/418").status.rawValue == 418)  // built-in route
            #expect(server.requests.map(\.method) == [.get, .delete, .get])
            #expect(server.requests[2].path == "/files/a/b.txt")
            #expect(server.requests[2].queryValue("x") == "1")
            #expect(server.requestCount == 5)
            await client.shutdown()
        }
    }

    @Test(
        "a route sees the request and its body; routes can be added while the server runs",
        .timeLimit(.scaledMinutes(1)))
    func dynamic() async throws {
        struct Note: Codable, Sendable, Equatable { var text: String }
        try await withTestServer { (server: TestServer) async throws in
            server.add(TestRoute(.post, "/notes") { request in try .json(request.decode(Note.self), status: 201) })
            let client = server.client()
            let response = try await client.post("notes", json: Note(text: "hi"))
            #expect(response.status == .created)
            #expect(try response.decode(Note.self) == Note(text: "hi"))
            #expect(server.requests.last?.fields["Content-Type"] == "application/json")
            await client.shutdown()
        }
    }

    @Test(
        "failures on demand become the client's typed errors", .timeLimit(.scaledMinutes(1)),
        arguments: [
            (TestResponse.Failure.closeWithoutResponse, "empty"), (.closeAfterHead, "truncated"),
            (.truncateBody(afterBytes: 5), "truncated"), (.reset, "reset"),
        ])
    func failures(failure: TestResponse.Failure, kind: String) async throws {
        try await withTestServer(routes: [
            TestRoute(.get, "/broken", TestResponse(failure: failure, body: Array(repeating: 0x61, count: 20)))
        ]) { (server: TestServer) async throws in
            let client = server.client()
            let error = try await #require(throws: HTTPWireError.self) { _ = try await client.get("broken") }
            switch (kind, error) {
            case ("empty", .emptyReply): break
            case ("truncated", .bodyTruncated(let expected, let received)):
                #expect(expected == 20)
                #expect(received == (failure == .closeAfterHead ? 0 : 5))
            case ("reset", .receiveFailed), ("reset", .emptyReply): break
            default: Issue.record("\(failure) gave \(error)")
            }
            await client.shutdown()
        }
    }

    @Test("a delay holds the head; a server that never answers meets the head timeout", .timeLimit(.scaledMinutes(1)))
    func delays() async throws {
        try await withTestServer(routes: [
            TestRoute(.get, "/slow", .text("late", delay: .milliseconds(300))),
            TestRoute(.get, "/never", TestResponse(failure: .neverRespond)),
        ]) { (server: TestServer) async throws in
            let client = server.client { $0.timeouts.head = .milliseconds(150) }
            await #expect(throws: HTTPWireError.timedOut(.head)) { _ = try await client.get("slow") }
            await #expect(throws: HTTPWireError.timedOut(.head)) { _ = try await client.get("never") }
            let patient = server.client()
            #expect(try await patient.get("slow").text == "late")
            await client.shutdown()
            await patient.shutdown()
        }
    }

    @Test("responses in turn: the last one repeats", .timeLimit(.scaledMinutes(1)))
    func inTurn() async throws {
        try await withTestServer(routes: [
            TestRoute(.get, "/n", responses: [.text("1"), .text("2")])
        ]) { (server: TestServer) async throws in
            let client = server.client()
            var seen: [String] = []
            for _ in 0..<4 { seen.append(try await client.get("n").text) }
            #expect(seen == ["1", "2", "2", "2"])
            #expect(server.connectionCount == 1)
            await client.shutdown()
        }
    }
}
