// EventRoutes: the fixture route that serves a server-sent event stream (edge layer).
//
// A `text/event-stream` response (HTML standard, section 9.2) is meant to stay open, and a client is meant
// to come back when it closes — after the `retry:` time, with `Last-Event-ID` naming the last event it
// saw. This route plays a server that resumes properly: it numbers its events 1 to `count`, starts each
// response after the event the request's `Last-Event-ID` names, sends at most `per_connection` of them, and
// ends the response, so a client that follows the rules sees every event exactly once over several
// connections. Once the client has them all it answers 204, the standard's "no more events".

import HTTPWireCodec

/// The handler of `/events`; see Routes.swift for its URL.
enum EventRoutes {
    /// `/events?count=5&per_connection=2&retry_ms=100&interval_ms=0`: events `id: n`, `event: tick`,
    /// `data: {"n": n}` for the n after `Last-Event-ID` (0 without one), `per_connection` of them per
    /// response, each in its own chunk (`interval_ms` apart), after a `retry: retry_ms` line and a comment;
    /// then the response ends. A request whose `Last-Event-ID` is `count` or more gets 204.
    static func events(_ request: FixtureRequest, _ connection: FixtureConnection) async throws {
        let count = max(0, request.integer("count", default: 5))
        let perConnection = max(1, request.integer("per_connection", default: 2))
        let retry = max(0, request.integer("retry_ms", default: 100))
        let interval = max(0, request.integer("interval_ms", default: 0))
        let last = request.head.fields["Last-Event-ID"].flatMap { Int($0) } ?? 0
        guard last < count else {
            return try await connection.respond(status: 204)
        }
        let fields: HTTPFields = ["Content-Type": "text/event-stream", "Cache-Control": "no-store"]
        try await connection.sendHead(status: 200, fields: fields, framing: .chunked)
        if request.isHead { return }
        try await connection.sendChunk(Array("retry: \(retry)\n: events \(last + 1) and on\n\n".utf8))
        for number in (last + 1)...min(count, last + perConnection) {
            if interval > 0 { try await ServerExecutor.sleep(for: .milliseconds(interval)) }
            try await connection.sendChunk(Array("id: \(number)\nevent: tick\ndata: {\"n\": \(number)}\n\n".utf8))
        }
        try await connection.sendLastChunk()
    }
}
