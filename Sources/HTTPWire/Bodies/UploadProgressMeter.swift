// UploadProgressMeter: turns the body writer's raw "bytes sent so far" reports into the upload progress a
// person is shown: never going backwards, with speed and time left from a ThroughputMeter.
// Features layer: arithmetic and one clock reading per report. It never sends a byte, never throttles or
// delays the writer, and never formats anything for a terminal.
//
// Why a raw count is not enough. One `send` may transmit the body more than once: a 307/308 redirect
// resends it to the new location (RFC 9110 §15.4.8–9) and a request that failed on a reused connection is
// retried once. Each attempt counts from zero, so a bar fed raw counts would jump back. The meter reports
// the furthest point reached instead; a replay shows as a pause until it passes that point. The speed, on
// the other hand, counts every byte put on the wire, replays included, because that is the link's speed.

import HTTPWireTransport

/// Makes upload progress monotonic and adds speed and time left.
///
/// The client wraps every ``HTTPRequest/uploadProgress`` callback in one meter per `send`, so both the
/// callback and ``Upload/progress`` see the same values:
///
/// ```swift
/// let meter = UploadProgressMeter { progress in print(progress.receivedBytes, progress.bytesPerSecond ?? 0) }
/// meter.report(TransferProgress(receivedBytes: 262_144, expectedBytes: 1_048_576))
/// ```
final class UploadProgressMeter: Sendable {
    /// Half-second windows: an upload of a few seconds shows a speed early, and the meter's smoothing
    /// (0.3 per window) still hides the jitter of single sendfile(2) pieces.
    static let window: Duration = .milliseconds(500)

    private struct State {
        var meter: ThroughputMeter
        /// The raw count of the current attempt, to tell a new attempt (the count went down) from progress.
        var attemptBytes: Int64 = 0
        /// The largest count delivered so far; -1 before the first report.
        var furthestBytes: Int64 = -1
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
    static func wrap(
        _ callback: (@Sendable (TransferProgress) -> Void)?
    ) -> (@Sendable (TransferProgress) -> Void)? {
        guard let callback else { return nil }
        let meter = UploadProgressMeter(deliver: callback)
        return { meter.report($0) }
    }

    /// Takes one raw report (bytes sent in the current attempt, and the body's total when known) and
    /// delivers a snapshot (on the calling task) when the upload got further than any report before it, or on the very first.
    func report(_ raw: TransferProgress) {
        let now = clock.now - start
        // Delivered under the lock, so two overlapping attempts (a writer finishing its last piece as the
        // redirected request starts) can never deliver out of order.
        state.withLock { state in
            let sent = raw.receivedBytes
            // A smaller count than the attempt had reached is a new attempt starting from the first byte.
            let newlySent = sent >= state.attemptBytes ? sent - state.attemptBytes : sent
            state.attemptBytes = sent
            state.meter.record(bytes: newlySent, at: now)
            guard sent > state.furthestBytes else { return }
            state.furthestBytes = sent
            deliver(state.meter.progress(receivedBytes: sent, expectedBytes: raw.expectedBytes))
        }
    }
}
