// MiddlewareDecision: what a response handler answers after looking at a response head (client layer).
// A value only; the client's retry loop carries it out.

/// What ``HTTPMiddleware/handle(_:to:)`` asks the client to do.
///
/// ```swift
/// func handle(_ head: ResponseHead, to request: OutgoingRequest) async throws -> MiddlewareDecision {
///     head.status.rawValue == 425 ? .retry(after: .milliseconds(100)) : .proceed   // 425 Too Early
/// }
/// ```
public enum MiddlewareDecision: Sendable, Hashable {
    /// Go on: the next handler, then redirects, the retry policy and validation.
    case proceed
    /// Send the same request (this redirect hop) again after `delay`, measured on the reactor's clock. The
    /// response is dropped. Ignored for interim 1xx heads, for a body that cannot be sent again, and past
    /// ``HTTPClient/maxMiddlewareRetries``; a delay past the total timeout ends the request with the
    /// response as it is.
    case retry(after: Duration)
}
