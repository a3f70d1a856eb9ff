// LoopLatency: how late the reactor's loop runs a timer while the client is under load (ScaleBench).
// Benchmark layer: a reactor timer is due every `period`; when it fires (on the reactor thread, between rounds
// of epoll_wait) it records how far past its deadline it ran and schedules the next one. A late timer means
// the loop was busy — handling readiness for many sockets, or starved of the CPU — for that long, and every
// read and timeout on the client waits the same. It must not block: it only appends under a lock.

import HTTPWireTransport

/// Records how late each of a chain of reactor timers fires, from `start()` to `stop()`.
final class LoopLatency: Sendable {
    /// Percentiles of the lateness, in milliseconds.
    struct Summary {
        var samples: Int
        var p50Milliseconds: Double
        var p99Milliseconds: Double
        var maxMilliseconds: Double
    }

    /// The recorded lateness per timer (ns), and whether to schedule the next one.
    private struct State {
        var lateness: [UInt64] = []
        var running = false
    }

    private let period: Duration
    private let state = LockedState(State())

    /// A recorder whose timers are due every `period`.
    init(period: Duration) {
        self.period = period
    }

    /// Schedules the first timer one period from now.
    func start() {
        state.withLock { $0.running = true }
        scheduleNext(at: Deadline.after(period))
    }

    /// Stops the chain and summarises what it recorded.
    func stop() -> Summary {
        let lateness = state.withLock { state in
            state.running = false
            return state.lateness.sorted()
        }
        func percentile(_ fraction: Double) -> Double {
            guard !lateness.isEmpty else { return 0 }
            let index = min(lateness.count - 1, Int(Double(lateness.count - 1) * fraction))
            return Double(lateness[index]) / 1e6
        }
        return Summary(
            samples: lateness.count, p50Milliseconds: percentile(0.5), p99Milliseconds: percentile(0.99),
            maxMilliseconds: Double(lateness.last ?? 0) / 1e6)
    }

    /// One timer at `deadline`: on firing, record its lateness and schedule the next period after the
    /// deadline it was due (not after it ran, so a late loop does not hide its lateness by shifting the chain).
    private func scheduleNext(at deadline: Deadline) {
        _ = Reactor.shared.schedule(at: deadline) { [self] in
            let now = Deadline.nowNanoseconds()
            let running = state.withLock { state in
                guard state.running else { return false }
                state.lateness.append(now &- min(now, deadline.uptimeNanoseconds))
                return true
            }
            guard running else { return }
            let next = max(
                deadline.uptimeNanoseconds + UInt64(period.components.attoseconds / 1_000_000_000)
                    + UInt64(period.components.seconds) * 1_000_000_000, now)
            scheduleNext(at: Deadline(uptimeNanoseconds: next))
        }
    }
}
