// Tests for PoolStateMachine: events are stepped by hand and the exact actions asserted. No sockets, no
// clocks: a "timer firing" is the test calling idleTimeoutFired with the token the machine handed out.

import HTTPWire
import Testing

private typealias Pool = PoolStateMachine
private typealias C = PoolStateMachine.ConnectionID
private typealias R = PoolStateMachine.RequestID

private let originA = OriginKey(scheme: .https, host: "a.test")
private let originB = OriginKey(scheme: .http, host: "b.test", port: 8080)

/// The lease action the machine must produce for a request on a connection.
private func lease(_ request: Int, on connection: Int, number: Int = 1, origin: OriginKey = originA) -> Pool.Action {
    .lease(Pool.Grant(request: R(request), connection: C(connection), origin: origin, leaseNumber: number))
}

private func timer(_ connection: Int, period: Int) -> Pool.IdleTimer {
    Pool.IdleTimer(connection: C(connection), idlePeriod: period)
}

private func limits(_ connections: Int, idle: Int) -> Pool.Configuration {
    Pool.Configuration(maxConnectionsPerOrigin: connections, maxIdleConnectionsPerOrigin: idle)
}

@Suite struct PoolStateMachineTests {
    @Test("a first lease queues the request and opens a connection; it is leased when established")
    func firstLease() {
        var pool = Pool()
        #expect(
            pool.leaseRequested(request: R(1), origin: originA) == [
                .enqueue(R(1), originA), .createConnection(C(1), originA),
            ])
        #expect(pool.snapshot(of: originA) == Pool.OriginSnapshot(connecting: 1, waiting: 1))
        #expect(pool.connectionEstablished(C(1)) == [lease(1, on: 1)])
        #expect(pool.snapshot(of: originA) == Pool.OriginSnapshot(leased: 1))
    }

    @Test("whichever connection comes up first serves the oldest waiter")
    func establishedServesOldest() {
        var pool = Pool()
        _ = pool.leaseRequested(request: R(1), origin: originA)
        #expect(
            pool.leaseRequested(request: R(2), origin: originA) == [
                .enqueue(R(2), originA), .createConnection(C(2), originA),
            ])
        #expect(pool.connectionEstablished(C(2)) == [lease(1, on: 2)])
        #expect(pool.connectionEstablished(C(1)) == [lease(2, on: 1)])
    }

    @Test(
        "200 leases over 8 connections never exceed the limit and are served first in, first out",
        arguments: [true, false])
    func twoHundredLeases(reusable: Bool) throws {
        var pool = Pool()
        var open: Set<C> = []
        var leased: [C] = []  // oldest lease first
        var served: [Int] = []
        var leaseNumbers: [Int] = []
        var created = 0

        func perform(_ actions: [Pool.Action]) {
            for action in actions {
                switch action {
                case .createConnection(let id, _):
                    open.insert(id)
                    created += 1
                case .closeConnection(let id): open.remove(id)
                case .lease(let lease):
                    leased.append(lease.connection)
                    served.append(lease.request.rawValue)
                    leaseNumbers.append(lease.leaseNumber)
                case .enqueue, .scheduleIdleTimeout, .cancelIdleTimeout, .failLease, .shutdownComplete: break
                }
            }
            #expect(open.count <= 8)
            #expect(pool.snapshot(of: originA).open <= 8)
        }

        for request in 1...200 { perform(pool.leaseRequested(request: R(request), origin: originA)) }
        #expect(created == 8)
        #expect(pool.snapshot(of: originA) == Pool.OriginSnapshot(connecting: 8, waiting: 200))
        for id in open.sorted() { perform(pool.connectionEstablished(id)) }
        while !leased.isEmpty {
            let id = leased.removeFirst()
            if reusable {
                perform(pool.connectionReleased(id, isReusable: true))
            } else {
                perform(pool.connectionReleased(id, isReusable: false))
                for new in open.sorted() where pool.snapshot(of: originA).connecting > 0 && !leased.contains(new) {
                    perform(pool.connectionEstablished(new))
                }
            }
        }
        #expect(served == Array(1...200))
        #expect(created == (reusable ? 8 : 200))
        // Reused connections count their leases; fresh ones never claim reuse.
        #expect(leaseNumbers.filter { $0 > 1 }.count == (reusable ? 192 : 0))
        #expect(pool.snapshot(of: originA) == Pool.OriginSnapshot(idle: reusable ? 8 : 0))
    }

    @Test("an idle connection is reused before a new one is opened, the most recently used first")
    func idleReuseMostRecentFirst() {
        var pool = Pool()
        _ = pool.leaseRequested(request: R(1), origin: originA)
        _ = pool.leaseRequested(request: R(2), origin: originA)
        _ = pool.connectionEstablished(C(1))
        _ = pool.connectionEstablished(C(2))
        #expect(pool.connectionReleased(C(1), isReusable: true) == [.scheduleIdleTimeout(timer(1, period: 1))])
        #expect(pool.connectionReleased(C(2), isReusable: true) == [.scheduleIdleTimeout(timer(2, period: 1))])
        #expect(
            pool.leaseRequested(request: R(3), origin: originA) == [
                .cancelIdleTimeout(timer(2, period: 1)), lease(3, on: 2, number: 2),
            ])
        #expect(
            pool.leaseRequested(request: R(4), origin: originA) == [
                .cancelIdleTimeout(timer(1, period: 1)), lease(4, on: 1, number: 2),
            ])
        #expect(pool.snapshot(of: originA) == Pool.OriginSnapshot(leased: 2))
    }

    @Test("an established connection with nobody waiting is parked idle, and reports no reuse on its first lease")
    func establishedParks() {
        var pool = Pool()
        _ = pool.leaseRequested(request: R(1), origin: originA)
        #expect(pool.leaseCancelled(R(1)) == [.failLease(R(1), .cancelled)])
        #expect(pool.connectionEstablished(C(1)) == [.scheduleIdleTimeout(timer(1, period: 0))])
        let actions = pool.leaseRequested(request: R(2), origin: originA)
        #expect(actions == [.cancelIdleTimeout(timer(1, period: 0)), lease(2, on: 1, number: 1)])
        guard case .lease(let granted) = actions.last else { Issue.record("no lease in \(actions)"); return }
        #expect(!granted.isReused)
    }

    @Test("a timer from an earlier idle period is ignored; the current one closes the connection once")
    func staleTimerIgnored() {
        var pool = Pool()
        _ = pool.leaseRequested(request: R(1), origin: originA)
        _ = pool.connectionEstablished(C(1))
        _ = pool.connectionReleased(C(1), isReusable: true)  // idle period 1
        _ = pool.leaseRequested(request: R(2), origin: originA)
        #expect(pool.idleTimeoutFired(timer(1, period: 1)) == [])  // fired while leased
        #expect(pool.connectionReleased(C(1), isReusable: true) == [.scheduleIdleTimeout(timer(1, period: 2))])
        #expect(pool.idleTimeoutFired(timer(1, period: 1)) == [])  // the old period's timer, late
        #expect(pool.snapshot(of: originA) == Pool.OriginSnapshot(idle: 1))
        #expect(pool.idleTimeoutFired(timer(1, period: 2)) == [.closeConnection(C(1))])
        #expect(pool.idleTimeoutFired(timer(1, period: 2)) == [])
        #expect(pool.snapshot(of: originA) == Pool.OriginSnapshot())
    }

    @Test("releasing a connection that cannot be reused opens a new one for the waiters")
    func nonReusableWithWaiters() {
        var pool = Pool(configuration: limits(1, idle: 1))
        _ = pool.leaseRequested(request: R(1), origin: originA)
        #expect(pool.leaseRequested(request: R(2), origin: originA) == [.enqueue(R(2), originA)])
        _ = pool.connectionEstablished(C(1))
        #expect(
            pool.connectionReleased(C(1), isReusable: false) == [
                .closeConnection(C(1)), .createConnection(C(2), originA),
            ])
        #expect(pool.connectionEstablished(C(2)) == [lease(2, on: 2)])
        #expect(pool.connectionReleased(C(2), isReusable: false) == [.closeConnection(C(2))])
        #expect(pool.snapshot(of: originA) == Pool.OriginSnapshot())
    }

    @Test("a reusable release goes straight to the next waiter, without an idle timer")
    func reusableWithWaiters() {
        var pool = Pool(configuration: limits(1, idle: 1))
        _ = pool.leaseRequested(request: R(1), origin: originA)
        _ = pool.leaseRequested(request: R(2), origin: originA)
        _ = pool.connectionEstablished(C(1))
        #expect(pool.connectionReleased(C(1), isReusable: true) == [lease(2, on: 1, number: 2)])
    }

    @Test("a queued lease can be cancelled; a served one gets nothing and its connection is not given away")
    func cancellation() {
        var pool = Pool(configuration: limits(1, idle: 1))
        _ = pool.leaseRequested(request: R(1), origin: originA)
        _ = pool.leaseRequested(request: R(2), origin: originA)
        _ = pool.leaseRequested(request: R(3), origin: originA)
        #expect(pool.leaseCancelled(R(2)) == [.failLease(R(2), .cancelled)])
        #expect(pool.leaseCancelled(R(2)) == [])
        #expect(pool.snapshot(of: originA) == Pool.OriginSnapshot(connecting: 1, waiting: 2))
        #expect(pool.connectionEstablished(C(1)) == [lease(1, on: 1)])
        #expect(pool.leaseCancelled(R(1)) == [])
        #expect(pool.leaseCancelled(R(99)) == [])
        #expect(pool.connectionReleased(C(1), isReusable: true) == [lease(3, on: 1, number: 2)])
    }

    @Test("a failed attempt fails the oldest waiter and starts another attempt for the rest")
    func connectFailure() {
        var pool = Pool(configuration: limits(1, idle: 1))
        for request in 1...3 { _ = pool.leaseRequested(request: R(request), origin: originA) }
        #expect(pool.connectionFailed(C(1)) == [.failLease(R(1), .connectFailed), .createConnection(C(2), originA)])
        #expect(pool.connectionFailed(C(2)) == [.failLease(R(2), .connectFailed), .createConnection(C(3), originA)])
        #expect(pool.connectionEstablished(C(3)) == [lease(3, on: 3)])
    }

    @Test("a failed attempt with nobody left waiting only forgets the connection")
    func connectFailureWithoutWaiters() {
        var pool = Pool()
        _ = pool.leaseRequested(request: R(1), origin: originA)
        _ = pool.leaseCancelled(R(1))
        #expect(pool.connectionFailed(C(1)) == [])
        #expect(pool.snapshot(of: originA) == Pool.OriginSnapshot())
    }

    @Test("a peer closing an idle connection removes it; closes of busy or unknown connections are ignored")
    func peerClosedIdle() {
        var pool = Pool()
        _ = pool.leaseRequested(request: R(1), origin: originA)
        _ = pool.leaseRequested(request: R(2), origin: originA)
        _ = pool.connectionEstablished(C(1))
        #expect(pool.connectionClosed(C(1)) == [])  // leased: its own driver reports the failure
        #expect(pool.connectionClosed(C(2)) == [])  // still connecting
        #expect(pool.connectionClosed(C(42)) == [])
        #expect(pool.connectionReleased(C(1), isReusable: true) == [lease(2, on: 1, number: 2)])
        #expect(pool.connectionEstablished(C(2)) == [.scheduleIdleTimeout(timer(2, period: 0))])
        #expect(pool.connectionClosed(C(2)) == [.cancelIdleTimeout(timer(2, period: 0)), .closeConnection(C(2))])
        #expect(pool.snapshot(of: originA) == Pool.OriginSnapshot(leased: 1))
        #expect(
            pool.leaseRequested(request: R(3), origin: originA) == [
                .enqueue(R(3), originA), .createConnection(C(3), originA),
            ])
    }

    @Test("the idle cap closes the least recently used connection")
    func idleCapEvictsOldest() {
        var pool = Pool(configuration: limits(4, idle: 2))
        for request in 1...3 { _ = pool.leaseRequested(request: R(request), origin: originA) }
        for id in 1...3 { _ = pool.connectionEstablished(C(id)) }
        _ = pool.connectionReleased(C(1), isReusable: true)
        _ = pool.connectionReleased(C(2), isReusable: true)
        #expect(
            pool.connectionReleased(C(3), isReusable: true) == [
                .cancelIdleTimeout(timer(1, period: 1)), .closeConnection(C(1)),
                .scheduleIdleTimeout(timer(3, period: 1)),
            ])
        #expect(pool.snapshot(of: originA) == Pool.OriginSnapshot(idle: 2))
    }

    @Test("limits below their minimum are raised to it")
    func configurationClamps() {
        let configuration = limits(0, idle: -3)
        #expect(configuration.maxConnectionsPerOrigin == 1)
        #expect(configuration.maxIdleConnectionsPerOrigin == 0)
        #expect(Pool.Configuration().maxConnectionsPerOrigin == 8)
    }

    @Test("an idle cap of zero turns reuse off")
    func idleCapZero() {
        var pool = Pool(configuration: limits(2, idle: 0))
        _ = pool.leaseRequested(request: R(1), origin: originA)
        _ = pool.connectionEstablished(C(1))
        #expect(pool.connectionReleased(C(1), isReusable: true) == [.closeConnection(C(1))])
        #expect(
            pool.leaseRequested(request: R(2), origin: originA) == [
                .enqueue(R(2), originA), .createConnection(C(2), originA),
            ])
    }

    @Test("origins have their own limits, queues and idle connections")
    func originsAreIndependent() {
        var pool = Pool(configuration: limits(1, idle: 1))
        _ = pool.leaseRequested(request: R(1), origin: originA)
        #expect(
            pool.leaseRequested(request: R(2), origin: originB) == [
                .enqueue(R(2), originB), .createConnection(C(2), originB),
            ])
        _ = pool.connectionEstablished(C(2))
        _ = pool.connectionReleased(C(2), isReusable: true)
        // B's idle connection is not A's, and A is at its limit of 1.
        #expect(pool.leaseRequested(request: R(3), origin: originA) == [.enqueue(R(3), originA)])
        #expect(pool.snapshot(of: originB) == Pool.OriginSnapshot(idle: 1))
        #expect(pool.snapshot(of: originA) == Pool.OriginSnapshot(connecting: 1, waiting: 2))
    }

    @Test("each lease of a connection is counted")
    func leaseNumbers() {
        var pool = Pool()
        _ = pool.leaseRequested(request: R(1), origin: originA)
        #expect(pool.connectionEstablished(C(1)) == [lease(1, on: 1, number: 1)])
        for request in 2...4 {
            _ = pool.connectionReleased(C(1), isReusable: true)
            #expect(
                pool.leaseRequested(request: R(request), origin: originA).last == lease(request, on: 1, number: request)
            )
        }
    }

    @Test("shutdown fails waiters, closes idle connections now and busy ones as they report in")
    func shutdown() {
        var pool = Pool(configuration: limits(2, idle: 2))
        _ = pool.leaseRequested(request: R(1), origin: originA)  // connection 1
        _ = pool.leaseRequested(request: R(2), origin: originA)  // connection 2
        _ = pool.connectionEstablished(C(1))  // leased to request 1
        _ = pool.connectionEstablished(C(2))  // leased to request 2
        _ = pool.connectionReleased(C(1), isReusable: true)  // idle
        for request in 10...12 { _ = pool.leaseRequested(request: R(request), origin: originB) }  // 3 and 4 connecting
        // Waiters fail origin by origin ("http://b…" sorts before "https://a…"), oldest first; then idle ones close.
        #expect(
            pool.shutdownRequested() == [
                .failLease(R(10), .poolShutDown), .failLease(R(11), .poolShutDown), .failLease(R(12), .poolShutDown),
                .cancelIdleTimeout(timer(1, period: 1)), .closeConnection(C(1)),
            ])
        #expect(pool.shutdownRequested() == [])
        #expect(pool.leaseRequested(request: R(4), origin: originA) == [.failLease(R(4), .poolShutDown)])
        #expect(pool.leaseCancelled(R(11)) == [])
        #expect(pool.idleTimeoutFired(timer(1, period: 1)) == [])
        #expect(pool.connectionReleased(C(2), isReusable: true) == [.closeConnection(C(2))])
        #expect(pool.connectionFailed(C(3)) == [])
        #expect(!pool.isShutDown)
        #expect(pool.connectionEstablished(C(4)) == [.closeConnection(C(4)), .shutdownComplete])
        #expect(pool.isShutDown)
        #expect(pool.shutdownRequested() == [])
        #expect(pool.leaseRequested(request: R(5), origin: originA) == [.failLease(R(5), .poolShutDown)])
    }

    @Test("shutting down an empty pool completes at once")
    func shutdownEmpty() {
        var pool = Pool()
        #expect(pool.shutdownRequested() == [.shutdownComplete])
        #expect(pool.isShutDown)
    }
}
