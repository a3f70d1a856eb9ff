// CodecBench: throughput of the response decoder (a program run by `make bench-codec`, not a test).
// Benchmark for the codec layer: builds responses in memory and times the decoder alone, no sockets, no files.
//
// Two workloads, each run for several rounds, reporting the median so one noisy round on the shared 2-core
// machine does not decide the figure:
//   1. a 256 MiB chunked body in 16 KiB chunks, fed in 16 KiB pieces (as a socket read of 16 KiB would deliver
//      it, so chunk boundaries and feed boundaries drift apart): decoded body bytes per second;
//   2. small complete responses (a ~200-byte head and a Content-Length body), one feed each, one decoder reused
//      with expectResponse(to:) between them: responses per second.
// Targets (issue #2): at least 2 GB/s and 500,000 responses/s. Every round checks what it decoded, so a fast
// but wrong decoder shows up as a failure, not as a good number.

import Glibc
import HTTPWireCodec

/// Round timings and the median of a workload.
struct Measurement {
    var name: String
    var unit: String
    /// Work per second of each round.
    var rates: [Double]

    var median: Double { rates.sorted()[rates.count / 2] }

    func report(target: Double) {
        let rounds = rates.map { formatted($0) }.joined(separator: ", ")
        let verdict = median >= target ? "meets" : "MISSES"
        print(
            "\(name): median \(formatted(median)) \(unit) (\(verdict) target \(formatted(target))); rounds: \(rounds)")
    }

    func formatted(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded >= 1000 ? String(Int(rounded)) : String(rounded)
    }
}

/// Seconds taken by `work`.
func seconds(_ work: () throws(CodecError) -> Void) throws(CodecError) -> Double {
    let start = ContinuousClock.now
    try work()
    let elapsed = ContinuousClock.now - start
    let parts = elapsed.components
    return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
}

/// A response head plus a chunked body of `bodyBytes` in chunks of `chunkBytes`, last chunk included.
func chunkedResponse(bodyBytes: Int, chunkBytes: Int) -> [UInt8] {
    var stream = Array(
        "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
    stream.reserveCapacity(bodyBytes + (bodyBytes / chunkBytes) * 16 + 256)
    let sizeLine = Array(String(chunkBytes, radix: 16).utf8) + [ByteClasses.cr, ByteClasses.lf]
    let payload = (0..<chunkBytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    for _ in 0..<(bodyBytes / chunkBytes) {
        stream += sizeLine
        stream += payload
        stream += [ByteClasses.cr, ByteClasses.lf]
    }
    stream += Array("0\r\n\r\n".utf8)
    return stream
}

/// Decodes `stream` fed in pieces of `pieceBytes`; returns the body bytes delivered. With `copying`, each piece
/// is first copied into a new array, as a socket read into a fresh buffer would deliver it.
func decodeInPieces(_ stream: [UInt8], pieceBytes: Int, copying: Bool) throws(CodecError) -> Int {
    var decoder = ResponseDecoder()
    decoder.expectResponse(to: .get)
    var bodyBytes = 0
    var offset = 0
    var isPaused = false
    while offset < stream.count && !isPaused {
        let end = min(offset + pieceBytes, stream.count)
        if copying {
            decoder.feed(Array(stream[offset..<end]))
        } else {
            decoder.feed(stream[offset..<end])
        }
        offset = end
        events: while true {
            switch try decoder.nextEvent() {
            case .body(let bytes): bodyBytes += bytes.count
            case .needMoreData: break events
            case .paused:
                isPaused = true
                break events
            case .informational, .head, .end: continue
            }
        }
    }
    return isPaused ? bodyBytes : -1
}

/// A typical small API response: a ~200-byte head and a 27-byte JSON body.
let smallResponse = Array(
    ("HTTP/1.1 200 OK\r\nDate: Sun, 29 Nov 2026 20:00:00 GMT\r\nServer: nginx/1.22.1\r\n"
        + "Content-Type: application/json; charset=utf-8\r\nContent-Length: 27\r\nConnection: keep-alive\r\n"
        + "Cache-Control: no-cache\r\nX-Request-Id: 4f2c9a1e7b\r\n\r\n{\"ok\":true,\"id\":1234567890}").utf8)

/// Decodes `count` small responses with one decoder; returns the body bytes delivered.
func decodeSmallResponses(count: Int) throws(CodecError) -> Int {
    var decoder = ResponseDecoder()
    var bodyBytes = 0
    for _ in 0..<count {
        decoder.expectResponse(to: .get)
        decoder.feed(smallResponse)
        events: while true {
            switch try decoder.nextEvent() {
            case .body(let bytes): bodyBytes += bytes.count
            case .paused: break events
            case .needMoreData: return -1  // a complete response must not need more bytes
            case .informational, .head, .end: continue
            }
        }
    }
    return bodyBytes
}

// `CodecBench chunked` or `CodecBench small` runs one workload, and a second argument sets the number of rounds
// (`CodecBench small 1` under valgrind --tool=callgrind); no argument runs both workloads, 5 rounds each.
let workload = CommandLine.arguments.dropFirst().first ?? "all"
let rounds = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) }.map { max(1, $0) } ?? 5
let chunkedBodyBytes = 256 * 1024 * 1024
let responsesPerRound = 500_000

/// Workload 1: the 256 MiB chunked body.
func benchmarkChunked() throws(CodecError) -> Bool {
    var isCorrect = true
    let stream = chunkedResponse(bodyBytes: chunkedBodyBytes, chunkBytes: 16 * 1024)
    for copying in [false, true] {
        let feeds = copying ? "16 KiB feeds copied from a read buffer" : "16 KiB feeds sliced, no copy"
        var chunked = Measurement(name: "chunked 256 MiB body, 16 KiB chunks, \(feeds)", unit: "MB/s", rates: [])
        for _ in 0..<rounds {
            var delivered = 0
            let elapsed = try seconds { () throws(CodecError) in
                delivered = try decodeInPieces(stream, pieceBytes: 16 * 1024, copying: copying)
            }
            if delivered != chunkedBodyBytes {
                print("chunked: decoded \(delivered) body bytes, expected \(chunkedBodyBytes)")
                isCorrect = false
            }
            chunked.rates.append(Double(chunkedBodyBytes) / elapsed / 1e6)
        }
        chunked.report(target: 2000)
    }
    return isCorrect
}

/// Workload 2: small complete responses.
func benchmarkSmall() throws(CodecError) -> Bool {
    var isCorrect = true
    print("small response: \(smallResponse.count) bytes (\(smallResponse.count - 27)-byte head, 27-byte body)")
    var small = Measurement(name: "small responses, one feed each, one decoder", unit: "responses/s", rates: [])
    for _ in 0..<rounds {
        var delivered = 0
        let elapsed = try seconds { () throws(CodecError) in
            delivered = try decodeSmallResponses(count: responsesPerRound)
        }
        if delivered != responsesPerRound * 27 {
            print("small: decoded \(delivered) body bytes, expected \(responsesPerRound * 27)")
            isCorrect = false
        }
        small.rates.append(Double(responsesPerRound) / elapsed)
    }
    small.report(target: 500_000)
    return isCorrect
}

var failed = false

do throws(CodecError) {
    print("CodecBench: \(rounds) rounds each; MB and GB are 10^6 and 10^9 bytes")
    if workload != "small" {
        if try !benchmarkChunked() { failed = true }
    }
    if workload != "chunked" {
        if try !benchmarkSmall() { failed = true }
    }
} catch {
    print("CodecBench: decoder failed: \(error)")
    failed = true
}
exit(failed ? 1 : 0)
