// ScaleBench: one HTTPClient holding 100, 1,000 and 10,000 kept-alive connections to one origin (a program
// run by `make bench-scale`, not a test; issue #16, item 4).
// Benchmark layer: it uses the library as a user would (the public API), plus the package-level reactor
// timer to see how late the reactor's loop runs under the load. It measures, for each N:
//   - memory per idle connection: VmRSS after N connections are open and idle, minus VmRSS before, over N
//     (both after malloc_trim(0), so memory the allocator merely kept from the opening burst is not counted);
//   - requests per second with N GETs kept in flight over the N connections for a few seconds, and the
//     process's CPU time (getrusage) inside that window per GET: the client's own cost, which the rate
//     mixes with the server's share of the same two cores;
//   - the reactor's loop latency during that run: a timer due every 10 ms, and how late each one fires.
//
//   ScaleBench URL [--seconds S] [--rounds R] [--counts 100,1000,10000] [--wrk PATH] [--reactor]
//
// `--wrk PATH` measures the server's ceiling in the same rounds: just before the client's run at each N,
// `wrk -t1 -cN` for as long against the same URL (its rate, and its CPU per request from getrusage of the
// child). The client's share of that ceiling is taken per round, so a drop that is the server's and the
// kernel's (which wrk meets too) is told apart from one that is the client's, and a machine that changes
// speed between rounds moves both figures of a pair alike. `--reactor` runs the client's tasks on the
// reactor thread (`HTTPClient.reactorExecutor`, as the `wire` CLI does) instead of the cooperative pool.
// URL is a small static file on a server that keeps 10,000 connections alive (Fixtures/nginx/nginx-scale.sh).
// Every phase checks what it got (status 200, a non-empty body, N connections opened; wrk: no socket
// errors, no non-2xx answer) and exits non-zero on a mismatch, so a fast but wrong run is a failure, not a
// good number.

import Glibc
import HTTPWire
import HTTPWireTransport

/// A phase failed: the message goes to standard error and the exit status is 1.
struct BenchFailure: Error, CustomStringConvertible {
    var description: String
}

/// The figures of one N.
struct ScaleRow {
    var connections: Int
    var opened: Int
    var openSeconds: Double
    var bytesPerIdleConnection: Double
    var requestsPerSecond: Double
    /// The process's CPU time (user + system, all threads) inside the request window over the GETs that
    /// ended in it: the client's own cost per request, which the server's share of the two cores does not
    /// move the way it moves the rate.
    var cpuMicrosecondsPerRequest: Double
    var latency: LoopLatency.Summary
    /// wrk's rate and CPU per request at the same N, measured just before (nil without `--wrk`).
    var ceiling: Ceiling?
}

/// The server's ceiling at one N: what `wrk -t1 -cN` reached against the same URL.
struct Ceiling: Sendable {
    var requestsPerSecond: Double
    /// wrk's own CPU time per request (µs): what any client on this kernel pays per request at this N.
    var cpuMicrosecondsPerRequest: Double
}

/// The CPU time (user + system, µs) of the children this process has waited for.
func childrenCPUMicroseconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    func micros(_ time: timeval) -> Double { Double(time.tv_sec) * 1e6 + Double(time.tv_usec) }
    return micros(usage.ru_utime) + micros(usage.ru_stime)
}

/// Runs `wrk -t1 -c<n> -d<seconds>s url` and reads its rate and request count from its report. A run with
/// socket errors or non-2xx answers is a failure: its rate would not be the server's ceiling.
func measureCeiling(wrk: String, url: String, connections n: Int, seconds: Double) throws -> Ceiling {
    let command = "'\(wrk)' -t1 -c\(n) -d\(Int(seconds.rounded(.up)))s '\(url)' 2>&1"
    let cpuBefore = childrenCPUMicroseconds()
    guard let pipe = popen(command, "r") else { throw BenchFailure(description: "cannot start \(command)") }
    var report = ""
    var line = [CChar](repeating: 0, count: 512)
    while fgets(&line, Int32(line.count), pipe) != nil {
        report += text(of: line)
    }
    let status = pclose(pipe)
    let cpu = childrenCPUMicroseconds() - cpuBefore
    var requests = 0.0
    var rate = 0.0
    for text in report.split(separator: "\n") {
        let words = text.split(separator: " ")
        if text.contains("requests in"), let first = words.first { requests = Double(first) ?? 0 }
        if text.hasPrefix("Requests/sec:"), words.count > 1 { rate = Double(words[1]) ?? 0 }
    }
    guard status == 0, requests > 0, rate > 0, !report.contains("Socket errors"), !report.contains("Non-2xx")
    else { throw BenchFailure(description: "wrk at \(n) connections:\n\(report)") }
    return Ceiling(requestsPerSecond: rate, cpuMicrosecondsPerRequest: cpu / requests)
}

/// The process's CPU time so far (user + system, every thread), in microseconds.
func processCPUMicroseconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func micros(_ time: timeval) -> Double { Double(time.tv_sec) * 1e6 + Double(time.tv_usec) }
    return micros(usage.ru_utime) + micros(usage.ru_stime)
}

/// Raises the soft descriptor limit to the hard one (10,000 sockets need more than the usual 1,024).
func raiseDescriptorLimit() -> rlim_t {
    var limit = rlimit()
    getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    return limit.rlim_cur
}

/// glibc's malloc_trim(3), which Swift's Glibc module does not import: gives freed heap pages back to the
/// kernel, so RSS shows what is in use, not what the allocator kept from a burst.
let mallocTrim: (@convention(c) (Int) -> Int32)? = {
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
}()

/// The text of a line `fgets` filled in, up to its terminating NUL.
func text(of line: [CChar]) -> String {
    String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// A field of /proc/self/status in bytes (VmRSS: the resident set), after giving freed heap back.
func statusBytes(_ field: String = "VmRSS:") -> Int {
    _ = mallocTrim?(0)
    guard let file = fopen("/proc/self/status", "r") else { return 0 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let entry = text(of: line)
        if entry.hasPrefix(field) {
            let digits = entry.filter(\.isNumber)
            return (Int(digits) ?? 0) * 1024
        }
    }
    return 0
}

/// A gate that opens once `count` tasks reached it: the N GETs of the opening phase each hold their
/// connection (a streamed response not yet read) until all N have one, so the pool must open N.
actor Gate {
    let count: Int
    var arrived = 0
    var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { self.count = count }

    func arrive() async {
        arrived += 1
        if arrived >= count {
            for continuation in waiting { continuation.resume() }
            waiting = []
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}

/// One GET, checked: status 200 and a body.
func checkedGet(_ client: HTTPClient, _ url: String) async throws {
    let response = try await client.get(url)
    guard response.status.rawValue == 200, !response.body.isEmpty else {
        throw BenchFailure(description: "status \(response.status), \(response.body.count) bytes")
    }
}

/// The figures for `n` connections on a fresh client.
func measure(url: String, connections n: Int, seconds: Double) async throws -> ScaleRow {
    var configuration = ClientConfiguration()
    configuration.pool.maxConnectionsPerOrigin = n
    configuration.pool.maxIdleConnectionsPerOrigin = n
    configuration.pool.idleTimeout = .seconds(600)
    let client = HTTPClient(configuration: configuration)
    let before = statusBytes()

    // Open n connections: n streamed GETs that each wait at the gate holding their connection.
    let gate = Gate(count: n)
    let openStart = Deadline.nowNanoseconds()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<n {
            group.addTask {
                let response = try await client.stream(HTTPRequest(url: url))
                guard response.status.rawValue == 200 else {
                    throw BenchFailure(description: "status \(response.status)")
                }
                await gate.arrive()
                var received = 0
                for try await piece in response.body { received += piece.count }
                guard received > 0 else { throw BenchFailure(description: "empty body") }
            }
        }
        try await group.waitForAll()
    }
    let openSeconds = Double(Deadline.nowNanoseconds() - openStart) / 1e9
    let opened = client.connectionsOpened
    guard opened == n else { throw BenchFailure(description: "\(opened) connections opened for \(n)") }
    let idle = statusBytes()

    // n GETs in flight for `seconds`, each task starting its next GET when one ends. Only GETs that end
    // inside the window count, over the window's length: the drain after it (the runtime removes a finished
    // child from a task group in O(children), so 10,000 children take a while to collect) is not measured.
    let latency = LoopLatency(period: .milliseconds(10))
    let cpuStart = processCPUMicroseconds()
    // Read by the first task that sees the window closed, so the drain after it is not in the figure.
    let cpuAtEnd = LockedState<Double?>(nil)
    let runStart = Deadline.nowNanoseconds()
    let end = Deadline(uptimeNanoseconds: runStart + UInt64(seconds * 1e9))
    latency.start()
    let (completed, cpuMicroseconds) = try await withThrowingTaskGroup(of: Int.self) { group in
        for _ in 0..<n {
            group.addTask {
                var count = 0
                while !end.hasPassed {
                    try await checkedGet(client, url)
                    if !end.hasPassed { count += 1 }
                }
                cpuAtEnd.withLock { if $0 == nil { $0 = processCPUMicroseconds() } }
                return count
            }
        }
        let completed = try await group.reduce(0, +)
        return (completed, (cpuAtEnd.withLock { $0 } ?? processCPUMicroseconds()) - cpuStart)
    }
    let summary = latency.stop()
    let runSeconds = seconds
    guard client.connectionsOpened == n else {
        throw BenchFailure(description: "\(client.connectionsOpened) connections opened during the run, not \(n)")
    }
    await client.shutdown()
    return ScaleRow(
        connections: n, opened: opened, openSeconds: openSeconds,
        bytesPerIdleConnection: Double(idle - before) / Double(n),
        requestsPerSecond: Double(completed) / runSeconds,
        cpuMicrosecondsPerRequest: cpuMicroseconds / Double(max(1, completed)), latency: summary, ceiling: nil)
}

/// `value` with `decimals` digits after the point, right-aligned in `width`.
func format(_ value: Double, decimals: Int, width: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = decimals == 0 ? String(Int(rounded)) : String(rounded)
    if decimals > 0, let dot = text.firstIndex(of: ".") {
        let shown = text.distance(from: dot, to: text.endIndex) - 1
        if shown < decimals { text += String(repeating: "0", count: decimals - shown) }
    }
    return String(repeating: " ", count: max(0, width - text.count)) + text
}

/// The middle value of `values` (the mean of the two middle ones for an even count).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

extension Array {
    /// `transform` of each element in order, one at a time (the phases must not overlap).
    func asyncMap<T>(_ transform: (Element) async throws -> T) async throws -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}

/// The load averages, from /proc/loadavg.
func loadAverage() -> String {
    guard let file = fopen("/proc/loadavg", "r") else { return "?" }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 128)
    guard fgets(&line, Int32(line.count), file) != nil else { return "?" }
    return text(of: line).split(separator: " ").prefix(3).joined(separator: " ")
}

/// The table: for each N, medians over the rounds. With wrk's ceilings, the client's share of the ceiling
/// and how it holds from the first N are taken round by round (each round's pair ran back to back), then
/// the median of those.
func printTable(_ rounds: [[ScaleRow]], counts: [Int]) {
    let hasCeiling = rounds[0][0].ceiling != nil
    print(
        "| connections | open (s) | RSS per idle connection (round 1) | requests/s (min–max) "
            + "| vs first | client CPU per request | vs first | loop late p50 | p99 | max |"
            + (hasCeiling
                ? " server ceiling (wrk) | vs first | wrk CPU per request | vs first | client ÷ ceiling | vs first |"
                : ""))
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + (hasCeiling ? "---:|---:|---:|---:|---:|---:|" : ""))
    for (column, n) in counts.enumerated() {
        let rows = rounds.map { $0[column] }
        let rates = rows.map(\.requestsPerSecond)
        /// The median over the rounds of `value(row) ÷ value(that round's first row)`.
        func pairedVsFirst(_ value: (ScaleRow) -> Double) -> String {
            format(median(rounds.map { value($0[column]) / value($0[0]) }), decimals: 2, width: 0) + "×"
        }
        var cells = [
            String(n),
            format(median(rows.map(\.openSeconds)), decimals: 2, width: 0),
            format(rows[0].bytesPerIdleConnection / 1024, decimals: 1, width: 0) + " KiB",
            format(median(rates), decimals: 0, width: 0) + " (" + format(rates.min() ?? 0, decimals: 0, width: 0)
                + "–" + format(rates.max() ?? 0, decimals: 0, width: 0) + ")",
            pairedVsFirst(\.requestsPerSecond),
            format(median(rows.map(\.cpuMicrosecondsPerRequest)), decimals: 1, width: 0) + " µs",
            pairedVsFirst(\.cpuMicrosecondsPerRequest),
            format(median(rows.map(\.latency.p50Milliseconds)), decimals: 2, width: 0) + " ms",
            format(median(rows.map(\.latency.p99Milliseconds)), decimals: 2, width: 0) + " ms",
            format(rows.map(\.latency.maxMilliseconds).max() ?? 0, decimals: 2, width: 0) + " ms",
        ]
        if hasCeiling {
            let ceilingRate = { (row: ScaleRow) in row.ceiling?.requestsPerSecond ?? .nan }
            let ceilingCPU = { (row: ScaleRow) in row.ceiling?.cpuMicrosecondsPerRequest ?? .nan }
            let share = { (row: ScaleRow) in row.requestsPerSecond / ceilingRate(row) }
            cells += [
                format(median(rows.map(ceilingRate)), decimals: 0, width: 0),
                pairedVsFirst(ceilingRate),
                format(median(rows.map(ceilingCPU)), decimals: 1, width: 0) + " µs",
                pairedVsFirst(ceilingCPU),
                format(median(rows.map(share)), decimals: 2, width: 0),
                pairedVsFirst(share),
            ]
        }
        print("| " + cells.joined(separator: " | ") + " |")
    }
}

func run(_ arguments: [String]) async throws {
    guard let url = arguments.first, url.hasPrefix("http") else {
        throw BenchFailure(
            description: "usage: ScaleBench URL [--seconds S] [--rounds R] [--counts 100,1000,10000]"
                + " [--wrk PATH] [--reactor]")
    }
    /// The word after `option`, or nil when the option is absent.
    func value(after option: String) -> String? {
        guard let index = arguments.firstIndex(of: option), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }
    let seconds = value(after: "--seconds").flatMap { Double($0) } ?? 5.0
    let roundCount = value(after: "--rounds").flatMap { Int($0) } ?? 3
    let counts = value(after: "--counts").map { $0.split(separator: ",").compactMap { Int($0) } } ?? [100, 1000, 10000]
    let wrk = value(after: "--wrk")
    let limit = raiseDescriptorLimit()
    print("ScaleBench: \(url), descriptor limit \(limit), \(seconds) s per run, load average \(loadAverage())")

    // One GET first, so the runtime's, TLS's and the reactor's start-up memory is in every "before".
    let warm = HTTPClient()
    try await checkedGet(warm, url)
    await warm.shutdown()

    var rounds: [[ScaleRow]] = []
    for _ in 0..<max(1, roundCount) {
        rounds.append(
            try await counts.asyncMap { n in
                // wrk runs for seconds: waited for on a blocking worker's thread, not on the executor's.
                var ceiling: Ceiling?
                if let wrk {
                    ceiling = try await BlockingWorker.shared.run {
                        try measureCeiling(wrk: wrk, url: url, connections: n, seconds: seconds)
                    }
                }
                var row = try await measure(url: url, connections: n, seconds: seconds)
                row.ceiling = ceiling
                return row
            })
    }
    printTable(rounds, counts: counts)
    print(
        "medians of \(rounds.count) rounds (each round runs every N in turn); max: the largest of any round; "
            + "memory from round 1 only: later rounds start on a heap the 10,000 row fragmented")
    print("load average after: \(loadAverage())")
}

do {
    var arguments = Array(CommandLine.arguments.dropFirst())
    if let index = arguments.firstIndex(of: "--reactor") {
        arguments.remove(at: index)
        try await withTaskExecutorPreference(HTTPClient.reactorExecutor) { try await run(arguments) }
    } else {
        try await run(arguments)
    }
} catch {
    var standardError = StandardError()
    print("ScaleBench: \(error)", to: &standardError)
    exit(1)
}

/// Standard error as a `TextOutputStream`.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        let bytes = Array(string.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
