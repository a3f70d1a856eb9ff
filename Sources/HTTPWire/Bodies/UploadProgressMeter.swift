// UploadProgressMeter: turns the body writer's raw "bytes sent so far" reports into the upload progress a
// person is shown: never going backwards, with speed and time left from a ThroughputMeter, and still
// ticking while the upload stalls.
// Features layer: arithmetic, one clock reading per report, and while a body is being sent one reactor timer
// (the library's one clock) for the quiet check. It never sends a byte, never throttles or delays the
// writer, and never formats anything for a terminal.
//
// Why a raw count is not enough. One `send` may transmit the body more than once: a 307/308 redirect
// resends it to the new location (RFC 9110 §15.4.8–9) and a request that failed on a reused connection is
// retried once. Each attempt counts from zero, so a bar fed raw counts would jump back. The meter reports
// the furthest point reached instead; a replay shows as a pause until it passes that point. The speed, on
// the other hand, counts every byte put on the wire, replays included, because that is the link's speed.
//
// Why a report with no new bytes. A server that stops reading (a full disk, a slow proxy) stalls the body:
// the writer blocks and reports nothing, so the last speed and time left would stay on screen for as long
// as the stall lasts. As the download throttle does, the meter checks a second after each report while an
// attempt is sending; when nothing came, it records the quiet time and reports the same bytes with the
// speed falling. The exchange says when its writer stops (``attemptEnded()``), and a complete body stops
// the checks too, so nothing ticks once the body is out.

import HTTPWireTransport

/// Makes upload progress monotonic and adds speed and time left.
///
/// The client wraps every ``HTTPRequest/uploadProgress`` callback in one meter per `send`, so both the
/// callback and ``Upload/progress`` see the same values. During a stall the callback is called from the
/// reactor thread, once a second, with the same count and a falling speed; like every progress callback it
/// must be quick:
///
/// ```swift
/// let meter = UploadProgressMeter { progress in print(progress.receivedBytes, progress.bytesPerSecond ?? 0) }
/// meter.report(TransferProgress(receivedBytes: 262_144, expectedBytes: 1_048_576))
/// meter.attemptEnded()  // the writer stopped: no quiet reports until the next attempt reports
/// ```
final class UploadProgressMeter: Sendable {
    /// Half-second windows: an upload of a few seconds shows a speed early, and the meter's smoothing
    /// (0.3 per window) still hides the jitter of single sendfile(2) pieces.
    static let window: Duration = .milliseconds(500)

    /// How long without a delivered report makes a quiet spell: a second, as curl's meter ticks.
    static let quietInterval: Duration = .seconds(1)

    private struct State {
        var meter: ThroughputMeter
        /// The raw count of the current attempt, to tell a new attempt (the count went down) from progress.
        var attemptBytes: Int64 = 0
        /// The largest count delivered so far; -1 before the first report.
        var furthestBytes: Int64 = -1
        /// The body's total, when known.
        var expectedBytes: Int64?
        /// When the last report was delivered, from `start`.
        var lastDelivery: Duration = .zero
        /// The quiet check, while an attempt is sending.
        var quietTimer: ReactorTimer?
        /// Which check is current: each schedule takes the next number, and a check that fires with an
        /// older one (cancelled as it was starting) does nothing.
        var quietGeneration = 0
    }

    private let state: LockedState<State>
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private let deliver: @Sendable (TransferProgress) -> Void

    /// A meter that passes its reports to `deliver`, on the reporting task.
    init(deliver: @escaping @Sendable (TransferProgress) -> Void) {
        self.deliver = deliver
        self.start = clock.now
        self.state = LockedState(State(meter: ThroughputMeter(window: Self.window)))
    }

    /// Wraps `callback` in a new meter, or returns nil when there is no callback.
    static func wrap(_ callback: (@Sendable (TransferProgress) -> Void)?) -> UploadProgressMeter? {
        callback.map { UploadProgressMeter(deliver: $0) }
    }

    deinit {
        state.withLock { $0.quietTimer?.cancel() }
    }

    /// Takes one raw report (bytes sent in the current attempt, and the body's total when known) and
    /// delivers a snapshot (on the calling task) when the upload got further than any report before it, or
    /// on the very first. While the attempt has more to send, a quiet check follows (see the file's notes).
    func report(_ raw: TransferProgress) {
        let now = clock.now - start
        // Delivered under the lock, so two overlapping attempts (a writer finishing its last piece as the
        // redirected request starts) can never deliver out of order.
        state.withLock { state in
            let sent = raw.receivedBytes
            // A smaller count than the attempt had reached is a new attempt starting from the first byte.
            let newlySent = sent >= state.attemptBytes ? sent - state.attemptBytes : sent
            state.attemptBytes = sent
            state.expectedBytes = raw.expectedBytes
            state.meter.record(bytes: newlySent, at: now)
            if let total = raw.expectedBytes, sent >= total {
                Self.cancelQuietCheck(&state)
            } else if state.quietTimer == nil {
                scheduleQuietCheck(&state, after: Self.quietInterval)
            }
            guard sent > state.furthestBytes else { return }
            state.furthestBytes = sent
            state.lastDelivery = now
            deliver(state.meter.progress(receivedBytes: sent, expectedBytes: raw.expectedBytes))
        }
    }

    /// The exchange's writer stopped (the body is out, or it failed or was stopped by an early answer): no
    /// quiet checks until the next attempt reports.
    func attemptEnded() {
        state.withLock { Self.cancelQuietCheck(&$0) }
    }

    /// The quiet check's timer, nil when none is scheduled (for tests).
    var scheduledQuietTimer: ReactorTimer? { state.withLock { $0.quietTimer } }

    /// Schedules the quiet check (called under the lock; the action runs later, on the reactor thread). The
    /// timer holds the meter weakly: a meter nobody reports to any more goes, and its deinit cancels it.
    private func scheduleQuietCheck(_ state: inout State, after delay: Duration) {
        state.quietGeneration += 1
        let generation = state.quietGeneration
        state.quietTimer = Reactor.shared.schedule(at: .after(delay)) { [weak self] in
            self?.quietCheck(generation: generation)
        }
    }

    private static func cancelQuietCheck(_ state: inout State) {
        state.quietTimer?.cancel()
        state.quietTimer = nil
        state.quietGeneration += 1
    }

    /// The quiet check: when nothing was delivered for a quiet interval, records the quiet time and delivers
    /// the furthest count again, with the speed it leaves; then checks again a quiet interval after the last
    /// delivery.
    private func quietCheck(generation: Int) {
        let now = clock.now - start
        state.withLock { state in
            guard state.quietGeneration == generation else { return }  // cancelled as it was starting
            let sinceDelivery = now - state.lastDelivery
            if sinceDelivery >= Self.quietInterval, state.furthestBytes >= 0 {
                state.meter.record(bytes: 0, at: now)
                state.lastDelivery = now
                deliver(state.meter.progress(receivedBytes: state.furthestBytes, expectedBytes: state.expectedBytes))
            }
            scheduleQuietCheck(&state, after: max(Self.quietInterval - (now - state.lastDelivery), .milliseconds(10)))
        }
    }
}
