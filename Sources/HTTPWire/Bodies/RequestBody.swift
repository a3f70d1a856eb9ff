// RequestBody: what a request sends after its head, and how it is framed (client layer).
// Describes bodies; the connection driver sends them. Nothing here touches a socket.

import HTTPWireCodec

/// The body of a request.
///
/// Bodies made of bytes, files or a multipart form are *replayable*: HTTPWire can send them again for a
/// 307/308 redirect or a retry on a fresh connection. A stream of unknown length is sent once, with
/// `Transfer-Encoding: chunked` (RFC 9112 §7.1), and a redirect that needs it again fails with
/// `HTTPWireError.requestBodyNotReplayable`.
///
/// ```swift
/// let body = RequestBody.file(path: "/tmp/photo.jpg")     // streamed from disk, Content-Length from its size
/// let json = try RequestBody.json(["name": "Ada"])        // application/json
/// ```
public enum RequestBody: Sendable {
    /// No body: no `Content-Length` is sent (RFC 9110 §8.6: a user agent should not send one for a
    /// request without content, except for methods that define a meaning for a body).
    case empty
    /// Bytes in memory, sent with `Content-Length`.
    case bytes([UInt8])
    /// A whole file, streamed from disk while it is sent (sendfile(2) on plain HTTP, 256 KiB blocks over
    /// TLS); its size at send time is the
    /// `Content-Length`, and a file that changes size meanwhile fails the request.
    case file(path: String)
    /// A multipart/form-data form (RFC 7578), streamed part by part with an exact `Content-Length`.
    case multipart(MultipartForm)
    /// Bytes of unknown length from an asynchronous sequence, sent once with chunked encoding.
    case stream(any AsyncSequence<[UInt8], any Error> & Sendable)

    /// True when the body can be produced again for a redirect or a retry.
    public var isReplayable: Bool {
        if case .stream = self { return false }
        return true
    }

    /// True when there is no body at all.
    public var isEmpty: Bool {
        if case .empty = self { return true }
        return false
    }

    /// A JSON body from an `Encodable` value (the caller adds `Content-Type`, or uses
    /// ``HTTPClient/post(_:json:fields:)`` which does).
    public static func json(_ value: some Encodable & Sendable) throws -> RequestBody {
        .bytes(Array(try JSONEncoder().encode(value)))
    }
}

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
