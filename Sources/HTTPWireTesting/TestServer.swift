// TestServer: HTTPWire's in-process fixture server, offered to apps for their own tests, with routes the
// tests define (edge layer, HTTPWireTesting).
//
// HTTPWire has no URLSession, so there is no URLProtocol to mock; the honest way to test code that makes
// requests is a real server on loopback. This one runs inside the test process, on 127.0.0.1 and a port the
// kernel picks, on the same reactor as the client: no network, no fixed ports, nothing to install. The
// test's routes are asked first; every other path reaches the fixture server's built-in routes (`/status/N`,
// `/redirect/N`, `/bytes/N`, `/drip`, `/truncate`, ...), listed by `GET /`. It wraps `FixtureServer`
// through its custom-route hook and adds no behaviour to it.

import FixtureServer
import HTTPWire
import HTTPWireTransport

/// A loopback HTTP/1.1 server for tests, with your routes and the built-in ones.
///
/// ```swift
/// try await withTestServer(routes: [TestRoute(.get, "/users/42", try .json(["name": "Ada"]))]) { server in
///     var configuration = ClientConfiguration()
///     configuration.baseURL = server.baseURL
///     let client = HTTPClient(configuration: configuration)
///     let user = try await client.get("users/42").decode([String: String].self)
///     #expect(user["name"] == "Ada")
///     await client.shutdown()
/// }
/// ```
public final class TestServer: Sendable {
    private let server: FixtureServer
    private let received = LockedState<[TestRequest]>([])

    /// The largest request body a route reads (16 MiB); a longer one is answered 413 and not kept.
    public static let maxRequestBodyBytes = 16 * 1024 * 1024

    private init(server: FixtureServer) {
        self.server = server
    }

    /// Starts a server with `routes` (asked in order, before the built-in ones); over TLS when a
    /// certificate chain and key are given (trust its CA in the client's ``TLSConfiguration``).
    public static func start(
        routes: [TestRoute] = [], certificateChain: PEMSource? = nil, privateKey: PEMSource? = nil
    ) async throws -> TestServer {
        let tls = certificateChain.map { chain in
            TLSServerConfiguration(certificateChain: chain, privateKey: privateKey ?? chain)
        }
        let server = TestServer(server: try await FixtureServer.start(tls: tls))
        for route in routes { server.add(route) }
        return server
    }

    /// `http://127.0.0.1:PORT/` (or `https://`), to use as ``ClientConfiguration/baseURL``.
    public var baseURL: String { server.baseURL }

    /// The port the server listens on.
    public var port: Int { server.port }

    /// The requests your routes answered, oldest first, with their bodies.
    public var requests: [TestRequest] { received.withLock { $0 } }

    /// Requests received on any route (yours and the built-in ones).
    public var requestCount: Int { server.requestsServed }

    /// Connections accepted so far: how a test sees whether its client reused one.
    public var connectionCount: Int { server.acceptedConnections }

    /// Adds a route after the others, while the server runs.
    public func add(_ route: TestRoute) {
        server.addCustomRoute(
            FixtureCustomRoute(
                matches: { head in route.matches(method: head.method, target: head.target) },
                handler: { [weak self] responder in try await self?.answer(responder, with: route) }))
    }

    /// Closes the listener and every connection.
    public func stop() async {
        await server.stop()
    }

    /// Reads the request, records it, and sends what the route says.
    private func answer(_ responder: FixtureResponder, with route: TestRoute) async throws {
        guard let body = try await responder.readBody(limit: Self.maxRequestBodyBytes) else {
            try await responder.respond(
                status: 413, fields: ["Content-Type": "text/plain"], body: Array("too large\n".utf8))
            return
        }
        let request = TestRequest(head: responder.head, body: body)
        received.withLock { $0.append(request) }
        let response = try await route.respond(request)
        if response.delay > .zero { try await responder.pause(for: response.delay) }
        switch response.failure {
        case nil:
            try await responder.respond(status: response.status, fields: response.fields, body: response.body)
        case .closeWithoutResponse?:
            await responder.close()
        case .reset?:
            await responder.reset()
        case .closeAfterHead?:
            try await responder.sendHead(
                status: response.status, fields: response.fields, contentLength: Int64(max(response.body.count, 1)))
            await responder.close()
        case .truncateBody(let count)?:
            try await responder.sendHead(
                status: response.status, fields: response.fields,
                contentLength: Int64(max(response.body.count, count + 1)))
            try await responder.write(Array(response.body.prefix(count)))
            await responder.close()
        case .neverRespond?:
            // Until the client gives up and closes, or the server stops (which cancels this task).
            while true { try await responder.pause(for: .seconds(3600)) }
        }
    }
}

/// Starts a ``TestServer`` with `routes`, runs `body` with it, and stops it whether `body` returns or
/// throws. `body` runs on the caller's actor, so a `@MainActor` test can use it.
public func withTestServer<T>(
    routes: [TestRoute] = [], isolation: isolated (any Actor)? = #isolation, _ body: (TestServer) async throws -> T
) async throws -> T {
    let server = try await TestServer.start(routes: routes)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
