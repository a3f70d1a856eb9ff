// OutgoingRequest: one request as it is about to go on the wire — one hop of a redirect chain, one attempt
// of a retry — as middleware sees and changes it (client layer).
//
// The client resolves an `HTTPRequest` (base URL, default fields, query items, credentials) before its
// first hop; an `OutgoingRequest` is that resolved form plus where it stands in the chain: the URL the call
// started at, how many redirects led here, which attempt this is and why earlier ones were retried. Adapters
// change `method`, `url` and `fields`; the body is fixed (a signer may read it). `Host` and the framing
// fields are not here: the exchange writes them from the URL and the body. No I/O happens here.

import HTTPWireCodec

/// A request about to be sent, as ``HTTPMiddleware`` adapters and handlers see it.
///
/// ```swift
/// func adapt(_ request: inout OutgoingRequest) async throws {
///     guard request.isSameOriginAsOriginal else { return }   // credentials stay with their origin
///     request.fields["Authorization"] = "Bearer \(token)"
/// }
/// ```
public struct OutgoingRequest: Sendable {
    /// The method of this hop (a 303 redirect turns a POST into a GET).
    public var method: Method
    /// The absolute URL of this hop.
    public var url: TargetURL
    /// The fields to send, defaults and credentials included (`Host` and framing are added later).
    public var fields: HTTPFields
    /// The body of this hop (empty after a redirect that dropped it).
    public let body: RequestBody
    /// The URL the request started at, before any redirect.
    public let originalURL: TargetURL
    /// Redirects followed to reach this hop: 0 for the request as made.
    public let redirectCount: Int
    /// 1 for the first attempt of this hop, 2 for its first retry, and so on.
    public let attempt: Int
    /// Why earlier attempts of this request were retried, oldest first (over the whole redirect chain).
    public let retryReasons: [RetryReason]

    /// Whether this hop goes to the origin (scheme, host, port; RFC 6454) the request started at: the
    /// test an adapter makes before adding credentials, as the client does for its own.
    public var isSameOriginAsOriginal: Bool { RedirectPolicy.sameOrigin(url, originalURL) }
}
