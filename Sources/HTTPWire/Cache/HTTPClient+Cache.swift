// HTTPClient+Cache: `send` through `ClientConfiguration.cache` — look up, serve a fresh response, validate a
// stale one with a conditional request, store what the server sends (client layer, cache).
//
// The cache sits in front of the one request loop, not inside it: a hit sends nothing, and a miss or a
// validation is an ordinary `send` of the caller's request (with `If-None-Match` added for a validation).
// So redirects, retries, middleware and content decoding work as without a cache, and the stored body is
// the one the caller received (decoded, when the client decodes gzip). The order of the steps is RFC 9111
// §4's: find a stored response that matches (§4.1), use it if fresh enough for this request (§4.2,
// §5.2.1), else validate it (§4.3), else forward; store the answer when §3 allows (here: not one reached
// through a redirect, which the cache would have to store under two URLs). When the server cannot be
// reached or answers 500, 502, 503 or 504, a stale response whose `stale-if-error` window (RFC 5861 §4)
// is still open is returned instead of the failure: the offline case of an app showing what it last saw.
// And when a stale response is within its `stale-while-revalidate` window (RFC 5861 §3), it is returned at
// once and the same validation runs in a background task, one at a time per stored response, so the screen
// shows something now and the next request gets what the server said.

import HTTPWireCodec

extension HTTPClient {
    /// ``send(_:)`` with a cache: a stored response when it may be used, else the server's.
    func send(_ request: HTTPRequest, through cache: HTTPCache) async throws -> HTTPResponse {
        let settings = settings(for: request)
        let resolved = try resolve(request, settings: settings)
        guard CacheRules.mayUseCache(method: resolved.method, fields: resolved.fields, hasBody: !request.body.isEmpty)
        else { return try await collect(request) }
        let requestDirectives = CacheRules.requestDirectives(resolved.fields)
        let requestTime = cache.clock()
        guard let stored = cache.lookup(resolved.url, fields: resolved.fields) else {
            // §5.2.1.7: `only-if-cached` with nothing stored is answered 504 (Gateway Timeout), not forwarded.
            if requestDirectives.contains("only-if-cached") {
                return try validated(Self.gatewayTimeout(resolved.url), cacheStatus: .miss, settings)
            }
            return try await fetch(request, resolved: resolved, directives: requestDirectives, cache: cache)
        }
        let age = stored.currentAge(now: requestTime)
        let use = CacheRules.use(
            lifetime: stored.freshnessLifetime, age: age, response: stored.directives, request: requestDirectives)
        if use == .serve {
            return try validated(Self.response(from: stored, age: age), cacheStatus: .hit, settings)
        }
        // §5.2.1.7: `only-if-cached` never goes to the server: the stored response when nothing forbids
        // serving it stale, else 504.
        if requestDirectives.contains("only-if-cached") {
            guard CacheRules.mayServeOnlyIfCached(response: stored.directives, request: requestDirectives) else {
                return try validated(Self.gatewayTimeout(resolved.url), cacheStatus: .miss, settings)
            }
            return try validated(Self.response(from: stored, age: age), cacheStatus: .hit, settings)
        }
        if CacheRules.mayServeWhileRevalidating(
            lifetime: stored.freshnessLifetime, age: age, response: stored.directives, request: requestDirectives)
        {
            cache.revalidateInBackground(stored.variantKey) {
                _ = try? await self.revalidate(
                    stored, age: age, request: request, resolved: resolved, directives: requestDirectives,
                    cache: cache, settings: settings)
            }
            return try validated(Self.response(from: stored, age: age), cacheStatus: .staleWhileRevalidating, settings)
        }
        return try await revalidate(
            stored, age: age, request: request, resolved: resolved, directives: requestDirectives, cache: cache,
            settings: settings)
    }

    /// Validates `stored` with the server (§4.3) and returns what the caller sees: the stored response
    /// freshened by a 304, the server's new one (stored), or — when the server cannot answer and
    /// `stale-if-error` allows it — the stored one as it is.
    private func revalidate(
        _ stored: CachedResponse, age: Int64, request: HTTPRequest, resolved: ResolvedRequest,
        directives requestDirectives: CacheControl, cache: HTTPCache, settings: RequestOptions.Effective
    ) async throws -> HTTPResponse {
        let requestTime = cache.clock()
        // §4.3.1: the same request, made conditional on the stored response's validator when it has one.
        // The caller's validation is applied afterwards, to the response it will see (a 304 is not what it
        // sees, and a 5xx may yet be replaced by the stored response).
        var conditional = request
        for field in CacheRules.validators(of: stored) { conditional.fields.append(field) }
        conditional.options.validation = .acceptingAll
        let answer: HTTPResponse
        do {
            answer = try await collect(conditional)
        } catch let failure as HTTPWireError where CacheRules.isServerUnreachable(failure) {
            guard let stale = staleAfterError(stored, age: age, request: requestDirectives) else { throw failure }
            return try validated(stale, cacheStatus: .staleAfterError, settings)
        }
        let responseTime = cache.clock()
        if CacheRules.serverErrors.contains(answer.status.rawValue),
            let stale = staleAfterError(stored, age: age, request: requestDirectives)
        {
            return try validated(stale, cacheStatus: .staleAfterError, settings)
        }
        guard answer.status.rawValue == 304, conditional.fields.count > request.fields.count else {
            // §4.3.3: a full response replaces the stored one.
            store(answer, resolved: resolved, directives: requestDirectives, requestTime: requestTime, cache: cache)
            return try validated(answer, cacheStatus: .miss, settings)
        }
        guard CacheRules.notModified(answer.fields, describes: stored) else {
            // A 304 about another representation (§4.3.4): it cannot update ours, so ask again without the
            // condition and start afresh.
            cache.remove(resolved.url)
            return try await fetch(request, resolved: resolved, directives: requestDirectives, cache: cache)
        }
        var freshened = stored
        freshened.fields = CacheRules.freshenedFields(stored.fields, with: answer.fields)
        freshened.requestTime = requestTime
        freshened.responseTime = responseTime
        if !keep(freshened, resolved: resolved, directives: requestDirectives, cache: cache) {
            cache.remove(resolved.url)
        }
        var response = Self.response(from: freshened, age: nil)
        response.metrics = answer.metrics
        return try validated(response, cacheStatus: .revalidated, settings)
    }

    /// The stored response, stale, when the server could not answer and RFC 5861's `stale-if-error` (in the
    /// response or the request) allows it; nil otherwise.
    private func staleAfterError(_ stored: CachedResponse, age: Int64, request: CacheControl) -> HTTPResponse? {
        guard
            CacheRules.mayServeAfterError(
                lifetime: stored.freshnessLifetime, age: age, response: stored.directives, request: request)
        else { return nil }
        return Self.response(from: stored, age: age)
    }

    /// The request sent as it is, its answer stored when §3 allows.
    private func fetch(
        _ request: HTTPRequest, resolved: ResolvedRequest, directives: CacheControl, cache: HTTPCache
    ) async throws -> HTTPResponse {
        let requestTime = cache.clock()
        var response = try await collect(request)
        store(response, resolved: resolved, directives: directives, requestTime: requestTime, cache: cache)
        response.cacheStatus = .miss
        return response
    }

    /// Stores `response` when RFC 9111 §3 allows it and it answered the URL asked for.
    private func store(
        _ response: HTTPResponse, resolved: ResolvedRequest, directives: CacheControl, requestTime: Int64,
        cache: HTTPCache
    ) {
        guard response.url == resolved.url else { return }
        _ = keep(
            CachedResponse(
                status: response.status, reason: response.reason, version: response.version,
                fields: CacheRules.storedFields(response.fields), body: response.body, url: resolved.url,
                selectingFields: CacheRules.selectingFields(vary: response.fields, request: resolved.fields),
                requestTime: requestTime, responseTime: cache.clock()),
            resolved: resolved, directives: directives, cache: cache)
    }

    /// Stores `cached` when RFC 9111 §3 allows it for this request; false when it does not.
    private func keep(
        _ cached: CachedResponse, resolved: ResolvedRequest, directives: CacheControl, cache: HTTPCache
    ) -> Bool {
        guard
            CacheRules.reasonNotToStore(
                status: cached.status.rawValue, fields: cached.fields, requestFields: resolved.fields,
                requestDirectives: directives, hasMiddleware: !middleware.isEmpty) == nil
        else { return false }
        cache.store(cached)
        return true
    }

    /// The 504 (Gateway Timeout) the cache answers an `only-if-cached` request with when it has nothing it
    /// may serve (§5.2.1.7): no request is sent.
    private static func gatewayTimeout(_ url: TargetURL) -> HTTPResponse {
        HTTPResponse(status: Status(rawValue: 504), url: url)
    }

    /// A response made from a stored one; with `age`, its `Age` field set to it (§4: a stored response used
    /// without validation MUST carry an `Age` field equal to its current age; §5.1 defines the field).
    private static func response(from stored: CachedResponse, age: Int64?) -> HTTPResponse {
        var fields = stored.fields
        if let age { fields["Age"] = String(age) }
        return HTTPResponse(
            status: stored.status, reason: stored.reason, version: stored.version, fields: fields,
            body: stored.body, url: stored.url)
    }

    /// `response` with its cache status, after the request's validation (which the conditional request
    /// itself was sent without).
    private func validated(
        _ response: HTTPResponse, cacheStatus: CacheStatus, _ settings: RequestOptions.Effective
    ) throws -> HTTPResponse {
        var response = response
        response.cacheStatus = cacheStatus
        response.jsonDecoder = settings.jsonDecoder
        if let validation = settings.validation,
            let rule = validation.violation(of: response.head, announcesNoBody: response.body.isEmpty)
        {
            throw HTTPWireError.unacceptableResponse(
                UnacceptableResponse(
                    head: response.head, url: response.url,
                    bodyPreview: Array(response.body.prefix(UnacceptableResponse.bodyPreviewLimit)),
                    isBodyPreviewComplete: response.body.count <= UnacceptableResponse.bodyPreviewLimit, rule: rule))
        }
        return response
    }

    /// Removes the stored responses an unsafe request's answer makes out of date (§4.4): on a 2xx or 3xx to
    /// a method that is not safe (RFC 9110 §9.2.1; one whose safety is unknown counts as unsafe).
    ///
    /// `hop` is the URL the caller asked for, the one lookups use; `sent` is the one a middleware handler
    /// may have rewritten it to, the one the server answered (and its `Location` is relative to). Both are
    /// out of date.
    func invalidateCache(after head: ResponseHead, to method: Method, hop: TargetURL, sent: TargetURL) {
        guard let cache = configuration.cache, !method.isSafe, (200..<400).contains(head.status.rawValue) else {
            return
        }
        if hop != sent { cache.remove(hop) }
        for target in CacheRules.invalidatedURLs(target: sent, responseFields: head.fields) { cache.remove(target) }
    }
}
