// CookieMiddleware: a client's cookie jar wired into its requests through the HTTPMiddleware hooks (client
// layer). Nothing else in the client knows about cookies.
//
// `adapt` runs before every hop and every retry, with that hop's URL: the `Cookie` field is computed afresh
// each time, so after a redirect to another origin the next request carries that origin's cookies and
// never the previous one's (RFC 6265 §5.4: the cookies whose domain and path match "the request-uri").
// `handle` sees every head — each 1xx interim head, each redirect, the final one — and stores its
// `Set-Cookie` fields against the URL of the request it answered (§5.3), before the next hop is made, so a
// cookie set by a 302 goes with the request the 302 leads to. The client adds this middleware after the
// configured ones when `ClientConfiguration.cookieJar` is set.

import HTTPWireCodec

/// Sends a ``CookieJar``'s cookies and stores the cookies responses set.
struct CookieMiddleware: HTTPMiddleware {
    /// The jar read before each hop and written with each head.
    let jar: CookieJar

    /// Adds the jar's cookies for this hop's URL. A `Cookie` field the request set itself is kept, and the
    /// jar's pairs are appended to it: RFC 6265 §5.4 allows only one `Cookie` field per request.
    func adapt(_ request: inout OutgoingRequest) async throws {
        guard let value = jar.cookieFieldValue(for: request.url) else { return }
        if let own = request.fields["Cookie"], !own.isEmpty {
            request.fields.set(name: "Cookie", value: own + "; " + value)
        } else {
            request.fields.set(name: "Cookie", value: value)
        }
    }

    /// Stores each `Set-Cookie` field of `head` for the URL `request` was sent to. Never asks for a retry.
    func handle(_ head: ResponseHead, to request: OutgoingRequest) async throws -> MiddlewareDecision {
        for value in head.fields.values(for: "Set-Cookie") { jar.store(setCookie: value, from: request.url) }
        return .proceed
    }
}
