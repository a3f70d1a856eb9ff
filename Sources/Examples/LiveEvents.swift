// LiveEvents: an app follows a server-sent event stream to its end — several responses, each resumed
// after the last event ID (example: the public API only). Run by `RunExample live-events` and, checked, by
// `wire demo`.

import HTTPWire

/// Example: `HTTPClient.events(_:)`, with the reconnections a live feed needs.
package enum LiveEvents {
    /// One event's JSON data, as the fixture server's `/events` sends it.
    package struct Tick: Decodable, Sendable {
        package var n: Int
    }

    /// `RunExample live-events URL`: reads the event stream at `url` until the server says there are no
    /// more (a 204), and returns the events. Each time a response ends, the client waits the server's
    /// `retry:` time and asks again with `Last-Event-ID`, so nothing is missed and nothing comes twice.
    package static func run(
        client: HTTPClient, url: String, log: (String) -> Void = { print($0) }
    ) async throws -> [ServerSentEvent] {
        var received: [ServerSentEvent] = []
        for try await event in client.events(HTTPRequest(url: url)) {
            let tick = try event.decode(Tick.self)
            log("\(event.type) \(tick.n) (last event ID \(event.lastEventID))")
            received.append(event)
        }
        log("the server answered 204: no more events")
        return received
    }
}
