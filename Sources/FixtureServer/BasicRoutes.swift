// BasicRoutes: the well-behaved fixture routes — status codes, chosen fields, redirects, chunked bodies,
// delays and connection counters (edge layer, fixture server).
//
// Each of these answers correctly; what varies is *what* it answers, so client tests can check status
// handling, redirect following (RFC 9110 §15.4), chunked decoding with trailers (RFC 9112 §7.1) and
// connection reuse. The misbehaving routes are in FaultRoutes.swift. Nothing here reads a request body
// (the connection loop discards an unread body before the next request).

import HTTPWire
import HTTPWireCodec
import HTTPWireTransport

/// Handlers of the plain routes; see Routes.swift for their URLs.
enum BasicRoutes {
    /// `/status/{code}`: answers with that status. 1xx codes other than 101 go out as an interim response
    /// followed by a 200 (a 1xx is never final, RFC 9110 §15.2); 101 is sent as a final switch with no
    /// upgrade asked for, which a client must refuse. `retry_after=` adds a Retry-After field.
    static func status(_ request: FixtureRequest, _ connection: FixtureConnection) async throws {
        guard let code = request.segment(1).flatMap({ Int($0) }), (100...599).contains(code) else {
            return try await connection.respond(status: 400, body: Array("status must be 100-599\n".utf8))
        }
        var fields: HTTPFields = ["Content-Type": "text/plain"]
        if let retryAfter = request.query["retry_after"] { fields.append(name: "Retry-After", value: retryAfter) }
        if code == 101 {
            fields.append(name: "Upgrade", value: "websocket")
            fields.append(name: "Connection", value: "upgrade")
            connection.closesAfterResponse = true
            try await connection.sendInterim(status: 101, fields: fields)
            return await connection.close()
        }
        if code < 200 {
            try await connection.sendInterim(
                status: code, fields: code == 103 ? ["Link": "</style.css>; rel=preload"] : [:])
            return try await connection.respond(status: 200, fields: fields, body: Array("status 200\n".utf8))
        }
        try await connection.respond(status: code, fields: fields, body: Array("status \(code)\n".utf8))
    }

    /// `/headers?Name=value`: 200 with each query parameter as a response field, names in sorted order.
    static func headers(_ request: FixtureRequest, _ connection: FixtureConnection) async throws {
        var fields = HTTPFields()
        for name in request.query.keys.sorted() { fields.append(name: name, value: request.query[name] ?? "") }
        // The encoder refuses names that are not tokens and values with CR or LF: that is a 400 here.
        do {
            var probe: [UInt8] = []
            try ResponseEncoder.encodeHead(version: .http1_1, status: 200, reason: "OK", fields: fields, into: &probe)
        } catch {
            return try await connection.respond(status: 400, body: Array("\(error)\n".utf8))
        }
        try await connection.respond(status: 200, fields: fields, body: Array("ok\n".utf8))
    }

    /// Counters as the server and this connection see them.
    struct Counts: Encodable {
        var acceptedConnections: Int
        var requestsServed: Int
        var requestsOnConnection: Int
    }

    /// `/connection-count`: shows whether a client reused its connection.
    static func connectionCount(_ request: FixtureRequest, _ connection: FixtureConnection) async throws {
        let counts = Counts(
            acceptedConnections: connection.server.acceptedConnections,
            requestsServed: connection.server.requestsServed,
            requestsOnConnection: connection.requestsOnConnection)
        try await connection.respondJSON(counts)
    }

    /// `/redirect/{n}`: redirects to `/redirect/{n-1}`, and `/redirect/1` to `/json`. `status=` picks the
    /// code (301, 302, 303, 307, 308), `absolute=1` writes the Location as an absolute URL.
    static func redirect(_ request: FixtureRequest, _ connection: FixtureConnection) async throws {
        let remaining = request.segment(1).flatMap { Int($0) } ?? 1
        let status = request.integer("status", default: 302)
        guard remaining > 0 else { return try await UploadEcho.json(request, connection) }
        var query: [String] = []
        if let code = request.query["status"] { query.append("status=\(code)") }
        if request.flag("absolute") { query.append("absolute=1") }
        let suffix = query.isEmpty ? "" : "?" + query.joined(separator: "&")
        var location = remaining == 1 ? "/json" : "/redirect/\(remaining - 1)\(suffix)"
        if request.flag("absolute") { location = String(connection.server.baseURL.dropLast()) + location }
        try await sendRedirect(status: status, location: location, connection)
    }

    /// `/redirect-to?url=&status=302`: one redirect to `url`.
    static func redirectTo(_ request: FixtureRequest, _ connection: FixtureConnection) async throws {
        guard let url = request.query["url"] else {
            return try await connection.respond(status: 400, body: Array("url= is required\n".utf8))
        }
        try await sendRedirect(status: request.integer("status", default: 302), location: url, connection)
    }

    private static func sendRedirect(status: Int, location: String, _ connection: FixtureConnection) async throws {
        let body = Array("redirecting to \(location)\n".utf8)
        try await connection.respond(
            status: status, fields: ["Location": location, "Content-Type": "text/plain"], body: body)
    }

    /// `/chunked?chunks=4&size=16&trailers=0&interval_ms=0`: a chunked body of `chunks` chunks of `size`
    /// generated bytes each (seed 0, so the whole body is `GeneratedBytes.bytes(0..<chunks*size)`), with
    /// an optional pause between chunks. `trailers=1` announces and sends `X-Checksum-SHA256` (hex of the
    /// body) and `X-Chunks` as trailer fields (RFC 9110 §6.5).
    ///
    /// Without a pause, chunks are framed into one buffer of about ``chunkedWriteBytes`` and written at once:
    /// the bytes on the wire are the same as one write per chunk, but a 1 GiB body of 16 KiB chunks takes
    /// 1,024 writes instead of 65,536, so the benchmark that fetches it measures the client, not this
    /// server's system calls. The body is hashed only when the trailers that carry the hash were asked for.
    static func chunked(_ request: FixtureRequest, _ connection: FixtureConnection) async throws {
        let chunks = max(0, request.integer("chunks", default: 4))
        let size = max(1, request.integer("size", default: 16))
        let interval = request.integer("interval_ms", default: 0)
        let hasTrailers = request.flag("trailers")
        var fields: HTTPFields = ["Content-Type": "application/octet-stream"]
        if hasTrailers { fields.append(name: "Trailer", value: "X-Checksum-SHA256, X-Chunks") }
        try await connection.sendHead(status: 200, fields: fields, framing: .chunked)
        var hasher = SHA256Hasher()
        let chunksPerWrite = interval > 0 ? 1 : max(1, chunkedWriteBytes / size)
        var buffer: [UInt8] = []
        var index = 0
        while index < chunks && !request.isHead {
            if interval > 0 && index > 0 { try await ServerExecutor.sleep(for: .milliseconds(interval)) }
            buffer.removeAll(keepingCapacity: true)
            for chunk in index..<min(chunks, index + chunksPerWrite) {
                let start = Int64(chunk) * Int64(size)
                connection.appendChunk(size: size, to: &buffer) { data in
                    let dataStart = data.count
                    GeneratedBytes.append(start..<(start + Int64(size)), seed: 0, to: &data)
                    if hasTrailers { hasher.update(data[dataStart...]) }
                }
            }
            index = min(chunks, index + chunksPerWrite)
            try await connection.writeBody(buffer)
        }
        let checksum = hasher.finalize().flatMap { SHA256Digest(bytes: $0)?.hexString } ?? ""
        var trailers = HTTPFields()
        if hasTrailers {
            trailers.append(name: "X-Checksum-SHA256", value: checksum)
            trailers.append(name: "X-Chunks", value: String(chunks))
        }
        try await connection.sendLastChunk(trailers: trailers)
    }

    /// About how many bytes of framed chunks `/chunked` writes at once when it does not pause between them.
    static let chunkedWriteBytes = 1 << 20

    /// What `/delay` answers.
    struct Delayed: Encodable {
        var delayedMs: Int
    }

    /// `/delay?ms=1000`: waits, then answers. Cancelled promptly by `stop()`.
    static func delay(_ request: FixtureRequest, _ connection: FixtureConnection) async throws {
        let milliseconds = max(0, request.integer("ms", default: 1000))
        while try await connection.nextBodyChunk() != nil {}
        try await ServerExecutor.sleep(for: .milliseconds(milliseconds))
        try await connection.respondJSON(Delayed(delayedMs: milliseconds))
    }
}
