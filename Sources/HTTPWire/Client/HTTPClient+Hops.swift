// HTTPClient+Hops: what the request loop in HTTPClient.swift does between two exchanges (client layer) —
// show a head to the middleware handlers and wait when one asks for a retry, make the next hop of a
// redirect, wait before a retry, drain a small body so its connection can be reused, and turn a response
// that failed validation into its error with a body preview. None of these is on the way of a plain GET:
// `stream(_:)` calls them only when a response redirects, is retried or is refused. Each is a function of
// its own, not inlined, so that its locals stay out of the loop's per-request async frame.

import HTTPWireCodec
import HTTPWireTransport

extension HTTPClient {
    /// Shows the head to the middleware handlers and, when one asks for a retry that the limits allow,
    /// discards the response and waits; true means "send the hop again". A function of its own so that its
    /// locals stay out of ``stream(_:)``'s per-request frame.
    @inline(never)  // an async callee inlined into stream(_:) adds its slots to the per-request frame
    func handlersRetry(
        _ head: ResponseHead, interim: [ResponseHead], exchange: Exchange, seen: OutgoingRequest,
        hop: ResolvedRequest, total: Deadline, chain: inout RetryChain, counters: inout MetricsCounters
    ) async throws -> Bool {
        let asked: Duration?
        do {
            asked = try await handlersAskForRetry(head, interim: interim, to: seen)
        } catch {
            exchange.abandon()
            throw error
        }
        guard let delay = asked, chain.middlewareRetries < Self.maxMiddlewareRetries, hop.body.isReplayable,
            Deadline.after(delay) < total
        else { return false }
        chain.middlewareRetries += 1
        await Self.discard(exchange)
        try await retry(after: delay, because: .status(head.status.rawValue), chain: &chain, counters: &counters)
        return true
    }

    /// The next hop when `head` redirects and `policy` follows it, else nil (RFC 9110 §15.4). It is made
    /// from the hop as resolved (adapters run again for the next one), at the URL and with the method that
    /// were actually sent; credentials in a `Location` are not taken — only the caller decides where its
    /// own go. Synchronous and not inlined: its temporaries live on the thread's stack, not in the frame.
    @inline(never)
    static func redirect(
        after head: ResponseHead, from hop: ResolvedRequest, sent: ResolvedRequest, policy: RedirectPolicy
    ) throws -> ResolvedRequest? {
        var base = hop
        base.url = sent.url
        base.method = sent.method
        guard
            var next = try policy.nextRequest(
                after: head.status.rawValue, location: head.fields["Location"], request: base)
        else { return nil }
        next.url.userInfo = nil
        return next
    }

    /// Logs and waits before a retry, and counts it.
    @inline(never)  // an async callee inlined into stream(_:) adds its slots to the per-request frame
    func retry(
        after delay: Duration, because reason: RetryReason, chain: inout RetryChain, counters: inout MetricsCounters
    ) async throws {
        configuration.logger?(HTTPLogEvent(kind: .retry, text: "* retrying in \(delay) after \(reason)"))
        try await RetryPolicy.sleep(for: delay)
        chain.reasons.append(reason)
        chain.hopAttempt += 1
        counters.retries += 1
    }

    /// Reads a small redirect body to its end so the connection can be reused; a large or slow one is
    /// dropped instead, which closes its connection.
    @inline(never)  // an async callee inlined into stream(_:) adds its slots to the per-request frame
    static func discard(_ exchange: Exchange) async {
        var budget = 64 * 1024
        while budget > 0, let piece = try? await exchange.nextBodyPiece() {
            budget -= piece.count
        }
        if !exchange.isResponseFinished { exchange.abandon() }
    }

    /// The error for a response that failed validation: its head and the first
    /// ``UnacceptableResponse/bodyPreviewLimit`` bytes of its body. A body that ends within the limit leaves
    /// the connection reusable; a longer one is dropped with its connection.
    @inline(never)  // an async callee inlined into stream(_:) adds its slots to the per-request frame
    static func rejection(
        _ head: ResponseHead, url: TargetURL, body: ResponseBody, rule: UnacceptableResponse.Rule
    ) async -> HTTPWireError {
        var preview: [UInt8] = []
        var isComplete = true
        do {
            var iterator = body.makeAsyncIterator()
            while let piece = try await iterator.nextPiece() {
                preview.append(contentsOf: piece.prefix(UnacceptableResponse.bodyPreviewLimit - preview.count))
                if preview.count >= UnacceptableResponse.bodyPreviewLimit {
                    isComplete = false
                    break
                }
            }
        } catch {
            isComplete = false
        }
        body.owner.abandonIfUnfinished()
        return .unacceptableResponse(
            UnacceptableResponse(
                head: head, url: url, bodyPreview: preview, isBodyPreviewComplete: isComplete, rule: rule))
    }
}
