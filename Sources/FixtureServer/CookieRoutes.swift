// CookieRoutes: fixture routes that set cookies and show the cookies a client sent (edge layer, fixture
// server), for the client's cookie tests (RFC 6265).
//
// `/cookies/set` puts each query parameter's value in its own `Set-Cookie` field — several in one response,
// as RFC 6265 §3 says servers send them (never folded into one line: a date's comma would split it) — and
// can send one in a 103 interim response first, or answer with a redirect that sets cookies. Every other
// `/cookies/...` path echoes the `Cookie` fields it received, so a test sees exactly what the client sent
// for that path. Nothing here stores a cookie: the server is stateless, the client's jar is under test.

import HTTPWire
import HTTPWireCodec

/// Handlers of the `/cookies` routes; see Routes.swift for their URLs.
enum CookieRoutes {
    /// The parameters of `/cookies/set` that are not cookies.
    private static let controls: Set<String> = ["location", "status", "interim"]

    /// `/cookies/set?a=VALUE&b=VALUE&location=&status=302&interim=`: one `Set-Cookie: VALUE` per parameter
    /// (sorted by parameter name); `interim=` sends that value in a 103 first; `location=` makes the answer
    /// a redirect (`status`, default 302) there. Any other `/cookies/...` path: ``echo(_:_:)``.
    static func cookies(_ request: FixtureRequest, _ connection: FixtureConnection) async throws {
        guard request.segment(1) == "set" else { return try await echo(request, connection) }
        if let interim = request.query["interim"] {
            try await connection.sendInterim(status: 103, fields: ["Set-Cookie": interim])
        }
        var fields: HTTPFields = ["Content-Type": "text/plain"]
        for name in request.query.keys.sorted() where !controls.contains(name) {
            fields.append(name: "Set-Cookie", value: request.query[name] ?? "")
        }
        guard let location = request.query["location"] else {
            return try await connection.respond(status: 200, fields: fields, body: Array("cookies set\n".utf8))
        }
        fields.append(name: "Location", value: location)
        try await connection.respond(
            status: request.integer("status", default: 302), fields: fields,
            body: Array("redirecting to \(location)\n".utf8))
    }

    /// What `/cookies/...` answers: the `Cookie` field values received, how many fields there were, and the
    /// path asked for.
    struct Received: Encodable {
        var cookie: String?
        var cookieFields: Int
        var path: String
    }

    /// Echoes the request's `Cookie` fields as JSON (`{"cookie": "a=1; b=2", "cookie_fields": 1, ...}`).
    static func echo(_ request: FixtureRequest, _ connection: FixtureConnection) async throws {
        let values = request.head.fields.values(for: "Cookie")
        let received = Received(
            cookie: values.isEmpty ? nil : values.joined(separator: " | "), cookieFields: values.count,
            path: "/" + request.segments.joined(separator: "/"))
        try await connection.respondJSON(received)
    }
}
