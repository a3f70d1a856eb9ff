// CacheStatus: where a collected response came from when the client has an `HTTPCache` (client layer).
// A value only; `HTTPClient+Cache.swift` sets it. The names follow the ideas of RFC 9211's `Cache-Status`
// field (a hit, a miss that went forward, a stored response validated), reported to the caller rather than
// written into the response's fields.

/// Whether ``HTTPResponse`` came from the network, from ``ClientConfiguration/cache``, or from both.
///
/// ```swift
/// let avatar = try await client.get("users/42/avatar.png")
/// if avatar.cacheStatus == .hit { print("no request sent") }
/// ```
public enum CacheStatus: Sendable, Hashable {
    /// The cache took no part: the client has none, or this request cannot use one (a method other than
    /// GET, a body, a `Range`, or conditional fields of the caller's own — RFC 9111 §4 serves only what a
    /// GET would get).
    case notUsed
    /// The cache had no response it could use; this one came from the server (and was stored, when RFC
    /// 9111 §3 allows it) — or, for a request that said `only-if-cached`, it is the 504 (Gateway Timeout)
    /// the cache answers instead of asking the server (§5.2.1.7).
    case miss
    /// A stored response, fresh enough for this request (RFC 9111 §4.2) — or taken stale for `only-if-cached`
    /// — with no request sent. Its `Age` field says how old it is (§4, §5.1).
    case hit
    /// A stored response the server confirmed with 304 Not Modified to a conditional request (RFC 9111
    /// §4.3): the body is the stored one, the fields are updated from the 304, one round trip was made.
    case revalidated
    /// A stored response past its freshness, returned because the server could not be reached or answered
    /// 500, 502, 503 or 504, and `stale-if-error` (RFC 5861 §4, in the response or the request) allowed it.
    /// Its `Age` field says how old it is. The failure itself is not thrown.
    case staleAfterError
    /// A stored response past its freshness but within its `stale-while-revalidate` window (RFC 5861 §3),
    /// returned at once with no request waited for; the cache sent the conditional request in the background,
    /// so a later request finds the response the server confirmed or replaced. Its `Age` field says how old
    /// it is.
    case staleWhileRevalidating
}
