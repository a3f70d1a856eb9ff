// HTTPClient: the public entry point of HTTPWire (client layer).
//
// A client owns a keep-alive pool and a configuration. Each call resolves the request against the base URL
// and default fields, runs one `Exchange` per hop (sending it again once on a new connection when a reused
// one turns out to be stale and that is safe), follows redirects by RedirectPolicy, and hands back the
// response: collected (`send`) or streamed (`stream`). It never touches a descriptor or errno: those stay in
// the transport.

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
    private let baseURL: Result<TargetURL, CodecError>?
    /// The last URL string resolved (against the base URL) and its result: a loop requesting one URL
    /// parses it once, not per request (parsing and normalising costs about 20k instructions).
    private let lastResolvedURL = LockedState<(text: String, url: TargetURL)?>(nil)
    /// The proxy settings parsed once (an invalid proxy URL fails each request, as an invalid base URL does).
    private let proxyRoutes: Result<ProxyRoutes, HTTPWireError>

    /// A client with the given configuration (the defaults when omitted).
    public init(configuration: ClientConfiguration = ClientConfiguration()) {
        self.configuration = configuration
        self.baseURL = configuration.baseURL.map { base in Result { () throws(CodecError) in try TargetURL(base) } }
        self.proxyRoutes = Result { () throws(HTTPWireError) in try ProxyRoutes(configuration.proxy) }
        let logger = configuration.logger
        self.pool = ConnectionPool(
            limits: configuration.pool, connectTimeout: configuration.timeouts.connect,
            tls: configuration.tls.transportSettings,
            onConnect: { connection in
                logger?(HTTPLogEvent(kind: .connected, text: "* connected to \(connection.origin)"))
            })
    }

    /// Closes idle connections and waits for busy ones to be released. Requests made afterwards fail.
    public func shutdown() async {
        await pool.shutdown()
    }

    /// How many connections this client has opened (reuse keeps it low).
    public var connectionsOpened: Int { pool.connectionsOpened }

    // MARK: Sending

    /// Sends `request` and collects the whole response body in memory, up to
    /// ``ClientConfiguration/maxCollectedBodyBytes``. Redirects are followed per the configuration.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await stream(request)
        let body = try await response.collect(upTo: configuration.maxCollectedBodyBytes)
        return HTTPResponse(
            status: response.status, reason: response.reason, version: response.version, fields: response.fields,
            trailers: response.trailers, body: body, url: response.url, interimResponses: response.interimResponses)
    }

    /// Sends `request` and returns as soon as the final response head has arrived; the body is read as you
    /// iterate ``HTTPStreamingResponse/body``.
    public func stream(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        var resolved = try resolve(request)
        let total = configuration.timeouts.total.map { Deadline.after($0) } ?? .never
        let deadlines = RequestDeadlines(idle: configuration.timeouts.idle, total: total)
        var redirectsFollowed = 0
        while true {
            let (head, interim, exchange) = try await exchange(resolved, deadlines: deadlines, isResend: false)
            // RFC 9110 §15.5.8: a 407 comes from a proxy (here, one forwarding an http:// request).
            if head.status.rawValue == 407, exchange.connection.sendsAbsoluteForm,
                let proxy = exchange.connection.origin.proxy
            {
                await Self.discard(exchange)
                throw HTTPWireError.proxyAuthenticationRequired(proxy: proxy.description)
            }
            let policy = configuration.redirects
            let redirect: ResolvedRequest?
            do {
                redirect =
                    policy.maxRedirects > 0
                    ? try policy.nextRequest(
                        after: head.status.rawValue,
                        // Only a 3xx can redirect: a 200 skips the field lookup.
                        location: head.status.kind == .redirection ? head.fields["Location"] : nil,
                        request: resolved) : nil
                if redirect != nil, redirectsFollowed >= policy.maxRedirects {
                    throw HTTPWireError.tooManyRedirects(limit: policy.maxRedirects)
                }
            } catch {
                // No response reaches the caller, so nothing else will end this exchange: without this its
                // lease stays out, and the pool (and `shutdown()`, which waits for leases) waits forever.
                exchange.abandon()
                throw error
            }
            if let next = redirect {
                redirectsFollowed += 1
                configuration.logger?(
                    HTTPLogEvent(kind: .redirect, text: "* following \(head.status.rawValue) to \(next.url)"))
                await Self.discard(exchange)
                resolved = next
                continue
            }
            // RFC 9110 §10.1.1: a client that receives 417 (Expectation Failed) in response to a request with
            // `Expect: 100-continue` SHOULD repeat it without the expectation (the body was held back).
            if head.status.rawValue == 417, resolved.expectContinue, resolved.body.isReplayable {
                await Self.discard(exchange)
                resolved.expectContinue = false
                continue
            }
            // A response without a body (HEAD, 204, 304) is complete with its head: reaching its end now
            // returns the connection to the pool even if the caller never looks at the empty body.
            let body = ResponseBody(exchange: exchange)
            if exchange.expectedBodyBytes == 0 { _ = try await exchange.nextBodyPiece() }
            return HTTPStreamingResponse(
                status: head.status, reason: head.reason, version: head.version, fields: head.fields,
                url: resolved.url, interimResponses: interim, body: body)
        }
    }

    /// One exchange, sent again once on a new connection when the machine says so (a reused connection that
    /// the server had closed, for an idempotent request with a replayable body).
    private func exchange(
        _ original: ResolvedRequest, deadlines: RequestDeadlines, isResend: Bool
    ) async throws -> (ResponseHead, [ResponseHead], Exchange) {
        let body = try await PreparedBody.prepare(original.body)
        var request = original
        if let implied = body.impliedContentType, !request.fields.contains("Content-Type") {
            request.fields.append(name: "Content-Type", value: implied)
        }
        request.expectContinue = request.expectContinue && !body.source.isNone
        if request.expectContinue { request.fields.set(name: "Expect", value: "100-continue") }
        let origin = OriginKey(
            scheme: request.url.scheme, host: request.url.host, port: request.url.port,
            proxy: try proxyRoutes.get().proxy(for: request.url))
        // Waiting in the pool's queue is bounded by the total deadline only: a request queued behind busy
        // connections is not failing to connect. Each connection attempt has the connect timeout of its own
        // (the pool's), and a failed attempt fails the oldest waiter with its error.
        // The one resend goes to a new connection: an idle one is as old as the one the server just closed.
        let lease = try await pool.lease(for: origin, deadline: deadlines.total, requiringNewConnection: isResend)
        if lease.isReused {
            configuration.logger?(HTTPLogEvent(kind: .reused, text: "* reusing connection to \(origin)"))
        }
        let exchange = Exchange(
            request: request, body: body, lease: lease, pool: pool, deadlines: deadlines,
            continueTimeout: configuration.timeouts.expectContinue, isResend: isResend, logger: configuration.logger)
        do {
            let (head, interim) = try await exchange.run()
            return (head, interim, exchange)
        } catch let resend as ResendOnNewConnection {
            guard !isResend else { throw resend.cause }
            configuration.logger?(
                HTTPLogEvent(kind: .retry, text: "* sending again on a new connection: \(resend.cause)"))
            // The original, not `request`: a multipart body sent again gets a new boundary, so the
            // Content-Type implied by this attempt's body must not carry over.
            return try await self.exchange(original, deadlines: deadlines, isResend: true)
        }
    }

    /// Reads a small redirect body to its end so the connection can be reused; a large or slow one is
    /// dropped instead, which closes its connection.
    private static func discard(_ exchange: Exchange) async {
        var budget = 64 * 1024
        while budget > 0, let piece = try? await exchange.nextBodyPiece() {
            budget -= piece.count
        }
        if !exchange.isResponseFinished { exchange.abandon() }
    }

    /// `text` parsed (and resolved against the base URL), from the one-entry cache when it was the last URL
    /// resolved. Only successes are cached: an invalid URL throws its error every time.
    private func resolveURL(_ text: String) throws(HTTPWireError) -> TargetURL {
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

    /// Applies the base URL, query items and default fields; adds `Host` (RFC 9112 §3.2: a client must send it).
    private func resolve(_ request: HTTPRequest) throws(HTTPWireError) -> ResolvedRequest {
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
    /// preference; `Task { }` does not.
    public static var reactorExecutor: any TaskExecutor { Reactor.shared }
}
