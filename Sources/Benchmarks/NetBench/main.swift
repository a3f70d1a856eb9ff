// NetBench: HTTPWire against curl (and URLSession) on loopback, side by side in one run (a program run by
// `make bench`, not a test). Benchmark layer: it starts nginx and BenchServer, then runs every workload's
// contenders as separate processes, round after round, interleaved (round r starts each row at its r-th
// contender, so a slow spell of the shared machine does not always hit the same program). It prints, per
// contender, the median figure, its ratio to curl's median, and its peak RSS, then a verdict per target.
// The request-rate rows also show wrk, when installed, as a reference: not a contender, but the ceiling
// the server puts on every client there (see WrkReport.swift).
//
// Environment: BENCH_ROUNDS (default 5), BENCH_QUICK=1 (one round, 256 MiB files, fewer requests: a fast
// check that everything runs, not figures to publish), BENCH_OUTPUT=FILE (also write the table there),
// BENCH_ONLY=TEXT (only the rows whose title contains TEXT).

import Foundation
import Glibc

let environment = ProcessInfo.processInfo.environment
let isQuick = environment["BENCH_QUICK"] == "1"
let rounds = isQuick ? 1 : max(1, Int(environment["BENCH_ROUNDS"] ?? "") ?? 5)
let largeBytes: Int64 = isQuick ? 256 << 20 : 1 << 30
let sequentialCount = isQuick ? 1000 : 5000
let concurrentCount = isQuick ? 4000 : 20000
let largeLabel = isQuick ? "256 MiB" : "1 GiB"
let rssLimitKiB = 16 * 1024

let executable =
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
let bench = BenchEnvironment(
    repository: FileManager.default.currentDirectoryPath,
    binaries: (executable as NSString).deletingLastPathComponent, largeBytes: largeBytes)

let loadAtStart = MachineDescription.loadAverage()
do {
    try bench.start()
} catch {
    note("NetBench: set-up failed: \(error)")
    bench.stop()
    exit(1)
}

let curl = "/usr/bin/curl"
let curlFlags = [curl, "-s", "-S", "-f", "--no-progress-meter"]
let wireBench = bench.binary("WireBench")
let urlSessionBench = bench.binary("URLSessionBench")
let wire = bench.binary("wire")
let large = bench.plainURL + "large.bin"
// The request-rate rows fetch the small file from nginx's /fast/ location (open_file_cache, no sendfile: one
// read and one writev per request instead of nine calls), so that nginx is less of the ceiling they measure.
let small = bench.plainURL + "fast/small.txt"
let downloadFile = bench.root + "/download.bin"
let chunkedURL = bench.fixtureURL + "chunked?chunks=\(largeBytes >> 14)&size=16384"
let removeDownload: () -> Void = {
    for suffix in ["", ".part", ".part.resume"] { unlink(downloadFile + suffix) }
}
// Uploads go to BenchServer's /sink, which reads the body in 1 MiB reads before it answers and checks the
// byte count itself (a 400 fails curl -f and the others' status checks): size= for a file, min_size= for a
// form around it (curl's and HTTPWire's boundaries differ by a few bytes).
let sinkURL = bench.fixtureURL + "sink?size=\(largeBytes)"
let formSinkURL = bench.fixtureURL + "sink?min_size=\(largeBytes)"
// HTTPWire sends no `Expect: 100-continue` unless asked; curl sends it for large uploads and waits for the
// 100. Turned off, so both put the same request on the wire.
let curlNoExpect = ["-H", "Expect:"]
let removeUploads: () -> Void = { ChildProcess.shell("rm -rf '\(bench.uploadDirectory)'/*") }

// curl reads 20,000 URLs from a config file (a command line that long is close to the kernel's limit).
let curlConfig = bench.root + "/urls.curl"
try String(repeating: "url = \"\(small)\"\n", count: concurrentCount).write(
    toFile: curlConfig, atomically: true, encoding: .utf8)

/// Why `wire COMMAND` cannot be measured, or nil when it works on this branch (the CLI is being written in parallel with the benchmarks).
@MainActor func wireCommandWorks(_ arguments: [String]) -> String? {
    let status = (try? ChildProcess.run([wire] + arguments, errorLog: bench.errorLog).status) ?? 1
    return status == 0 ? nil : "`wire \(arguments[0])` does not work on this branch yet (exit status \(status))"
}
/// Lines for the end of the report: what was left out and why.
var notes: [String] = []
/// wrk on one thread with `connections` connections for a fixed duration, as a request-rate row's reference:
/// close to the most nginx answers here (see WrkReport.swift). Left out, with a note, when wrk is missing.
@MainActor func wrkReference(connections: Int) -> [Contender] {
    let wrk = "/usr/bin/wrk"
    guard access(wrk, X_OK) == 0 else {
        notes.append("wrk is not installed (Debian package `wrk`): the request-rate rows have no reference row")
        return []
    }
    return [
        Contender(
            name: "wrk -t1 -c\(connections) (reference: the server's ceiling)",
            arguments: [wrk, "-t1", "-c\(connections)", "-d\(isQuick ? 1 : 3)s", small], timing: .printedRequestRate)
    ]
}
let wireGetMissing = wireCommandWorks(["get", small])
let wireDownloadMissing = wireCommandWorks(["download", small, "-o", bench.root + "/probe.txt"])

/// curl fetching the small file `sequentialCount` times on one connection: the baseline of the sequential
/// and the `wire get` rows.
let curlSequential = Contender(
    name: "curl URL×\(sequentialCount)",
    arguments: curlFlags + Array(repeating: small, count: sequentialCount), isBaseline: true)

let allWorkloads: [Workload] = [
    Workload(
        title: "\(largeLabel) download → /dev/null, plain HTTP", issue: "client",
        unit: .megabytesPerSecond(bytes: largeBytes), target: .ratio(1.2),
        contenders: [
            Contender(name: "curl -o /dev/null", arguments: curlFlags + ["-o", "/dev/null", large], isBaseline: true),
            Contender(name: "HTTPWire splice → /dev/null", arguments: [wireBench, "download", large, "/dev/null"]),
            Contender(name: "HTTPWire read + discard", arguments: [wireBench, "discard", large]),
            Contender(
                name: "HTTPWire drop in kernel (MSG_TRUNC)", arguments: [wireBench, "drop", large], isChecked: true,
                peakRSSLimitKiB: rssLimitKiB),
            Contender(name: "URLSession read + discard", arguments: [urlSessionBench, "discard", large]),
        ]),
    Workload(
        title: "\(largeLabel) download → /dev/null, HTTPS", issue: "client",
        unit: .megabytesPerSecond(bytes: largeBytes), target: .ratio(1.0),
        contenders: [
            Contender(
                name: "curl -o /dev/null",
                arguments: curlFlags + ["--cacert", bench.caFile, "-o", "/dev/null", bench.tlsURL + "large.bin"],
                isBaseline: true),
            Contender(
                name: "HTTPWire read + discard",
                arguments: [wireBench, "discard", bench.tlsURL + "large.bin", "--cafile", bench.caFile],
                isChecked: true, peakRSSLimitKiB: rssLimitKiB),
            Contender(
                name: "HTTPWire read + discard, on the reactor",
                arguments: [wireBench, "discard", bench.tlsURL + "large.bin", "--cafile", bench.caFile, "--reactor"]),
        ]),
    Workload(
        title: "\(largeLabel) download → file on \(bench.root.hasPrefix("/dev/shm") ? "tmpfs" : "disk")",
        issue: "downloads", unit: .megabytesPerSecond(bytes: largeBytes), target: .ratio(1.2),
        contenders: [
            Contender(name: "curl -o FILE", arguments: curlFlags + ["-o", downloadFile, large], isBaseline: true),
            Contender(
                name: "HTTPWire download API → FILE", arguments: [wireBench, "fetch", large, downloadFile],
                isChecked: true, peakRSSLimitKiB: rssLimitKiB),
            Contender(name: "HTTPWire splice → FILE", arguments: [wireBench, "download", large, downloadFile]),
            Contender(
                name: "HTTPWire read + pwrite → FILE",
                arguments: [wireBench, "download", large, downloadFile, "--stream"]),
        ], prepare: removeDownload),
    Workload(
        title: "\(largeLabel) chunked download → file, 16 KiB chunks (BenchServer)", issue: "downloads",
        unit: .megabytesPerSecond(bytes: largeBytes), target: .ratio(1.0),
        contenders: [
            Contender(name: "curl -o FILE", arguments: curlFlags + ["-o", downloadFile, chunkedURL], isBaseline: true),
            Contender(
                name: "HTTPWire download API → FILE", arguments: [wireBench, "fetch", chunkedURL, downloadFile],
                isChecked: true, peakRSSLimitKiB: rssLimitKiB),
        ], prepare: removeDownload),
    Workload(
        title: "\(largeLabel) chunked download → /dev/null, 16 KiB chunks (reference: no disk)", issue: "downloads",
        unit: .megabytesPerSecond(bytes: largeBytes), target: .reference,
        contenders: [
            Contender(
                name: "curl -o /dev/null", arguments: curlFlags + ["-o", "/dev/null", chunkedURL], isBaseline: true),
            Contender(name: "HTTPWire read + discard", arguments: [wireBench, "discard", chunkedURL]),
            Contender(
                name: "HTTPWire read + discard, on the reactor",
                arguments: [wireBench, "discard", chunkedURL, "--reactor"]),
        ]),
    Workload(
        title: "\(sequentialCount) sequential GETs (512 B), one connection", issue: "client",
        unit: .requestsPerSecond(count: sequentialCount), target: .ratio(1.5),
        contenders: [
            curlSequential,
            Contender(
                name: "HTTPWire get loop (cooperative pool)",
                arguments: [wireBench, "sequential", small, String(sequentialCount)]),
            Contender(
                name: "HTTPWire get loop on HTTPClient.reactorExecutor",
                arguments: [wireBench, "sequential", small, String(sequentialCount), "--reactor"], isChecked: true),
            Contender(
                name: "URLSession data loop",
                arguments: [urlSessionBench, "sequential", small, String(sequentialCount)]),
        ] + wrkReference(connections: 1)),
    Workload(
        title: "\(concurrentCount) GETs (512 B), 64 in flight", issue: "client",
        unit: .requestsPerSecond(count: concurrentCount), target: .ratio(1.2),
        contenders: [
            Contender(
                name: "curl --parallel-max 64",
                arguments: curlFlags + ["--parallel", "--parallel-max", "64", "-K", curlConfig], isBaseline: true),
            Contender(
                name: "HTTPWire 64 tasks (cooperative pool)",
                arguments: [wireBench, "concurrent", small, String(concurrentCount), "64"]),
            Contender(
                name: "HTTPWire 64 tasks on HTTPClient.reactorExecutor",
                arguments: [wireBench, "concurrent", small, String(concurrentCount), "64", "--reactor"],
                isChecked: true),
            Contender(
                name: "URLSession 64 tasks",
                arguments: [urlSessionBench, "concurrent", small, String(concurrentCount), "64"]),
        ] + wrkReference(connections: 64)),
    Workload(
        title: "\(largeLabel) upload (PUT) of a file to a sink (BenchServer /sink)", issue: "uploads",
        unit: .megabytesPerSecond(bytes: largeBytes), target: .ratio(1.3),
        contenders: [
            Contender(
                name: "curl -T FILE", arguments: curlFlags + curlNoExpect + ["-T", bench.largeFile, sinkURL],
                isBaseline: true),
            Contender(
                name: "HTTPWire .file", arguments: [wireBench, "put-file", sinkURL, bench.largeFile],
                isChecked: true, peakRSSLimitKiB: rssLimitKiB),
            Contender(
                name: "URLSession upload(fromFile:)",
                arguments: [urlSessionBench, "put-file", sinkURL, bench.largeFile]),
        ]),
    Workload(
        title: "\(largeLabel) multipart/form-data upload (PUT) to a sink (BenchServer /sink)", issue: "uploads",
        unit: .megabytesPerSecond(bytes: largeBytes), target: .ratio(1.3),
        contenders: [
            Contender(
                name: "curl -F file=@FILE",
                arguments: curlFlags + curlNoExpect + ["-X", "PUT", "-F", "file=@" + bench.largeFile, formSinkURL],
                isBaseline: true),
            Contender(
                name: "HTTPWire .multipart", arguments: [wireBench, "put-multipart", formSinkURL, bench.largeFile],
                isChecked: true, peakRSSLimitKiB: rssLimitKiB),
        ]),
    Workload(
        title: "\(largeLabel) upload (PUT) of a file to nginx dav (reference: nginx stores the body)",
        issue: "uploads", unit: .megabytesPerSecond(bytes: largeBytes), target: .reference,
        contenders: [
            Contender(
                name: "curl -T FILE",
                arguments: curlFlags + curlNoExpect + ["-T", bench.largeFile, bench.plainURL + "upload/curl-t.bin"],
                isBaseline: true),
            Contender(
                name: "HTTPWire .file",
                arguments: [wireBench, "put-file", bench.plainURL + "upload/wire.bin", bench.largeFile]),
        ], prepare: removeUploads),
    Workload(
        title: "`wire get` with \(sequentialCount) URLs", issue: "CLI",
        unit: .requestsPerSecond(count: sequentialCount), target: .ratio(1.5),
        contenders: [
            curlSequential,
            Contender(
                name: "wire get URL×\(sequentialCount)",
                arguments: [wire, "get"] + Array(repeating: small, count: sequentialCount),
                isChecked: true),
        ], unavailable: wireGetMissing),
    Workload(
        title: "`wire download` \(largeLabel) → file", issue: "CLI",
        unit: .megabytesPerSecond(bytes: largeBytes), target: .ratio(1.2),
        contenders: [
            Contender(name: "curl -o FILE", arguments: curlFlags + ["-o", downloadFile, large], isBaseline: true),
            Contender(
                name: "wire download -o FILE", arguments: [wire, "download", large, "-o", downloadFile, "--restart"],
                isChecked: true, peakRSSLimitKiB: rssLimitKiB),
        ], prepare: removeDownload, unavailable: wireDownloadMissing),
    Workload(
        title: "one GET, process start to exit", issue: "CLI",
        unit: .milliseconds(repeats: isQuick ? 5 : 15), target: .maxMilliseconds(30),
        contenders: [
            Contender(name: "curl URL", arguments: curlFlags + [small], isBaseline: true),
            Contender(name: "wire get URL", arguments: [wire, "get", small], isChecked: true),
            Contender(name: "WireBench sequential ×1", arguments: [wireBench, "sequential", small, "1"]),
        ], unavailable: wireGetMissing),
]
// BENCH_ONLY=TEXT keeps the rows whose title contains TEXT: for measuring one row while working on it.
let workloads = allWorkloads.filter { environment["BENCH_ONLY"].map($0.title.contains) ?? true }

/// One run of `contender`. A client's run is its wall time; a reference that prints its own rate (wrk) is
/// timed by that rate instead, as the time the row's work would take at it, so that its figure and its ratio
/// to curl come out of the table like everyone else's. A rate that cannot be read fails the run.
@MainActor func measure(_ contender: Contender, in workload: Workload) throws -> ChildRun {
    switch contender.timing {
    case .wallClock:
        return try ChildProcess.run(contender.arguments, errorLog: bench.errorLog)
    case .printedRequestRate:
        let output = bench.root + "/reference-output.txt"
        defer { unlink(output) }
        var run = try ChildProcess.run(contender.arguments, output: output, errorLog: bench.errorLog)
        guard run.status == 0 else { return run }
        let report = try WrkReport(parsing: String(contentsOfFile: output, encoding: .utf8))
        guard let seconds = workload.seconds(atRequestsPerSecond: report.requestsPerSecond) else {
            throw SpawnFailure(
                description: "\(contender.name) prints a request rate, but the row is not counted in requests")
        }
        run.seconds = seconds
        return run
    }
}

// results[row][contender]: one ChildRun per round.
var results = workloads.map { $0.contenders.map { _ in [ChildRun]() } }
var failures: [String] = []
let started = ChildProcess.monotonicSeconds()
for round in 0..<rounds {
    for (row, workload) in workloads.enumerated() where workload.unavailable == nil {
        let count = workload.contenders.count
        for step in 0..<count {
            let index = (step + round) % count
            let contender = workload.contenders[index]
            var runs: [ChildRun] = []
            let repeats = if case .milliseconds(let repeats) = workload.unit { repeats } else { 1 }
            for _ in 0..<repeats {
                workload.prepare()
                do {
                    runs.append(try measure(contender, in: workload))
                } catch {
                    failures.append("\(contender.name): \(error)")
                }
            }
            guard !runs.isEmpty else { continue }
            let sorted = runs.sorted { $0.seconds < $1.seconds }
            var run = sorted[sorted.count / 2]
            run.peakRSSKiB = runs.map(\.peakRSSKiB).max() ?? 0
            if let failed = runs.first(where: { $0.status != 0 }) {
                failures.append("\(workload.title) / \(contender.name): exit status \(failed.status)")
                run.status = failed.status
            }
            results[row][index].append(run)
            note(
                "round \(round + 1)/\(rounds) \(workload.title) | \(contender.name): "
                    + "\(format(workload.figure(seconds: run.seconds))) \(workload.unitLabel), "
                    + "\(run.peakRSSKiB / 1024) MiB")
        }
    }
}
let elapsed = ChildProcess.monotonicSeconds() - started
removeDownload()
removeUploads()
bench.stop()

let table = ResultTable(workloads: workloads, results: results, rounds: rounds)
var report = MachineDescription.text(bench: bench, quick: isQuick, rounds: rounds) + "\n" + table.render()
report += "\nrounds: \(rounds) (medians over rounds); measuring took \(Int(elapsed)) s; files on \(bench.root); "
report += "load average (1 min) \(loadAtStart) at start, \(MachineDescription.loadAverage()) at end; peak RSS "
report +=
    ChildProcess.measuresRSSExactly
    ? "from /usr/bin/time -f %M (the child's own)\n" : "from wait4 (a floor: install `time`)\n"
report += notes.map { "note: \($0)\n" }.joined()
if !failures.isEmpty {
    report +=
        "\nfailures (children's standard error is in \(bench.errorLog)):\n" + failures.map { "- \($0)\n" }.joined()
}
print(report)
if let path = environment["BENCH_OUTPUT"] { try? report.write(toFile: path, atomically: true, encoding: .utf8) }
exit(failures.isEmpty ? 0 : 1)

/// A progress line on standard error (the table goes to standard output).
func note(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
