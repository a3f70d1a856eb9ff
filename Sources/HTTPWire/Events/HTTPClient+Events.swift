// HTTPClient+Events: the entry point for server-sent events, and JSON in an event's data (client layer).

import HTTPWireCodec

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension HTTPClient {
    /// Opens a server-sent event stream (`text/event-stream`) and delivers its events as they arrive,
    /// reconnecting the way a browser's `EventSource` does.
    ///
    /// ```swift
    /// for try await event in client.events(HTTPRequest(url: "https://api.example.test/scores")) {
    ///     print(event.type, event.data)      // "message" and its text, unless the server named the type
    /// }
    /// ```
    ///
    /// Nothing is sent until the first `next()`. The request goes with `Accept: text/event-stream` and
    /// `Cache-Control: no-cache` (unless it has its own), through the client's middleware, redirects and
    /// retries. Only a 200
    /// with `Content-Type: text/event-stream` opens the stream (``HTTPWireError/unacceptableResponse(_:)``
    /// otherwise); a 204 ends the sequence.
    ///
    /// When the response ends or the connection fails, the request is sent again after the wait the
    /// server's `retry:` field set (else `reconnection.delay`), with `Last-Event-ID` set to the last ID
    /// received so the server can resume after it. Failed attempts in a row wait twice as long each time
    /// (from the longer of `retry:` and `reconnection.delay`),
    /// and after `reconnection.maxAttempts` of them the last error is thrown. Only an idempotent request
    /// with a replayable body reconnects (RFC 9110 §9.2.2): a POST's stream ends with its response.
    ///
    /// To resume in a later run of the program, keep the last event's ``ServerSentEvent/lastEventID`` and
    /// put it in the request's `Last-Event-ID` field: the stream starts from it.
    ///
    /// The client's idle timeout applies to a quiet stream: servers send a comment line every so often to
    /// keep it open; give the request a longer ``RequestOptions/Timeouts/idle`` if yours does not. Either
    /// timeout, idle or total, ends one response, and the stream reconnects. An event
    /// (or a line) over `maxEventBytes` throws ``HTTPWireError/bodyTooLarge(limit:)``.
    public func events(
        _ request: HTTPRequest, maxEventBytes: Int = ServerSentEvents.defaultMaxEventBytes,
        reconnection: ServerSentEvents.Reconnection = ServerSentEvents.Reconnection()
    ) -> ServerSentEvents {
        ServerSentEvents(client: self, request: request, maxEventBytes: maxEventBytes, reconnection: reconnection)
    }
}

extension ServerSentEvent {
    /// The event's data decoded as JSON: the usual payload of an API's events.
    ///
    /// ```swift
    /// struct Score: Decodable { var home: Int; var away: Int }
    /// let score = try event.decode(Score.self)
    /// ```
    public func decode<Value: Decodable>(_ type: Value.Type, using decoder: JSONDecoder = JSONDecoder()) throws
        -> Value
    {
        try decoder.decode(type, from: Data(data.utf8))
    }
}
