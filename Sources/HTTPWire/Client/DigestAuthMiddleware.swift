// DigestAuthMiddleware: HTTP Digest authentication (RFC 7616) — answer a server's `Digest` challenge with
// a hash that proves the password without sending it, and reuse the challenge for the requests after
// (client layer, built on HTTPMiddleware).
//
// The exchange: the first request goes without credentials; the server answers 401 with
// `WWW-Authenticate: Digest realm=…, nonce=…, qop="auth", algorithm=SHA-256`; the middleware computes the
// answer (DigestChallenge.swift) and the client sends the request once more. Later requests to the same
// origin answer the stored nonce at once, counting it up (`nc`, §3.4), so they need no extra round trip.
// When the server says the nonce went stale (`stale=true`, §3.3) the request is answered again with the new
// nonce; any other 401 to a Digest answer means wrong credentials, and is returned as it came. As with
// Basic credentials, nothing is sent to another origin than the request's original one.

import HTTPWireCodec
import HTTPWireTransport

/// Answers `Digest` challenges (RFC 7616) with a user name and password: curl's `--digest`.
///
/// ```swift
/// var configuration = ClientConfiguration()
/// configuration.middleware = [DigestAuthMiddleware(user: "ada", password: "s3cret")]
/// let client = HTTPClient(configuration: configuration)
/// let report = try await client.get("https://camera.example.test/config")   // 401, then 200
/// ```
///
/// MD5, SHA-256 and SHA-512-256 (each also as `-sess`) with `qop=auth`, or without `qop` (RFC 2069);
/// the first challenge HTTPWire can answer is taken, in the server's order. A request that sets its own
/// `Authorization` field is left alone. A request whose body can be read only once cannot be sent again:
/// use a body that can be replayed (bytes, a file) where a challenge is expected, or a request before it.
public final class DigestAuthMiddleware: HTTPMiddleware {
    /// The last challenge of one origin, and how many requests have answered its nonce.
    private struct Session {
        var challenge: DigestChallenge
        var nonceCount: Int
    }

    private let user: String
    private let password: String
    /// Keyed by `scheme://host:port` (the origin, RFC 9110 §4.3.1).
    private let sessions = LockedState<[String: Session]>([:])

    /// A middleware answering with these credentials.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// Answers the stored challenge of the request's origin, if there is one: every request after the first
    /// 401 goes with credentials at once.
    @concurrent public func adapt(_ request: inout OutgoingRequest) async throws {
        guard request.isSameOriginAsOriginal, !request.fields.contains("Authorization") else { return }
        let origin = Self.origin(of: request.url)
        guard
            let (challenge, nonceCount) = sessions.withLock({ sessions -> (DigestChallenge, Int)? in
                guard var session = sessions[origin] else { return nil }
                session.nonceCount += 1
                sessions[origin] = session
                return (session.challenge, session.nonceCount)
            })
        else { return }
        guard
            let value = challenge.authorization(
                user: user, password: password, method: request.method.rawValue, uri: request.url.pathAndQuery,
                nonceCount: nonceCount, clientNonce: DigestChallenge.makeClientNonce())
        else { throw HTTPWireError.invalidRequest("OpenSSL could not compute the Digest answer") }
        request.fields["Authorization"] = value
    }

    /// After a 401 with a `Digest` challenge: keep it, and send the request again — unless the request
    /// already answered this very nonce and the server did not call it stale (wrong credentials).
    @concurrent public func handle(_ head: ResponseHead, to request: OutgoingRequest) async throws -> MiddlewareDecision
    {
        guard head.status.rawValue == 401, request.isSameOriginAsOriginal else { return .proceed }
        let challenges = AuthenticationChallenge.parse(head.fields.values(for: "WWW-Authenticate"))
        guard let challenge = DigestChallenge.first(in: challenges) else { return .proceed }
        let origin = Self.origin(of: request.url)
        sessions.withLock { $0[origin] = Session(challenge: challenge, nonceCount: 0) }
        guard let sent = request.fields["Authorization"] else { return .retry(after: .zero) }  // first contact
        // The caller's own credentials are not ours to replace.
        guard sent.hasPrefix("Digest ") else { return .proceed }
        if challenge.isStale { return .retry(after: .zero) }  // §3.3: right credentials, old nonce
        // An answer to a stored nonce the server no longer takes (one-time nonces, without stale=true):
        // once, with the nonce it just sent. The same nonce refused again means wrong credentials.
        let sentNonce = AuthenticationChallenge.parse([sent]).first?.parameters["nonce"]
        if sentNonce != challenge.nonce && !request.retryReasons.contains(.status(401)) { return .retry(after: .zero) }
        return .proceed
    }

    /// `scheme://host:port`.
    private static func origin(of url: TargetURL) -> String {
        "\(url.scheme.rawValue)://\(url.host):\(url.port)"
    }
}
