// CustomRoutes: routes that the code running the fixture server adds to it — the hook HTTPWireTesting
// builds its user-defined routes on (edge layer, fixture server).
//
// The built-in table (Routes.swift) drives every behaviour from the URL, which suits HTTPWire's own tests;
// an app's tests want their own paths instead (`GET /users/42` answering their JSON). So the server keeps
// a second, mutable table, asked before the built-in one: the first custom route whose `matches` accepts a
// request head answers it through a `FixtureResponder`, the package-level face of the connection's small
// I/O vocabulary (read the body, send a head and a body, pause, close, reset). Anything no custom route
// takes falls through to the built-in routes. This file adds no behaviour to the built-in routes and keeps
// the connection's keep-alive rules: the loop still drains an unread body and decides reuse.

import HTTPWireCodec
import HTTPWireTransport

/// A route added with ``FixtureServer/addCustomRoute(_:)``.
package struct FixtureCustomRoute: Sendable {
    /// Whether this route answers a request with this head.
    package let matches: @Sendable (RequestHead) -> Bool
    /// Answers the request.
    package let handler: @Sendable (FixtureResponder) async throws -> Void

    /// A route answering the requests `matches` accepts with `handler`.
    package init(
        matches: @escaping @Sendable (RequestHead) -> Bool,
        handler: @escaping @Sendable (FixtureResponder) async throws -> Void
    ) {
        self.matches = matches
        self.handler = handler
    }
}

/// What a custom route can do with the request it answers. Used by the route's task only.
package struct FixtureResponder {
    let connection: FixtureConnection

    /// The request head as decoded.
    package var head: RequestHead { connection.request?.head ?? RequestHead(method: .get, target: "/", fields: [:]) }

    /// The whole request body, or nil when it is longer than `limit` (the connection then closes after the
    /// response, the rest unread).
    package func readBody(limit: Int) async throws -> [UInt8]? {
        try await connection.readWholeBody(limit: limit)
    }

    /// A complete response with a Content-Length body (no body for HEAD, 1xx, 204, 304).
    package func respond(status: Int, fields: HTTPFields, body: [UInt8]) async throws {
        try await connection.respond(status: status, fields: fields, body: body)
    }

    /// A head announcing `contentLength` body bytes (chunked when nil), for a route that sends the body
    /// itself with ``write(_:)`` or ``sendChunk(_:)``.
    package func sendHead(status: Int, fields: HTTPFields, contentLength: Int64?) async throws {
        try await connection.sendHead(
            status: status, fields: fields, framing: contentLength.map { .contentLength($0) } ?? .chunked)
    }

    /// Body bytes after a Content-Length head (nothing for HEAD).
    package func write(_ bytes: [UInt8]) async throws {
        try await connection.writeBody(bytes)
    }

    /// One chunk after a chunked head.
    package func sendChunk(_ bytes: [UInt8]) async throws {
        try await connection.sendChunk(bytes)
    }

    /// The last chunk after a chunked head.
    package func sendLastChunk() async throws {
        try await connection.sendLastChunk()
    }

    /// Waits `duration` on the reactor's clock (the library's one clock).
    package func pause(for duration: Duration) async throws {
        try await Reactor.shared.sleep(until: .after(duration))
    }

    /// Closes the connection (the client sees the end of the stream).
    package func close() async {
        await connection.close()
    }

    /// Closes with a TCP reset (the client sees ECONNRESET).
    package func reset() async {
        await connection.closeWithReset()
    }
}

extension FixtureServer {
    /// Adds `route` after the custom routes already added; custom routes are asked before the built-in
    /// ones, in the order added.
    package func addCustomRoute(_ route: FixtureCustomRoute) {
        customRoutes.withLock { $0.append(route) }
    }

    /// The first custom route that takes a request with `head`, if any.
    func customRoute(for head: RequestHead) -> FixtureCustomRoute? {
        customRoutes.withLock { routes in routes.first { $0.matches(head) } }
    }
}
