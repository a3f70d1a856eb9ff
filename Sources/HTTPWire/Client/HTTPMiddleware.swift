// HTTPMiddleware: the hooks app code adds to every request of a client — request adapters, response
// handlers that may ask for a retry, and response-body decoders (client layer).
//
// The chain is `ClientConfiguration.middleware`, in order. The client calls it at fixed points, and nowhere
// else:
//   1. `adapt` before each request goes on the wire: the first one, every redirect hop, every retry. Each
//      call starts from the request as the client resolved it (fields that adapters added to an earlier hop
//      or attempt are not carried over), so an adapter sets its fields afresh: a signature over this hop's
//      URL, a token refreshed since the last attempt, the cookies for this hop's origin.
//   2. `handle` with every response head: each interim 1xx head, each redirect (3xx) head before it is
//      followed, and the final head — before the retry policy and validation look at it. The first handler
//      that answers `.retry(after:)` has the same request (this hop) sent again; for a 1xx head the answer
//      is ignored.
//   3. `bodyDecoder` with the final head, to put a decoder between the exchange and the caller (the
//      place for `Content-Encoding: gzip`); it may rewrite the head the caller sees.
// Retries asked for by handlers go through the same loop as the retry policy's (`HTTPClient.stream`)
// and are capped at `HTTPClient.maxMiddlewareRetries` per request, so a handler that always says "retry"
// cannot loop forever. A client without middleware skips all of this.

import HTTPWireCodec

/// A request adapter, response handler and body decoder in one: implement the parts you need, the others
/// do nothing by default.
///
/// ```swift
/// struct RequestID: HTTPMiddleware {
///     func adapt(_ request: inout OutgoingRequest) async throws {
///         request.fields["X-Request-ID"] = "req-\(request.attempt)"
///     }
/// }
/// var configuration = ClientConfiguration()
/// configuration.middleware = [RequestID(), BearerTokenMiddleware(refresh: { _ in try await signIn() })]
/// ```
///
/// Credentials an adapter adds must stay with their origin: check ``OutgoingRequest/isSameOriginAsOriginal``
/// (``BearerTokenMiddleware`` does), because adapters also run for a redirect to another host.
public protocol HTTPMiddleware: Sendable {
    /// Changes a request before it is sent: add or replace fields, sign it, rewrite its URL. Throwing fails
    /// the request with that error.
    @concurrent func adapt(_ request: inout OutgoingRequest) async throws

    /// Looks at a response head to `request` (interim, redirect or final) and says whether to send the
    /// request again. Throwing fails the request with that error.
    @concurrent func handle(_ head: ResponseHead, to request: OutgoingRequest) async throws -> MiddlewareDecision

    /// A decoder for the body of the final response `head`, or nil to leave the body as received. May
    /// rewrite `head` (a content decoder removes `Content-Encoding` and `Content-Length`).
    func bodyDecoder(for head: inout ResponseHead, to request: OutgoingRequest) -> (any ResponseBodyDecoder)?
}

extension HTTPMiddleware {
    /// Leaves the request as it is.
    @concurrent public func adapt(_ request: inout OutgoingRequest) async throws {}

    /// Proceeds.
    @concurrent public func handle(_ head: ResponseHead, to request: OutgoingRequest) async throws -> MiddlewareDecision
    {
        .proceed
    }

    /// Leaves the body as received.
    public func bodyDecoder(for head: inout ResponseHead, to request: OutgoingRequest) -> (any ResponseBodyDecoder)? {
        nil
    }
}
