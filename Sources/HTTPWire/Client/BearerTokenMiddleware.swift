// BearerTokenMiddleware: a Bearer token added to every request for its origin, refreshed and the request
// sent once more when the server answers 401 (client layer, built on HTTPMiddleware).
//
// RFC 6750 §3.1: a server answers 401 with `WWW-Authenticate: Bearer error="invalid_token"` when the token
// expired. The usual app then gets a new token (a refresh-token grant, a sign-in) and repeats the request —
// once: a second 401 with a fresh token means the credentials are wrong, and is returned as it is. Many
// requests in flight may hit the expiry together; they share one refresh (the first starts it, the others
// wait for its result) instead of each signing in again. The token goes only to the request's original
// origin, never across a redirect to another host. The refresh itself is the caller's closure: this file
// sends nothing on its own.

import HTTPWireCodec
import HTTPWireTransport

/// Adds `Authorization: Bearer <token>` and refreshes the token after a 401.
///
/// ```swift
/// let tokens = BearerTokenMiddleware(token: savedToken) { rejected in
///     try await authService.refresh()          // called once per expiry, however many requests hit it
/// }
/// var configuration = ClientConfiguration()
/// configuration.middleware = [tokens]
/// ```
///
/// Without a `token`, the first request calls `refresh(nil)` to get one. A request that sets its own
/// `Authorization` field is left alone. Only the first 401 of a request is retried.
public final class BearerTokenMiddleware: HTTPMiddleware {
    /// The token state, under one lock.
    private struct State {
        /// The token requests get now.
        var current: String?
        /// The token before the last refresh: a 401 for it means "already refreshed, just retry".
        var previous: String?
        /// The refresh in progress, shared by every request that needs its result.
        var refreshing: Task<String, any Error>?
    }

    private let state: LockedState<State>
    private let refresh: @Sendable @concurrent (_ rejected: String?) async throws -> String

    /// A middleware starting with `token` (nil: get one from `refresh` on the first request). `refresh`
    /// receives the token the server rejected (nil for the first one) and returns a new one.
    public init(
        token: String? = nil, refresh: @escaping @Sendable @concurrent (_ rejected: String?) async throws -> String
    ) {
        self.state = LockedState(State(current: token))
        self.refresh = refresh
    }

    /// The token requests get now (nil before the first one).
    public var token: String? { state.withLock { $0.current } }

    /// Adds the current token to a request for its original origin.
    @concurrent public func adapt(_ request: inout OutgoingRequest) async throws {
        guard request.isSameOriginAsOriginal, !request.fields.contains("Authorization") else { return }
        let token = try await currentToken()
        request.fields["Authorization"] = try Authorization.bearer(token).fieldValue()
    }

    /// After the first 401 to a token of ours: refresh (or take the refresh another request made) and retry.
    @concurrent public func handle(_ head: ResponseHead, to request: OutgoingRequest) async throws -> MiddlewareDecision
    {
        guard head.status.rawValue == 401, !request.retryReasons.contains(.status(401)),
            let value = request.fields["Authorization"], value.hasPrefix("Bearer ")
        else { return .proceed }
        let sent = String(value.dropFirst("Bearer ".count))
        let (current, previous) = state.withLock { ($0.current, $0.previous) }
        if sent == current {
            _ = try await refreshed(rejecting: sent)
            return .retry(after: .zero)
        }
        return sent == previous ? .retry(after: .zero) : .proceed
    }

    /// The current token, refreshing when there is none yet.
    private func currentToken() async throws -> String {
        if let token = state.withLock({ $0.current }) { return token }
        return try await refreshed(rejecting: nil)
    }

    /// A token other than `rejected`: the one a concurrent refresh produced, or a new refresh's.
    private func refreshed(rejecting rejected: String?) async throws -> String {
        let task = state.withLock { state -> Task<String, any Error> in
            if let running = state.refreshing { return running }
            let refresh = self.refresh
            let task = Task { try await refresh(rejected) }
            state.refreshing = task
            return task
        }
        do {
            let token = try await task.value
            state.withLock { state in
                if state.refreshing == task {
                    state.previous = state.current
                    state.current = token
                    state.refreshing = nil
                }
            }
            return token
        } catch {
            state.withLock { state in
                if state.refreshing == task { state.refreshing = nil }
            }
            throw error
        }
    }
}
