// ProgressBar: the one-line transfer meter wire draws on stderr (edge layer).
// It turns byte counts into text — percent, bar, sizes in KiB/MiB/GiB, speed, ETA — and decides when a
// redraw is due (at most ten a second). It writes nothing and reads the time only through the clock it was
// given, so tests drive it with a fake clock and compare strings. Redraws start with a carriage return and
// pad with spaces to cover the previous frame; no ANSI escapes, so any terminal (or `script`) shows it.

#if canImport(Glibc)
    import Glibc
#endif

/// A progress meter for one transfer. Feed it the running byte count; write what it returns to stderr.
///
/// ```swift
/// var bar = ProgressBar(total: contentLength)           // nil when the size is not announced
/// for try await chunk in body {
///     received += Int64(chunk.count)
///     if let frame = bar.update(transferred: received) { Terminal.writeError(frame) }
/// }
/// Terminal.writeError(bar.finish())                      // the final line, ending in "\n"
/// ```
///
/// A frame with a known total reads ` 42% [########            ] 4.2 MiB / 10.0 MiB  1.3 MiB/s  ETA 0:04`;
/// without one, `4.2 MiB  1.3 MiB/s`. The final line shows the average speed and the time taken.
struct ProgressBar: Sendable {
    /// The shortest time between two frames: ten redraws a second look smooth and cost nothing.
    static let redrawInterval: Duration = .milliseconds(100)
    /// How far back the speed looks: long enough to smooth bursts, short enough to show a stall.
    static let speedWindow: Duration = .seconds(5)

    /// Whether to draw a bar: `--progress` (true) and `--no-progress` (false) win; otherwise only when
    /// stderr is a terminal, so a log file or a pipe never fills with carriage returns.
    static func isShown(requested: Bool?, stderrIsTerminal: Bool) -> Bool {
        requested ?? stderrIsTerminal
    }

    /// The expected size of the whole body, if the response announced it.
    let total: Int64?
    /// The width of the terminal; frames use one column less so the cursor never wraps to a new line.
    let columns: Int
    private let now: @Sendable () -> ContinuousClock.Instant
    private let start: (time: ContinuousClock.Instant, bytes: Int64)
    private var transferred: Int64
    /// Byte counts at recent redraws, oldest first, spanning at most `speedWindow`.
    private var samples: [(time: ContinuousClock.Instant, bytes: Int64)]
    private var lastFrame: ContinuousClock.Instant?
    private var isFinished = false

    /// A bar for a transfer of `total` bytes (nil: unknown) of which `alreadyTransferred` were done before
    /// (a resumed download): they count towards the percentage but not towards the speed.
    init(
        total: Int64?, alreadyTransferred: Int64 = 0, columns: Int = Terminal.columns(of: STDERR_FILENO),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.total = total
        self.columns = max(columns, 1)
        self.now = now
        let time = now()
        start = (time, alreadyTransferred)
        transferred = alreadyTransferred
        samples = [(time, alreadyTransferred)]
    }

    /// Records that `transferred` bytes are done so far. Returns the frame to write when a redraw is due
    /// (the first call, then at most one per `redrawInterval`), nil otherwise.
    mutating func update(transferred bytes: Int64) -> String? {
        guard !isFinished else { return nil }
        transferred = bytes
        let time = now()
        if let lastFrame, time - lastFrame < Self.redrawInterval { return nil }
        lastFrame = time
        samples.append((time, bytes))
        samples.removeFirst(samples.prefix { time - $0.time > Self.speedWindow }.count)
        let oldest = samples[0]
        let speed = Self.bytesPerSecond(bytes - oldest.bytes, over: time - oldest.time)
        var tail = "ETA --:--"
        if let total, let speed, speed > 0 {
            tail = "ETA " + Self.clockText(seconds: (Double(max(total - bytes, 0)) / speed).rounded(.up))
        }
        return frame(speed: speed, tail: total == nil ? nil : tail)
    }

    /// The frame for the count already recorded, when a redraw is due: what a timer calls during a stall,
    /// so the last bytes are drawn and the speed falls as the window moves past them.
    mutating func redraw() -> String? {
        update(transferred: transferred)
    }

    /// The last frame, with the average speed and the time taken, followed by a newline so whatever is
    /// printed next starts on a clean line. Later calls to `update` and `finish` return nothing.
    mutating func finish() -> String {
        guard !isFinished else { return "" }
        isFinished = true
        let elapsed = now() - start.time
        let speed = Self.bytesPerSecond(transferred - start.bytes, over: elapsed)
        return frame(speed: speed, tail: "in " + Self.clockText(seconds: Self.seconds(elapsed).rounded())) + "\n"
    }

    /// Lays out one frame: `\r`, the text, and spaces up to the previous frame's width.
    private func frame(speed: Double?, tail: String?) -> String {
        let width = columns - 1
        let speedText = speed.map { Self.byteText(Int64($0)) + "/s" } ?? "--- B/s"
        var stats = Self.byteText(transferred)
        var percentText = ""
        if let total {
            let fraction = total > 0 ? min(max(Double(transferred) / Double(total), 0), 1) : 1
            let percent = Int((fraction * 100).rounded(.down))
            percentText = String(repeating: " ", count: 3 - String(percent).count) + "\(percent)% "
            stats += " / " + Self.byteText(total)
            let barWidth = width - percentText.count - stats.count - speedText.count - (tail?.count ?? 0) - 7
            // Fewer than ten cells says little; the numbers alone read better on a narrow terminal.
            if barWidth >= 10 {
                let filled = Int((fraction * Double(barWidth)).rounded(.down))
                percentText +=
                    "[" + String(repeating: "#", count: filled)
                    + String(repeating: " ", count: barWidth - filled) + "] "
            }
        }
        var line = percentText + stats + "  " + speedText
        if let tail { line += "  " + tail }
        if line.count > width { line = String(line.prefix(width)) }
        return "\r" + line + String(repeating: " ", count: width - line.count)
    }

    /// Bytes per second, or nil when no time has passed yet.
    private static func bytesPerSecond(_ bytes: Int64, over duration: Duration) -> Double? {
        let seconds = seconds(duration)
        return seconds > 0 ? Double(max(bytes, 0)) / seconds : nil
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// A byte count in binary units with one decimal: `512 B`, `1.5 KiB`, `10.0 MiB`, `1.2 GiB`.
    static func byteText(_ bytes: Int64) -> String {
        guard bytes >= 1024 else { return "\(bytes) B" }
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
        var unitIndex = 0
        var tenths = (Double(bytes) / 1024 * 10).rounded()
        // 1023.96 KiB rounds to 1024.0: show it as 1.0 MiB instead.
        while tenths >= 10240 && unitIndex < units.count - 1 {
            unitIndex += 1
            tenths = (Double(bytes) / pow(1024, Double(unitIndex + 1)) * 10).rounded()
        }
        let whole = Int64(tenths) / 10
        return "\(whole).\(Int64(tenths) % 10) \(units[unitIndex])"
    }

    /// A duration as `M:SS`, or `H:MM:SS` from one hour; `--:--` past 99 hours (no estimate worth showing).
    static func clockText(seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0, seconds < 360_000 else { return "--:--" }
        let total = Int(seconds)
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        let paddedSeconds = secs < 10 ? "0\(secs)" : "\(secs)"
        guard hours > 0 else { return "\(minutes):\(paddedSeconds)" }
        return "\(hours):\(minutes < 10 ? "0" : "")\(minutes):\(paddedSeconds)"
    }
}
