// ProgressThrottle: at most one progress snapshot per interval, and never the last one lost.
// Downloads layer: a lock, a clock reading per offer, at most one reactor timer per interval (and, with a
// `refresh`, one per quiet second). It counts
// nothing itself: the transfers measure bytes and speed and offer snapshots; this file only decides when
// one is passed on.
//
// Why a trailing edge. A download learns of progress as bytes arrive, and redrawing a bar for every 16 KiB
// piece would cost more than the bytes, so reports are limited to one per `DownloadOptions.progressInterval`.
// A limit that only drops reports loses the end of a burst: a server sends 3 MiB in 40 ms and then stalls,
// the first piece of the burst was reported, the rest fell inside the interval, and the bar shows the first
// piece until more bytes come — for ever if the stall ends in a timeout. So the throttle keeps the newest
// snapshot it held back and reports it when the interval ends, on the reactor's timer (the library's one
// clock): whatever the traffic, what was last shown is at most one interval behind what arrived.
//
// Why a report with no new bytes. During a stall nothing is offered, so a limit alone would leave the last
// speed and time left on screen for as long as the stall lasts: "12 MB/s, 3 s left" on a download that has
// not moved for a minute. curl's meter keeps ticking; so does this throttle when the transfer gives it a
// `refresh`: after a second without a report (or an interval, if longer) it asks the transfer for a snapshot
// now, whose meter has recorded the quiet time, and reports it — the same bytes, a falling speed.

import HTTPWireTransport

/// Passes progress snapshots on at most once per interval, the held-back newest one when the interval ends.
///
/// ```swift
/// let throttle = ProgressThrottle(interval: .milliseconds(100)) { progress in show(progress) }
/// throttle.offer(snapshot)  // shown now, or at the end of the current interval if a newer one does not replace it
/// throttle.finish(with: last)  // shown now; nothing after it
/// ```
///
/// Reports run under the throttle's lock, on the offering task or on the reactor thread when an interval
/// ends, so they never overtake each other; they must be quick and must not block (a lock, a yield into an
/// `AsyncStream`). A `refresh` runs on the reactor thread outside that lock: a transfer that offers under a
/// lock of its own takes it there too (its lock first, then the throttle's, never the other way).
final class ProgressThrottle: Sendable {
    private struct State {
        /// When the last snapshot was passed on (the start counts as one: the first report comes after an
        /// interval, as before the throttle existed, so a download quicker than an interval reports once).
        var lastReport: ContinuousClock.Instant
        /// The newest snapshot held back, reported when the interval ends unless a report came first.
        var pending: TransferProgress?
        /// The timer for the end of the current interval, while one is scheduled.
        var timer: ReactorTimer?
        /// The timer that checks for a quiet spell, while the throttle has a `refresh` and is not finished.
        var quietTimer: ReactorTimer?
        /// How many snapshots were offered: a refreshed snapshot is dropped when one came while it was made.
        var offers = 0
        var isFinished = false
    }

    private let state: LockedState<State>
    private let interval: Duration
    private let clock = ContinuousClock()
    private let report: @Sendable (TransferProgress) -> Void
    private let refresh: (@Sendable () -> TransferProgress)?

    /// How long without a report makes a quiet spell: a second, as curl's meter ticks, or the interval
    /// when that is longer.
    var quietInterval: Duration { max(interval, .seconds(1)) }

    /// A throttle whose first interval starts at `start` (now by default). With `refresh`, a quiet spell
    /// (no report for ``quietInterval``) is reported too, with the snapshot `refresh` makes then.
    init(
        interval: Duration, start: ContinuousClock.Instant = ContinuousClock().now,
        refresh: (@Sendable () -> TransferProgress)? = nil,
        report: @escaping @Sendable (TransferProgress) -> Void
    ) {
        self.interval = interval
        self.report = report
        self.refresh = refresh
        self.state = LockedState(State(lastReport: start))
        if refresh != nil {
            let firstCheck = max(.zero, quietInterval - (clock.now - start))
            state.withLock { state in state.quietTimer = scheduleQuietCheck(after: firstCheck) }
        }
    }

    /// Offers the newest snapshot: passed on now when an interval has gone by since the last report,
    /// otherwise kept (replacing any older one kept) and passed on when the interval ends.
    func offer(_ progress: TransferProgress) {
        let now = clock.now
        state.withLock { state in
            guard !state.isFinished else { return }
            state.offers += 1
            let elapsed = now - state.lastReport
            if elapsed >= interval {
                state.lastReport = now
                state.pending = nil
                report(progress)
                return
            }
            state.pending = progress
            // Scheduling from under the lock is safe: the reactor runs a timer's action from its loop,
            // never from `schedule`.
            if state.timer == nil {
                state.timer = Reactor.shared.schedule(at: .after(interval - elapsed)) { [weak self] in
                    self?.intervalEnded()
                }
            }
        }
    }

    /// Passes `progress` on now (the end of the body, a pause, a failure) and stops: the timer is
    /// cancelled and later offers are ignored, so nothing is reported after the transfer's last word.
    func finish(with progress: TransferProgress) {
        state.withLock { state in
            guard !state.isFinished else { return }
            state.isFinished = true
            state.pending = nil
            state.timer?.cancel()
            state.timer = nil
            state.quietTimer?.cancel()
            state.quietTimer = nil
            report(progress)
        }
    }

    /// The timer for the end of the current interval, nil when none is scheduled (for tests: a finished
    /// throttle must leave nothing on the reactor).
    var scheduledTimer: ReactorTimer? { state.withLock { $0.timer } }

    /// The quiet-spell check's timer, nil when none is scheduled (for tests, as ``scheduledTimer``).
    var scheduledQuietTimer: ReactorTimer? { state.withLock { $0.quietTimer } }

    /// The timer's action: reports the snapshot held back during the interval, if any.
    private func intervalEnded() {
        state.withLock { state in
            state.timer = nil
            guard !state.isFinished, let pending = state.pending else { return }
            state.pending = nil
            state.lastReport = clock.now
            report(pending)
        }
    }

    /// Schedules the quiet-spell check (called under the lock; the action runs later, from the reactor).
    private func scheduleQuietCheck(after delay: Duration) -> ReactorTimer {
        Reactor.shared.schedule(at: .after(delay)) { [weak self] in self?.quietCheck() }
    }

    /// The quiet-spell timer's action: when nothing was reported for a quiet interval, asks `refresh` for a
    /// snapshot and reports it — unless a snapshot was offered meanwhile, which is newer — then checks again
    /// a quiet interval after the last report.
    private func quietCheck() {
        let generation = state.withLock { state -> Int? in
            state.quietTimer = nil
            guard !state.isFinished else { return nil }
            let sinceReport = clock.now - state.lastReport
            guard sinceReport >= quietInterval, state.pending == nil else {
                // Reports are flowing (or one is due at the interval's end): look again later.
                state.quietTimer = scheduleQuietCheck(
                    after: max(quietInterval - sinceReport, interval, .milliseconds(10)))
                return nil
            }
            return state.offers
        }
        guard let generation, let refresh else { return }
        // Outside the lock: the transfer's own lock comes first (see the type's documentation).
        let snapshot = refresh()
        state.withLock { state in
            guard !state.isFinished else { return }
            if state.offers == generation {
                state.lastReport = clock.now
                report(snapshot)
            }
            state.quietTimer = scheduleQuietCheck(after: quietInterval)
        }
    }
}
