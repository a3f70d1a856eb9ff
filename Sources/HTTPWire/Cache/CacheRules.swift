// CacheRules: the rules of RFC 9111 that decide what a private cache may store, which stored response
// answers a request, how a 304 updates it, and what an unsafe request invalidates (client layer, cache).
// Pure functions over fields and directives; `HTTPCache` keeps the responses, `HTTPClient+Cache` runs them.
//
// HTTPWire's cache is a *private* cache (RFC 9111 §1): it serves one client, like a browser's or
// URLSession's. So `private` responses and responses to requests with `Authorization` may be stored (§3.5
// restricts only shared caches), and `s-maxage` and `proxy-revalidate` do not apply.

import HTTPWireCodec

/// RFC 9111's decisions, as functions a test can call one by one.
enum CacheRules {
    /// Statuses "heuristically cacheable" (RFC 9110 §15.1): stored and given a heuristic lifetime without
    /// explicit freshness information (`CachedResponse` holds the list, with the rest of §4.2).
    static var heuristicallyCacheable: Set<Int> { CachedResponse.heuristicallyCacheable }

    /// Statuses whose caching rules this cache knows, for `must-understand` (§5.2.2.3): the heuristically
    /// cacheable ones. 206 is not among them: the cache does not combine partial responses.
    static let understoodStatuses = heuristicallyCacheable.subtracting([206])

    /// Fields never stored (§3.1): the connection's own (`Connection` and the fields it names, RFC 9110
    /// §7.6.1) and the proxy's credentials, which belong to one hop, not to the response.
    static let unstoredFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "trailer", "upgrade",
        "proxy-authenticate", "proxy-authentication-info", "proxy-authorization",
    ]

    /// Whether a request may be answered from the cache at all, or stored from. §4: a stored response
    /// answers a GET for the same URL. A request with a body, a `Range` (this cache keeps whole bodies only)
    /// or validators of the caller's own (the caller is running its own validation, RFC 9110 §13) goes to
    /// the server as it is.
    static func mayUseCache(method: Method, fields: HTTPFields, hasBody: Bool) -> Bool {
        guard method == .get, !hasBody else { return false }
        for name in ["Range", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range"]
        where fields.contains(name) {
            return false
        }
        return true
    }

    /// The request's cache directives. `Pragma: no-cache` in a request that has no `Cache-Control` field counts
    /// as `Cache-Control: no-cache`: RFC 7234 §5.4's rule for HTTP/1.0 clients, which send only `Pragma`
    /// (RFC 9111 §5.4 deprecates the field and no longer states the rule; honouring it errs towards asking).
    static func requestDirectives(_ fields: HTTPFields) -> CacheControl {
        var directives = CacheControl(fields)
        if !fields.contains("Cache-Control"), fields.tokens(for: "Pragma").contains("no-cache") {
            directives.directives.append(CacheControl.Directive(name: "no-cache", argument: nil))
        }
        return directives
    }

    /// Why a response to a GET may not be stored, or nil when §3 allows it. `requestFields` are the fields
    /// of the request as the caller built it; `hasMiddleware` says whether middleware may have added fields
    /// the cache did not see.
    static func reasonNotToStore(
        status: Int, fields: HTTPFields, requestFields: HTTPFields, requestDirectives: CacheControl,
        hasMiddleware: Bool
    ) -> String? {
        let directives = CacheControl(fields)
        // §5.2.2.3: `must-understand` stores only statuses whose rules the cache knows, and then overrides
        // `no-store` (it exists so that a server can use new statuses safely).
        let mustUnderstand = directives.contains("must-understand")
        if mustUnderstand, !understoodStatuses.contains(status) { return "must-understand, status \(status)" }
        if requestDirectives.contains("no-store") { return "the request says no-store" }
        if directives.contains("no-store"), !mustUnderstand { return "the response says no-store" }
        // 206 would need the other ranges to be combined with; 304 answers a condition this cache did not set.
        // A redirect reaches the caller only when its policy said not to follow it; stored, it would answer
        // a later request whose policy says to follow it, so redirects are not cached at all.
        if status < 200 || status == 206 || (300..<400).contains(status) { return "status \(status)" }
        let vary = fields.tokens(for: "Vary")
        // §4.1: `Vary: *` never matches a later request.
        if vary.contains("*") { return "Vary: *" }
        // The cache matches Vary against the request the caller built. Middleware may add a field after the
        // lookup (a cookie, a token) that the server's answer depends on; a response that varies on a field
        // the built request lacks is then not stored, rather than served to a request it does not match.
        if hasMiddleware, let missing = vary.first(where: { !requestFields.contains($0) }) {
            return "Vary names \(missing), which middleware may set"
        }
        // §3: explicit freshness information, or a status that allows a heuristic.
        let explicit =
            directives.contains("max-age") || fields.contains("Expires") || directives.contains("public")
            || directives.contains("private")
        if !explicit, !heuristicallyCacheable.contains(status) { return "status \(status) without freshness" }
        return nil
    }

    /// The fields to store: all the response's (§3.1: unknown ones too), less the connection's and the
    /// proxy's.
    static func storedFields(_ fields: HTTPFields) -> HTTPFields {
        let named = Set(fields.tokens(for: "Connection"))
        return HTTPFields(
            fields.filter { field in
                let name = field.name.lowercasedASCII()
                return !unstoredFields.contains(name) && !named.contains(name)
            })
    }

    /// For each field `Vary` names, the request's value (§4.1), normalised by `selectingValue`.
    static func selectingFields(vary: HTTPFields, request: HTTPFields) -> [(name: String, value: String?)] {
        vary.tokens(for: "Vary").map { name in (name, selectingValue(name, in: request)) }
    }

    /// A request field's value for Vary matching: every line of it joined, the whitespace around its commas
    /// removed (§4.1 allows both transformations when comparing); nil when the request has none.
    static func selectingValue(_ name: String, in fields: HTTPFields) -> String? {
        let values = fields.values(for: name)
        guard !values.isEmpty else { return nil }
        return values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingWhitespace() }.joined(separator: ",")
    }

    /// Whether a stored response's selecting fields match a new request's (§4.1): every field Vary named has
    /// the same value in both, or is absent from both.
    static func matches(_ stored: [(name: String, value: String?)], request: HTTPFields) -> Bool {
        stored.allSatisfy { selectingValue($0.name, in: request) == $0.value }
    }

    /// What the cache may do with a stored response for a request with `requestDirectives`, `age` seconds
    /// old with `lifetime` seconds of freshness (§4, §4.2.4, §5.2.1).
    enum Use: Equatable {
        /// Send it without asking the server.
        case serve
        /// Ask the server first (a conditional request when it has a validator).
        case validate
    }

    /// §5.2.1 and §5.2.2 applied to one stored response.
    static func use(lifetime: Int64, age: Int64, response: CacheControl, request: CacheControl) -> Use {
        // §5.2.1.4 and §5.2.2.4: `no-cache` on either side means "ask the server every time". A qualified
        // `no-cache="Set-Cookie"` is treated as unqualified: the safe reading §5.2.2.4 allows.
        if request.contains("no-cache") || response.contains("no-cache") { return .validate }
        // §5.2.1.1: the client accepts nothing older than max-age.
        if let maxAge = request.seconds("max-age") {
            guard case .value(let limit) = maxAge, age <= limit else { return .validate }
        }
        let remaining = lifetime - age
        if remaining > 0 {
            // §5.2.1.3: min-fresh asks for a response that stays fresh at least that long.
            if let minFresh = request.seconds("min-fresh") {
                guard case .value(let wanted) = minFresh, remaining >= wanted else { return .validate }
            }
            return .serve
        }
        // Stale. §4.2.4: served only when the client allows it with max-stale (§5.2.1.2; without a value,
        // any staleness), and never when the server said must-revalidate (§5.2.2.2).
        guard !response.contains("must-revalidate"),
            let maxStale = request.directives.first(where: {
                $0.name == "max-stale"
            })
        else { return .validate }
        guard let argument = maxStale.argument else { return .serve }
        guard let allowed = CacheControl.deltaSeconds(argument), -remaining <= allowed else { return .validate }
        return .serve
    }

    /// The statuses RFC 5861 §4 counts as an error for `stale-if-error`.
    static let serverErrors: Set<Int> = [500, 502, 503, 504]

    /// Whether a failure means the server gave no answer (RFC 5861 §4's "error"): no name, no connection, a
    /// timeout, a connection that ended early or a reply that is no HTTP. A certificate or pin refused is
    /// not among them: that failure must be seen, not papered over with an old response.
    static func isServerUnreachable(_ failure: HTTPWireError) -> Bool {
        switch failure {
        case .couldNotResolveHost, .couldNotConnect, .timedOut, .emptyReply, .sendFailed, .receiveFailed,
            .bodyTruncated, .malformedResponse, .couldNotResolveProxy, .proxyTunnelFailed, .socksProxyFailed:
            return true
        default:
            return false
        }
    }

    /// Whether a stale response may stand in for a failed request (RFC 5861 §4): `stale-if-error=N` in the
    /// response or the request, and staleness (age past the lifetime) of at most N seconds. Never when the
    /// response said `must-revalidate` or `no-cache` (RFC 9111 §4.2.4: a stale response that an explicit
    /// directive prohibits is not generated).
    static func mayServeAfterError(lifetime: Int64, age: Int64, response: CacheControl, request: CacheControl) -> Bool {
        guard !response.contains("must-revalidate"), !response.contains("no-cache") else { return false }
        let staleness = max(0, age - lifetime)
        for directives in [request, response] {
            if case .value(let window) = directives.seconds("stale-if-error"), staleness <= window { return true }
        }
        return false
    }

    /// Whether a stale response may be returned at once while the cache validates it in the background
    /// (RFC 5861 §3): the response's `stale-while-revalidate=N` and a staleness of at most N seconds. Never
    /// when a directive asks for a checked answer: the response's `must-revalidate` or `no-cache` (RFC 9111
    /// §4.2.4), or the request's `no-cache`, `max-age` or `min-fresh` (a pull to refresh, or a caller that
    /// wants something fresher than this).
    static func mayServeWhileRevalidating(
        lifetime: Int64, age: Int64, response: CacheControl, request: CacheControl
    ) -> Bool {
        guard !response.contains("must-revalidate"), !response.contains("no-cache"), !request.contains("no-cache"),
            !request.contains("max-age"), !request.contains("min-fresh"),
            case .value(let window) = response.seconds("stale-while-revalidate")
        else { return false }
        let staleness = age - lifetime
        return staleness > 0 && staleness <= window
    }

    /// The fields that make a request conditional on the stored response (§4.3.1): `If-None-Match` with its
    /// entity tag (a MUST when it has one) and `If-Modified-Since` with its `Last-Modified` (a SHOULD; a
    /// server that knows `If-None-Match` ignores it, RFC 9110 §13.1.3); empty when it has neither.
    static func validators(of stored: CachedResponse) -> HTTPFields {
        var fields = HTTPFields()
        if let tag = stored.entityTag { fields.append(name: "If-None-Match", value: tag) }
        if let modified = stored.lastModified { fields.append(name: "If-Modified-Since", value: modified) }
        return fields
    }

    /// Whether a 304 speaks of the stored response (§4.3.4): its entity tag is the stored one, or it has
    /// none and its `Last-Modified`, when it has one, is the stored one. Otherwise the 304 is about some
    /// other representation and must not update this one. Lenient in one case: §4.3.4 selects a stored
    /// response with a validator only by that validator, but a 304 carrying none answers the one condition
    /// this cache sent (RFC 9110 §15.4.5 asks servers to repeat the ETag; not all do), so it is taken.
    static func notModified(_ fields: HTTPFields, describes stored: CachedResponse) -> Bool {
        if let tag = fields["ETag"] { return tag == stored.entityTag }
        if let modified = fields["Last-Modified"] { return modified == stored.lastModified }
        return true
    }

    /// The stored fields updated from a 304 (§3.2, §4.3.4): each field the 304 carries replaces every
    /// stored field of that name, except `Content-Length` (the stored body is still the stored body),
    /// `Content-Encoding` (the stored body was decoded) and the fields never stored.
    static func freshenedFields(_ stored: HTTPFields, with notModified: HTTPFields) -> HTTPFields {
        let kept: Set<String> = ["content-length", "content-encoding"]
        let update = storedFields(notModified).filter { !kept.contains($0.name.lowercasedASCII()) }
        // The stored `Age` was the old response's age on arrival; the freshened one starts from the 304's
        // (none when it sends none), or its lifetime would be spent before it is used.
        let replaced = Set(update.map { $0.name.lowercasedASCII() }).union(["age"])
        var fields = HTTPFields(stored.filter { !replaced.contains($0.name.lowercasedASCII()) })
        for field in update { fields.append(field) }
        return fields
    }

    /// Whether `only-if-cached` may take a stored response that is not fresh enough (§5.2.1.7 with §4.2.4):
    /// the request cannot go to the server, which is the "disconnected" case where serving stale is allowed,
    /// unless the response said `must-revalidate` or `no-cache`, or the request itself said `no-cache`.
    /// Otherwise the answer is 504.
    static func mayServeOnlyIfCached(response: CacheControl, request: CacheControl) -> Bool {
        !response.contains("must-revalidate") && !response.contains("no-cache") && !request.contains("no-cache")
    }

    /// The URLs an unsafe request's non-error response invalidates (§4.4): its target, and the `Location`
    /// and `Content-Location` it names when they are on the same origin (another origin's must be left
    /// alone, or one site could evict another's responses).
    static func invalidatedURLs(target: TargetURL, responseFields: HTTPFields) -> [TargetURL] {
        var urls = [target]
        for name in ["Location", "Content-Location"] {
            if let value = responseFields[name], let url = try? target.resolving(value.trimmingWhitespace()),
                RedirectPolicy.sameOrigin(url, target)
            {
                urls.append(url)
            }
        }
        return urls
    }
}
