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
/// let user = try response.decode(User.self)
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

    /// Creates a response value (HTTPClient makes them; tests and mocks can too).
    public init(
        status: Status, reason: String = "", version: HTTPVersion = .http1_1, fields: HTTPFields = [:],
        trailers: HTTPFields = [:], body: [UInt8] = [], url: TargetURL, interimResponses: [ResponseHead] = []
    ) {
        self.status = status
        self.reason = reason
        self.version = version
        self.fields = fields
        self.trailers = trailers
        self.body = body
        self.url = url
        self.interimResponses = interimResponses
    }

    /// The body decoded as UTF-8 text (invalid sequences replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// Decodes the body as JSON into `type`.
    public func decode<Value: Decodable>(_ type: Value.Type, using decoder: JSONDecoder = JSONDecoder()) throws -> Value
    {
        try decoder.decode(type, from: Data(body))
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

    /// The length the server announced with Content-Length, if any.
    public var expectedContentLength: Int64? { body.expectedBytes }

    /// Trailer fields; complete once ``body`` has been read to its end.
    public var trailers: HTTPFields { body.trailers }

    /// Reads the rest of the body into memory, refusing more than `limit` bytes (a hostile server's endless
    /// body must not exhaust memory): past it, the connection is closed and an error thrown.
    public func collect(upTo limit: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        if let expected = expectedContentLength {
            // Refused before a byte is read when the announced length is already past the limit.
            guard expected <= limit else { throw HTTPWireError.bodyTooLarge(limit: limit) }
            bytes.reserveCapacity(Int(expected))
        }
        for try await piece in body {
            guard bytes.count + piece.count <= limit else {
                throw HTTPWireError.bodyTooLarge(limit: limit)
            }
            bytes.append(contentsOf: piece)
        }
        return bytes
    }
}
