// HTTPClient: the public entry point of HTTPWire (client layer).
//
// A client owns a keep-alive pool and a configuration. Each call resolves the request against the base URL,
// default fields and credentials (`HTTPClient+Resolve.swift`), then runs the one loop every request runs:
// the middleware adapts the hop, one `Exchange` carries it (sent again once on a new connection when a
// reused one turns out to be stale and that is safe), the handlers see the heads, and the client follows a
// redirect (RedirectPolicy), retries (RetryPolicy, or a handler's request, waiting on the reactor's clock)
// or validates (ResponseValidation) and hands back the response: collected (`send`) or streamed (`stream`).
// What the loop does between two exchanges — redirects, retries, draining, refusing — is in
// `HTTPClient+Hops.swift`.
// It never touches a descriptor or errno: those stay in the transport.

import HTTPWireCodec
import HTTPWireTransport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An HTTP/1.1 client with a keep-alive connection pool.
///
/// ```swift
/// var configuration = ClientConfiguration()
/// configuration.baseURL = "https://api.example.test/"
/// let client = HTTPClient(configuration: configuration)
/// let user = try await client.get("users/42").decode(User.self)
/// let created = try await client.post("users", json: User(name: "Ada"))
/// await client.shutdown()
/// ```
///
/// Create one client and share it: connections to the same origin (scheme, host, port) are reused across
/// requests and tasks, up to ``ClientConfiguration/PoolLimits/maxConnectionsPerOrigin`` at once.
public final class HTTPClient: Sendable {
    /// The configuration the client was created with.
    public let configuration: ClientConfiguration
    let pool: ConnectionPool
    /// The base URL parsed once, not per request (nil without one; the error is reported by each request).
    let baseURL: Result<TargetURL, CodecError>?
    /// The last URL string resolved (against the base URL) and its result: a loop requesting one URL
    /// parses it once, not per request (parsing and normalising costs about 20k instructions).
    let lastResolvedURL = LockedState<(text: String, url: TargetURL)?>(nil)
    /// The pool key of the last request's origin: requests to one origin share one key object, which the
    /// pool's dictionaries then compare by identity (making a key hashes its host name and allocates).
    private let lastOrigin = LockedState<OriginKey?>(nil)
    /// The proxy settings parsed once (an invalid proxy URL fails each request, as an invalid base URL does).
    private let proxyRoutes: Result<ProxyRoutes, HTTPWireError>
    /// The configured middleware, then the cookie jar's (when there is one): the chain every request runs.
    let middleware: [any HTTPMiddleware]
    /// The settings of a request that overrides nothing, made once: most requests use them, and each would
    /// otherwise build the same object (an allocation and a retain per field).
    private let defaultSettings: RequestOptions.Effective

    /// The settings `request` runs with: its options merged with the configuration.
    @inline(__always)
    func settings(for request: HTTPRequest) -> RequestOptions.Effective {
        request.options.overridesNothing ? defaultSettings : RequestOptions.Effective(request.options, configuration)
    }

    /// A client with the given configuration (the defaults when omitted).
    public init(configuration: ClientConfiguration = ClientConfiguration()) {
        self.configuration = configuration
        self.baseURL = configuration.baseURL.map { base in Result { () throws(CodecError) in try TargetURL(base) } }
        // Through a Unix-domain socket, the socket is the route: no proxy (ClientConfiguration.unixSocketPath).
        self.proxyRoutes =
            configuration.unixSocketPath != nil
            ? .success(.direct) : Result { () throws(HTTPWireError) in try ProxyRoutes(configuration.proxy) }
        self.middleware = configuration.middleware + (configuration.cookieJar.map { [CookieMiddleware(jar: $0)] } ?? [])
        self.defaultSettings = RequestOptions.Effective(RequestOptions(), configuration)
        let logger = configuration.logger
        self.pool = ConnectionPool(
            limits: configuration.pool, connectTimeout: configuration.timeouts.connect,
            tls: configuration.tls.transportSettings, addressOverrides: configuration.addressOverrides,
            hostOverrides: configuration.hostOverrides,
            unixSocketPath: configuration.unixSocketPath, addressFamily: configuration.addressFamily,
            onConnect: { connection in
                // A Unix-domain peer has no port: name its socket file.
                let socketFile = connection.remotePort == nil ? " via \(connection.remoteAddress)" : ""
                logger?(HTTPLogEvent(kind: .connected, text: "* connected to \(connection.origin)\(socketFile)"))
            })
    }

    /// Closes idle connections and waits for busy ones to be released. Requests made afterwards fail.
    @concurrent public func shutdown() async {
        await pool.shutdown()
    }

    /// How many connections this client has opened (reuse keeps it low).
    public var connectionsOpened: Int { pool.connectionsOpened }

    // MARK: Sending

    /// Sends `request` and collects the whole response body in memory, up to
    /// ``ClientConfiguration/maxCollectedBodyBytes``. Redirects are followed, retries made and the response
    /// validated per the request's ``HTTPRequest/options`` and the configuration. With a
    /// ``ClientConfiguration/cache``, a GET may be answered from it (``HTTPResponse/cacheStatus`` says).
    @concurrent public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if let cache = configuration.cache { return try await send(request, through: cache) }
        return try await collect(request)
    }

    /// ``send(_:)`` without the cache: the request's response, collected.
    func collect(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await stream(request)
        let body = try await response.collect(upTo: configuration.maxCollectedBodyBytes)
        var collected = HTTPResponse(
            status: response.status, reason: response.reason, version: response.version, fields: response.fields,
            trailers: response.trailers, body: body, url: response.url, interimResponses: response.interimResponses,
            metrics: response.metrics)
        collected.jsonDecoder = response.jsonDecoder
        return collected
    }

    /// The most retries middleware handlers may ask for in one request (on top of the retry policy's own):
    /// enough for a token refresh and a second thought, not enough for a handler that always says "retry"
    /// to loop forever.
    public static let maxMiddlewareRetries = 3

    /// Sends `request` and returns as soon as the final response head has arrived; the body is read as you
    /// iterate ``HTTPStreamingResponse/body``.
    ///
    /// The one loop every request runs (``HTTPClient/send(_:)``, uploads and downloads included): adapt
    /// the hop (middleware), run one exchange, show the heads to the handlers, then follow a redirect,
    /// retry (a handler's request or the ``RetryPolicy``'s, waiting on the reactor's clock) or validate and
    /// return. A retry sends the current hop again; a redirect starts a new hop.
    @concurrent public func stream(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        let startNanoseconds = Deadline.nowNanoseconds()
        let settings = settings(for: request)
        var hop = try resolve(request, settings: settings)
        let total = settings.totalTimeout.map { Deadline.after($0) } ?? .never
        var deadlines = RequestDeadlines(idle: settings.idleTimeout, total: total)
        deadlines.head = settings.headTimeout
        var counters = MetricsCounters(startNanoseconds: startNanoseconds)
        var chain = RetryChain(originalURL: hop.url)
        let middleware = self.middleware
        while true {
            let sent = middleware.isEmpty ? hop : try await adapt(hop, chain: chain, counters: counters)
            let head: ResponseHead
            let interim: [ResponseHead]
            let exchange: Exchange
            do {
                (head, interim, exchange) = try await self.exchange(
                    sent, settings: settings, deadlines: deadlines, isResend: false)
            } catch let failure as HTTPWireError {
                chain.failedAttempts += 1
                guard hop.body.isReplayable,
                    let delay = settings.retry.retryDelay(
                        afterAttempt: chain.failedAttempts, outcome: .error(failure), method: sent.method,
                        deadline: total)
                else { throw failure }
                try await retry(after: delay, because: .failure(failure), chain: &chain, counters: &counters)
                continue
            }
            // RFC 9110 §15.5.8: a 407 comes from a proxy (here, one forwarding an http:// request).
            if head.status.rawValue == 407, exchange.connection.sendsAbsoluteForm,
                let proxy = exchange.connection.origin.proxy
            {
                await Self.discard(exchange)
                throw HTTPWireError.proxyAuthenticationRequired(proxy: proxy.description)
            }
            // RFC 9111 §4.4: a POST, PUT or DELETE that succeeds makes the stored responses for its URL stale.
            if configuration.cache != nil {
                invalidateCache(after: head, to: sent.method, hop: hop.url, sent: sent.url)
            }
            if !exchange.lease.isReused { counters.connectionsOpened += 1 }
            var outgoing: OutgoingRequest?
            if !middleware.isEmpty {
                let seen = chain.outgoing(sent, redirects: counters.redirects)
                outgoing = seen
                if try await handlersRetry(
                    head, interim: interim, exchange: exchange, seen: seen, hop: hop,
                    total: total, chain: &chain, counters: &counters)
                {
                    continue
                }
            }
            let policy = settings.redirects
            if policy.maxRedirects > 0, head.status.kind == .redirection {
                let redirect: ResolvedRequest?
                do {
                    redirect = try Self.redirect(after: head, from: hop, sent: sent, policy: policy)
                } catch {
                    exchange.abandon()
                    throw error
                }
                if let next = redirect {
                    guard counters.redirects < policy.maxRedirects else {
                        await Self.discard(exchange)
                        throw HTTPWireError.tooManyRedirects(limit: policy.maxRedirects)
                    }
                    counters.redirects += 1
                    configuration.logger?(
                        HTTPLogEvent(kind: .redirect, text: "* following \(head.status.rawValue) to \(next.url)"))
                    await Self.discard(exchange)
                    hop = next
                    chain.hopAttempt = 1
                    continue
                }
            }
            // RFC 9110 §10.1.1: a client that receives 417 (Expectation Failed) in response to a request with
            // `Expect: 100-continue` SHOULD repeat it without the expectation (the body was held back).
            if head.status.rawValue == 417, hop.expectContinue, hop.body.isReplayable {
                await Self.discard(exchange)
                hop.expectContinue = false
                continue
            }
            if settings.retry.retryableStatuses.contains(head.status.rawValue), hop.body.isReplayable {
                chain.failedAttempts += 1
                if let delay = settings.retry.retryDelay(
                    afterAttempt: chain.failedAttempts, outcome: .status(head.status.rawValue, head.fields),
                    method: sent.method, deadline: total)
                {
                    await Self.discard(exchange)
                    try await retry(
                        after: delay, because: .status(head.status.rawValue), chain: &chain, counters: &counters)
                    continue
                }
            }
            return try await finish(
                head, interim: interim, exchange: exchange, url: sent.url, outgoing: outgoing, settings: settings,
                counters: counters)
        }
    }

    /// The last step of ``stream(_:)`` for a head that is the answer: content and middleware decoders, the
    /// validation, and the response. Its own function, so that its locals stay out of the loop's async frame
    /// (every local of an async function that lives across an `await` is a slot in the frame, allocated
    /// per request: in one function the loop's frame had grown to 11 KB).
    @inline(never)  // an async callee inlined into stream(_:) adds its slots to the per-request frame
    private func finish(
        _ head: ResponseHead, interim: [ResponseHead], exchange: Exchange, url: TargetURL, outgoing: OutgoingRequest?,
        settings: RequestOptions.Effective, counters: MetricsCounters
    ) async throws -> HTTPStreamingResponse {
        var finalHead = head
        var decoders: [any ResponseBodyDecoder] = []
        // Content decoding is closest to the wire: it runs first, and middleware decoders see its head.
        if exchange.expectedBodyBytes != 0 {
            do {
                if let decoder = try ContentDecoder.make(for: &finalHead, settings: settings.contentDecoding) {
                    decoders.append(decoder)
                }
            } catch {
                exchange.abandon()
                throw error
            }
        }
        if let outgoing {
            for handler in middleware {
                if let decoder = handler.bodyDecoder(for: &finalHead, to: outgoing) { decoders.append(decoder) }
            }
        }
        // A response without a body (HEAD, 204, 304) is complete with its head: reaching its end now
        // returns the connection to the pool even if the caller never looks at the empty body.
        let body = ResponseBody(exchange: exchange, decoders: decoders)
        if let validation = settings.validation,
            let rule = validation.violation(of: finalHead, announcesNoBody: exchange.expectedBodyBytes == 0)
        {
            throw await Self.rejection(finalHead, url: url, body: body, rule: rule)
        }
        if exchange.expectedBodyBytes == 0 { _ = try await exchange.nextBodyPiece() }
        return HTTPStreamingResponse(
            status: finalHead.status, reason: finalHead.reason, version: finalHead.version,
            fields: finalHead.fields, url: url, interimResponses: interim, body: body, counters: counters,
            jsonDecoder: settings.jsonDecoder)
    }

    /// The pool key for `url`'s origin reached through `proxy`: the last request's key when it names the same
    /// origin and route, otherwise a new one, which becomes the last.
    private func originKey(for url: TargetURL, proxy: ProxyEndpoint?) -> OriginKey {
        if let last = lastOrigin.withLock({ $0 }),
            last.matches(scheme: url.scheme, host: url.host, port: url.port, proxy: proxy)
        {
            return last
        }
        let origin = OriginKey(scheme: url.scheme, host: url.host, port: url.port, proxy: proxy)
        lastOrigin.withLock { $0 = origin }
        return origin
    }

    /// One exchange, sent again once on a new connection when the machine says so (a reused connection that
    /// the server had closed, for an idempotent request with a replayable body).
    private func exchange(
        _ original: ResolvedRequest, settings: RequestOptions.Effective, deadlines: RequestDeadlines, isResend: Bool
    ) async throws -> (ResponseHead, [ResponseHead], Exchange) {
        let body: PreparedBody
        if let inMemory = PreparedBody.inMemory(original.body) {
            body = inMemory
        } else {
            body = try await PreparedBody.prepare(original.body)
        }
        var request = original
        if let implied = body.impliedContentType, !request.fields.contains("Content-Type") {
            request.fields.append(name: "Content-Type", value: implied)
        }
        request.expectContinue = request.expectContinue && !body.source.isNone
        if request.expectContinue { request.fields.set(name: "Expect", value: "100-continue") }
        let origin = originKey(for: request.url, proxy: try proxyRoutes.get().proxy(for: request.url))
        // Waiting in the pool's queue is bounded by the total deadline only: a request queued behind busy
        // connections is not failing to connect. Each connection attempt has the connect timeout of its own
        // (the request's), and a failed attempt fails the oldest waiter with its error.
        // The one resend goes to a new connection: an idle one is as old as the one the server just closed.
        let lease = try await pool.lease(
            for: origin, deadline: deadlines.total, connectTimeout: settings.connectTimeout,
            requiringNewConnection: isResend)
        if lease.isReused {
            configuration.logger?(HTTPLogEvent(kind: .reused, text: "* reusing connection to \(origin)"))
        }
        let exchange = Exchange(
            request: request, body: body, lease: lease, pool: pool, deadlines: deadlines,
            continueTimeout: settings.expectContinueTimeout, isResend: isResend, logger: configuration.logger)
        do {
            let (head, interim) = try await exchange.run()
            return (head, interim, exchange)
        } catch let resend as ResendOnNewConnection {
            guard !isResend else { throw resend.cause }
            configuration.logger?(
                HTTPLogEvent(kind: .retry, text: "* sending again on a new connection: \(resend.cause)"))
            // The original, not `request`: a multipart body sent again gets a new boundary, so the
            // Content-Type implied by this attempt's body must not carry over.
            return try await self.exchange(original, settings: settings, deadlines: deadlines, isResend: true)
        }
    }

}

extension PreparedBody.Source {
    var isNone: Bool {
        if case .none = self { return true }
        return false
    }
}

extension HTTPClient {
    /// The thread that waits on every HTTPWire socket (the reactor), as a task executor: code inside
    /// `withTaskExecutorPreference(HTTPClient.reactorExecutor) { ... }` runs on that thread.
    ///
    /// ```swift
    /// try await withTaskExecutorPreference(HTTPClient.reactorExecutor) {
    ///     for id in 1...5_000 { _ = try await client.get("items/\(id)") }
    /// }
    /// ```
    ///
    /// Why: by default a task runs on Swift's cooperative pool, and each response that has to be waited for
    /// costs two thread wake-ups — the reactor's, when the socket becomes readable, and a pool thread's, to
    /// resume the task. On the reactor the task is resumed by the very thread that saw the socket ready, and
    /// its own socket calls are made there: one wake-up per response, as in a single-threaded event loop
    /// like curl's. It pays off for loops of small requests and for many requests in flight.
    ///
    /// The rule that comes with it: code running there must not block (no synchronous file or socket I/O, no
    /// long computation, no semaphore waits), because while it runs no socket of the process is served.
    /// HTTPWire's own blocking work (DNS, disk) already runs on its worker threads. Child tasks inherit the
    /// preference; `Task { }` does not. A download started there (``download(from:to:options:)-(String,_,_)``) runs
    /// its own tasks there too, so only its disk writes leave the thread.
    public static var reactorExecutor: any TaskExecutor { Reactor.shared }
}
