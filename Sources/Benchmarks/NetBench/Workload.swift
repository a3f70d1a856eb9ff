// Workload: one row of the benchmark table — a transfer, the programs that race on it, and its target
// (benchmark layer). A row names its baseline (curl) and the one contender whose ratio to the baseline is
// checked against the target; the other contenders (URLSession, HTTPWire's other paths, the CLI) are shown
// for comparison. Nothing here runs a process: NetBench's main loop does, round after round.

/// A program competing in a workload.
struct Contender {
    /// Shown in the table: "curl -o", "HTTPWire splice", "URLSession".
    var name: String
    /// The command line; the first element is an absolute path.
    var arguments: [String]
    /// The figure every ratio of the row is taken against.
    var isBaseline = false
    /// The figure the row's target is checked on.
    var isChecked = false
    /// A peak-RSS ceiling in KiB that this contender must stay under, when the issue sets one.
    var peakRSSLimitKiB: Int?
    /// How the contender's figure is taken.
    var timing = Timing.wallClock

    /// Where a contender's figure comes from.
    enum Timing {
        /// Wall time from posix_spawn(3) to wait4(2), start-up included: every client.
        case wallClock
        /// A reference program that runs for a fixed duration and prints its own request rate (wrk, see
        /// WrkReport): the figure is that rate, read from its standard output.
        case printedRequestRate
    }
}

/// One row of the table.
struct Workload {
    /// How the row's figure is expressed.
    enum Unit {
        /// Body bytes moved per run: the figure is MB/s (10^6 bytes per second, as curl reports).
        case megabytesPerSecond(bytes: Int64)
        /// Requests per run: the figure is requests per second.
        case requestsPerSecond(count: Int)
        /// The figure is milliseconds per run (lower is better); each round runs it `repeats` times and keeps
        /// the median, since one start-up is too short to time alone.
        case milliseconds(repeats: Int)
    }

    /// What the checked contender must reach.
    enum Target {
        /// At least this many times the baseline's throughput.
        case ratio(Double)
        /// At most this many milliseconds per run.
        case maxMilliseconds(Double)
        /// None: a reference row, shown to say where a ceiling is (no contender is checked).
        case reference
    }

    /// Shown in the first column: "1 GiB download → /dev/null, plain HTTP".
    var title: String
    /// The issue the target comes from.
    var issue: String
    var unit: Unit
    var target: Target
    var contenders: [Contender]
    /// Called before every run of every contender (not timed): removes files the previous run left.
    var prepare: () -> Void = {}
    /// Why the row is missing, when it cannot run here (e.g. a CLI command not implemented yet).
    var unavailable: String?

    /// The figure for a run of `seconds`: MB/s, requests/s or milliseconds.
    func figure(seconds: Double) -> Double {
        switch unit {
        case .megabytesPerSecond(let bytes): Double(bytes) / seconds / 1e6
        case .requestsPerSecond(let count): Double(count) / seconds
        case .milliseconds: seconds * 1000
        }
    }

    /// The seconds this row's work takes at `requestsPerSecond`: how a printed rate becomes a run time the
    /// table treats like any other (its figure is then that rate again, its ratio the rate over curl's).
    /// Nil for a row not counted in requests.
    func seconds(atRequestsPerSecond requestsPerSecond: Double) -> Double? {
        guard case .requestsPerSecond(let count) = unit, requestsPerSecond > 0 else { return nil }
        return Double(count) / requestsPerSecond
    }

    /// The unit's label in the table.
    var unitLabel: String {
        switch unit {
        case .megabytesPerSecond: "MB/s"
        case .requestsPerSecond: "req/s"
        case .milliseconds: "ms"
        }
    }

    /// The target as the table shows it.
    var targetLabel: String {
        switch target {
        case .ratio(let ratio): "≥ \(ratio)× curl"
        case .maxMilliseconds(let limit): "≤ \(Int(limit)) ms"
        case .reference: "none (reference)"
        }
    }
}
