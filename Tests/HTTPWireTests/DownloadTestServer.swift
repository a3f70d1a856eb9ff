// DownloadTestServer: a one-representation HTTP server for download tests that the fixture server cannot
// stage — a body that stops mid-way and waits (to pause or cancel at a known byte), or a connection dropped
// after a known number of bytes, followed by honest Range answers. One request per connection. Its tasks
// run on FixtureServer's ServerExecutor and stall on its clock, so they never wait for the cooperative pool.

import FixtureServer
import HTTPWire
import HTTPWireCodec
import HTTPWireTransport

/// Serves `content` with a strong ETag, Range (`bytes=N-`) and If-Range; each new connection follows the
/// next scripted behaviour, then `.complete` once the script is used up.
final class DownloadTestServer: Sendable {
    enum Behaviour: Sendable {
        /// Send the whole answer.
        case complete
        /// Send the head and the first `bytes` of the body, then wait until the server stops.
        case stallAfter(Int)
        /// Send the head and the first `bytes` of the body, then close the connection.
        case dropAfter(Int)
    }

    struct Log: Sendable {
        /// The `Range` field of each request (nil when absent).
        var ranges: [String?] = []
        /// The `If-Range` field of each request.
        var ifRanges: [String?] = []
        /// Body bytes written to clients, all connections together.
        var bodyBytesSent = 0
    }

    let content: [UInt8]
    let entityTag = "\"test-v1\""
    private let listener: Listener
    private let script: LockedState<[Behaviour]>
    private let log = LockedState(Log())
    private let tasks = LockedState<[Task<Void, Never>]>([])

    init(content: [UInt8], script: [Behaviour]) throws {
        self.content = content
        self.script = LockedState(script)
        self.listener = try Listener.bind()
        let task = Task(executorPreference: ServerExecutor.shared) { [self] in await acceptLoop() }
        tasks.withLock { $0.append(task) }
    }

    var url: String { "http://127.0.0.1:\(listener.port)/file.bin" }
    var requests: Log { log.withLock { $0 } }

    func stop() async {
        await listener.close()
        for task in tasks.withLock({ $0 }) { task.cancel() }
        for task in tasks.withLock({ $0 }) { await task.value }
    }

    private func acceptLoop() async {
        while let socket = try? await listener.accept() {
            let task = Task(executorPreference: ServerExecutor.shared) { [self] in
                try? await serve(socket)
                await socket.close()
            }
            tasks.withLock { $0.append(task) }
        }
    }

    private func serve(_ socket: TCPSocket) async throws {
        var buffer: [UInt8] = []
        while !buffer.ends(with: Array("\r\n\r\n".utf8)) {
            guard try await socket.read(into: &buffer, maxBytes: 4096, deadline: .never) > 0 else { return }
        }
        let lines = String(decoding: buffer, as: UTF8.self).split(separator: "\r\n").dropFirst()
        func field(_ name: String) -> String? {
            lines.first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
                .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: " ") }
        }
        let range = field("Range")
        let ifRange = field("If-Range")
        let behaviour = script.withLock { $0.isEmpty ? Behaviour.complete : $0.removeFirst() }
        log.withLock {
            $0.ranges.append(range)
            $0.ifRanges.append(ifRange)
        }
        var start = 0
        if let range, range.hasPrefix("bytes="), range.hasSuffix("-"), ifRange == nil || ifRange == entityTag,
            let first = Int(range.dropFirst(6).dropLast()), first < content.count
        {
            start = first
        }
        var head = start > 0 ? "HTTP/1.1 206 Partial Content\r\n" : "HTTP/1.1 200 OK\r\n"
        head += "Content-Length: \(content.count - start)\r\nETag: \(entityTag)\r\nConnection: close\r\n"
        if start > 0 { head += "Content-Range: bytes \(start)-\(content.count - 1)/\(content.count)\r\n" }
        head += "\r\n"
        try await socket.write(Array(head.utf8), deadline: .never)
        let body = content[start...]
        switch behaviour {
        case .complete:
            try await send(body, on: socket)
        case .stallAfter(let count):
            try await send(body.prefix(count), on: socket)
            try await ServerExecutor.sleep(for: .seconds(3600))
        case .dropAfter(let count):
            try await send(body.prefix(count), on: socket)
        }
    }

    private func send(_ bytes: ArraySlice<UInt8>, on socket: TCPSocket) async throws {
        try await socket.write(bytes, deadline: .never)
        log.withLock { $0.bodyBytesSent += bytes.count }
    }
}

extension [UInt8] {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && self[(count - suffix.count)...].elementsEqual(suffix)
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var text = Substring(self)
        while text.first == set { text = text.dropFirst() }
        while text.last == set { text = text.dropLast() }
        return String(text)
    }
}
