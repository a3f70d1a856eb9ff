// RawHTTPConnection: a bare HTTP/1.1 client for tests that must not depend on HTTPClient — the transport's
// TCPSocket (or TLSStream), RequestEncoder to send, ResponseDecoder to read (test support).
//
// The fixture server's own tests use it, so that a bug in the client cannot hide a bug in the server (or
// the other way round). It sends exactly the head it is given, reads one response at a time, and throws the
// decoder's CodecError unchanged so tests can assert which rule a malformed response broke.

import FixtureServer
import HTTPWire
import HTTPWireCodec
import HTTPWireTransport
import TestSupport

/// One response as `RawHTTPConnection` read it.
struct RawResponse {
    /// Interim (1xx) heads that came before the final one.
    var informational: [ResponseHead] = []
    var head: ResponseHead
    var body: [UInt8] = []
    var trailers = HTTPFields()
    /// Whether the decoder says the connection may be reused.
    var isKeepAlive = false

    var status: Int { head.status.rawValue }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A client connection speaking raw HTTP/1.1 to a fixture server.
final class RawHTTPConnection {
    let connection: any ByteStream
    private var decoder = ResponseDecoder()
    private var isFirstResponse = true
    /// Every wait of a test is bounded; a hung server fails the test instead of stalling the run.
    static let timeout = Duration.seconds(30).scaled

    init(connection: any ByteStream) {
        self.connection = connection
    }

    /// Connects to `server` over plain TCP, or TLS trusting `trustRoot` when the server speaks TLS.
    static func connect(to server: FixtureServer, trustRoot: PEMSource? = nil) async throws -> RawHTTPConnection {
        let deadline = Deadline.after(timeout)
        let socket = try await TCPSocket.connect(host: "127.0.0.1", port: server.port, deadline: deadline)
        guard server.isTLS else { return RawHTTPConnection(connection: socket) }
        let configuration = TLSConfiguration(
            trustsSystemRoots: false, additionalTrustRoots: trustRoot.map { [$0] } ?? [])
        let context = try TLSContext(client: configuration.transportSettings)
        let stream = try await TLSStream.connect(
            over: socket, serverName: "127.0.0.1", context: context, deadline: deadline)
        return RawHTTPConnection(connection: stream)
    }

    /// Sends a request head (with `Host` added) and, if given, a Content-Length body.
    func send(
        _ method: Method, _ target: String, fields: HTTPFields = [:], body: [UInt8]? = nil,
        version: HTTPVersion = .http1_1
    ) async throws {
        var fields = fields
        if !fields.contains("Host") { fields.append(name: "Host", value: "127.0.0.1") }
        var bytes: [UInt8] = []
        let head = RequestHead(method: method, target: target, version: version, fields: fields)
        try RequestEncoder.encodeHead(
            head, framing: body.map { .contentLength(Int64($0.count)) } ?? .none, into: &bytes)
        bytes += body ?? []
        try await write(bytes)
    }

    /// Writes raw bytes.
    func write(_ bytes: [UInt8]) async throws {
        try await connection.write(bytes, deadline: .after(Self.timeout))
    }

    /// Reads the next response to a request sent with `method`. Throws the decoder's `CodecError`.
    func readResponse(to method: Method = .get) async throws -> RawResponse {
        if !isFirstResponse || method != .get { decoder.expectResponse(to: method) }
        isFirstResponse = false
        var response: RawResponse?
        var informational: [ResponseHead] = []
        while true {
            switch try decoder.nextEvent() {
            case .informational(let head):
                informational.append(head)
            case .head(let head):
                response = RawResponse(informational: informational, head: head)
            case .body(let bytes):
                response?.body += bytes
            case .end(let trailers):
                response?.trailers = trailers
                response?.isKeepAlive = decoder.isKeepAlive
                guard let response else { preconditionFailure("end before head") }
                return response
            case .needMoreData:
                try await receive()
            case .paused:
                preconditionFailure("decoder paused before the response ended")
            }
        }
    }

    /// Reads until the server closes; returns everything received (for the raw routes).
    func readUntilClose() async throws -> [UInt8] {
        var all: [UInt8] = []
        while true {
            let count = try await connection.read(
                into: &all, maxBytes: 65536, deadline: .after(Self.timeout))
            if count == 0 { return all }
        }
    }

    /// Bytes the decoder received after the last response.
    var unconsumedBytes: ArraySlice<UInt8> { decoder.unconsumedBytes }

    private func receive() async throws {
        var bytes: [UInt8] = []
        let count = try await connection.read(
            into: &bytes, maxBytes: 65536, deadline: .after(Self.timeout))
        decoder.feed(count == 0 ? [] : bytes)
    }

    func close() async {
        await connection.close()
    }
}
