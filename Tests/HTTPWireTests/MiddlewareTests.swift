// MiddlewareTests: the adapter / handler / body-decoder chain — adapters see every hop and attempt,
// handlers every interim, redirect and final head (the cookie jar's needs), a 401 retried once with a
// refreshed token (one refresh for many requests), and a body decoder between the exchange and the caller.

import Foundation
import HTTPWire
import HTTPWireCodec
import HTTPWireTesting
import HTTPWireTransport
import TestSupport
import Testing

@Suite struct MiddlewareTests {
    /// Records what it saw; adds `X-Hop: <redirects>-<attempt>` to each request.
    final class Recorder: HTTPMiddleware {
        let adapted = LockedState<[String]>([])
        let heads = LockedState<[Int]>([])

        func adapt(_ request: inout OutgoingRequest) async throws {
            request.fields["X-Hop"] = "\(request.redirectCount)-\(request.attempt)"
            adapted.withLock { $0.append("\(request.method) \(request.url.pathAndQuery)") }
        }

        func handle(_ head: ResponseHead, to request: OutgoingRequest) async throws -> MiddlewareDecision {
            heads.withLock { $0.append(head.status.rawValue) }
            return .proceed
        }
    }

    @Test("adapters run for every hop; handlers see interim, redirect and final heads", .timeLimit(.scaledMinutes(1)))
    func everyHop() async throws {
        try await withTestServer(routes: []) { (server: TestServer) async throws in
            let recorder = Recorder()
            let client = server.client { $0.middleware = [recorder] }
            // Built-in routes: two redirects, then /json.
            #expect(try await client.get("redirect/2").status == .ok)
            #expect(recorder.adapted.withLock { $0 } == ["GET /redirect/2", "GET /redirect/1", "GET /json"])
            #expect(recorder.heads.withLock { $0 } == [302, 302, 200])
            // An interim 103 Early Hints before the final 200.
            _ = try await client.get("status/103")
            #expect(recorder.heads.withLock { $0 }.suffix(2) == [103, 200])
            await client.shutdown()
        }
    }

    @Test("fields an adapter adds are set afresh for each hop, not carried over", .timeLimit(.scaledMinutes(1)))
    func freshPerHop() async throws {
        try await withTestServer(routes: [
            TestRoute(.get, "/a", TestResponse(status: 302, fields: ["Location": "/b"])),
            TestRoute(.get, "/b", .text("b")),
        ]) { (server: TestServer) async throws in
            let client = server.client { $0.middleware = [Recorder()] }
            _ = try await client.get("a")
            #expect(server.requests.map { $0.fields.values(for: "X-Hop") } == [["0-1"], ["1-1"]])
            await client.shutdown()
        }
    }

    /// Asks for a retry after every 425 Too Early (RFC 8470).
    struct RetryOn425: HTTPMiddleware {
        func handle(_ head: ResponseHead, to request: OutgoingRequest) async throws -> MiddlewareDecision {
            head.status.rawValue == 425 ? .retry(after: .milliseconds(1)) : .proceed
        }
    }

    @Test("a handler's retry sends the same hop again, capped per request", .timeLimit(.scaledMinutes(1)))
    func handlerRetry() async throws {
        try await withTestServer(routes: [
            TestRoute(.get, "/early", responses: [TestResponse(status: 425), .text("ok")]),
            TestRoute(.get, "/always", TestResponse(status: 425)),
        ]) { (server: TestServer) async throws in
            let recorder = Recorder()
            let client = server.client { $0.middleware = [RetryOn425(), recorder] }
            let response = try await client.get("early")
            #expect(response.text == "ok")
            #expect(response.metrics.retries == 1)
            #expect(recorder.adapted.withLock { $0 }.count == 2)
            #expect(server.requests.map { $0.fields["X-Hop"] } == ["0-1", "0-2"])
            // A handler that always asks: 1 + maxMiddlewareRetries attempts, then the answer as it is.
            #expect(try await client.get("always").status.rawValue == 425)
            #expect(server.requests.count == 2 + 1 + HTTPClient.maxMiddlewareRetries)
            await client.shutdown()
        }
    }

    @Test(
        "Bearer: a 401 refreshes the token and retries once; many requests share one refresh",
        .timeLimit(.scaledMinutes(1)))
    func bearerRefresh() async throws {
        let valid = LockedState("t1")
        let protected = TestRoute(.get, "/me") { request in
            request.fields["Authorization"] == "Bearer \(valid.withLock { $0 })"
                ? .text("me")
                : TestResponse(status: 401, fields: ["WWW-Authenticate": #"Bearer error="invalid_token""#])
        }
        try await withTestServer(routes: [protected]) { (server: TestServer) async throws in
            let refreshes = LockedState(0)
            let tokens = BearerTokenMiddleware { rejected in
                let count = refreshes.withLock { count -> Int in
                    count += 1
                    return count
                }
                return "t\(count)"
            }
            let client = server.client { $0.middleware = [tokens] }
            // No token yet: the first request asks for one.
            #expect(try await client.get("me").text == "me")
            #expect(refreshes.withLock { $0 } == 1)
            // The server rotates the token: eight requests at once get 401, one refresh, each retried once.
            valid.withLock { $0 = "t2" }
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 { group.addTask { try await client.get("me").text } }
                for try await text in group { #expect(text == "me") }
            }
            #expect(refreshes.withLock { $0 } == 2)
            #expect(tokens.token == "t2")
            // Wrong credentials for good: one retry, then the 401 is the answer.
            valid.withLock { $0 = "never" }
            #expect(try await client.get("me").status.rawValue == 401)
            await client.shutdown()
        }
    }

    @Test("Bearer tokens stay with the original origin across redirects", .timeLimit(.scaledMinutes(1)))
    func bearerOrigin() async throws {
        try await withTestServer(routes: [TestRoute(nil, "/x", .text("away"))]) { (away: TestServer) async throws in
            try await withTestServer(routes: [
                TestRoute(.get, "/go", TestResponse(status: 307, fields: ["Location": away.baseURL + "x"]))
            ]) { (home: TestServer) async throws in
                let client = home.client { $0.middleware = [BearerTokenMiddleware(token: "secret") { _ in "new" }] }
                #expect(try await client.get("go").text == "away")
                #expect(home.requests.last?.fields["Authorization"] == "Bearer secret")
                #expect(away.requests.last?.fields["Authorization"] == nil)
                await client.shutdown()
            }
        }
    }

    /// Uppercases ASCII letters and rewrites the head as a content decoder would.
    struct Shouting: HTTPMiddleware {
        struct Decoder: ResponseBodyDecoder {
            var pieces = 0
            mutating func decode(_ piece: ArraySlice<UInt8>) throws -> [UInt8] {
                pieces += 1
                return piece.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }
            }
            mutating func finish() throws -> [UInt8] { Array("!".utf8) }
        }

        func bodyDecoder(for head: inout ResponseHead, to request: OutgoingRequest) -> (any ResponseBodyDecoder)? {
            guard head.fields["Content-Encoding"] == "x-shout" else { return nil }
            head.fields["Content-Encoding"] = nil
            head.fields["Content-Length"] = nil
            return Decoder()
        }
    }

    @Test("a body decoder sits between the exchange and the caller", .timeLimit(.scaledMinutes(1)))
    func bodyDecoder() async throws {
        try await withTestServer(routes: [
            TestRoute(.get, "/loud", .text("hello", fields: ["Content-Encoding": "x-shout"])),
            TestRoute(.get, "/plain", .text("hello")),
        ]) { (server: TestServer) async throws in
            let client = server.client { $0.middleware = [Shouting()] }
            let loud = try await client.get("loud")
            #expect(loud.text == "HELLO!")
            #expect(loud.fields["Content-Encoding"] == nil)
            #expect(loud.metrics.receivedBodyBytes == 5)
            #expect(try await client.get("plain").text == "hello")
            let streamed = try await client.stream(HTTPRequest(url: "loud"))
            #expect(streamed.expectedContentLength == nil)
            var bytes: [UInt8] = []
            for try await piece in streamed.body { bytes += piece }
            #expect(String(decoding: bytes, as: UTF8.self) == "HELLO!")
            await client.shutdown()
        }
    }

    /// Puts a CR/LF into a field: the request must fail before anything is sent.
    struct Injecting: HTTPMiddleware {
        func adapt(_ request: inout OutgoingRequest) async throws {
            request.fields["X-Evil"] = "a\r\nInjected: 1"
        }
    }

    @Test("what adapters produce is checked like any request", .timeLimit(.scaledMinutes(1)))
    func adaptedFieldsChecked() async throws {
        try await withTestServer(routes: []) { (server: TestServer) async throws in
            let client = server.client { $0.middleware = [Injecting()] }
            await #expect {
                _ = try await client.get("json")
            } throws: { error in
                guard case HTTPWireError.invalidRequest = error else { return false }
                return true
            }
            #expect(server.requestCount == 0)
            await client.shutdown()
        }
    }
}
