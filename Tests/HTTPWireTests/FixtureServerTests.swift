// FixtureServerTests: the fixture server's plain routes and connection handling, driven over raw sockets
// with the codec (no HTTPClient involved): keep-alive reuse, Connection: close and HTTP/1.0, echo, JSON,
// status codes, redirects, chunked bodies with trailers, uploads, Expect: 100-continue, garbage requests.

import HTTPWire
import HTTPWireCodec
import HTTPWireTransport
import TestSupport
import Testing

@testable import FixtureServer

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite(.timeLimit(.scaledMinutes(1)))
struct FixtureServerTests {
    /// Decodes a JSON body the tests know the shape of.
    private func json(_ response: RawResponse) throws -> [String: JSONValue] {
        try JSONDecoder().decode([String: JSONValue].self, from: Data(response.body))
    }

    @Test("an origin-form target with :// in its query routes by its path; an absolute-form one by its own path")
    func routingByPath() {
        let origin = FixtureRequest(
            head: RequestHead(method: .get, target: "/redirect-to?url=http://h:1/json", fields: [:]))
        #expect(origin.segments == ["redirect-to"])
        #expect(origin.query["url"] == "http://h:1/json")
        let absolute = FixtureRequest(head: RequestHead(method: .get, target: "http://h:1/json?x=1", fields: [:]))
        #expect(absolute.segments == ["json"])
    }

    @Test("two requests reuse one kept-alive connection")
    func keepAlive() async throws {
        try await withFixtureServer { server in
            let client = try await RawHTTPConnection.connect(to: server)
            try await client.send(.get, "/connection-count")
            let first = try await client.readResponse()
            try await client.send(.get, "/connection-count")
            let second = try await client.readResponse()
            await client.close()
            #expect(first.isKeepAlive && second.isKeepAlive)
            #expect(try json(first)["requests_on_connection"] == .number(1))
            #expect(try json(second)["requests_on_connection"] == .number(2))
            #expect(server.acceptedConnections == 1)
            #expect(server.requestsServed == 2)
            #expect(server.requestLog.map(\.target) == ["/connection-count", "/connection-count"])
        }
    }

    @Test("pipelined requests in one write get their responses in order")
    func pipelining() async throws {
        try await withFixtureServer { server in
            let client = try await RawHTTPConnection.connect(to: server)
            var bytes: [UInt8] = []
            for target in ["/status/201", "/echo", "/status/202"] {
                let head = RequestHead(method: .post, target: target, fields: ["Host": "127.0.0.1"])
                try RequestEncoder.encodeHead(head, framing: .contentLength(3), into: &bytes)
                bytes += Array("abc".utf8)
            }
            try await client.write(bytes)
            let first = try await client.readResponse(to: .post)
            let second = try await client.readResponse(to: .post)
            let third = try await client.readResponse(to: .post)
            await client.close()
            #expect([first.status, second.status, third.status] == [201, 200, 202])
            #expect(try json(second)["body"] == .string("abc"))
            #expect(server.acceptedConnections == 1 && server.requestsServed == 3)
        }
    }

    @Test("an HTTP/1.0 client gets /chunked close-delimited, never chunked")
    func chunkedToHTTP10() async throws {
        try await withFixtureServer { server in
            let client = try await RawHTTPConnection.connect(to: server)
            try await client.send(.get, "/chunked?chunks=2&size=5", version: .http1_0)
            let response = try await client.readResponse()
            await client.close()
            #expect(response.head.fields["Transfer-Encoding"] == nil)
            #expect(response.body == GeneratedBytes.bytes(0..<10, seed: 0))
        }
    }

    @Test("Connection: close and HTTP/1.0 get a close after the response")
    func closeRequests() async throws {
        try await withFixtureServer { server in
            let client = try await RawHTTPConnection.connect(to: server)
            try await client.send(.get, "/json", fields: ["Connection": "close"])
            let response = try await client.readResponse()
            #expect(response.head.fields["Connection"] == "close")
            #expect(!response.isKeepAlive)
            #expect(try await client.readUntilClose().isEmpty)
            await client.close()

            let old = try await RawHTTPConnection.connect(to: server)
            try await old.send(.get, "/json", version: .http1_0)
            let oldResponse = try await old.readResponse()
            #expect(oldResponse.status == 200)
            #expect(try await old.readUntilClose().isEmpty)
            await old.close()
        }
    }

    @Test("GET /json answers a JSON object; POST /json echoes the body")
    func jsonRoute() async throws {
        try await withFixtureServer { server in
            let client = try await RawHTTPConnection.connect(to: server)
            try await client.send(.get, "/json")
            let fixed = try await client.readResponse()
            #expect(fixed.head.fields["Content-Type"] == "application/json")
            #expect(try json(fixed)["is_fixture"] == .bool(true))
            let document = Array(#"{"name":"wire","list":[1,2]}"#.utf8)
            try await client.send(.post, "/json", fields: ["Content-Type": "application/json"], body: document)
            let echoed = try await client.readResponse(to: .post)
            #expect(echoed.body == document)
            await client.close()
        }
    }

    @Test("/echo reports method, target, fields and body")
    func echo() async throws {
        try await withFixtureServer { server in
            let client = try await RawHTTPConnection.connect(to: server)
            try await client.send(.put, "/echo?x=1", fields: ["X-Test": "a", "x-test": "b"], body: Array("hi".utf8))
            let response = try await client.readResponse(to: .put)
            await client.close()
            let echo = try json(response)
            #expect(echo["method"] == .string("PUT"))
            #expect(echo["target"] == .string("/echo?x=1"))
            #expect(echo["body"] == .string("hi"))
            #expect(echo["body_length"] == .number(2))
            let headers = echo["headers"]?.array?.compactMap(\.array) ?? []
            #expect(headers.contains([.string("X-Test"), .string("a")]))
            #expect(headers.contains([.string("x-test"), .string("b")]))
        }
    }

    @Test("/status/{code} answers that code; 204 and HEAD carry no body; 103 arrives as interim")
    func statusCodes() async throws {
        try await withFixtureServer { server in
            let client = try await RawHTTPConnection.connect(to: server)
            try await client.send(.get, "/status/418?retry_after=3")
            let teapot = try await client.readResponse()
            #expect(teapot.status == 418)
            #expect(teapot.text == "status 418\n")
            #expect(teapot.head.fields["Retry-After"] == "3")
            try await client.send(.get, "/status/204")
            let empty = try await client.readResponse()
            #expect(empty.status == 204 && empty.body.isEmpty && empty.head.fields["Content-Length"] == nil)
            try await client.send(.head, "/status/500")
            let head = try await client.readResponse(to: .head)
            #expect(head.status == 500 && head.body.isEmpty && head.head.fields["Content-Length"] == "11")
            try await client.send(.get, "/status/103")
            let hinted = try await client.readResponse()
            #expect(hinted.informational.map(\.status.rawValue) == [103])
            #expect(hinted.status == 200)
            try await client.send(.get, "/nowhere")
            #expect(try await client.readResponse().status == 404)
            await client.close()
        }
    }

    @Test("/redirect/{n} chains n redirects ending at /json")
    func redirectChain() async throws {
        try await withFixtureServer { server in
            let client = try await RawHTTPConnection.connect(to: server)
            var target = "/redirect/3?status=307"
            var statuses: [Int] = []
            while true {
                try await client.send(.get, target)
                let response = try await client.readResponse()
                guard let location = response.head.fields["Location"] else { break }
                statuses.append(response.status)
                target = location
            }
            #expect(statuses == [307, 307, 307])
            #expect(target == "/json")
            try await client.send(.get, "/redirect-to?url=https%3A%2F%2Fexample.test%2Fa&status=301")
            let response = try await client.readResponse()
            #expect(response.status == 301 && response.head.fields["Location"] == "https://example.test/a")
            await client.close()
        }
    }

    @Test("/chunked sends generated bytes in chunks, with trailers on request")
    func chunked() async throws {
        try await withFixtureServer { server in
            let client = try await RawHTTPConnection.connect(to: server)
            try await client.send(.get, "/chunked?chunks=5&size=1000&trailers=1")
            let response = try await client.readResponse()
            await client.close()
            let expected = GeneratedBytes.bytes(0..<5000, seed: 0)
            #expect(response.head.fields["Transfer-Encoding"] == "chunked")
            #expect(response.body == expected)
            #expect(response.trailers["X-Chunks"] == "5")
            #expect(response.trailers["X-Checksum-SHA256"] == SHA256Digest.of(expected)?.hexString)
        }
    }

    @Test("/upload reports size, SHA-256 and content type; raw=1 echoes the body; /sink answers 204")
    func upload() async throws {
        try await withFixtureServer { server in
            let client = try await RawHTTPConnection.connect(to: server)
            let body = GeneratedBytes.bytes(0..<300_000, seed: 3)
            try await client.send(.post, "/upload", fields: ["Content-Type": "application/x-test"], body: body)
            let summary = try json(try await client.readResponse(to: .post))
            #expect(summary["size"] == .number(300_000))
            #expect(summary["sha256"] == .string(SHA256Digest.of(body)?.hexString ?? "?"))
            #expect(summary["content_type"] == .string("application/x-test"))
            #expect(summary["framing"] == .string("content-length"))
            let multipart = Array("--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--b--\r\n".utf8)
            try await client.send(
                .post, "/upload?raw=1", fields: ["Content-Type": "multipart/form-data; boundary=b"], body: multipart)
            let raw = try await client.readResponse(to: .post)
            #expect(raw.body == multipart)
            #expect(raw.head.fields["Content-Type"] == "multipart/form-data; boundary=b")
            try await client.send(.post, "/sink", body: body)
            let sink = try await client.readResponse(to: .post)
            #expect(sink.status == 204 && sink.head.fields["X-Received-Bytes"] == "300000")
            await client.close()
        }
    }

    @Test("/sink checks the byte count it is told to expect: size= exactly, min_size= at least")
    func sinkCount() async throws {
        try await withFixtureServer { server in
            let client = try await RawHTTPConnection.connect(to: server)
            // Over one 1 MiB sink read, so the count spans several reads.
            let body = GeneratedBytes.bytes(0..<2_500_000, seed: 4)
            for (query, status) in [
                ("size=2500000", 204), ("size=2500001", 400), ("min_size=2400000", 204), ("min_size=2500001", 400),
            ] {
                try await client.send(.put, "/sink?" + query, body: body)
                let answer = try await client.readResponse(to: .put)
                #expect(answer.status == status, "\(query)")
                #expect(answer.head.fields["X-Received-Bytes"] == "2500000", "\(query)")
            }
            await client.close()
        }
    }

    @Test("/upload reads a chunked body with trailers")
    func chunkedUpload() async throws {
        try await withFixtureServer { server in
            let client = try await RawHTTPConnection.connect(to: server)
            var bytes: [UInt8] = []
            let head = RequestHead(method: .post, target: "/upload", fields: ["Host": "127.0.0.1"])
            try RequestEncoder.encodeHead(head, framing: .chunked, into: &bytes)
            ChunkedEncoder.encodeChunk(Array("hello ".utf8), into: &bytes)
            ChunkedEncoder.encodeChunk(Array("world".utf8), into: &bytes)
            try ChunkedEncoder.encodeLastChunk(trailers: ["X-Sum": "42"], into: &bytes)
            try await client.write(bytes)
            let summary = try json(try await client.readResponse(to: .post))
            await client.close()
            #expect(summary["size"] == .number(11))
            #expect(summary["framing"] == .string("chunked"))
            #expect(summary["trailers"] == .array([.array([.string("X-Sum"), .string("42")])]))
        }
    }

    @Test("Expect: 100-continue gets 100 before the body, or a final 417 without reading it")
    func expectContinue() async throws {
        try await withFixtureServer { server in
            let client = try await RawHTTPConnection.connect(to: server)
            var bytes: [UInt8] = []
            let head = RequestHead(
                method: .post, target: "/expect", fields: ["Host": "127.0.0.1", "Expect": "100-continue"])
            try RequestEncoder.encodeHead(head, framing: .contentLength(4), into: &bytes)
            try await client.write(bytes)  // the head only: the body waits for 100
            var interim: [UInt8] = []
            _ = try await client.connection.read(
                into: &interim, maxBytes: 100, deadline: .after(.seconds(10).scaled))
            #expect(String(decoding: interim, as: UTF8.self) == "HTTP/1.1 100 Continue\r\n\r\n")
            try await client.write(Array("data".utf8))
            let summary = try json(try await client.readResponse(to: .post))
            #expect(summary["size"] == .number(4) && summary["continued"] == .bool(true))
            await client.close()

            let rejected = try await RawHTTPConnection.connect(to: server)
            var rejectHead: [UInt8] = []
            let reject = RequestHead(
                method: .post, target: "/expect?reject=417", fields: ["Host": "127.0.0.1", "Expect": "100-continue"])
            try RequestEncoder.encodeHead(reject, framing: .contentLength(1_000_000), into: &rejectHead)
            try await rejected.write(rejectHead)
            let answer = try await rejected.readResponse(to: .post)
            #expect(answer.status == 417 && answer.informational.isEmpty && !answer.isKeepAlive)
            await rejected.close()
        }
    }

    @Test("garbage gets 400 and a close, and the server keeps serving")
    func garbage() async throws {
        try await withFixtureServer { server in
            let client = try await RawHTTPConnection.connect(to: server)
            try await client.write(Array("\u{16}\u{03}\u{01} not http at all\r\n\r\n".utf8))
            let response = try await client.readResponse()
            #expect(response.status == 400 && !response.isKeepAlive)
            #expect(try await client.readUntilClose().isEmpty)
            await client.close()
            let next = try await RawHTTPConnection.connect(to: server)
            try await next.send(.get, "/json")
            #expect(try await next.readResponse().status == 200)
            await next.close()
        }
    }

    @Test("stop closes open connections and ends their tasks")
    func stopClosesConnections() async throws {
        let server = try await FixtureServer.start()
        let client = try await RawHTTPConnection.connect(to: server)
        try await client.send(.get, "/json")
        _ = try await client.readResponse()
        await server.stop()
        // The server side is gone: the idle connection reads end of stream instead of waiting 60 s.
        #expect(try await client.readUntilClose().isEmpty)
        await client.close()
        // The listener is closed. (Not checked by connecting: the freed port may already be another test's.)
        #expect(!server.listener.descriptor.isOpen)
    }
}

extension FixtureServerTests {
    @Test("stop returns promptly while requests are waiting in /delay")
    func stopCancelsWaitingRoutes() async throws {
        let server = try await FixtureServer.start()
        var clients: [RawHTTPConnection] = []
        for _ in 0..<5 {
            let client = try await RawHTTPConnection.connect(to: server)
            try await client.send(.get, "/delay?ms=30000")
            clients.append(client)
        }
        // Wait (with a deadline) until every request reached its route.
        try #require(await eventually { server.requestsServed == 5 })
        let start = ContinuousClock.now
        await server.stop()
        // Well under the routes' 30 s delay; the margin is for a machine busy with the parallel test run.
        #expect(ContinuousClock.now - start < .seconds(15).scaled)
        for client in clients {
            #expect(try await client.readUntilClose().isEmpty)
            await client.close()
        }
    }
}

/// Any JSON value, for reading the fixture's answers without declaring a type per route.
enum JSONValue: Decodable, Equatable {
    case string(String), number(Double), bool(Bool), array([JSONValue]), object([String: JSONValue]), null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    var array: [JSONValue]? {
        if case .array(let values) = self { return values }
        return nil
    }
}
