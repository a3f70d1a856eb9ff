// HTTPResponse and HTTPStreamingResponse: what a request gives back (client layer).
// Values for the caller; the bytes were decoded by the codec and read by the exchange.

import HTTPWireCodec

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A complete response with its body in memory (collected by ``HTTPClient/send(_:)``).
///
/// ```swift
/// let response = try await client.get("users/42")
/// guard response.status == .ok else { ... }
/// let user = try response.decode(User.self)     // a non-2xx throws HTTPWireError.unacceptableResponse
/// ```
public struct HTTPResponse: Sendable {
    /// The final status, after redirects.
    public var status: Status
    /// The reason phrase as the server sent it (informational only: RFC 9112 §4 says to ignore it).
    public var reason: String
    /// The protocol version of the response.
    public var version: HTTPVersion
    /// The response fields, in order.
    public var fields: HTTPFields
    /// Fields sent after a chunked body (RFC 9112 §7.1.2); usually empty.
    public var trailers: HTTPFields
    /// The body.
    public var body: [UInt8]
    /// The URL that gave this response (the last one, when redirects were followed).
    public var url: TargetURL
    /// Interim 1xx responses received before this one, such as 103 Early Hints (RFC 8297).
    public var interimResponses: [ResponseHead]
    /// Where the request's time went (DNS, connect, TLS, sent, first byte, complete) and whether its
    /// connection was reused.
    public var metrics: RequestMetrics
    /// Whether the response came from ``ClientConfiguration/cache`` (``CacheStatus/hit``), was confirmed
    /// by the server (``CacheStatus/revalidated``), or came from the network alone.
    public var cacheStatus: CacheStatus = .notUsed
    /// The decoder ``decode(_:using:)`` uses by default: the request's or the client's.
    var jsonDecoder: JSONDecoder?

    /// Creates a response value (HTTPClient makes them; tests and mocks can too).
    public init(
        status: Status, reason: String = "", version: HTTPVersion = .http1_1, fields: HTTPFields = [:],
        trailers: HTTPFields = [:], body: [UInt8] = [], url: TargetURL, interimResponses: [ResponseHead] = [],
        metrics: RequestMetrics = RequestMetrics()
    ) {
        self.status = status
        self.reason = reason
        self.version = version
        self.fields = fields
        self.trailers = trailers
        self.body = body
        self.url = url
        self.interimResponses = interimResponses
        self.metrics = metrics
    }

    /// The body decoded as UTF-8 text (invalid sequences replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as `Data`.
    public var data: Data { Data(body) }

    /// The head: status line and fields.
    public var head: ResponseHead { ResponseHead(version: version, status: status, reason: reason, fields: fields) }

    /// Decodes the body as JSON into `type` — only for a 2xx response.
    ///
    /// On any other status the body is the server's error page or error document, not a `Value`, so this
    /// throws ``HTTPWireError/unacceptableResponse(_:)`` carrying the head and the first 64 KiB of the body,
    /// from which ``UnacceptableResponse/decode(_:using:)`` reads the server's error type. To decode a body
    /// whatever the status, use `JSONDecoder().decode(Value.self, from: response.data)`.
    ///
    /// `decoder` defaults to the request's ``RequestOptions/jsonDecoder``, else the client's
    /// ``ClientConfiguration/jsonDecoder`` (where date and key strategies are set once).
    public func decode<Value: Decodable>(_ type: Value.Type, using decoder: JSONDecoder? = nil) throws -> Value {
        guard status.kind == .successful else {
            throw HTTPWireError.unacceptableResponse(
                UnacceptableResponse(
                    head: head, url: url, bodyPreview: body, isBodyPreviewComplete: true,
                    rule: .status(acceptedStatuses: Set(200..<300))))
        }
        return try (decoder ?? jsonDecoder ?? JSONDecoder()).decode(type, from: Data(body))
    }
}

/// A response whose head has arrived and whose body is read on demand (``HTTPClient/stream(_:)``).
///
/// Iterate ``body`` to receive the body piece by piece: the socket is read only as fast as you consume,
/// so memory stays flat whatever the size. Dropping the response before the end closes its connection.
///
/// ```swift
/// let response = try await client.stream(HTTPRequest(url: "https://example.test/big.iso"))
/// for try await piece in response.body { try file.write(piece) }
/// ```
public struct HTTPStreamingResponse {
    /// The final status.
    public let status: Status
    /// The reason phrase as sent.
    public let reason: String
    /// The protocol version.
    public let version: HTTPVersion
    /// The response fields.
    public let fields: HTTPFields
    /// The URL that gave this response, after redirects.
    public let url: TargetURL
    /// Interim 1xx responses received before this one.
    public let interimResponses: [ResponseHead]
    /// The body, as an asynchronous sequence of byte slices.
    public let body: ResponseBody
    /// The call's counters (connections, redirects, retries) for ``metrics``.
    let counters: MetricsCounters
    /// The decoder the collected response decodes with by default.
    let jsonDecoder: JSONDecoder?

    /// Where the request's time went so far; ``RequestMetrics/complete`` is set once ``body`` has been
    /// read to its end.
    public var metrics: RequestMetrics { body.owner.exchange.metrics(counters) }

    /// The length the server announced with Content-Length, if any.
    public var expectedContentLength: Int64? { body.expectedBytes }

    /// Trailer fields; complete once ``body`` has been read to its end.
    public var trailers: HTTPFields { body.trailers }

    /// Reads the rest of the body into memory, refusing more than `limit` bytes (a hostile server's endless
    /// body must not exhaust memory): past it, the connection is closed and an error thrown.
    @concurrent public func collect(upTo limit: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        if let expected = expectedContentLength {
            // Refused before a byte is read when the announced length is already past the limit.
            guard expected <= limit else { throw HTTPWireError.bodyTooLarge(limit: limit) }
            bytes.reserveCapacity(Int(expected))
        }
        func append(_ piece: ArraySlice<UInt8>) throws(HTTPWireError) {
            guard bytes.count + piece.count <= limit else { throw .bodyTooLarge(limit: limit) }
            bytes.append(contentsOf: piece)
        }
        // What has already arrived is taken without suspending: a small body usually comes in the same read
        // as its head, and each await on the way costs a task switch (docs/benchmarks.md).
        if body.owner.decoders.isEmpty {
            let exchange = body.owner.exchange
            received: while true {
                switch try exchange.nextReceivedBodyPiece() {
                case .piece(let piece):
                    try append(piece)
                case .end:
                    if exchange.hasWriter { await exchange.waitForWriter() }
                    return bytes
                case .needsRead:
                    break received
                }
            }
        }
        var iterator = body.makeAsyncIterator()
        while let piece = try await iterator.nextPiece() { try append(piece) }
        return bytes
    }
}
