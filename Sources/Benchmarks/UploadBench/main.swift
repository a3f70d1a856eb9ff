// UploadBench: upload throughput and memory of HTTPWire against curl (a program for `make bench`, not a test).
// Benchmark for the upload path: a file on tmpfs sent over loopback to a sink that reads the whole body
// before it answers (FixtureServer's /sink, run in a child process of this same binary, so the client
// measured here shares its process with nothing else).
//
//   UploadBench [SIZE_MIB] [ROUNDS] [SINK_URL]     defaults: 1024 MiB, 3 rounds, a child FixtureServer /sink
//   UPLOADBENCH_TLS_DIR=DIR UploadBench ...        the same over TLS (DIR from Fixtures/tls/make-certs.sh)
//
// Each round uploads the file with HTTPWire (PUT of the file as the body; POST of a one-file multipart
// form) and with curl (`-T` streams a PUT, `-F file=@` streams a form, `--data-binary @` reads the whole
// file into memory first), and reports the median MB/s and each program's peak RSS. HTTPWire's figure is
// this process's VmHWM, start-up included; curl's comes from wait4(2). Targets: at least 1.3x curl's
// speed, peak RSS at most 16 MiB whatever the size (curl --data-binary cannot send 1 GiB or more: it
// caps the file it holds in memory at 1 GiB, so pass a smaller SIZE_MIB to compare with it). Every upload
// checks the byte count the sink reports, so a fast but short upload is a failure, not a good number.
// On a shared machine the MB/s move with the neighbours' load; the CPU seconds per GiB of the uploading
// process (getrusage, wait4) move much less, so both are printed.

import FixtureServer
import Glibc
import HTTPWire
import HTTPWireCodec

// MARK: Child mode: the sink

/// With UPLOADBENCH_TLS_DIR set to a directory made by Fixtures/tls/make-certs.sh, everything runs over
/// TLS: the sink presents leaf.pem, HTTPWire and curl trust ca.pem.
let tlsDirectory = getenv("UPLOADBENCH_TLS_DIR").map { String(cString: $0) }

if CommandLine.arguments.dropFirst().first == "--serve-sink" {
    let tls = tlsDirectory.map {
        TLSServerConfiguration(
            certificateChain: .file(path: $0 + "/leaf.pem"), privateKey: .file(path: $0 + "/leaf.key"))
    }
    let server = try await FixtureServer.start(tls: tls)
    // Unbuffered, so the parent reads the port at once.
    let line = Array("\(server.port)\n".utf8)
    _ = write(1, line, line.count)
    // Serve until the parent closes our standard input (or dies).
    var byte: UInt8 = 0
    while read(0, &byte, 1) > 0 {}
    await server.stop()
    exit(0)
}

// MARK: Parent mode: the measurements

let arguments = Array(CommandLine.arguments.dropFirst())
let sizeMiB = arguments.first.flatMap { Int64($0) } ?? 1024
let rounds = arguments.dropFirst().first.flatMap { Int($0) }.map { max(1, $0) } ?? 3
let size = sizeMiB << 20
let path = "/dev/shm/httpwire-upload-bench-\(sizeMiB)MiB.bin"

/// A child process with pipes on its standard input and output.
struct Child {
    var pid: pid_t
    var stdinWrite: Int32
    var stdoutRead: Int32

    static func spawn(_ executable: String, _ arguments: [String]) -> Child? {
        var input: [Int32] = [0, 0]
        var output: [Int32] = [0, 0]
        guard pipe(&input) == 0, pipe(&output) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        for descriptor in [input[0], input[1], output[0], output[1]] {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else { return nil }
        close(input[0])
        close(output[1])
        return Child(pid: pid, stdinWrite: input[1], stdoutRead: output[0])
    }

    /// Everything the child writes until it closes its output.
    func readAll() -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(stdoutRead, &buffer, buffer.count)
            if count <= 0 { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// One line of output.
    func readLine() -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(stdoutRead, &byte, 1) == 1, byte != 10 { bytes.append(byte) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Waits for the child; returns its exit status, peak RSS in bytes and CPU seconds (user + system).
    func wait() -> (status: Int32, peakResidentBytes: Int64, cpuSeconds: Double) {
        close(stdinWrite)
        close(stdoutRead)
        var status: Int32 = 0
        var usage = rusage()
        _ = wait4(pid, &status, 0, &usage)
        return ((status >> 8) & 0xFF, Int64(usage.ru_maxrss) * 1024, cpuSeconds(usage))
    }
}

/// Makes the test file unless it exists with the right size: seeded bytes, 1 MiB writes.
func makeFile() -> Bool {
    var info = stat()
    if stat(path, &info) == 0 && Int64(info.st_size) == size { return true }
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var block = GeneratedBytes.bytes(0..<(1 << 20), seed: 9)
    var written: Int64 = 0
    var index: UInt8 = 0
    while written < size {
        block[0] = index
        index &+= 1
        let count = Int(min(Int64(block.count), size - written))
        guard write(fd, block, count) == count else { return false }
        written += Int64(count)
    }
    return true
}

/// The process's peak resident set (VmHWM), in bytes.
func peakResidentBytes() -> Int64 {
    guard let file = fopen("/proc/self/status", "r") else { return -1 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("VmHWM:") { return (Int64(text.filter(\.isNumber)) ?? -1) * 1024 }
    }
    return -1
}

/// User plus system CPU time of a rusage.
func cpuSeconds(_ usage: rusage) -> Double {
    Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
        + Double(usage.ru_stime.tv_usec) / 1e6
}

/// CPU seconds this process has used so far (the sink is a child, so it is not counted).
func ownCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    return cpuSeconds(usage)
}

func megabytesPerSecond(_ bytes: Int64, _ elapsed: Duration) -> Double {
    let (seconds, attoseconds) = elapsed.components
    return Double(bytes) / (Double(seconds) + Double(attoseconds) * 1e-18) / 1e6
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func format(_ value: Double) -> String { String(Int(value.rounded())) }

guard makeFile() else {
    print("UploadBench: cannot write \(path)")
    exit(1)
}

var sinkChild: Child?
let sinkURL: String
if let given = arguments.dropFirst(2).first {
    sinkURL = given
} else {
    guard let child = Child.spawn("/proc/self/exe", ["--serve-sink"]) else {
        print("UploadBench: cannot start the sink")
        exit(1)
    }
    sinkChild = child
    sinkURL = "\(tlsDirectory == nil ? "http" : "https")://127.0.0.1:\(child.readLine())/sink"
}

print("UploadBench: \(sizeMiB) MiB from \(path) to \(sinkURL), \(rounds) rounds; MB = 10^6 bytes")

var results: [String: [Double]] = [:]
var peaks: [String: Int64] = [:]
var failures: [String: Int] = [:]
/// CPU seconds of the uploading process per round: a figure the other programs on a shared machine move less.
var cpu: [String: [Double]] = [:]
let clock = ContinuousClock()
var configuration = ClientConfiguration()
if let tlsDirectory {
    configuration.tls = TLSConfiguration(
        trustsSystemRoots: false, additionalTrustRoots: [.file(path: tlsDirectory + "/ca.pem")])
}
let client = HTTPClient(configuration: configuration)
let curlTLS = tlsDirectory.map { ["--cacert", $0 + "/ca.pem"] } ?? []
var failed = false
/// Bytes the sink was sent, over every successful upload: what its CPU time is divided by.
var sinkBytes: Int64 = 0

for _ in 0..<rounds {
    // HTTPWire: the file as a PUT body, then as the one file of a form.
    var start = clock.now
    var cpuStart = ownCPUSeconds()
    let put = try await client.upload(file: path, to: sinkURL).response
    results["httpwire -T (PUT file)", default: []].append(megabytesPerSecond(size, clock.now - start))
    cpu["httpwire -T (PUT file)", default: []].append(ownCPUSeconds() - cpuStart)
    if put.fields["X-Received-Bytes"] != String(size) {
        print("UploadBench: the sink received \(put.fields["X-Received-Bytes"] ?? "?") of \(size) bytes")
        failed = true
    }
    var form = MultipartForm()
    form.addFile(name: "file", path: path)
    start = clock.now
    cpuStart = ownCPUSeconds()
    let posted = try await client.upload(form, to: sinkURL).response
    results["httpwire -F (multipart)", default: []].append(megabytesPerSecond(size, clock.now - start))
    cpu["httpwire -F (multipart)", default: []].append(ownCPUSeconds() - cpuStart)
    if (Int64(posted.fields["X-Received-Bytes"] ?? "") ?? 0) <= size { failed = true }
    sinkBytes += 2 * size

    // curl, each way; `Expect:` off so no variant waits for a 100.
    let curlRuns: [(String, [String])] = [
        ("curl -T (PUT file)", ["-T", path]),
        ("curl -F (multipart)", ["-F", "file=@\(path)"]),
        ("curl --data-binary", ["--data-binary", "@\(path)"]),
    ]
    for (name, options) in curlRuns {
        start = clock.now
        guard
            let curl = Child.spawn(
                "/usr/bin/curl",
                ["-sS", "-o", "/dev/null", "-w", "%header{x-received-bytes}", "-H", "Expect:"] + curlTLS + options
                    + [sinkURL])
        else {
            print("UploadBench: cannot run /usr/bin/curl")
            exit(1)
        }
        let received = Int64(curl.readAll().filter(\.isNumber)) ?? 0
        let (status, peak, cpuSeconds) = curl.wait()
        peaks[name] = max(peaks[name] ?? 0, peak)
        cpu[name, default: []].append(cpuSeconds)
        guard status == 0 else {
            // curl 7.88 refuses `--data-binary @file` for 1 GiB and more ("out of memory"): it must hold
            // the whole file, and caps that at 1 GiB. A failed run has no speed.
            failures[name, default: 0] += 1
            continue
        }
        // The sink's count, as for HTTPWire: the whole file (a form adds its framing around it).
        if name.hasPrefix("curl -F") ? received <= size : received != size {
            print("UploadBench: \(name): the sink received \(received) of \(size) bytes")
            failed = true
        }
        results[name, default: []].append(megabytesPerSecond(size, clock.now - start))
        sinkBytes += size
    }
}
await client.shutdown()
if let sinkChild {
    // Per byte of the uploads that went through (the forms' few hundred bytes of framing aside; a refused
    // `curl --data-binary` sent nothing).
    let sinkCPU = sinkChild.wait().cpuSeconds / Double(max(1, sinkBytes)) * Double(1 << 30)
    print("sink (FixtureServer /sink, child process): CPU \((sinkCPU * 100).rounded() / 100) s per GiB received")
}

let ownPeak = peakResidentBytes()
for name in Set(results.keys).union(failures.keys).sorted() {
    let peak = name.hasPrefix("httpwire") ? ownPeak : peaks[name] ?? -1
    let speeds = results[name] ?? []
    let failed = failures[name].map { ", \($0) failed" } ?? ""
    let summary = speeds.isEmpty ? "no successful round" : "median \(format(median(speeds))) MB/s"
    let cpuPerGiB = median(cpu[name] ?? [0]) / Double(size) * Double(1 << 30)
    let rounds = speeds.map(format).joined(separator: ", ")
    print(
        "\(name): \(summary) (rounds \(rounds)\(failed)), peak RSS \(peak >> 20) MiB,"
            + " CPU \((cpuPerGiB * 100).rounded() / 100) s per GiB")
}
let ours = median(results["httpwire -T (PUT file)"] ?? [0])
for reference in ["curl --data-binary", "curl -T (PUT file)", "curl -F (multipart)"] {
    guard let theirs = results[reference].map(median) else { continue }
    let ratio = ours / theirs
    print(
        "HTTPWire PUT / \(reference): \((ratio * 100).rounded() / 100)x (target 1.3x: \(ratio >= 1.3 ? "meets" : "MISSES"))"
    )
}
print("HTTPWire peak RSS \(ownPeak >> 20) MiB (target 16 MiB: \(ownPeak <= 16 << 20 ? "meets" : "MISSES"))")
exit(failed ? 1 : 0)
