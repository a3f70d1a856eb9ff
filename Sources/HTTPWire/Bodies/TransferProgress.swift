// TransferProgress and ThroughputMeter: how far a transfer is, how fast it goes, and when it will end.
// Features layer: arithmetic only. The meter reads no clock; the caller passes the monotonic time of each
// sample, so tests feed it invented timelines and the client feeds it `ContinuousClock` readings.
//
// A speed shown to a person must be steady (one slow read must not halve it), responsive (a real slowdown
// shows within seconds) and sane: no NaN, no infinity, no negative time left. The meter averages the
// bytes of ~1 s windows and smooths the window rates with an exponentially weighted moving average, as
// curl and wget do in spirit. The two types share this file because neither means much alone. This file
// must not format anything for a terminal; the CLI's progress bar does that.

#if canImport(Glibc)
    import Glibc
#endif

/// A snapshot of a transfer: bytes so far, the total when known, and the speed and time left when
/// measured.
///
/// ```swift
/// let progress = meter.progress(receivedBytes: resumedFrom + meter.totalBytes, expectedBytes: total)
/// progress.fraction                 // 0.42, or nil when the total is unknown
/// progress.estimatedTimeRemaining   // .seconds(12), or nil
/// ```
public struct TransferProgress: Sendable, Hashable {
    /// Bytes transferred so far, including bytes a resumed download already had on disk.
    public var receivedBytes: Int64
    /// The total the transfer should reach, when known (`Content-Length`, or a 206's complete length).
    public var expectedBytes: Int64?
    /// The smoothed speed, when at least one measuring window has closed.
    public var bytesPerSecond: Double?
    /// The time left at the current speed, when both the speed and the total are known.
    public var estimatedTimeRemaining: Duration?

    /// A snapshot from the given values. Negative byte counts are clamped to zero, and a speed that is
    /// negative, NaN or infinite is dropped, so a snapshot is always sane to display.
    public init(
        receivedBytes: Int64, expectedBytes: Int64?, bytesPerSecond: Double? = nil,
        estimatedTimeRemaining: Duration? = nil
    ) {
        self.receivedBytes = max(0, receivedBytes)
        self.expectedBytes = expectedBytes.map { max(0, $0) }
        self.bytesPerSecond = bytesPerSecond.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        self.estimatedTimeRemaining = estimatedTimeRemaining
    }

    /// How much of the total has arrived, in 0...1; nil when the total is unknown. An empty transfer is
    /// complete (1), and a server sending more than it announced does not push the fraction past 1.
    public var fraction: Double? {
        guard let expectedBytes else { return nil }
        guard expectedBytes > 0 else { return 1 }
        return min(1, Double(receivedBytes) / Double(expectedBytes))
    }
}

/// A smoothed bytes-per-second measurement fed with `(bytes, time)` samples.
///
/// ```swift
/// var meter = ThroughputMeter()
/// let start = ContinuousClock.now
/// meter.record(bytes: chunk.count, at: .now - start)   // after every write
/// meter.bytesPerSecond                                  // nil for the first second, then smoothed
/// ```
///
/// Bytes accumulate in a window until at least `window` has passed; the window's rate then moves the
/// average by a weight that grows with the window's length (`1 - (1 - smoothingFactor)^(length/window)`),
/// so a 3 s window after a stall counts like three 1 s windows. During a stall no bytes arrive and no
/// samples come: a caller that ticks (a progress bar redrawing) should record zero bytes at each tick so
/// the speed decays instead of freezing.
struct ThroughputMeter: Sendable, Hashable {
    /// How long a measuring window lasts at least.
    let window: Duration
    /// The weight of one full window's rate in the average, in (0, 1]: higher reacts faster, lower is
    /// steadier.
    let smoothingFactor: Double
    /// Every byte recorded so far. Never decreases.
    private(set) var totalBytes: Int64 = 0
    /// The smoothed speed; nil until the first window closes. Always finite and non-negative.
    private(set) var bytesPerSecond: Double?

    private var windowStart: Duration
    private var windowBytes: Int64 = 0
    private var latestTime: Duration

    /// A meter whose first window starts at `startTime` (on the caller's monotonic timeline). A window that
    /// is not positive becomes 1 s; a smoothing factor outside (0, 1] becomes 0.3 (about 3 s of memory).
    init(window: Duration = .seconds(1), smoothingFactor: Double = 0.3, startTime: Duration = .zero) {
        self.window = window > .zero ? window : .seconds(1)
        self.smoothingFactor = smoothingFactor > 0 && smoothingFactor <= 1 ? smoothingFactor : 0.3
        self.windowStart = startTime
        self.latestTime = startTime
    }

    /// Records `bytes` that arrived at `time`. Negative counts are ignored, and a time earlier than one
    /// already seen is treated as that time, so the meter stays monotonic whatever it is fed.
    mutating func record(bytes: Int64, at time: Duration) {
        let time = max(time, latestTime)
        latestTime = time
        let bytes = max(0, bytes)
        let (total, overflow) = totalBytes.addingReportingOverflow(bytes)
        totalBytes = overflow ? Int64.max : total
        windowBytes = min(Int64.max - bytes, windowBytes) + bytes

        let elapsed = time - windowStart
        guard elapsed >= window else { return }
        let elapsedSeconds = Self.seconds(elapsed)
        let rate = Double(windowBytes) / elapsedSeconds
        let weight = 1 - pow(1 - smoothingFactor, elapsedSeconds / Self.seconds(window))
        if let previous = bytesPerSecond {
            bytesPerSecond = previous + weight * (rate - previous)
        } else {
            bytesPerSecond = rate
        }
        if let value = bytesPerSecond, !value.isFinite || value < 0 { bytesPerSecond = nil }
        windowStart = time
        windowBytes = 0
    }

    /// Records `bytes` (any integer type, such as a buffer's `count`) that arrived at `time`.
    mutating func record(bytes: some BinaryInteger, at time: Duration) {
        record(bytes: Int64(clamping: bytes), at: time)
    }

    /// The time `remainingBytes` take at the smoothed speed; zero when nothing remains; nil when the speed
    /// is unknown or zero, or the answer would exceed ~30 years (no one plans by that).
    func estimatedTimeRemaining(remainingBytes: Int64) -> Duration? {
        guard remainingBytes > 0 else { return .zero }
        guard let bytesPerSecond, bytesPerSecond > 0 else { return nil }
        let seconds = Double(remainingBytes) / bytesPerSecond
        guard seconds.isFinite, seconds < 1e9 else { return nil }
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    /// A snapshot for display. `receivedBytes` includes any bytes that were on disk before this meter
    /// started (a resumed download); the time left covers what remains to `expectedBytes`.
    func progress(receivedBytes: Int64, expectedBytes: Int64?) -> TransferProgress {
        let remaining = expectedBytes.map { max(0, $0 - receivedBytes) }
        return TransferProgress(
            receivedBytes: receivedBytes, expectedBytes: expectedBytes, bytesPerSecond: bytesPerSecond,
            estimatedTimeRemaining: remaining.flatMap { estimatedTimeRemaining(remainingBytes: $0) })
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}
