// RetryChain: where one call stands in its redirects and retries — the bookkeeping the client's loop keeps
// between hops and attempts, and the `OutgoingRequest` middleware sees (client layer). Values only.

import HTTPWireCodec

/// The attempts of one call so far.
struct RetryChain: Sendable {
    /// The URL the call started at.
    let originalURL: TargetURL
    /// Attempts that ended in a failure or a retryable status, counted for the retry policy (its
    /// `afterAttempt`).
    var failedAttempts = 0
    /// Retries asked for by middleware handlers (at most `HTTPClient.maxMiddlewareRetries`).
    var middlewareRetries = 0
    /// The attempt of the current hop: 1, then 2 after its first retry.
    var hopAttempt = 1
    /// Why earlier attempts were retried, oldest first.
    var reasons: [RetryReason] = []

    /// `request` as middleware sees it at this point of the chain.
    func outgoing(_ request: ResolvedRequest, redirects: Int) -> OutgoingRequest {
        OutgoingRequest(
            method: request.method, url: request.url, fields: request.fields, body: request.body,
            originalURL: originalURL, redirectCount: redirects, attempt: hopAttempt, retryReasons: reasons)
    }
}
