// UploadHarness: what the Upload*Tests share — clients for plain and TLS fixture servers, large test
// files written without holding them in memory, the fixture's upload summary, a slow-reading sink, and
// the process's peak resident memory from /proc/self/status.

import FixtureServer
import Foundation
import HTTPWireCodec
import Synchronization
import TestSupport
import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

enum UploadHarness {
    /// Plain HTTP or TLS, for tests that run over both.
    enum Transport: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case plain, tls
        var testDescription: String { rawValue }
    }

    /// The fixture's TLS configuration (leaf certificate from make-certs.sh), or nil for plain HTTP.
    static func serverTLS(_ transport: Transport) async throws -> TLSServerConfiguration? {
        guard transport == .tls else { return nil }
        return TLSServerConfiguration(
            certificateChain: .file(path: try await TestCertificates.path("leaf.pem")),
            privateKey: .file(path: try await TestCertificates.path("leaf.key")))
    }

    /// A client for `server`: its base URL, the test CA trusted, and any further settings.
    static func client(
        for server: FixtureServer, _ configure: (inout ClientConfiguration) -> Void = { _ in }
    ) async throws -> HTTPClient {
        var configuration = ClientConfiguration()
        configuration.baseURL = server.baseURL
        if server.isTLS {
            configuration.tls = TLSConfiguration(
                trustsSystemRoots: false, additionalTrustRoots: [.file(path: try await TestCertificates.path("ca.pem"))]
            )
        }
        configure(&configuration)
        return HTTPClient(configuration: configuration)
    }

    /// What `/upload` and `/expect` answer (FixtureServer's `UploadEcho.UploadSummary`).
    struct Summary: Decodable {
        var size: Int64
        var sha256: String
        var contentType: String?
        var framing: String
        var continued: Bool
    }

    /// Reads the fixture's JSON, whose keys are snake_case.
    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    /// Writes a file of `size` bytes in 1 MiB writes and returns its SHA-256 hex. Every MiB is a seeded
    /// random block with its index in the first eight bytes, so no two MiB are alike and a misplaced
    /// piece changes the digest.
    ///
    /// The work runs on a thread of its own: generating and hashing hundreds of MB on one of the few
    /// cooperative threads would stall the other suites running in parallel (their timers and I/O).
    @discardableResult
    static func writeLargeFile(at path: String, size: Int64, seed: UInt64 = 7) async throws -> String {
        try await DedicatedThread.run { try writeLargeFileNow(at: path, size: size, seed: seed) }
    }

    private static func writeLargeFileNow(at path: String, size: Int64, seed: UInt64) throws -> String {
        try #require(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        defer { try? handle.close() }
        var block = pseudoRandomBytes(count: 1 << 20, seed: seed)
        var hasher = SHA256Hasher()
        var written: Int64 = 0
        var index: UInt64 = 0
        while written < size {
            withUnsafeBytes(of: index.littleEndian) { block.replaceSubrange(0..<8, with: $0) }
            let count = Int(min(Int64(block.count), size - written))
            let piece = block[..<count]
            hasher.update(piece)
            try handle.write(contentsOf: piece)
            written += Int64(count)
            index += 1
        }
        let digest = hasher.finalize().flatMap { SHA256Digest(bytes: $0) }
        return try #require(digest).hexString
    }

    /// The process's peak resident set (VmHWM) in bytes.
    static func peakResidentBytes() -> Int64? {
        statusValue("VmHWM")
    }

    /// The process's resident set now (VmRSS) in bytes.
    static func residentBytes() -> Int64? {
        statusValue("VmRSS")
    }

    /// Resets VmHWM to the current resident set (writing 5 to /proc/self/clear_refs, Linux 4.0+), so a
    /// later reading shows the peak of what ran in between. Returns false when the kernel refused.
    @discardableResult
    static func resetPeakResident() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    private static func statusValue(_ key: String) -> Int64? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(key + ":") {
            let digits = line.dropFirst(key.count + 1).filter(\.isNumber)
            return Int64(digits).map { $0 * 1024 }  // reported in kB
        }
        return nil
    }
}

/// A one-connection HTTP server that reads a Content-Length request body slowly (`bytesPerRead` every
/// `pause`, with one long hold if asked), then answers 200 with the byte count it received, so an upload takes long enough for its
/// progress to be watched. The pause is rate limiting, not synchronisation. Its task runs on the fixture
/// server's ServerExecutor and pauses on its clock, like every test server.
struct SlowSink: Sendable {
    let listener: Listener
    let task: Task<Int64, any Error>
    /// Body bytes read so far.
    let received: Counter

    /// A count shared with the sink's task.
    final class Counter: Sendable {
        private let value = Atomic<Int64>(0)
        func add(_ count: Int64) { value.add(count, ordering: .relaxed) }
        var current: Int64 { value.load(ordering: .relaxed) }
    }

    var url: String { "http://127.0.0.1:\(listener.port)/slow" }

    /// `holdAfter`/`hold`: once that many body bytes are read, stop reading for `hold` (a stalled server:
    /// the client's socket buffer fills and its writer blocks).
    static func start(
        bytesPerRead: Int = 64 * 1024, pause: Duration = .milliseconds(2), holdAfter: Int64? = nil,
        hold: Duration = .zero
    ) throws -> SlowSink {
        let listener = try Listener.bind(host: "127.0.0.1", port: 0)
        let counter = Counter()
        let task = Task(executorPreference: ServerExecutor.shared) { () throws -> Int64 in
            let socket = try await listener.accept(deadline: .after(.seconds(30).scaled))
            let deadline = Deadline.after(.seconds(60).scaled)
            var buffer: [UInt8] = []
            // The head: read until the empty line, then take Content-Length from it.
            var headEnd: Int?
            while headEnd == nil {
                guard try await socket.read(into: &buffer, maxBytes: 4096, deadline: deadline) > 0 else { return -1 }
                headEnd = Self.endOfHead(in: buffer)
            }
            let head = String(decoding: buffer[..<headEnd!], as: UTF8.self).lowercased()
            let lengthLine = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            let length =
                Int64(lengthLine?.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces) ?? "") ?? 0
            var received = Int64(buffer.count - headEnd!)
            counter.add(received)
            var held = false
            while received < length {
                if let holdAfter, !held, received >= holdAfter {
                    held = true
                    try await ServerExecutor.sleep(for: hold)
                }
                buffer.removeAll(keepingCapacity: true)
                let count = try await socket.read(into: &buffer, maxBytes: bytesPerRead, deadline: deadline)
                guard count > 0 else { break }
                received += Int64(count)
                counter.add(Int64(count))
                try await ServerExecutor.sleep(for: pause)
            }
            let answer = "HTTP/1.1 200 OK\r\nContent-Length: \(String(received).utf8.count)\r\n\r\n\(received)"
            try await socket.write(Array(answer.utf8)[...], deadline: deadline)
            await socket.close()
            return received
        }
        return SlowSink(listener: listener, task: task, received: counter)
    }

    /// The offset just past `CRLF CRLF`, if the buffer holds it.
    private static func endOfHead(in buffer: [UInt8]) -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    func stop() async -> Int64? {
        await listener.close()
        return try? await task.value
    }
}

/// A two-connection server for the retry path. On its first connection it answers one request with
/// keep-alive, then reads the head of the next and closes without a byte of response: what a server that
/// closes an idle connection just as the client reuses it looks like. On its second connection it reads one
/// whole request and echoes the body with its Content-Type, as the fixture's `/upload?raw=1` does.
struct RetryServer: Sendable {
    let listener: Listener
    /// The heads of every request seen, and the body the second connection received.
    let task: Task<(heads: [String], body: [UInt8]), any Error>

    var baseURL: String { "http://127.0.0.1:\(listener.port)/" }

    static func start() throws -> RetryServer {
        let listener = try Listener.bind(host: "127.0.0.1", port: 0)
        let task = Task(executorPreference: ServerExecutor.shared) { () throws -> (heads: [String], body: [UInt8]) in
            let deadline = Deadline.after(.seconds(30).scaled)
            var heads: [String] = []
            let first = try await listener.accept(deadline: deadline)
            var buffer: [UInt8] = []
            heads.append(try await readHead(from: first, buffer: &buffer, deadline: deadline))
            try await first.write(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)[...], deadline: deadline)
            buffer.removeAll()
            heads.append(try await readHead(from: first, buffer: &buffer, deadline: deadline))
            await first.close()

            let second = try await listener.accept(deadline: deadline)
            buffer.removeAll()
            let head = try await readHead(from: second, buffer: &buffer, deadline: deadline)
            heads.append(head)
            let length = Int(field("content-length", in: head) ?? "") ?? 0
            while buffer.count < length {
                guard try await second.read(into: &buffer, maxBytes: 1 << 20, deadline: deadline) > 0 else { break }
            }
            let body = Array(buffer.prefix(length))
            let contentType = field("content-type", in: head) ?? "application/octet-stream"
            let answer = "HTTP/1.1 200 OK\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n\r\n"
            try await second.write((Array(answer.utf8) + body)[...], deadline: deadline)
            await second.close()
            return (heads, body)
        }
        return RetryServer(listener: listener, task: task)
    }

    /// Reads up to the end of a head; returns it and leaves the bytes after it in `buffer`.
    private static func readHead(from socket: TCPSocket, buffer: inout [UInt8], deadline: Deadline) async throws
        -> String
    {
        let terminator = Array("\r\n\r\n".utf8)
        while true {
            if let end = buffer.indices.dropLast(3).first(where: { buffer[$0..<($0 + 4)].elementsEqual(terminator) }) {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                return head
            }
            guard try await socket.read(into: &buffer, maxBytes: 64 * 1024, deadline: deadline) > 0 else {
                throw HTTPWireError.emptyReply
            }
        }
    }

    /// The value of the field `name` (lowercase) in a head.
    private static func field(_ name: String, in head: String) -> String? {
        let line = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name + ":") }
        return line.map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
    }

    func stop() async -> (heads: [String], body: [UInt8])? {
        await listener.close()
        return try? await task.value
    }
}
