// ServerSentEventsTests: `HTTPClient.events(_:)` and `ResponseBody.lines()` end to end — against fixture
// routes that stream events in chunks, hold the next one until the test has read the last, end or cut the
// stream, check `Last-Event-ID`, and answer 204 or the wrong type; and against nginx serving a static
// event-stream file. No test sleeps: the one wait the sequence makes is the reconnection time the server
// sets, a few milliseconds.

import FixtureServer
import Foundation
import HTTPWireCodec
import HTTPWireTesting
import HTTPWireTransport
import TestSupport
import Testing

@testable import HTTPWire

@Suite struct ServerSentEventsTests {
    /// A client without retries or validation of its own: what the tests see is the sequence's doing.
    static func client() -> HTTPClient {
        var configuration = ClientConfiguration()
        configuration.retry = .none
        return HTTPClient(configuration: configuration)
    }

    /// Adds a route for `path` that records each request head and answers it with `respond`, which gets the
    /// number of the request (0 for the first).
    static func route(
        _ server: FixtureServer, _ path: String, heads: LockedState<[RequestHead]>,
        _ respond: @escaping @Sendable (FixtureResponder, Int) async throws -> Void
    ) {
        server.addCustomRoute(
            FixtureCustomRoute(matches: { $0.target == path }) { responder in
                let number = heads.withLock { heads in
                    heads.append(responder.head)
                    return heads.count - 1
                }
                try await respond(responder, number)
            })
    }

    static let eventStream: HTTPFields = ["Content-Type": "text/event-stream", "Cache-Control": "no-store"]

    @Test(
        "each event arrives while the stream is still open, before the server sends the next",
        .timeLimit(.scaledMinutes(1)))
    func arrivesLive() async throws {
        try await withFixtureServer { server in
            let heads = LockedState<[RequestHead]>([])
            let (gate, open) = AsyncStream<Void>.makeStream()
            Self.route(server, "/live", heads: heads) { responder, _ in
                try await responder.sendHead(status: 200, fields: Self.eventStream, contentLength: nil)
                var waits = gate.makeAsyncIterator()
                for number in 1...3 {
                    try await responder.sendChunk(Array("id: \(number)\nevent: tick\ndata: \(number)\n\n".utf8))
                    // The next event is sent only once the test has read this one: a client that waited
                    // for more of the body before handing events out would never finish.
                    _ = await waits.next()
                }
                try await responder.sendLastChunk()
            }
            let client = Self.client()
            var received: [ServerSentEvent] = []
            for try await event in client.events(HTTPRequest(url: server.baseURL + "live"), reconnection: .never) {
                received.append(event)
                open.yield()
            }
            #expect(received == (1...3).map { ServerSentEvent(type: "tick", data: "\($0)", lastEventID: "\($0)") })
            let sent = heads.withLock { $0 }
            #expect(sent.count == 1 && sent[0].fields["Accept"] == "text/event-stream")
            #expect(sent[0].fields["Cache-Control"] == "no-cache", "as EventSource: no cached copy of a live stream")
            #expect(sent[0].fields["Last-Event-ID"] == nil)
            await client.shutdown()
        }
    }

    @Test(
        "the stream reconnects after it ends or is cut, with Last-Event-ID and the server's retry; 204 ends it",
        .timeLimit(.scaledMinutes(1)))
    func reconnects() async throws {
        try await withFixtureServer { server in
            let heads = LockedState<[RequestHead]>([])
            Self.route(server, "/feed", heads: heads) { responder, number in
                switch number {
                case 0:
                    // Ends cleanly after one event; tells the client to come back after 5 ms.
                    try await responder.respond(
                        status: 200, fields: Self.eventStream, body: Array("retry: 5\nid: a\ndata: one\n\n".utf8))
                case 1:
                    // Cut in the middle of the second event: only the first is delivered.
                    try await responder.sendHead(status: 200, fields: Self.eventStream, contentLength: nil)
                    try await responder.sendChunk(Array("id: b\ndata: two\n\nid: c\ndata: lost".utf8))
                    await responder.close()
                case 2:
                    try await responder.respond(
                        status: 200, fields: Self.eventStream, body: Array(": resumed\ndata: three\n\n".utf8))
                default:
                    try await responder.respond(status: 204, fields: [:], body: [])
                }
            }
            let client = Self.client()
            var received: [ServerSentEvent] = []
            for try await event in client.events(HTTPRequest(url: server.baseURL + "feed")) { received.append(event) }
            #expect(received.map(\.data) == ["one", "two", "three"])
            #expect(received.map(\.lastEventID) == ["a", "b", "b"], "an event without id: keeps the last one")
            let sent = heads.withLock { $0 }
            #expect(sent.map { $0.fields["Last-Event-ID"] } == [nil, "a", "b", "b"])
            await client.shutdown()
        }
    }

    @Test(
        "a Last-Event-ID the caller sets resumes the stream; an ID that cannot be a field is not sent",
        .timeLimit(.scaledMinutes(1)))
    func resumesFromCallersID() async throws {
        try await withFixtureServer { server in
            let heads = LockedState<[RequestHead]>([])
            Self.route(server, "/resume", heads: heads) { responder, number in
                let body = number == 0 ? "retry: 1\nid: bad\u{1}id\ndata: x\n\n" : "data: y\n\n"
                if number < 2 {
                    try await responder.respond(status: 200, fields: Self.eventStream, body: Array(body.utf8))
                } else {
                    try await responder.respond(status: 204, fields: [:], body: [])
                }
            }
            let client = Self.client()
            var request = HTTPRequest(url: server.baseURL + "resume")
            request.fields["Last-Event-ID"] = "41"
            request.fields["Accept"] = "text/event-stream, */*;q=0.1"
            var received: [String] = []
            for try await event in client.events(request) { received.append(event.lastEventID) }
            #expect(received == ["bad\u{1}id", "bad\u{1}id"])
            let sent = heads.withLock { $0 }
            #expect(sent.map { $0.fields["Last-Event-ID"] } == ["41", nil, nil])
            #expect(sent.allSatisfy { $0.fields["Accept"] == "text/event-stream, */*;q=0.1" }, "the caller's Accept")
            await client.shutdown()
        }
    }

    @Test(
        "a response that is not an event stream fails it at once, with no reconnection",
        .timeLimit(.scaledMinutes(1)))
    func notAnEventStream() async throws {
        try await withFixtureServer { server in
            let heads = LockedState<[RequestHead]>([])
            Self.route(server, "/json", heads: heads) { responder, _ in
                try await responder.respond(
                    status: 200, fields: ["Content-Type": "application/json"], body: Array("{}".utf8))
            }
            Self.route(server, "/down", heads: heads) { responder, _ in
                try await responder.respond(status: 503, fields: Self.eventStream, body: Array("data: x\n\n".utf8))
            }
            let client = Self.client()
            for path in ["json", "down"] {
                do {
                    for try await _ in client.events(HTTPRequest(url: server.baseURL + path)) {
                        Issue.record("no event from \(path)")
                    }
                    Issue.record("\(path) should have failed")
                } catch let HTTPWireError.unacceptableResponse(response) {
                    #expect(response.status.rawValue == (path == "json" ? 200 : 503))
                    #expect(HTTPWireError.unacceptableResponse(response).exitCode == 22)
                }
            }
            #expect(heads.withLock { $0.count } == 2)
            await client.shutdown()
        }
    }

    @Test(
        "an empty 200 without Content-Type is not a stream; a total timeout ends one response, not the stream",
        .timeLimit(.scaledMinutes(1)))
    func emptyAnswerAndTotalTimeout() async throws {
        try await withFixtureServer { server in
            let heads = LockedState<[RequestHead]>([])
            Self.route(server, "/empty", heads: heads) { responder, _ in
                try await responder.respond(status: 200, fields: [:], body: [])
            }
            let (gate, open) = AsyncStream<Void>.makeStream()
            Self.route(server, "/held", heads: heads) { responder, number in
                guard number == 1 else { return try await responder.respond(status: 204, fields: [:], body: []) }
                try await responder.sendHead(status: 200, fields: Self.eventStream, contentLength: nil)
                try await responder.sendChunk(Array("retry: 1\ndata: a\n\n".utf8))
                // Held open until the test ends: only the client's total timeout ends this response.
                var waits = gate.makeAsyncIterator()
                _ = await waits.next()
            }
            let plain = Self.client()
            await #expect(throws: HTTPWireError.self) {
                for try await _ in plain.events(HTTPRequest(url: server.baseURL + "empty")) {}
            }
            #expect(heads.withLock { $0.count } == 1, "refused at once, not polled every few seconds")
            await plain.shutdown()

            // A total timeout long enough for any one request here, even on a busy machine, ends the held one.
            var configuration = ClientConfiguration()
            configuration.retry = .none
            configuration.timeouts.total = .seconds(1).scaled
            let client = HTTPClient(configuration: configuration)
            var received: [String] = []
            for try await event in client.events(HTTPRequest(url: server.baseURL + "held")) {
                received.append(event.data)
            }
            #expect(received == ["a"] && heads.withLock { $0.count } == 3, "the held response, then a 204")
            open.finish()
            await client.shutdown()
        }
    }

    @Test("the reconnection wait: the server's time after a response, the longer one doubled after failures")
    func reconnectionWait() {
        let policy = ServerSentEvents.Reconnection(delay: .seconds(3), maxDelay: .seconds(20))
        #expect(policy.wait(serverMilliseconds: nil, failures: 0) == .seconds(3))
        #expect(policy.wait(serverMilliseconds: 0, failures: 0) == .zero, "retry: 0 after a response that ended")
        #expect(policy.wait(serverMilliseconds: 0, failures: 1) == .seconds(3), "but not after a failure")
        #expect(policy.wait(serverMilliseconds: 5000, failures: 2) == .seconds(10))
        #expect(policy.wait(serverMilliseconds: nil, failures: 3) == .seconds(12))
        #expect(policy.wait(serverMilliseconds: nil, failures: 40) == .seconds(20))
        #expect(policy.wait(serverMilliseconds: 1 << 53, failures: 0) == .seconds(20))
    }

    @Test(
        "failed attempts in a row end the stream with the last error; a POST is never sent again",
        .timeLimit(.scaledMinutes(1)))
    func givesUp() async throws {
        try await withFixtureServer { server in
            let heads = LockedState<[RequestHead]>([])
            Self.route(server, "/drop", heads: heads) { responder, _ in await responder.close() }
            Self.route(server, "/post", heads: heads) { responder, _ in
                _ = try await responder.readBody(limit: 1024)
                try await responder.respond(status: 200, fields: Self.eventStream, body: Array("data: p\n\n".utf8))
            }
            let client = Self.client()
            let reconnection = ServerSentEvents.Reconnection(delay: .milliseconds(1), maxAttempts: 2)
            await #expect(throws: HTTPWireError.emptyReply) {
                for try await _ in client.events(HTTPRequest(url: server.baseURL + "drop"), reconnection: reconnection)
                {}
            }
            #expect(heads.withLock { $0.count } == 3, "the first attempt and two reconnections")

            let post = HTTPRequest(method: .post, url: server.baseURL + "post", body: .bytes(Array("{}".utf8)))
            var received: [String] = []
            for try await event in client.events(post, reconnection: reconnection) { received.append(event.data) }
            #expect(received == ["p"])
            #expect(heads.withLock { $0.filter { $0.method == .post }.count } == 1)
            await client.shutdown()
        }
    }

    @Test(
        "an event over the limit throws bodyTooLarge; cancelling the task ends the reconnection wait",
        .timeLimit(.scaledMinutes(1)))
    func limitsAndCancellation() async throws {
        try await withFixtureServer { server in
            let heads = LockedState<[RequestHead]>([])
            Self.route(server, "/huge", heads: heads) { responder, _ in
                // The event before the oversized one comes in the same piece: it is still delivered.
                let big = String(repeating: "data: 0123456789abcdef\n", count: 64)
                try await responder.respond(
                    status: 200, fields: Self.eventStream, body: Array(("data: ok\n\n" + big).utf8))
            }
            Self.route(server, "/once", heads: heads) { responder, _ in
                try await responder.respond(status: 200, fields: Self.eventStream, body: Array("data: x\n\n".utf8))
            }
            let client = Self.client()
            var received: [String] = []
            await #expect(throws: HTTPWireError.bodyTooLarge(limit: 256)) {
                for try await event in client.events(HTTPRequest(url: server.baseURL + "huge"), maxEventBytes: 256) {
                    received.append(event.data)
                }
            }
            #expect(received == ["ok"] && heads.withLock { $0.count } == 1)

            // Waiting an hour to reconnect: cancelling the task ends the wait (a reactor timer) at once.
            let slow = ServerSentEvents.Reconnection(delay: .seconds(3600), maxDelay: .seconds(3600))
            let events = client.events(HTTPRequest(url: server.baseURL + "once"), reconnection: slow)
            let (delivered, deliver) = AsyncStream<Void>.makeStream()
            let reader = Task {
                for try await _ in events { deliver.yield() }
            }
            // After its one event the response ends, and the sequence waits to reconnect.
            var signals = delivered.makeAsyncIterator()
            _ = await signals.next()
            reader.cancel()
            await #expect(throws: CancellationError.self) { try await reader.value }
            await client.shutdown()
        }
    }

    @Test(
        "lines(): CR LF, LF and CR across chunks, the unended last line, and the line limit",
        .timeLimit(.scaledMinutes(1)))
    func lines() async throws {
        try await withFixtureServer { server in
            let heads = LockedState<[RequestHead]>([])
            Self.route(server, "/log", heads: heads) { responder, _ in
                try await responder.sendHead(status: 200, fields: ["Content-Type": "text/plain"], contentLength: nil)
                for piece in ["first\r", "\nsec", "ond\n\nthird\rfou", "rth"] {
                    try await responder.sendChunk(Array(piece.utf8))
                }
                try await responder.sendLastChunk()
            }
            Self.route(server, "/endless", heads: heads) { responder, _ in
                // One piece: a line, then one that never ends. The first is handed out before the error.
                try await responder.respond(
                    status: 200, fields: [:], body: Array("good\n".utf8) + [UInt8](repeating: 0x61, count: 2000))
            }
            let client = Self.client()
            var lines: [String] = []
            for try await line in try await client.stream(HTTPRequest(url: server.baseURL + "log")).body.lines() {
                lines.append(line)
            }
            #expect(lines == ["first", "second", "", "third", "fourth"])

            let endless = try await client.stream(HTTPRequest(url: server.baseURL + "endless"))
            var before: [String] = []
            await #expect(throws: HTTPWireError.bodyTooLarge(limit: 1000)) {
                for try await line in endless.body.lines(maxLineBytes: 1000) { before.append(line) }
            }
            #expect(before == ["good"])
            await client.shutdown()
        }
    }

    @Test(
        "nginx: a static event-stream file is read, then the stream reconnects and reads it again",
        .timeLimit(.scaledMinutes(1)))
    func nginx() async throws {
        let file = "retry: 1\nid: 1\ndata: from\ndata: nginx\n\n: keep-alive\nid: 2\nevent: end\ndata: {\"n\": 2}\n\n"
        try await withNginx(files: ["feed.txt": Array(file.utf8)]) { nginx in
            let client = Self.client()
            var received: [ServerSentEvent] = []
            for try await event in client.events(HTTPRequest(url: nginx.baseURL + "events/feed.txt")) {
                received.append(event)
                if received.count == 4 { break }
            }
            let once = [
                ServerSentEvent(data: "from\nnginx", lastEventID: "1"),
                ServerSentEvent(type: "end", data: #"{"n": 2}"#, lastEventID: "2"),
            ]
            #expect(received == once + once)
            struct Count: Decodable { var n: Int }
            #expect(try received[1].decode(Count.self).n == 2)
            await client.shutdown()
        }
    }
}
