// UploadEcho: the fixture routes that read a request body and say what arrived (edge layer, fixture server).
//
// Upload tests need to know exactly what the client put on the wire: how many bytes, their SHA-256, the
// Content-Type with its multipart boundary, whether the body was chunked, and which trailers came after
// it. Bodies are streamed through the hasher or discarded, never collected whole, so a 1 GiB upload costs
// this server one read buffer; only the routes that echo bytes back (`/echo`, `/json`, `/upload?raw=1`)
// hold a body in memory, under a limit. A multipart body is echoed raw with its Content-Type, for tests to
// parse with Python's `email` package. This file does not parse multipart itself.

import HTTPWire
import HTTPWireCodec
import HTTPWireTransport

/// Handlers of the body-reading routes; see Routes.swift for their URLs.
enum UploadEcho {
    /// The most a route keeps in memory to echo back. Larger bodies get 413 and a close.
    static let echoLimit = 64 * 1024 * 1024

    /// The fixed answer of `GET /json`.
    struct Greeting: Encodable {
        var message = "hello from the HTTPWire fixture server"
        var numbers = [1, 2, 3]
        var isFixture = true
    }

    /// `/json`: GET (or HEAD) answers `Greeting`; POST, PUT and PATCH echo the body as application/json.
    static func json(_ request: FixtureRequest, _ connection: FixtureConnection) async throws {
        switch request.method {
        case .get, .head:
            try await connection.respondJSON(Greeting())
        case .post, .put, .patch:
            guard let body = try await connection.readWholeBody(limit: echoLimit) else {
                return try await connection.respond(status: 413)
            }
            try await connection.respond(status: 200, fields: ["Content-Type": "application/json"], body: body)
        default:
            _ = try await Routes.requireMethod([.get, .head, .post, .put, .patch], request, connection)
        }
    }

    /// What `/echo` answers: the request as the server decoded it.
    struct Echo: Encodable {
        var method: String
        var target: String
        var version: String
        /// Fields in order, duplicates kept, as `[name, value]` pairs.
        var headers: [[String]]
        /// The body as UTF-8 text (invalid sequences replaced).
        var body: String
        var bodyLength: Int
        var bodySha256: String
        var trailers: [[String]]
    }

    /// `/echo`: any method; answers the head, body and trailers it received as JSON.
    static func echo(_ request: FixtureRequest, _ connection: FixtureConnection) async throws {
        guard let body = try await connection.readWholeBody(limit: echoLimit) else {
            return try await connection.respond(status: 413)
        }
        let head = request.head
        let echo = Echo(
            method: head.method.rawValue, target: head.target, version: head.version.description,
            headers: head.fields.map { [$0.name, $0.value] }, body: String(decoding: body, as: UTF8.self),
            bodyLength: body.count, bodySha256: SHA256Digest.of(body)?.hexString ?? "",
            trailers: connection.requestTrailers.map { [$0.name, $0.value] })
        try await connection.respondJSON(echo)
    }

    /// What `/upload` and `/expect` answer.
    struct UploadSummary: Encodable {
        var size: Int64
        var sha256: String
        var contentType: String?
        /// `"content-length"`, `"chunked"` or `"none"`.
        var framing: String
        var trailers: [[String]]
        /// Whether the server sent `100 Continue` before reading.
        var continued: Bool
    }

    /// `/upload`: reads the body through SHA-256 and answers `UploadSummary`. With `raw=1` it answers the
    /// body itself, with the request's Content-Type (multipart bodies are checked that way).
    static func upload(_ request: FixtureRequest, _ connection: FixtureConnection) async throws {
        if request.flag("raw") {
            guard let body = try await connection.readWholeBody(limit: echoLimit) else {
                return try await connection.respond(status: 413)
            }
            let contentType = request.head.fields["Content-Type"] ?? "application/octet-stream"
            return try await connection.respond(status: 200, fields: ["Content-Type": contentType], body: body)
        }
        try await connection.respondJSON(try await summarize(request, connection))
    }

    /// Reads the whole body through the hasher.
    private static func summarize(
        _ request: FixtureRequest, _ connection: FixtureConnection, sendingContinue: Bool = true
    ) async throws -> UploadSummary {
        var hasher = SHA256Hasher()
        var size: Int64 = 0
        while let piece = try await connection.nextBodyChunk(sendingContinue: sendingContinue) {
            hasher.update(piece)
            size += Int64(piece.count)
        }
        let fields = request.head.fields
        let framing =
            fields.tokens(for: "Transfer-Encoding").last == "chunked"
            ? "chunked" : fields.contains("Content-Length") ? "content-length" : "none"
        return UploadSummary(
            size: size, sha256: hasher.finalize().flatMap { SHA256Digest(bytes: $0)?.hexString } ?? "",
            contentType: fields["Content-Type"],
            framing: framing, trailers: connection.requestTrailers.map { [$0.name, $0.value] },
            continued: connection.hasSentContinue)
    }

    /// How many bytes one read of `/sink` asks for: 1 MiB, four times what other routes read, so that the
    /// sink's per-read costs (a system call, a wake-up, a decoder step) stay small beside the copy out of the
    /// socket, and the sink is not what an upload benchmark measures. The same for every client.
    static let sinkReadBytes = 1 << 20

    /// `/sink?size=&min_size=`: reads and discards the body in ``sinkReadBytes`` reads, then 204 with
    /// `X-Received-Bytes`. For upload benchmarks: the answer comes only after the last byte arrived. With
    /// `size=N` (exactly N bytes) or `min_size=N` (at least N: a form around an N-byte file) the sink checks
    /// the count itself and answers 400 when it is wrong, so a client that reports only the status (curl
    /// -f) still fails a short upload.
    static func sink(_ request: FixtureRequest, _ connection: FixtureConnection) async throws {
        var size: Int64 = 0
        while let piece = try await connection.nextBodyChunk(readBytes: sinkReadBytes) { size += Int64(piece.count) }
        let fields: HTTPFields = ["X-Received-Bytes": String(size)]
        let exact = request.query["size"].flatMap { Int64($0) }
        let minimum = request.query["min_size"].flatMap { Int64($0) }
        if let exact, size != exact {
            return try await connection.respond(
                status: 400, fields: fields, body: Array("received \(size) bytes, expected \(exact)\n".utf8))
        }
        if let minimum, size < minimum {
            return try await connection.respond(
                status: 400, fields: fields, body: Array("received \(size) bytes, expected at least \(minimum)\n".utf8))
        }
        try await connection.respond(status: 204, fields: fields)
    }

    /// `/expect?reject=417|413&ignore=0`: for `Expect: 100-continue` (RFC 9110 §10.1.1). By default the
    /// server sends `100 Continue`, reads the body and answers `UploadSummary`. `reject=CODE` answers that
    /// final status without reading the body (the client must then not send it) and closes after a
    /// linger; `ignore=1` never sends 100, so the client has to time out its wait and send anyway.
    static func expect(_ request: FixtureRequest, _ connection: FixtureConnection) async throws {
        if let reject = request.query["reject"].flatMap({ Int($0) }) {
            connection.closesAfterResponse = true
            try await connection.respond(
                status: reject, fields: ["Content-Type": "text/plain"], body: Array("rejected before the body\n".utf8))
            return await connection.closeAfterLinger()
        }
        // ignore=1: read without the automatic 100, so the body has to come from the client's own timeout.
        let summary = try await summarize(request, connection, sendingContinue: !request.flag("ignore"))
        try await connection.respondJSON(summary)
    }
}
