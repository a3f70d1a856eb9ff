// WrkReport: what a run of wrk(1) printed, read back for the table's reference rows (benchmark layer).
//
// wrk is not a contender like the others: it keeps one or 64 connections busy for a fixed duration with a
// request it formatted once, and it parses only as much of each response as it must to find its end (a
// C state machine, no body handling, nothing handed to a caller). So its rate is close to what nginx can
// answer on this machine — the ceiling a client's request rate is measured under, not a client to beat.
// It is timed by itself, so its figure is the "Requests/sec:" line it prints, never its process's wall
// time (which is the duration plus start-up, whatever the rate). A run that saw socket errors or
// non-2xx/3xx answers is a failure, exactly as a client that got a wrong status would be.

/// The figures of one wrk run, parsed from its standard output.
///
/// ```
/// Running 3s test @ http://127.0.0.1:40123/fast/small.txt
///   1 threads and 1 connections
///   ...
///   52233 requests in 3.00s, 38.10MB read
/// Requests/sec:  17409.77
/// Transfer/sec:     12.70MB
/// ```
struct WrkReport {
    /// The "Requests/sec:" figure: completed requests over the run's measured duration.
    var requestsPerSecond: Double
    /// The "N requests in …" count.
    var requests: Int

    /// Parses wrk's output. Throws when the rate is missing, nothing completed, or wrk reports errors
    /// ("Socket errors: …" or "Non-2xx or 3xx responses: …" lines appear only when there were some).
    init(parsing output: String) throws {
        var rate: Double?
        var requests: Int?
        for line in output.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("Socket errors:") || trimmed.hasPrefix("Non-2xx or 3xx responses:") {
                throw SpawnFailure(description: "wrk reported \(trimmed)")
            }
            if trimmed.hasPrefix("Requests/sec:") {
                rate = Double(trimmed.dropFirst("Requests/sec:".count).drop { $0 == " " })
            } else if let end = trimmed.firstRange(of: " requests in ") {
                requests = Int(trimmed[..<end.lowerBound])
            }
        }
        guard let rate, let requests, rate > 0, requests > 0 else {
            throw SpawnFailure(description: "wrk printed no request rate: \(output.prefix(200))")
        }
        requestsPerSecond = rate
        self.requests = requests
    }
}
