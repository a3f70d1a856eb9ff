// RetryPolicy: whether a failed attempt is worth another try, how long to wait before it, and the one
// place that waits (client layer).
//
// Retrying is right when the failure was probably transient and repeating the request is harmless: the
// connection dropped or stalled, the server said 503 Service Unavailable. It is wrong when the request
// itself is the problem (4xx), when the server's answer was malformed, or when repeating could do something
// twice (a non-idempotent method, RFC 9110 §9.2.2). Waits grow exponentially up to a cap, and a server's
// `Retry-After` (RFC 9110 §10.2.3) replaces our own guess. There is no random jitter, so the schedule is the
// same on every run.
//
// This is HTTPWire's one retry mechanism: `HTTPClient` retries every request with
// `retryDelay(afterAttempt:outcome:method:deadline:)` and `sleep(for:)`, and a download's run loop calls the
// same two between its attempts (each of which plans again from the bytes on disk, so a retried download
// resumes). The decision itself (`decision(afterAttempt:outcome:method:now:)`) reads no clock and
// never sleeps, so it is tested without either; the wait is a reactor timer, never `Task.sleep`.

import HTTPWireCodec
import HTTPWireTransport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How many times a request is retried, how long to wait in between, and which failures qualify.
///
/// ```swift
/// var configuration = ClientConfiguration()
/// configuration.retry = .idempotent                 // GET, PUT, DELETE... retried on 502/503/504, drops
/// var request = HTTPRequest(url: "https://api.example.test/report")
/// request.options.retry = RetryPolicy(maxRetries: 5, initialBackoff: .milliseconds(200))   // this one: more
/// ```
///
/// Only idempotent methods (RFC 9110 §9.2.2) with a body that can be sent again are retried. A
/// `Retry-After` longer than ``maxRetryAfter``, or a wait that would pass the request's total timeout, ends
/// the retries: the last answer is returned (or the last error thrown) at once.
public struct RetryPolicy: Sendable, Hashable {
    /// Retries after the first attempt; zero disables retrying. Default 3, as a human would try.
    public var maxRetries: Int
    /// The wait before the first retry; it doubles for each further retry. Default 1 s.
    public var initialBackoff: Duration
    /// The longest wait our own backoff produces. Default 30 s: longer waits look like a hang.
    public var maxBackoff: Duration
    /// The longest `Retry-After` honoured. A server asking for more gets no retry at all rather than an
    /// earlier one it asked us not to send. Default 5 minutes.
    public var maxRetryAfter: Duration
    /// Statuses worth another attempt. Default 500, 502, 503, 504: server-side and gateway trouble that
    /// often passes. 4xx statuses are left out: the same request would get the same answer (add 408 or
    /// 429 here to retry those; `Retry-After` is honoured for any status listed).
    public var retryableStatuses: Set<Int>

    /// A policy with the given limits; the defaults are described on each property.
    public init(
        maxRetries: Int = 3, initialBackoff: Duration = .seconds(1), maxBackoff: Duration = .seconds(30),
        maxRetryAfter: Duration = .seconds(300), retryableStatuses: Set<Int> = [500, 502, 503, 504]
    ) {
        self.maxRetries = max(0, maxRetries)
        self.initialBackoff = max(.zero, initialBackoff)
        self.maxBackoff = max(.zero, maxBackoff)
        self.maxRetryAfter = max(.zero, maxRetryAfter)
        self.retryableStatuses = retryableStatuses
    }

    /// Never retry.
    public static let none = RetryPolicy(maxRetries: 0)

    /// Up to three retries of idempotent requests on 502 Bad Gateway, 503 Service Unavailable, 504 Gateway
    /// Timeout and connection failures, waiting 1 s, 2 s, 4 s or what `Retry-After` says. 500 is left out:
    /// an internal error is more often a bug that repeats than an overload that passes.
    public static let idempotent = RetryPolicy(maxRetries: 3, retryableStatuses: [502, 503, 504])

    /// How an attempt ended.
    enum Outcome: Sendable, Hashable {
        /// The attempt failed with an error.
        case error(HTTPWireError)
        /// A complete response head arrived with this status and these fields.
        case status(Int, HTTPFields)
    }

    /// What to do next.
    enum Decision: Sendable, Hashable {
        /// Wait this long, then send the request again.
        case retry(after: Duration)
        /// Report the outcome.
        case giveUp
    }

    /// Decides after attempt number `attempt` (1 for the first try). Retries only while fewer than
    /// `maxRetries` retries were made, only for idempotent methods, and only for a retryable error or
    /// status. The wait is the response's `Retry-After` when valid, else the exponential backoff.
    /// `now` turns a `Retry-After` date into a delay.
    func decision(afterAttempt attempt: Int, outcome: Outcome, method: Method, now: Date) -> Decision {
        guard attempt >= 1, attempt <= maxRetries, method.isIdempotent else { return .giveUp }
        switch outcome {
        case .error(let error):
            return Self.isRetryable(error) ? .retry(after: backoff(forRetry: attempt)) : .giveUp
        case .status(let status, let fields):
            guard retryableStatuses.contains(status) else { return .giveUp }
            guard let value = fields["Retry-After"], let delay = RetryAfterValue.delay(value, now: now) else {
                return .retry(after: backoff(forRetry: attempt))
            }
            return delay <= maxRetryAfter ? .retry(after: delay) : .giveUp
        }
    }

    /// The wait before retry number `retry` (1-based): `initialBackoff × 2^(retry-1)`, capped at
    /// `maxBackoff`. The same numbers on every run.
    func backoff(forRetry retry: Int) -> Duration {
        var delay = initialBackoff
        var step = 1
        while delay > .zero, delay < maxBackoff, step < retry {
            delay *= 2
            step += 1
        }
        return min(delay, maxBackoff)
    }

    /// True for failures a new attempt may cure: the connection refused, reset, dropped mid-body or
    /// closed before any response, and timeouts of one phase. False for mistakes that would repeat (a bad
    /// URL, an unknown host, a malformed response, a rejected certificate), local file errors, and the
    /// total deadline, which a retry cannot meet.
    static func isRetryable(_ error: HTTPWireError) -> Bool {
        switch error {
        case .couldNotConnect, .bodyTruncated, .emptyReply, .sendFailed, .receiveFailed:
            return true
        case .timedOut(let phase):
            return phase != .total
        case .invalidURL, .couldNotResolveHost, .malformedResponse, .httpStatus, .localWriteFailed,
            .localReadFailed, .localFileChanged, .checksumMismatch, .tlsHandshakeFailed, .localCertificateFailed,
            .tooManyRedirects,
            .peerCertificateRejected,
            .requestBodyNotReplayable, .invalidRequest, .bodyTooLarge, .unacceptableResponse,
            .pinnedPublicKeyMismatch, .couldNotResolveProxy, .proxyAuthenticationRequired, .proxyTunnelFailed,
            .socksProxyFailed, .badContentEncoding:
            return false
        }
    }

    // MARK: The one wait

    /// The wait before sending again after attempt number `attempt` (1-based) ended in `outcome`, or nil to
    /// report the outcome: no retry left, not a retryable outcome or method, or a wait that would end after
    /// `deadline` (the request's total one: the retry could not finish in time). The caller drops what it
    /// holds (the response, its connection) and then waits with ``sleep(for:)``.
    func retryDelay(afterAttempt attempt: Int, outcome: Outcome, method: Method, deadline: Deadline) -> Duration? {
        guard case .retry(let delay) = decision(afterAttempt: attempt, outcome: outcome, method: method, now: Date())
        else { return nil }
        return Deadline.after(delay) < deadline ? delay : nil
    }

    /// Waits `delay` on the reactor's clock (a reactor timer, the library's one clock; cancellation ends
    /// the wait with `CancellationError`). Every retry wait in HTTPWire is this call.
    static func sleep(for delay: Duration) async throws {
        try await Reactor.shared.sleep(until: .after(delay))
    }
}
