// RedirectPolicy: which 3xx responses are followed, and how the next request is made (client layer).
// Pure decisions: given a request and a redirect response, the next request or nothing. No I/O.

import HTTPWireCodec

/// Rules for following redirects (RFC 9110 §15.4).
///
/// - 301 and 302 turn a POST into a GET without a body, as browsers and URLSession do (§15.4.2 and §15.4.3
///   allow it "for historical reasons"); other methods keep method and body.
/// - 303 See Other always becomes GET (HEAD stays HEAD), without a body (§15.4.4).
/// - 307 and 308 keep the method and the body (§15.4.8, §15.4.9); a body that cannot be sent again stops
///   the redirect with an error rather than sending an empty body.
/// - `Authorization`, `Cookie` and `Proxy-Authorization` are dropped whenever the origin changes, so a
///   redirect can never carry credentials to another host (§15.4: a user agent should not forward them).
/// - Only `http` and `https` targets are followed; a relative `Location` is resolved against the current
///   URL (RFC 3986 §5.2) and raw non-ASCII bytes in it are percent-encoded as UTF-8.
public struct RedirectPolicy: Sendable, Hashable {
    /// The most redirects followed for one request; one more is `HTTPWireError.tooManyRedirects`. Default 10,
    /// like curl's `--max-redirs` default in browsers' range. Zero means redirects are returned, not followed.
    public var maxRedirects: Int = 10

    /// Follows up to ten redirects.
    public init() {}

    /// Follows up to `maxRedirects` redirects; 0 returns every 3xx response to the caller.
    public init(maxRedirects: Int) {
        self.maxRedirects = max(0, maxRedirects)
    }

    /// Fields that carry credentials and are removed when a redirect changes origin.
    static let credentialFields = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// The request to send next after `status` with `location`, or nil when the response is final.
    ///
    /// Throws `invalidURL` for a `Location` that cannot be used, and `requestBodyNotReplayable` for a 307/308 whose
    /// body cannot be sent again.
    func nextRequest(
        after status: Int, location: String?, request: ResolvedRequest
    ) throws(HTTPWireError) -> ResolvedRequest? {
        guard [301, 302, 303, 307, 308].contains(status), let location, !location.isEmpty else { return nil }
        let target: TargetURL
        do {
            target = try request.url.resolving(location)
        } catch {
            throw .invalidURL("redirect to an unusable location: \(error)")
        }
        var next = request
        next.url = target
        switch status {
        case 303 where request.method != .head,
            301 where request.method == .post,
            302 where request.method == .post:
            next.method = .get
            next.body = .empty
            for name in ["Content-Type", "Content-Length", "Transfer-Encoding", "Content-Encoding"] {
                next.fields.remove(name: name)
            }
        default:
            guard request.body.isReplayable else { throw .requestBodyNotReplayable }
        }
        if !Self.sameOrigin(request.url, target) {
            for name in Self.credentialFields { next.fields.remove(name: name) }
        }
        return next
    }

    /// RFC 6454 origin: scheme, host and port.
    static func sameOrigin(_ left: TargetURL, _ right: TargetURL) -> Bool {
        left.scheme == right.scheme && left.host == right.host && left.port == right.port
    }
}
