// WireBench: one HTTPWire workload per run, in a process of its own (a program run by `make bench`, not a test).
// Benchmark layer: NetBench starts this program as a child, times it from start to exit exactly as it times
// curl, and reads its peak RSS from wait4(2), so the library's footprint is measured without the driver's.
//
// It uses the library as a user would: the public API, plus the package-level splice fast path that the
// download feature uses. Every workload checks what it received (byte counts, statuses) and exits non-zero
// on a mismatch, so a fast but wrong run shows up as a failure in the table, not as a good number.
//
//   WireBench download URL DEST [--stream] [--cafile PEM]   body to DEST (splice(2) unless --stream or TLS)
//   WireBench fetch URL DEST [--cafile PEM]                  the download API (`client.download(from:to:)`)
//   WireBench drop URL                                       drop the body in the kernel (recv MSG_TRUNC)
//   WireBench discard URL [--cafile PEM]                     read the body and drop it (chunked, HTTPS)
//   WireBench sequential URL COUNT [--reactor]               COUNT GETs in a loop on one client
//   WireBench concurrent URL COUNT IN_FLIGHT [--reactor]     COUNT GETs, IN_FLIGHT at a time
//
// `--reactor` runs the workload's tasks on `HTTPClient.reactorExecutor` (withTaskExecutorPreference), the
// opt-in that lets a response resume its task on the thread that saw the socket become ready.
//   WireBench put-file URL PATH                              PUT a file (sendfile(2) on plain HTTP)
//   WireBench put-multipart URL PATH                         PUT a multipart/form-data form with the file

import Glibc
import HTTPWire
import HTTPWireTransport

/// A workload failed: the message goes to standard error and the exit status is 1.
struct BenchFailure: Error, CustomStringConvertible {
    var description: String
}

/// A client for `url`'s workloads: a custom CA when `--cafile` is given, `connections` per origin.
func makeClient(caFile: String?, connections: Int = 8) -> HTTPClient {
    var configuration = ClientConfiguration()
    if let caFile { configuration.tls.additionalTrustRoots = [.file(path: caFile)] }
    configuration.pool.maxConnectionsPerOrigin = connections
    configuration.pool.maxIdleConnectionsPerOrigin = connections
    return HTTPClient(configuration: configuration)
}

/// Streams the body of `url` into `destination`: splice(2) socket→file whenever it applies (plain HTTP,
/// Content-Length, nothing buffered), the body sequence otherwise (TLS, chunked, bytes read with the head).
func download(url: String, to destination: String, caFile: String?, allowSplice: Bool) async throws {
    let client = makeClient(caFile: caFile)
    let response = try await client.stream(HTTPRequest(url: url))
    guard response.status.rawValue == 200 else { throw BenchFailure(description: "status \(response.status)") }
    let file = try DiskFile.open(destination, for: .writing(creating: true))
    defer { file.close() }
    try file.truncate(to: 0)
    var offset: Int64 = 0
    var pieces = response.body.makeAsyncIterator()
    while true {
        if allowSplice, let moved = try await response.body.spliceNext(into: file, offset: offset, maxBytes: 1 << 30) {
            offset += moved
            continue
        }
        guard let piece = try await pieces.next() else { break }
        try piece.withUnsafeBytes { bytes in Result { () throws(TransportError) in try file.write(bytes, at: offset) } }
            .get()
        offset += Int64(piece.count)
    }
    try check(received: offset, expected: response.expectedContentLength)
    await client.shutdown()
}

/// Downloads `url` to `destination` with the download feature (a fresh download: `restart`), as an
/// application would: `.part` file, resume record, rename at the end, splice(2) where it applies.
func fetch(url: String, to destination: String, caFile: String?) async throws {
    let client = makeClient(caFile: caFile)
    var options = DownloadOptions()
    options.restart = true
    let result = try await client.download(from: url, to: destination, options: options).result()
    if result.bytes == 0 { throw BenchFailure(description: "empty download") }
    await client.shutdown()
}

/// Drops the body of `url` without copying it where the package discard path applies, reading otherwise.
func drop(url: String) async throws {
    let client = makeClient(caFile: nil)
    let response = try await client.stream(HTTPRequest(url: url))
    guard response.status.rawValue == 200 else { throw BenchFailure(description: "status \(response.status)") }
    var received: Int64 = 0
    var pieces = response.body.makeAsyncIterator()
    while true {
        if let dropped = try await response.body.discardNext(maxBytes: 1 << 30) {
            received += dropped
            continue
        }
        guard let piece = try await pieces.next() else { break }
        received += Int64(piece.count)
    }
    try check(received: received, expected: response.expectedContentLength)
    await client.shutdown()
}

/// Reads the body of `url` and drops it.
func discard(url: String, caFile: String?) async throws {
    let client = makeClient(caFile: caFile)
    let response = try await client.stream(HTTPRequest(url: url))
    guard response.status.rawValue == 200 else { throw BenchFailure(description: "status \(response.status)") }
    var received: Int64 = 0
    for try await piece in response.body { received += Int64(piece.count) }
    try check(received: received, expected: response.expectedContentLength)
    if received == 0 { throw BenchFailure(description: "empty body") }
    await client.shutdown()
}

func check(received: Int64, expected: Int64?) throws {
    if let expected, expected != received {
        throw BenchFailure(description: "received \(received) of \(expected) bytes")
    }
}

/// `count` GETs of `url` one after another on one client (so on one kept-alive connection).
func sequential(url: String, count: Int) async throws {
    let client = makeClient(caFile: nil)
    for _ in 0..<count {
        let response = try await client.get(url)
        guard response.status.rawValue == 200, !response.body.isEmpty else {
            throw BenchFailure(description: "status \(response.status), \(response.body.count) bytes")
        }
    }
    guard client.connectionsOpened == 1 else {
        throw BenchFailure(description: "\(client.connectionsOpened) connections opened for sequential GETs")
    }
    await client.shutdown()
}

/// `count` GETs of `url` with `inFlight` of them running at any time, each task taking the next index.
func concurrent(url: String, count: Int, inFlight: Int) async throws {
    let client = makeClient(caFile: nil, connections: inFlight)
    try await withThrowingTaskGroup(of: Void.self) { group in
        var started = 0
        func startNext() {
            started += 1
            group.addTask {
                let response = try await client.get(url)
                guard response.status.rawValue == 200, !response.body.isEmpty else {
                    throw BenchFailure(description: "status \(response.status)")
                }
            }
        }
        while started < min(inFlight, count) { startNext() }
        while try await group.next() != nil {
            if started < count { startNext() }
        }
    }
    await client.shutdown()
}

/// PUTs `path` to `url`, as the raw body or inside a multipart form.
func put(url: String, path: String, multipart: Bool) async throws {
    let client = makeClient(caFile: nil)
    let body: RequestBody
    if multipart {
        var form = MultipartForm()
        form.addFile(name: "file", path: path)
        body = .multipart(form)
    } else {
        body = .file(path: path)
    }
    let response = try await client.put(url, body: body)
    guard (200..<300).contains(response.status.rawValue) else {
        throw BenchFailure(description: "status \(response.status)")
    }
    await client.shutdown()
}

/// The value after `flag` in `arguments`, if present.
func option(_ flag: String, in arguments: [String]) -> String? {
    guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

func run(_ arguments: [String]) async throws {
    let usage = "usage: WireBench download|fetch|drop|discard|sequential|concurrent|put-file|put-multipart URL ..."
    guard arguments.count >= 2 else { throw BenchFailure(description: usage) }
    let url = arguments[1]
    let caFile = option("--cafile", in: arguments)
    if let index = arguments.firstIndex(of: "--reactor") {
        var rest = arguments
        rest.remove(at: index)
        try await withTaskExecutorPreference(HTTPClient.reactorExecutor) { try await run(rest) }
        return
    }
    switch (arguments[0], arguments.count) {
    case ("download", 3...):
        try await download(
            url: url, to: arguments[2], caFile: caFile, allowSplice: !arguments.contains("--stream"))
    case ("fetch", 3...):
        try await fetch(url: url, to: arguments[2], caFile: caFile)
    case ("drop", 2):
        try await drop(url: url)
    case ("discard", _):
        try await discard(url: url, caFile: caFile)
    case ("sequential", 3):
        try await sequential(url: url, count: Int(arguments[2]) ?? 0)
    case ("concurrent", 4):
        try await concurrent(url: url, count: Int(arguments[2]) ?? 0, inFlight: Int(arguments[3]) ?? 1)
    case ("put-file", 3):
        try await put(url: url, path: arguments[2], multipart: false)
    case ("put-multipart", 3):
        try await put(url: url, path: arguments[2], multipart: true)
    default:
        throw BenchFailure(description: usage)
    }
}

do {
    try await run(Array(CommandLine.arguments.dropFirst()))
} catch {
    var standardError = StandardError()
    print("WireBench: \(error)", to: &standardError)
    exit(1)
}

/// Standard error as a `TextOutputStream`.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        let bytes = Array(string.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
