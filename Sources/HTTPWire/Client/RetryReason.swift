// RetryReason: why an earlier attempt of a request was sent again (client layer). A value only, kept in
// `OutgoingRequest.retryReasons`, so an adapter or handler can tell a first attempt from a retry and why.

import HTTPWireCodec

/// Why an attempt was retried: the status of the response that was dropped, or the failure.
///
/// ```swift
/// let alreadyRefreshed = request.retryReasons.contains(.status(401))   // one refresh per request
/// ```
public enum RetryReason: Sendable, Hashable {
    /// The response had this status (a 503 the retry policy retried, a 401 a handler retried).
    case status(Int)
    /// The attempt failed before a usable response head.
    case failure(HTTPWireError)
}
