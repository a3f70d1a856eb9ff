// HTTPClient+Resolve: turning an `HTTPRequest` into the request that goes on the wire — the URL against the
// base URL, the query items, the default fields, the credentials — and letting middleware adapt each hop and
// judge each head (client layer).
//
// Credentials, most specific first (RFC 9110 §11.6.2 has one `Authorization` field per request): a field
// the request sets itself; `user:password@` in the request's URL, or in the base URL when the request goes to
// the base URL's origin (RFC 7617 Basic, UTF-8); the request's `options.authorization`; the client's. The
// userinfo is then taken out of the URL, so nothing later — the target, `Host`, a log line, a redirect —
// can carry it. Nothing here opens a connection.

import HTTPWireCodec
import HTTPWireTransport

extension HTTPClient {
    /// `text` parsed (and resolved against the base URL), from the one-entry cache when it was the last URL
    /// resolved. Only successes are cached: an invalid URL throws its error every time.
    func resolveURL(_ text: String) throws(HTTPWireError) -> TargetURL {
        if let cached = lastResolvedURL.withLock({ $0 }), cached.text == text { return cached.url }
        let url: TargetURL
        do {
            if let base = baseURL {
                url = try base.get().resolving(text)
            } else {
                url = try TargetURL(text)
            }
        } catch {
            throw .invalidURL("\(error)")
        }
        lastResolvedURL.withLock { $0 = (text, url) }
        return url
    }

    /// Applies the base URL, query items, default fields and credentials; `Host` is the exchange's (RFC 9112
    /// §3.2: a client must send it, from the URL of each hop).
    func resolve(_ request: HTTPRequest, settings: RequestOptions.Effective) throws(HTTPWireError) -> ResolvedRequest {
        var url = try resolveURL(request.url)
        if !request.queryItems.isEmpty {
            url = url.appendingQueryItems(request.queryItems.map { (name: $0.name, value: $0.value) })
        }
        var fields = HTTPFields()
        for field in configuration.defaultFields where !request.fields.contains(field.name) {
            fields.append(field)
        }
        for field in request.fields where !HTTPFields.namesMatch(field.name, "Host") {
            fields.append(field)
        }
        if !fields.contains("Authorization"), let credentials = try credentials(for: url, settings: settings) {
            fields.append(name: "Authorization", value: credentials)
        }
        // RFC 9110 §12.5.3: offer the codings the client decodes, unless the caller chose its own; never on a
        // Range request (§14: a range of an encoded representation is not a range of the file).
        if settings.contentDecoding.isEnabled, settings.offersContentCodings, !fields.contains("Accept-Encoding"),
            !fields.contains("Range")
        {
            fields.append(name: "Accept-Encoding", value: "gzip, deflate")
        }
        url.userInfo = nil
        do {
            try RequestEncoder.validate(request.method)
            try RequestEncoder.validate(fields)
        } catch {
            throw .invalidRequest("\(error)")
        }
        return ResolvedRequest(
            method: request.method, url: url, fields: fields, body: request.body,
            expectContinue: request.expectContinue,
            // One meter per send: progress stays monotonic across redirects and retries, with speed and ETA.
            uploadProgress: UploadProgressMeter.wrap(request.uploadProgress))
    }

    /// The `Authorization` value for a request to `url` without one of its own, or nil for none.
    private func credentials(for url: TargetURL, settings: RequestOptions.Effective) throws(HTTPWireError) -> String? {
        var userInfo = url.userInfo
        if userInfo == nil, let base = try? baseURL?.get(), let baseUserInfo = base.userInfo,
            RedirectPolicy.sameOrigin(base, url)
        {
            userInfo = baseUserInfo
        }
        if let userInfo {
            return try Authorization.basic(user: userInfo.user, password: userInfo.password ?? "").fieldValue()
        }
        return try settings.authorization?.fieldValue()
    }

    /// The hop after every adapter has changed it; the fields are checked again, since an adapter could
    /// have put a CR or LF in a value.
    @inline(never)  // an async callee inlined into stream(_:) adds its slots to the per-request frame
    func adapt(_ hop: ResolvedRequest, chain: RetryChain, counters: MetricsCounters) async throws -> ResolvedRequest {
        var outgoing = chain.outgoing(hop, redirects: counters.redirects)
        for handler in middleware { try await handler.adapt(&outgoing) }
        var adapted = hop
        adapted.method = outgoing.method
        adapted.url = outgoing.url
        adapted.url.userInfo = nil
        adapted.fields = outgoing.fields
        do {
            try RequestEncoder.validate(adapted.method)
            try RequestEncoder.validate(adapted.fields)
        } catch {
            throw HTTPWireError.invalidRequest("\(error)")
        }
        return adapted
    }

    /// Shows the interim heads, then the final (or redirect) head, to every handler in order — each handler
    /// sees every head, so a cookie store after a retrying handler still sees the 401's `Set-Cookie` — and
    /// returns the delay of the first handler that asked for a retry of `head`, or nil. Decisions about 1xx
    /// heads are ignored.
    @inline(never)  // an async callee inlined into stream(_:) adds its slots to the per-request frame
    func handlersAskForRetry(
        _ head: ResponseHead, interim: [ResponseHead], to request: OutgoingRequest
    ) async throws -> Duration? {
        let handlers = middleware
        for interimHead in interim {
            for handler in handlers { _ = try await handler.handle(interimHead, to: request) }
        }
        var retryDelay: Duration?
        for handler in handlers {
            if case .retry(let delay) = try await handler.handle(head, to: request), retryDelay == nil {
                retryDelay = delay
            }
        }
        return retryDelay
    }
}
