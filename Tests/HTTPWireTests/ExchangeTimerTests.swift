// ExchangeTimerTests: an exchange's timers live on the reactor's clock and never outlive it — the
// `100 Continue` wait and the wait for the head after a large body are cancelled (or have fired) once the
// exchange is over, however it ended: finished, abandoned by its consumer, or cancelled (test support:
// `ReactorTimer.isScheduled`, which is false once the reactor has let go of a timer).
// Also: the codec's keep-alive verdict is the only one — a 2xx whose body runs to the close ends its
// connection, even when it arrives while the request body is still being sent.

import FixtureServer
import HTTPWireCodec
import TestSupport
import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

@Suite struct ExchangeTimerTests {
    /// The exchange behind a streamed response.
    static func exchange(of response: HTTPStreamingResponse) -> Exchange {
        response.body.owner.exchange
    }

    /// The timers an exchange scheduled.
    static func timers(of exchange: Exchange) -> [ReactorTimer] {
        exchange.shared.withLock { $0.timers }
    }

    @Test("a finished upload leaves no timer behind", .timeLimit(.minutes(1)))
    func finished() async throws {
        try await withFixtureServer { server in
            // ignore=1: no 100 Continue, so the 200 ms continue timer fires and sends the body; once the body
            // is out, the head timer waits, and the answer cancels it.
            let client = ClientFixture.client(for: server) { $0.timeouts.expectContinue = .milliseconds(200) }
            var request = HTTPRequest(
                method: .put, url: "expect?ignore=1", body: .bytes([UInt8](repeating: 7, count: 1 << 20)))
            request.expectContinue = true
            let response = try await client.stream(request)
            for try await _ in response.body {}
            let exchange = Self.exchange(of: response)
            // The answer can be read to its end before the writer task, delayed on a busy machine between
            // its last write and its head timer, scheduled that timer (then the exchange cancels it at once):
            // wait for the writer so both timers are there to check.
            await exchange.shared.withLock { $0.writer }?.value
            let timers = Self.timers(of: exchange)
            try #require(timers.count == 2, "the continue wait and the head wait")
            #expect(await eventually { timers.allSatisfy { !$0.isScheduled } })
            await client.shutdown()
        }
    }

    @Test("an exchange abandoned while its body is still being sent cancels its timers", .timeLimit(.minutes(1)))
    func abandoned() async throws {
        try await withFixtureServer { server in
            // A long continue wait, so the timer is certainly still scheduled when the response is dropped.
            let client = ClientFixture.client(for: server) { $0.timeouts.expectContinue = .seconds(30) }
            var request = HTTPRequest(
                method: .post, url: "early-response?status=200&linger_ms=5000",
                body: .bytes([UInt8](repeating: 1, count: 4 << 20)))
            request.expectContinue = true
            var response: HTTPStreamingResponse? = try await client.stream(request)
            let exchange = Self.exchange(of: try #require(response))
            let timers = Self.timers(of: exchange)
            try #require(!timers.isEmpty)
            response = nil  // the consumer goes away: the exchange ends and closes its connection
            #expect(await eventually { timers.allSatisfy { !$0.isScheduled } })
            await client.shutdown()
        }
    }

    @Test("a cancelled exchange waiting for the head after its body cancels its timers", .timeLimit(.minutes(1)))
    func cancelled() async throws {
        try await withFixtureServer { server in
            // The exchange is driven directly, so the test holds it while its task is cancelled mid-wait.
            let client = ClientFixture.client(for: server)
            let url = try TargetURL(server.baseURL + "delay?ms=30000")
            let origin = OriginKey(scheme: url.scheme, host: url.host, port: url.port)
            let lease = try await client.pool.lease(for: origin, deadline: .never)
            let body = try await PreparedBody.prepare(.bytes([UInt8](repeating: 2, count: 1 << 20)))
            let request = ResolvedRequest(
                method: .post, url: url, fields: [:], body: .bytes([]), expectContinue: false, uploadProgress: nil)
            let exchange = Exchange(
                request: request, body: body, lease: lease, pool: client.pool,
                deadlines: RequestDeadlines(idle: .seconds(30), total: .never), continueTimeout: .seconds(1),
                isResend: false, logger: nil)
            let running = Task { try await exchange.run() }
            // The body is large enough to need the writer; once it is sent, the head timer runs.
            try #require(await eventually { !Self.timers(of: exchange).isEmpty })
            running.cancel()
            await #expect(throws: CancellationError.self) { _ = try await running.value }
            let timers = Self.timers(of: exchange)
            #expect(await eventually { timers.allSatisfy { !$0.isScheduled } })
            await client.shutdown()
        }
    }

    @Test("a 2xx whose body runs to the close is never kept alive", .timeLimit(.minutes(1)))
    func untilCloseIsNotReused() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            let first = try await client.get("until-close?bytes=100")
            #expect(first.status == .ok && first.body.count == 100)
            #expect(first.fields["Content-Length"] == nil && first.fields["Transfer-Encoding"] == nil)
            let second = try await client.get("json")
            #expect(second.status == .ok)
            #expect(client.connectionsOpened == 2, "the close-delimited response's connection was not reused")
            await client.shutdown()
        }
    }
}

extension ExchangeStateMachineTests {
    @Test("an early 2xx delimited by the close stops the body and closes the connection")
    func earlyUntilClose() {
        var machine = ExchangeStateMachine(method: .post, body: .replayable, isReusedConnection: false)
        #expect(machine.start() == .sendHead)
        #expect(machine.headSent() == .sendBody)
        // The decoder's verdict for "HTTP/1.1 200 OK" without Content-Length or chunked: not keep-alive.
        #expect(machine.responseHeadReceived(status: 200, isKeepAlive: false) == .stopSendingBody)
        #expect(machine.bodyChunkSent() == .wait)
        #expect(machine.responseEnded(hasUnconsumedBytes: false, isKeepAlive: false) == .closeConnection)
    }
}
