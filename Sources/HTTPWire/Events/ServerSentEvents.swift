// ServerSentEvents: a server-sent event stream as an AsyncSequence, reconnecting as `EventSource` does
// (client layer, built on the public `stream(_:)`).
//
// The WHATWG HTML standard (section 9.2, "Server-sent events") defines both the format and how a browser's
// `EventSource` keeps a stream alive. This file follows the second part:
// - The request asks for `Accept: text/event-stream`. Only a 200 whose `Content-Type` is
//   `text/event-stream` opens the stream; a 204 says "no more events" and ends it; anything else fails it,
//   without reconnecting (here: `HTTPWireError.unacceptableResponse`, with the head and a body preview).
// - When the response ends, or the connection fails, the client waits the reconnection time and asks again,
//   with `Last-Event-ID` set to the last event ID it has, so the server can resume after it. The server's
//   `retry:` field sets the time; failed attempts in a row double it ("exponential backoff", which the
//   standard allows), up to a cap, and a bounded number of them ends the stream with the last error.
//
// Where a library must choose what a browser need not: reconnection is for idempotent requests only (a
// POST that streams a language model's answer is not sent twice), and the wait is a reactor timer, the
// library's one clock. Events are parsed by the codec's `EventStreamParser`, with a bound on each event.

import HTTPWireCodec

/// The events of a `text/event-stream` response, read as they arrive, across reconnections
/// (from ``HTTPClient/events(_:maxEventBytes:reconnection:)``).
///
/// Iterate it once. Stop iterating (break, or cancel the task) to close the connection.
public struct ServerSentEvents: AsyncSequence, Sendable {
    /// One event.
    public typealias Element = ServerSentEvent

    /// The largest event (its data, or any one line of the stream) accepted unless told otherwise: 1 MiB.
    public static let defaultMaxEventBytes = 1 << 20

    /// When and how often the stream is opened again after it ended or failed.
    ///
    /// ```swift
    /// let events = client.events(request, reconnection: .init(delay: .seconds(1), maxAttempts: 10))
    /// let once = client.events(request, reconnection: .never)   // end with the first response
    /// ```
    public struct Reconnection: Sendable, Hashable {
        /// The wait before opening the stream again, until the server's `retry:` field sets another.
        /// Default 3 s, the time browsers use.
        public var delay: Duration
        /// The longest wait, whatever `retry:` or the doubling say. Default 60 s.
        public var maxDelay: Duration
        /// How many attempts in a row may fail to open the stream before the last error is thrown; each
        /// one waits twice as long as the one before. A stream that opens resets the count. Default 5 (with
        /// 3 s waits, about a minute and a half without the server); 0 never reconnects.
        public var maxAttempts: Int

        /// A policy with the given limits.
        public init(delay: Duration = .seconds(3), maxDelay: Duration = .seconds(60), maxAttempts: Int = 5) {
            self.delay = Swift.max(.zero, delay)
            self.maxDelay = Swift.max(.zero, maxDelay)
            self.maxAttempts = Swift.max(0, maxAttempts)
        }

        /// Never reconnect: the sequence ends when the first response ends, and a failure is thrown.
        public static let never = Reconnection(maxAttempts: 0)

        /// The wait before the next attempt, capped at `maxDelay`. After a response that ended: the server's
        /// `retry:` time, else `delay`. After attempts that failed in a row: the longer of the two, doubled
        /// for each failure after the first — a server that asked for a quick return (`retry: 0`) must not
        /// use up every attempt within milliseconds of a restart.
        func wait(serverMilliseconds: Int64?, failures: Int) -> Duration {
            let server = serverMilliseconds.map { Duration.milliseconds($0) }
            var wait = failures == 0 ? server ?? delay : Swift.max(server ?? delay, delay)
            for _ in 0..<Swift.max(0, failures - 1) where wait < maxDelay { wait *= 2 }
            return Swift.min(wait, maxDelay)
        }
    }

    let client: HTTPClient
    let request: HTTPRequest
    let maxEventBytes: Int
    let reconnection: Reconnection

    /// The iterator: each `next()` may read from the socket, or wait and reconnect.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let connection: EventStreamConnection

        /// The next event; nil when the server ended the stream for good (a 204, or a response ended when
        /// reconnection is off or not allowed for the method). Throws the failure that ended the stream:
        /// `HTTPWireError.unacceptableResponse` for a response that is not an event stream, the network
        /// error after the last failed reconnection, ``HTTPWireError/bodyTooLarge(limit:)`` for an event
        /// over the limit, or `CancellationError`.
        @concurrent public mutating func next() async throws -> ServerSentEvent? {
            try await connection.nextEvent()
        }
    }

    /// The iterator; the first `next()` sends the request.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(connection: EventStreamConnection(self))
    }
}

/// The state of one iteration: the open response, the parser, the events parsed and not yet delivered, and
/// the count of failed attempts. A class, because the iterator is copied by value and they must not be.
final class EventStreamConnection {
    private let stream: ServerSentEvents
    private var parser: EventStreamParser
    private var body: ResponseBody.AsyncIterator?
    private var ready: [ServerSentEvent] = []
    private var nextReady = 0
    /// Attempts in a row that failed to open the stream.
    private var failures = 0
    /// The next attempt waits first (it follows a response that ended, or a failure).
    private var waitsFirst = false
    private var isFinished = false
    /// The error that ends the stream, thrown once the events parsed before it have been delivered.
    private var pendingError: HTTPWireError?

    init(_ stream: ServerSentEvents) {
        self.stream = stream
        parser = EventStreamParser(
            maxEventBytes: stream.maxEventBytes, lastEventID: stream.request.fields["Last-Event-ID"] ?? "")
    }

    /// Reconnecting is allowed at all: on, and a request that may be sent again (RFC 9110 §9.2.2).
    private var reconnects: Bool {
        stream.reconnection.maxAttempts > 0 && stream.request.method.isIdempotent
            && stream.request.body.isReplayable
    }

    /// The next event, or nil at the end; whatever ends the stream with an error ends it for good.
    func nextEvent() async throws -> ServerSentEvent? {
        do {
            return try await step()
        } catch {
            isFinished = true
            ready = []
            endResponse()
            throw error
        }
    }

    private func step() async throws -> ServerSentEvent? {
        while true {
            if nextReady < ready.count {
                defer { nextReady += 1 }
                return ready[nextReady]
            }
            ready.removeAll(keepingCapacity: true)
            nextReady = 0
            if let error = pendingError {
                pendingError = nil
                throw error
            }
            if isFinished { return nil }
            guard var pieces = body else {
                try await open()
                continue
            }
            let piece: ArraySlice<UInt8>?
            do {
                piece = try await pieces.nextPiece()
                body = pieces
            } catch let error as HTTPWireError where Self.isReconnectable(error) && reconnects {
                // The stream was open: this is not a failed attempt, only a reason to reconnect.
                endResponse()
                continue
            }
            guard let piece else {
                endResponse()
                if !reconnects { isFinished = true }
                continue
            }
            do {
                try parser.feed(piece, into: &ready)
            } catch let tooLarge as EventStreamParser.EventTooLarge {
                // The events the piece completed before the oversized one are delivered first.
                pendingError = .bodyTooLarge(limit: tooLarge.limit)
                endResponse()
            }
        }
    }

    /// Sends the request (after the reconnection wait when one is due) and keeps its body, or ends the
    /// stream on a 204; throws when the stream cannot be opened and no attempt is left, or when the answer
    /// is not an event stream.
    private func open() async throws {
        if waitsFirst {
            try await RetryPolicy.sleep(
                for: stream.reconnection.wait(serverMilliseconds: parser.reconnectionMilliseconds, failures: failures))
        }
        waitsFirst = true
        var request = stream.request
        if request.fields["Accept"] == nil { request.fields["Accept"] = "text/event-stream" }
        // What a browser's EventSource sends (the Fetch standard's "no-store" cache mode): no cache on the
        // way may answer with an old copy of a live stream.
        if request.fields["Cache-Control"] == nil { request.fields["Cache-Control"] = "no-cache" }
        // An ID that cannot be a field value (a control character a server put in it) is not sent: the
        // request would be refused, and without the field the server starts from its own beginning.
        let lastID = HTTPField(name: "Last-Event-ID", value: parser.lastEventID)
        let sendsID = !lastID.value.isEmpty && (try? RequestEncoder.validate(lastID)) != nil
        request.fields["Last-Event-ID"] = sendsID ? lastID.value : nil
        // The standard's rule for opening a stream: 200 with the event-stream type (checked below); 204 ends it.
        request.options.validation = ResponseValidation(statuses: [200, 204])
        let response: HTTPStreamingResponse
        do {
            response = try await stream.client.stream(request)
        } catch let error as HTTPWireError where Self.isReconnectable(error) && reconnects {
            failures += 1
            if failures > stream.reconnection.maxAttempts { throw error }
            return
        }
        if response.status.rawValue == 204 {
            isFinished = true
            return
        }
        // Checked here rather than by `ResponseValidation`, which lets a response without Content-Type through
        // when it announces no body: the standard does not, and a reconnection loop against an empty 200
        // would otherwise never count a failure.
        guard let type = response.fields["Content-Type"], ResponseValidation.essence(type) == "text/event-stream"
        else {
            throw await HTTPClient.rejection(
                ResponseHead(
                    version: response.version, status: response.status, reason: response.reason,
                    fields: response.fields), url: response.url, body: response.body,
                rule: .contentType(received: response.fields["Content-Type"], acceptedTypes: ["text/event-stream"]))
        }
        failures = 0
        parser.restart()
        body = response.body.makeAsyncIterator()
    }

    /// Drops the current response (closing its connection if it is not finished).
    private func endResponse() {
        body?.owner.abandonIfUnfinished()
        body = nil
    }

    /// Failures the standard reconnects after: the network's, not the server's answer. The retry policy's
    /// transient failures (a deadline of one phase among them: a stream quiet for longer than the idle
    /// timeout), plus a name that did not resolve (a device briefly offline) and the total deadline, which
    /// bounds one response: the next one has a deadline of its own.
    static func isReconnectable(_ error: HTTPWireError) -> Bool {
        switch error {
        case .couldNotResolveHost, .timedOut(.total): return true
        default: return RetryPolicy.isRetryable(error)
        }
    }
}
