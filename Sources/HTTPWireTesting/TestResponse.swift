// TestResponse: what a route of the test server answers — a status, fields and a body, optionally after a
// delay, or one of the failures a client must survive (edge layer, HTTPWireTesting).
//
// The failures are the ones an app meets in the field and cannot provoke on demand against a real server:
// the connection closed before any byte (curl's "empty reply"), closed after the head, a body cut short of
// its Content-Length, a TCP reset, and a server that never answers. Values only; `TestServer` sends them.

import HTTPWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A response for a ``TestRoute`` to send.
///
/// ```swift
/// let ok = try TestResponse.json(["id": 42, "name": "Ada"])
/// let busy = TestResponse(status: 503, fields: ["Retry-After": "1"])
/// let slow = TestResponse.text("done", delay: .seconds(2))
/// let dropped = TestResponse(failure: .truncateBody(afterBytes: 10), body: Array(repeating: 0x61, count: 100))
/// ```
public struct TestResponse: Sendable {
    /// A way for the response to go wrong on purpose.
    public enum Failure: Sendable, Hashable {
        /// Close the connection without sending a byte: the client reports ``HTTPWireError/emptyReply``.
        case closeWithoutResponse
        /// Send the head (announcing the body's length), then close: a body truncated at zero bytes.
        case closeAfterHead
        /// Send the head and this many body bytes of the announced length, then close: ``HTTPWireError/bodyTruncated(expected:received:)``.
        case truncateBody(afterBytes: Int)
        /// Reset the connection (TCP RST) instead of answering: ``HTTPWireError/receiveFailed(errno:)``.
        case reset
        /// Never answer: the client's head timeout (or total timeout) ends the request. The server stops
        /// waiting when the client closes or the server stops.
        case neverRespond
    }

    /// The status code. Default 200.
    public var status: Int
    /// The response fields; `Content-Length` is added from the body.
    public var fields: HTTPFields
    /// The body.
    public var body: [UInt8]
    /// How long to wait before sending the head, on the reactor's clock. Default zero.
    public var delay: Duration
    /// A failure to act out instead of (or in the middle of) the response; nil for none.
    public var failure: Failure?

    /// A response with the given parts.
    public init(
        status: Int = 200, fields: HTTPFields = [:], body: [UInt8] = [], delay: Duration = .zero,
        failure: Failure? = nil
    ) {
        self.status = status
        self.fields = fields
        self.body = body
        self.delay = delay
        self.failure = failure
    }

    /// A failure, with an optional body whose length the head announces.
    public init(failure: Failure, body: [UInt8] = [], delay: Duration = .zero) {
        self.init(status: 200, body: body, delay: delay, failure: failure)
    }

    /// `value` as a JSON body (`Content-Type: application/json`), encoded with `encoder`.
    public static func json(
        _ value: some Encodable, status: Int = 200, fields: HTTPFields = [:], encoder: JSONEncoder = JSONEncoder(),
        delay: Duration = .zero
    ) throws -> TestResponse {
        var all = fields
        if !all.contains("Content-Type") { all.append(name: "Content-Type", value: "application/json") }
        return TestResponse(status: status, fields: all, body: Array(try encoder.encode(value)), delay: delay)
    }

    /// `text` as a UTF-8 body (`Content-Type: text/plain; charset=utf-8`).
    public static func text(
        _ text: String, status: Int = 200, fields: HTTPFields = [:], delay: Duration = .zero
    ) -> TestResponse {
        var all = fields
        if !all.contains("Content-Type") { all.append(name: "Content-Type", value: "text/plain; charset=utf-8") }
        return TestResponse(status: status, fields: all, body: Array(text.utf8), delay: delay)
    }
}
