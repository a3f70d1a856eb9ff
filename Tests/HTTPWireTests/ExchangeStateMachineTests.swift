// Tests for ExchangeStateMachine: one exchange stepped event by event, asserting the exact action each time.
// No sockets and no clocks: "the server answered early" is the test calling responseHeadReceived mid-body.

import HTTPWire
import HTTPWireCodec
import Testing

private typealias Exchange = ExchangeStateMachine

/// An exchange whose request head and (optional) body are fully sent, waiting for the response head.
private func sentExchange(_ method: Method = .get, body: Exchange.RequestBody = .empty, reused: Bool = false)
    -> Exchange
{
    var exchange = Exchange(method: method, body: body, isReusedConnection: reused)
    _ = exchange.start()
    _ = exchange.headSent()
    if body != .empty { _ = exchange.bodyFinished() }
    return exchange
}

/// An exchange writing its body, after one chunk.
private func sendingExchange(_ method: Method = .post, body: Exchange.RequestBody = .replayable) -> Exchange {
    var exchange = Exchange(method: method, body: body, isReusedConnection: false)
    _ = exchange.start()
    _ = exchange.headSent()
    _ = exchange.bodyChunkSent()
    return exchange
}

@Suite struct ExchangeStateMachineTests {
    @Test("a GET without a body goes head, response, and back to the pool")
    func simpleGet() {
        var exchange = Exchange(method: .get, body: .empty, isReusedConnection: false)
        #expect(exchange.start() == .sendHead)
        #expect(exchange.headSent() == .wait)
        #expect(exchange.responseHeadReceived(status: 200, isKeepAlive: true) == .wait)
        #expect(!exchange.isFinished)
        #expect(exchange.responseEnded(hasUnconsumedBytes: false, isKeepAlive: true) == .returnToPool)
        #expect(exchange.isFinished)
    }

    @Test("a POST sends its body chunk by chunk before the response")
    func postWithBody() {
        var exchange = Exchange(method: .post, body: .oneShot, isReusedConnection: true)
        #expect(exchange.start() == .sendHead)
        #expect(exchange.headSent() == .sendBody)
        #expect(exchange.bodyChunkSent() == .sendBody)
        #expect(exchange.bodyChunkSent() == .sendBody)
        #expect(exchange.bodyFinished() == .wait)
        #expect(exchange.informationalReceived(status: 103) == .wait)
        #expect(exchange.responseHeadReceived(status: 201, isKeepAlive: true) == .wait)
        #expect(exchange.responseEnded(hasUnconsumedBytes: false, isKeepAlive: true) == .returnToPool)
    }

    @Test(
        "only a clean keep-alive end returns the connection to the pool",
        arguments: [(false, true, true), (true, true, false), (false, false, false), (true, false, false)])
    func reuseDecision(hasUnconsumedBytes: Bool, isKeepAlive: Bool, isReusable: Bool) {
        var exchange = sentExchange()
        _ = exchange.responseHeadReceived(status: 200, isKeepAlive: isKeepAlive)
        let action = exchange.responseEnded(hasUnconsumedBytes: hasUnconsumedBytes, isKeepAlive: isKeepAlive)
        #expect(action == (isReusable ? .returnToPool : .closeConnection))
    }

    @Test(
        "an early final response of 300 or more stops the body and closes the connection",
        arguments: [301, 401, 413, 500])
    func earlyRefusal(status: Int) {
        var exchange = sendingExchange()
        #expect(exchange.responseHeadReceived(status: status, isKeepAlive: true) == .stopSendingBody)
        #expect(exchange.bodyChunkSent() == .wait)  // a write that was already in flight
        #expect(exchange.bodyFinished() == .wait)
        #expect(exchange.responseEnded(hasUnconsumedBytes: false, isKeepAlive: true) == .closeConnection)
    }

    @Test("an early response while the head is still being written stops the request")
    func earlyResponseDuringHead() {
        var exchange = Exchange(method: .put, body: .replayable, isReusedConnection: false)
        _ = exchange.start()
        #expect(exchange.responseHeadReceived(status: 431, isKeepAlive: false) == .stopSendingBody)
        #expect(exchange.headSent() == .wait)
        #expect(exchange.responseEnded(hasUnconsumedBytes: false, isKeepAlive: false) == .closeConnection)
    }

    @Test("an early 2xx with keep-alive lets the body finish, and the connection is reused")
    func earlySuccessKeepsSending() {
        var exchange = sendingExchange()
        #expect(exchange.responseHeadReceived(status: 200, isKeepAlive: true) == .wait)
        #expect(exchange.bodyChunkSent() == .sendBody)
        #expect(exchange.bodyFinished() == .wait)
        #expect(exchange.responseEnded(hasUnconsumedBytes: false, isKeepAlive: true) == .returnToPool)
    }

    @Test("a 2xx response that ends before the body does waits for the body, then returns the connection")
    func earlySuccessEndsFirst() {
        var exchange = sendingExchange()
        _ = exchange.responseHeadReceived(status: 200, isKeepAlive: true)
        #expect(exchange.responseEnded(hasUnconsumedBytes: false, isKeepAlive: true) == .wait)
        #expect(!exchange.isFinished)
        #expect(exchange.bodyChunkSent() == .sendBody)
        #expect(exchange.bodyFinished() == .returnToPool)
        #expect(exchange.isFinished)
    }

    @Test("a 2xx that ends with leftover bytes or without keep-alive closes without sending the rest")
    func earlySuccessEndsUnclean() {
        var leftover = sendingExchange()
        _ = leftover.responseHeadReceived(status: 200, isKeepAlive: true)
        #expect(leftover.responseEnded(hasUnconsumedBytes: true, isKeepAlive: true) == .closeConnection)
        #expect(leftover.bodyChunkSent() == .wait)

        var closing = sendingExchange()
        #expect(closing.responseHeadReceived(status: 200, isKeepAlive: false) == .stopSendingBody)
        #expect(closing.responseEnded(hasUnconsumedBytes: false, isKeepAlive: false) == .closeConnection)
    }

    @Test("a failed write after an early response is expected; a failed read is not")
    func writeFailureAfterEarlyResponse() {
        var refused = sendingExchange()
        _ = refused.responseHeadReceived(status: 413, isKeepAlive: false)
        #expect(refused.connectionFailed(.sendFailed(errno: 32), beforeAnyResponseByte: false) == .wait)
        #expect(refused.responseEnded(hasUnconsumedBytes: false, isKeepAlive: false) == .closeConnection)

        var streaming = sendingExchange()
        _ = streaming.responseHeadReceived(status: 200, isKeepAlive: true)
        #expect(streaming.connectionFailed(.sendFailed(errno: 104), beforeAnyResponseByte: false) == .wait)
        #expect(streaming.bodyChunkSent() == .wait)  // sending was abandoned
        #expect(streaming.responseEnded(hasUnconsumedBytes: false, isKeepAlive: true) == .closeConnection)

        var broken = sendingExchange()
        _ = broken.responseHeadReceived(status: 413, isKeepAlive: false)
        let readFailure = HTTPWireError.receiveFailed(errno: 104)
        #expect(broken.connectionFailed(readFailure, beforeAnyResponseByte: false) == .fail(readFailure))
    }

    @Test("a failure once the response is complete and only the body was left loses nothing")
    func failureAfterCompleteResponse() {
        var exchange = sendingExchange()
        _ = exchange.responseHeadReceived(status: 200, isKeepAlive: true)
        _ = exchange.responseEnded(hasUnconsumedBytes: false, isKeepAlive: true)
        #expect(exchange.connectionFailed(.receiveFailed(errno: 104), beforeAnyResponseByte: false) == .closeConnection)
    }

    @Test("100-continue: the body waits for 100, and a late timer is ignored")
    func continueAccepted() {
        var exchange = Exchange(method: .put, body: .replayable, expectsContinue: true, isReusedConnection: false)
        #expect(exchange.start() == .sendHead)
        #expect(exchange.headSent() == .scheduleContinueTimeout)
        #expect(exchange.informationalReceived(status: 103) == .wait)  // early hints do not release the body
        #expect(exchange.informationalReceived(status: 100) == .sendBody)
        #expect(exchange.continueTimeoutFired() == .wait)
        #expect(exchange.bodyChunkSent() == .sendBody)
        #expect(exchange.bodyFinished() == .wait)
        #expect(exchange.responseHeadReceived(status: 201, isKeepAlive: true) == .wait)
        #expect(exchange.responseEnded(hasUnconsumedBytes: false, isKeepAlive: true) == .returnToPool)
    }

    @Test(
        "100-continue: a final response instead of 100 means no body and a closed connection",
        arguments: [200, 401, 417])
    func continueRefused(status: Int) {
        var exchange = Exchange(method: .post, body: .oneShot, expectsContinue: true, isReusedConnection: false)
        _ = exchange.start()
        _ = exchange.headSent()
        #expect(exchange.responseHeadReceived(status: status, isKeepAlive: true) == .stopSendingBody)
        #expect(exchange.continueTimeoutFired() == .wait)
        #expect(exchange.informationalReceived(status: 100) == .wait)
        #expect(exchange.responseEnded(hasUnconsumedBytes: false, isKeepAlive: true) == .closeConnection)
    }

    @Test("100-continue: when the timer fires first the body is sent anyway, and a late 100 changes nothing")
    func continueTimeout() {
        var exchange = Exchange(method: .put, body: .replayable, expectsContinue: true, isReusedConnection: true)
        _ = exchange.start()
        #expect(exchange.headSent() == .scheduleContinueTimeout)
        #expect(exchange.continueTimeoutFired() == .sendBody)
        #expect(exchange.informationalReceived(status: 100) == .wait)
        #expect(exchange.bodyFinished() == .wait)
        _ = exchange.responseHeadReceived(status: 204, isKeepAlive: true)
        #expect(exchange.responseEnded(hasUnconsumedBytes: false, isKeepAlive: true) == .returnToPool)
    }

    @Test("an unsolicited 100 without Expect is skipped")
    func unsolicitedContinue() {
        var exchange = sendingExchange()
        #expect(exchange.informationalReceived(status: 100) == .wait)
        #expect(exchange.bodyChunkSent() == .sendBody)
    }

    @Test(
        "end of stream before any response byte: retried only on a reused connection for a replayable request",
        arguments: [
            (Method.get, Exchange.RequestBody.empty, true, true), (.get, .empty, false, false),
            (.head, .empty, true, true), (.options, .empty, true, true), (.delete, .empty, true, true),
            (.put, .replayable, true, true), (.put, .oneShot, true, false), (.post, .replayable, true, false),
            (.post, .empty, true, false), (.patch, .replayable, true, false),
        ])
    func retryRules(method: Method, body: ExchangeStateMachine.RequestBody, reused: Bool, retries: Bool) {
        var exchange = sentExchange(method, body: body, reused: reused)
        #expect(exchange.peerClosedBeforeResponse() == (retries ? .resendOnNewConnection : .fail(.emptyReply)))
        #expect(exchange.isFinished)
        #expect(exchange.responseHeadReceived(status: 200, isKeepAlive: true) == .wait)  // late events are ignored
    }

    @Test("a reused connection failing mid-body before any response byte retries a replayable PUT")
    func retryDuringBody() {
        var put = Exchange(method: .put, body: .replayable, isReusedConnection: true)
        _ = put.start()
        _ = put.headSent()
        #expect(put.connectionFailed(.sendFailed(errno: 32), beforeAnyResponseByte: true) == .resendOnNewConnection)

        var post = Exchange(method: .post, body: .replayable, isReusedConnection: true)
        _ = post.start()
        _ = post.headSent()
        #expect(
            post.connectionFailed(.sendFailed(errno: 32), beforeAnyResponseByte: true) == .fail(.sendFailed(errno: 32)))
    }

    @Test("no retry once any response byte was read, after an interim response, or on the retry itself")
    func noRetryAfterResponseBytes() {
        let reset = HTTPWireError.receiveFailed(errno: 104)
        var partialHead = sentExchange(.get, reused: true)
        #expect(partialHead.connectionFailed(reset, beforeAnyResponseByte: false) == .fail(reset))

        var afterHints = sentExchange(.get, reused: true)
        _ = afterHints.informationalReceived(status: 103)
        #expect(afterHints.connectionFailed(reset, beforeAnyResponseByte: true) == .fail(reset))

        var inBody = sentExchange(.get, reused: true)
        _ = inBody.responseHeadReceived(status: 200, isKeepAlive: true)
        let truncated = HTTPWireError.bodyTruncated(expected: 10, received: 4)
        #expect(inBody.connectionFailed(truncated, beforeAnyResponseByte: true) == .fail(truncated))

        var secondAttempt = Exchange(method: .get, body: .empty, isReusedConnection: true, isResend: true)
        _ = secondAttempt.start()
        _ = secondAttempt.headSent()
        #expect(secondAttempt.peerClosedBeforeResponse() == .fail(.emptyReply))
    }

    @Test("a failure before the head is sent retries on a reused connection, fails on a fresh one")
    func failureBeforeHead() {
        var reused = Exchange(method: .get, body: .empty, isReusedConnection: true)
        #expect(reused.connectionFailed(.sendFailed(errno: 32), beforeAnyResponseByte: true) == .resendOnNewConnection)
        var fresh = Exchange(method: .get, body: .empty, isReusedConnection: false)
        _ = fresh.start()
        #expect(
            fresh.connectionFailed(.sendFailed(errno: 32), beforeAnyResponseByte: true) == .fail(.sendFailed(errno: 32))
        )
    }

    @Test("cancellation closes the connection in every unfinished state and is ignored once finished")
    func cancellation() {
        var steps: [(inout Exchange) -> Void] = [
            { _ in }, { _ = $0.start() }, { _ = $0.headSent() }, { _ = $0.bodyChunkSent() },
            { _ = $0.responseHeadReceived(status: 200, isKeepAlive: true) },
            { _ = $0.responseEnded(hasUnconsumedBytes: false, isKeepAlive: true) },
        ]
        var prefix: [(inout Exchange) -> Void] = []
        while !steps.isEmpty {
            prefix.append(steps.removeFirst())
            var exchange = Exchange(method: .post, body: .replayable, isReusedConnection: true)
            for step in prefix { step(&exchange) }
            #expect(!exchange.isFinished)
            #expect(exchange.cancelled() == .failCancelled)
            #expect(exchange.cancelled() == .wait)
            #expect(exchange.bodyFinished() == .wait)
        }
        var done = sentExchange()
        _ = done.responseHeadReceived(status: 200, isKeepAlive: true)
        _ = done.responseEnded(hasUnconsumedBytes: false, isKeepAlive: true)
        #expect(done.cancelled() == .wait)
    }
}
