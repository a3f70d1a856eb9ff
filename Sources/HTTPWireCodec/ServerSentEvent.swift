// ServerSentEvent: one event of a `text/event-stream` response (codec layer: a value, no I/O).
//
// Server-sent events (the WHATWG HTML standard, section 9.2, "Server-sent events") are how a server pushes
// a stream of messages to a client over one ordinary HTTP response that never ends: a live score, a build
// log, the tokens of a language model's answer. `EventStreamParser` turns the body into these values;
// `HTTPClient.events(_:)` connects, parses, and reconnects as a browser's `EventSource` does.

/// One event from a server-sent event stream (`Content-Type: text/event-stream`).
///
/// On the wire an event is a few `field: value` lines ended by an empty line:
///
/// ```text
/// event: score
/// id: 42
/// data: {"home": 2,
/// data:  "away": 1}
///
/// ```
///
/// which arrives as `ServerSentEvent(type: "score", data: "{\"home\": 2,\n \"away\": 1}", lastEventID: "42")`.
/// Several `data` lines are joined with line feeds.
public struct ServerSentEvent: Sendable, Hashable, CustomStringConvertible {
    /// The event's type, from its `event:` line; `"message"` when it has none (the browser's default).
    public var type: String
    /// The event's data: its `data:` lines joined with line feeds (U+000A).
    public var data: String
    /// The event stream's last event ID when this event arrived: the latest `id:` line, of this event or an
    /// earlier one ("" when none was sent, or an `id:` line reset it). A client that reconnects sends it
    /// back as `Last-Event-ID`, so the server can resume after it.
    public var lastEventID: String

    /// An event with the given parts.
    public init(type: String = "message", data: String, lastEventID: String = "") {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
    }

    /// The event as the lines that carry it (without the empty line ending it), for logs and tests.
    public var description: String {
        var lines: [String] = []
        if type != "message" { lines.append("event: \(type)") }
        if !lastEventID.isEmpty { lines.append("id: \(lastEventID)") }
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) { lines.append("data: \(line)") }
        return lines.joined(separator: "\n")
    }
}
