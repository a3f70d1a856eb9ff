// FixtureConnection: one accepted connection of the fixture server and its keep-alive loop (edge layer).
//
// The loop reads a request head with `RequestDecoder`, hands the request to its route, and, when the
// route is done, makes sure the request body was consumed before it reads the next head, because on a
// persistent connection the next request starts right after this one's body (RFC 9112 §9.3). Routes use
// the small I/O vocabulary here: read the body piece by piece, send a head with a framing, send body bytes
// or chunks, write raw bytes (for malformed responses), and close in three ways (normally, after a linger,
// or with a reset). A client that sends garbage gets a 400 and a close, never a crash.
// This file decides nothing about what a route answers (Routes.swift does); it only keeps the framing honest.

import HTTPWire
import HTTPWireCodec
import HTTPWireTransport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// How a response body is delimited, as the route announces it in `sendHead`.
enum ResponseFraming: Equatable {
    /// `Content-Length: n` (RFC 9112 §6.2).
    case contentLength(Int64)
    /// `Transfer-Encoding: chunked` (RFC 9112 §7.1); body bytes go out through `sendChunk`.
    case chunked
    /// No length: the body ends when the server closes (RFC 9112 §6.3 rule 7). Forces a close.
    case untilClose
    /// No body and no framing field: 1xx, 204 and 304 responses (RFC 9110 §6.4.1).
    case noContent
}

/// The server side of one connection, used by one task only.
final class FixtureConnection {
    /// How long the server waits for a byte of the next request or body, or for a write to progress.
    static let idleTimeout = Duration.seconds(60)

    let connection: any ByteStream
    let server: FixtureServer
    /// The peer's address, for log lines.
    let peer: String
    private var decoder = RequestDecoder()
    /// The array reads land in, kept between reads: once the decoder and the route have let go of the bytes
    /// it held, the next read refills the same storage instead of allocating (and faulting in) a new one.
    private var receiveBuffer: [UInt8] = []

    /// The request being served; nil between requests.
    private(set) var request: FixtureRequest?
    /// Requests received on this connection so far, the current one included.
    private(set) var requestsOnConnection = 0
    /// The trailers of the request body, known once `nextBodyChunk()` returned nil.
    private(set) var requestTrailers = HTTPFields()
    /// Whether the request body has been read to its end.
    private(set) var isBodyComplete = false
    /// Whether the request asked for `100 Continue` before sending its body (RFC 9110 §10.1.1).
    private(set) var expectsContinue = false
    /// Whether `100 Continue` went out for the current request.
    private(set) var hasSentContinue = false
    /// Whether a final response head has gone out for the current request.
    private(set) var hasStartedResponse = false
    /// Set by a route (or by `sendHead`) when the connection must close after this response.
    var closesAfterResponse = false
    /// True when a chunked response had to be sent close-delimited to an HTTP/1.0 client.
    private var sendsChunksRaw = false
    private(set) var isClosed = false

    init(connection: any ByteStream, server: FixtureServer, peer: String) {
        self.connection = connection
        self.server = server
        self.peer = peer
    }

    /// Serves requests until the peer closes, a route closes, or a request cannot be kept alive.
    func run() async {
        while !isClosed {
            let head: RequestHead
            do {
                guard let received = try await readHead() else { break }
                head = received
            } catch let error as CodecError {
                await refuse(error)
                break
            } catch {
                break  // a reset, a timeout, or stop(): nothing to answer
            }
            server.recordRequest(head)
            let request = FixtureRequest(head: head)
            begin(request)
            do {
                try await Routes.handle(request, on: self)
                if isClosed || closesAfterResponse || !decoder.isKeepAlive { break }
                // The next request starts after this one's body: read whatever the route left unread.
                while try await nextBodyChunk() != nil {}
                decoder.prepareForNextRequest()
                self.request = nil
            } catch let error as CodecError {
                await refuse(error)
                break
            } catch {
                if !isClosed { server.log?("\(peer): \(head.method) \(head.target): \(error)") }
                break
            }
        }
        // A request body left unread (an early answer, a refused upload) calls for a lingering close.
        if request != nil && !isBodyComplete { await closeAfterLinger() } else { await close() }
    }

    /// Resets the per-request state for `request`.
    private func begin(_ request: FixtureRequest) {
        self.request = request
        requestsOnConnection += 1
        requestTrailers = HTTPFields()
        isBodyComplete = false
        hasSentContinue = false
        hasStartedResponse = false
        closesAfterResponse = false
        sendsChunksRaw = false
        let hasBody = decoder.framing != BodyFraming.none && decoder.framing != .contentLength(0)
        expectsContinue = hasBody && request.head.fields.tokens(for: "Expect").contains("100-continue")
    }

    // MARK: Reading

    /// The next request head; nil when the peer closed cleanly between requests.
    private func readHead() async throws -> RequestHead? {
        while true {
            let event: RequestEvent
            do {
                event = try decoder.nextEvent()
            } catch {
                // The peer closed between requests: the normal end of a connection.
                if case .truncatedHead(received: 0) = error { return nil }
                throw error
            }
            switch event {
            case .head(let head): return head
            case .needMoreData: try await receive()
            case .body, .end, .paused: preconditionFailure("request decoder gave \(event) while reading a head")
            }
        }
    }

    /// The next piece of the request body, or nil at its end (then `requestTrailers` is set). Sends
    /// `100 Continue` first when the client is waiting for it and no final response went out yet (unless
    /// `sendingContinue` is false: a server that ignores Expect).
    /// Throws the decoder's `CodecError` for a malformed body (a bad chunk, a body cut short).
    /// `readBytes` is the most one read from the socket asks for (the upload sink asks for more).
    func nextBodyChunk(sendingContinue: Bool = true, readBytes: Int = ConnectionReadSize.body) async throws
        -> ArraySlice<UInt8>?
    {
        if isBodyComplete { return nil }
        if sendingContinue && expectsContinue && !hasSentContinue && !hasStartedResponse {
            hasSentContinue = true
            try await sendInterim(status: 100)
        }
        while true {
            switch try decoder.nextEvent() {
            case .body(let bytes):
                return bytes
            case .end(let trailers):
                requestTrailers = trailers
                isBodyComplete = true
                return nil
            case .needMoreData:
                try await receive(maxBytes: readBytes)
            case .head, .paused:
                preconditionFailure("request decoder left the body of \(request?.head.target ?? "?")")
            }
        }
    }

    /// The whole request body, or nil when it is longer than `limit` bytes (then the connection must close:
    /// the rest is unread).
    func readWholeBody(limit: Int) async throws -> [UInt8]? {
        var body: [UInt8] = []
        while let piece = try await nextBodyChunk() {
            guard body.count + piece.count <= limit else {
                closesAfterResponse = true
                return nil
            }
            body.append(contentsOf: piece)
        }
        return body
    }

    /// Reads once from the connection, at most `maxBytes`, and feeds the decoder; end of stream feeds the
    /// empty slice. Bytes still referenced elsewhere (a partial head in the decoder, a slice a route kept) are
    /// safe: emptying a shared array gives this connection fresh storage and leaves theirs alone.
    private func receive(maxBytes: Int = ConnectionReadSize.body) async throws {
        receiveBuffer.removeAll(keepingCapacity: true)
        let count = try await connection.read(
            into: &receiveBuffer, maxBytes: maxBytes, deadline: .after(Self.idleTimeout))
        decoder.feed(count == 0 ? [] : receiveBuffer)
    }

    // MARK: Writing

    /// Sends a final response head. Adds the framing field, and `Connection: close` when the connection
    /// will close after this response (asked for by the client, by the route, or forced by the framing).
    func sendHead(status: Int, reason: String? = nil, fields: HTTPFields = [:], framing: ResponseFraming) async throws {
        var fields = fields
        let isHTTP10 = request?.head.version == .http1_0
        switch framing {
        case .contentLength(let length):
            fields.set(name: "Content-Length", value: String(length))
        case .chunked where isHTTP10:
            // RFC 9112 §6.1: chunked must not be sent to an HTTP/1.0 recipient; the close delimits the body.
            sendsChunksRaw = true
            closesAfterResponse = true
        case .chunked:
            fields.set(name: "Transfer-Encoding", value: "chunked")
        case .untilClose:
            closesAfterResponse = true
        case .noContent:
            break
        }
        // RFC 9110 §10.1.1: a final answer to a client still waiting to send its body leaves that body
        // unsent; reading on would hang, so the connection closes instead.
        if expectsContinue && !hasSentContinue && !isBodyComplete { closesAfterResponse = true }
        if closesAfterResponse || !decoder.isKeepAlive {
            fields.set(name: "Connection", value: "close")
        } else if isHTTP10 {
            fields.set(name: "Connection", value: "keep-alive")  // RFC 9112 §9.3: 1.0 persists only if told so
        }
        var bytes: [UInt8] = []
        try ResponseEncoder.encodeHead(
            version: .http1_1, status: status, reason: reason ?? Status(rawValue: status).reasonPhrase,
            fields: fields, into: &bytes)
        hasStartedResponse = true
        if let request, let log = server.log {
            // The conditional-range fields, so `wire serve --log` shows how a download resumes.
            var line = "\(peer): \(request.method) \(request.head.target) -> \(status)"
            for name in ["Range", "If-Range"] {
                if let value = request.head.fields[name] { line += "  [\(name): \(value)]" }
            }
            log(line)
        }
        try await write(bytes)
    }

    /// Sends a complete response with `body` and a Content-Length (no body for HEAD, and no framing at all
    /// for 1xx, 204 and 304, which never carry content: RFC 9110 §15.3.5, §15.4.5).
    func respond(status: Int, fields: HTTPFields = [:], body: [UInt8] = []) async throws {
        if status < 200 || status == 204 || status == 304 {
            try await sendHead(status: status, fields: fields, framing: .noContent)
            return
        }
        try await sendHead(status: status, fields: fields, framing: .contentLength(Int64(body.count)))
        try await writeBody(body)
    }

    /// Sends `value` as a JSON body (keys sorted and snake_case, so Python tests read it as they expect).
    func respondJSON(_ value: some Encodable, status: Int = 200, fields: HTTPFields = [:]) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        var fields = fields
        fields.set(name: "Content-Type", value: "application/json")
        try await respond(status: status, fields: fields, body: Array(try encoder.encode(value)))
    }

    /// Sends an interim (1xx) response: `100 Continue`, `103 Early Hints` (RFC 9110 §15.2).
    func sendInterim(status: Int, fields: HTTPFields = [:]) async throws {
        var bytes: [UInt8] = []
        try ResponseEncoder.encodeHead(
            version: .http1_1, status: status, reason: Status(rawValue: status).reasonPhrase, fields: fields,
            into: &bytes)
        try await write(bytes)
    }

    /// Sends body bytes after `sendHead`; nothing for a HEAD request.
    func writeBody(_ bytes: [UInt8]) async throws {
        if request?.isHead == true || bytes.isEmpty { return }
        try await write(bytes)
    }

    /// Sends one chunk of a chunked body (plain bytes when the client speaks HTTP/1.0).
    func sendChunk(_ bytes: [UInt8]) async throws {
        if request?.isHead == true || bytes.isEmpty { return }
        var framed: [UInt8] = []
        appendChunk(size: bytes.count, to: &framed) { $0.append(contentsOf: bytes) }
        try await write(framed)
    }

    /// Appends one chunk of `size` bytes to `buffer`, framed as ``sendChunk(_:)`` frames it (size line, data,
    /// CRLF; just the data for an HTTP/1.0 client); `appendData` appends exactly `size` bytes of data. For a
    /// route that frames many chunks into one buffer and sends it with ``writeBody(_:)``: the same bytes on
    /// the wire as one `sendChunk` per chunk, in far fewer writes.
    func appendChunk(size: Int, to buffer: inout [UInt8], data appendData: (inout [UInt8]) -> Void) {
        guard size > 0 else { return }  // a zero-size chunk would end the body (RFC 9112 §7.1)
        if sendsChunksRaw { return appendData(&buffer) }
        ChunkedEncoder.appendChunkHeader(size: size, into: &buffer)
        appendData(&buffer)
        buffer.append(contentsOf: ChunkedEncoder.chunkDataTerminator)
    }

    /// Ends a chunked body with the last chunk and `trailers`.
    func sendLastChunk(trailers: HTTPFields = [:]) async throws {
        if request?.isHead == true || sendsChunksRaw { return }
        var framed: [UInt8] = []
        try ChunkedEncoder.encodeLastChunk(trailers: trailers, into: &framed)
        try await write(framed)
    }

    /// Writes bytes as they are: the way malformed responses reach the client.
    func write(_ bytes: [UInt8]) async throws {
        try await connection.write(bytes, deadline: .after(Self.idleTimeout))
    }

    /// The plain socket under the connection (TLS or not), for the few routes that set socket options.
    var socket: TCPSocket? {
        (connection as? TCPSocket) ?? (connection as? TLSStream)?.socket
    }

    // MARK: Closing

    /// Closes the connection (after a TLS close_notify); later calls do nothing.
    func close() async {
        guard !isClosed else { return }
        isClosed = true
        await connection.close()
    }

    /// Closes with SO_LINGER set to zero, which makes the kernel send a TCP RST instead of a FIN: the
    /// client sees "connection reset by peer" (ECONNRESET).
    func closeWithReset() async {
        guard !isClosed, let socket, socket.isOpen else { return await close() }
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(
            socket.descriptor.rawValue, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        isClosed = true
        await socket.close()
    }

    /// Ends the response stream, then reads and discards what the client still sends for at most
    /// `duration` or until it closes, then closes. Closing with unread data would make the kernel send a
    /// reset, which can destroy the response before the client reads it (RFC 9112 §9.6, "lingering
    /// close"). On a plain socket the write side is shut down first, so the client sees the end of the
    /// response at once; a TLS stream cannot half-close, so it waits for the client or the linger.
    func closeAfterLinger(_ duration: Duration = .milliseconds(500)) async {
        guard !isClosed else { return }
        if let socket = connection as? TCPSocket, socket.isOpen {
            // A direct call on a descriptor the reactor owns: shutdown(2) neither blocks nor frees it.
            _ = shutdown(socket.descriptor.rawValue, Int32(SHUT_WR))
        }
        let deadline = Deadline.after(duration)
        var discarded: [UInt8] = []
        while !deadline.hasPassed {
            discarded.removeAll(keepingCapacity: true)
            guard let count = try? await connection.read(into: &discarded, maxBytes: 65536, deadline: deadline),
                count > 0
            else { break }
        }
        await close()
    }

    /// Answers a request the decoder refused with 400 (or 431 for an oversized head) and closes.
    private func refuse(_ error: CodecError) async {
        server.log?("\(peer): bad request: \(error)")
        guard !hasStartedResponse, !isClosed else { return }
        closesAfterResponse = true
        let status: Int
        switch error {
        case .headTooLarge, .tooManyFields: status = 431  // RFC 6585 §5
        default: status = 400
        }
        try? await respond(status: status, fields: ["Content-Type": "text/plain"], body: Array("\(error)\n".utf8))
        await closeAfterLinger()
    }
}
