// LifeOfARequestCaptureTests: keeps the bytes quoted in the "Life of a request" article true (docs test).
//
// The article follows one GET and one multipart upload through HTTPWire and quotes the exact bytes on the
// wire. These tests produce those bytes again: an HTTPClient sends the same two requests to the fixture
// server through a RecordingRelay, which writes down every byte each side sent, and the client's logger
// records its log lines. The recording is made stable (the kernel's port and the boundary's 24 random
// characters replaced by the values the article shows; the upload's SHA-256 recomputed over the bytes as
// shown) and every quoted block must appear verbatim in the article. A second test checks that the request
// heads on the wire are exactly what RequestEncoder writes, and a third that ResponseDecoder turns the
// recorded responses into the events the article lists. To update the article after a deliberate change,
// run the suite with HTTPWIRE_CAPTURE_OUT=/some/file and paste the blocks it writes there.

import FixtureServer
import Foundation
import HTTPWire
import HTTPWireCodec
import HTTPWireTransport
import TestSupport
import Testing

@Suite(.serialized) struct LifeOfARequestCaptureTests {
    /// The article: this file is Tests/HTTPWireTests/LifeOfARequestCaptureTests.swift.
    static let articlePath =
        String(#filePath.split(separator: "/Tests/HTTPWireTests/").first ?? "")
        + "/Sources/HTTPWire/HTTPWire.docc/LifeOfARequest.md"

    /// The port and boundary the article shows in place of the ones of a run.
    static let shownPort = 8080
    static let shownBoundary = "HTTPWireBoundary7Jq2mZbX9cLr4TfW1nKd8sYe"

    /// What one run of the two requests put on the wire, made stable.
    struct Capture {
        /// The six turns of the conversation, in order: GET head, GET response, upload head, 100 Continue,
        /// upload body, upload response. Stable bytes (port, boundary and digest replaced).
        var turns: [[UInt8]]
        /// The same turns exactly as recorded.
        var rawTurns: [[UInt8]]
        /// The client's log lines, stable.
        var log: [String]
        /// The relay's port in this run, as the client saw it.
        var port: Int
        /// The boundary of this run.
        var boundary: String
        /// Connections the client opened (the upload must reuse the GET's).
        var connectionsOpened: Int
    }

    /// Sends the article's two requests and records them.
    static func capture() async throws -> Capture {
        try await withFixtureServer { server in
            let relay = try RecordingRelay.start(targetPort: server.port)
            let log = LockedState<[String]>([])
            var configuration = ClientConfiguration()
            configuration.baseURL = "http://127.0.0.1:\(relay.port)/"
            // The article's upload waits for 100 Continue; a generous wait keeps the order of the turns fixed
            // on a busy machine (the default 1 s would send the body anyway and change the conversation).
            configuration.timeouts.expectContinue = .seconds(30).scaled
            configuration.logger = { event in log.withLock { $0.append(event.text) } }
            let client = HTTPClient(configuration: configuration)

            let greeting = try await client.get("json")
            #expect(greeting.status == .ok)

            var form = MultipartForm()
            form.addField(name: "title", value: "Holiday")
            form.addData(name: "notes", data: Array("Went to the sea.".utf8), fileName: "notes.txt")
            var upload = HTTPRequest(method: .post, url: "upload", body: .multipart(form))
            upload.expectContinue = true
            let uploaded = try await client.send(upload)
            #expect(uploaded.status == .ok)

            let opened = client.connectionsOpened
            await client.shutdown()
            await relay.stop()

            let rawTurns = relay.turns.map(\.bytes)
            let boundary = try #require(
                server.requestLog.last?.fields["Content-Type"]?.split(separator: "=").last.map(String.init))
            return Capture(
                turns: stabilize(rawTurns, port: relay.port, boundary: boundary), rawTurns: rawTurns,
                log: log.withLock { $0 }.map { stabilize($0, port: relay.port, boundary: boundary) },
                port: relay.port, boundary: boundary, connectionsOpened: opened)
        }
    }

    /// Replaces the run's port and boundary with the shown ones, and the upload response's digest with the
    /// digest of the body as shown (so a reader can check it against the quoted bytes).
    static func stabilize(_ turns: [[UInt8]], port: Int, boundary: String) -> [[UInt8]] {
        var stable = turns.map {
            Array(stabilize(String(decoding: $0, as: UTF8.self), port: port, boundary: boundary).utf8)
        }
        guard turns.count == 6 else { return stable }
        let actual = SHA256Digest.of(turns[4])?.hexString ?? ""
        let shown = SHA256Digest.of(stable[4])?.hexString ?? ""
        stable[5] = Array(String(decoding: stable[5], as: UTF8.self).replacingOccurrences(of: actual, with: shown).utf8)
        return stable
    }

    static func stabilize(_ text: String, port: Int, boundary: String) -> String {
        text.replacingOccurrences(of: "127.0.0.1:\(port)", with: "127.0.0.1:\(shownPort)")
            .replacingOccurrences(of: boundary, with: shownBoundary)
    }

    /// Bytes as the article quotes them: CRLF shown as a line break, the final line break left out.
    static func quoted(_ bytes: [UInt8]) -> String {
        var text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// Bytes as a Swift string literal, every CR and LF visible.
    static func escaped(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        return "\"" + text.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
            + "\""
    }

    /// The decoder's events for a response fed in the given pieces, one line per event.
    static func events(of pieces: [[UInt8]], to method: Method) throws -> String {
        var decoder = ResponseDecoder()
        decoder.expectResponse(to: method)
        var lines: [String] = []
        var remaining = pieces
        loop: while true {
            switch try decoder.nextEvent() {
            case .informational(let head):
                lines.append(".informational(\(head.status.rawValue) \(head.reason))")
            case .head(let head):
                lines.append(".head(\(head.status.rawValue) \(head.reason), \(head.fields.count) fields)")
            case .body(let bytes):
                lines.append(".body(\(bytes.count) bytes)")
            case .end(let trailers):
                lines.append(".end(trailers: \(trailers.count) fields)")
            case .needMoreData:
                guard !remaining.isEmpty else { break loop }
                lines.append(".needMoreData")
                decoder.feed(remaining.removeFirst())
            case .paused:
                lines.append(".paused")
                break loop
            }
        }
        lines.append("isKeepAlive == \(decoder.isKeepAlive)")
        return lines.joined(separator: "\n")
    }

    /// Every block the article must quote, in article order.
    static func quotedBlocks(_ capture: Capture) throws -> [(what: String, text: String)] {
        let turns = capture.turns
        return [
            ("the GET request head as escaped bytes", escaped(turns[0])),
            ("the GET request head", quoted(turns[0])),
            ("the GET response", quoted(turns[1])),
            ("the decoder's events for the GET response", try events(of: [turns[1]], to: .get)),
            ("the upload request head", quoted(turns[2])),
            ("the 100 Continue interim response", quoted(turns[3])),
            ("the multipart upload body", quoted(turns[4])),
            ("the upload response", quoted(turns[5])),
            ("the decoder's events for the upload", try events(of: [turns[3], turns[5]], to: .post)),
            ("the client's log", capture.log.joined(separator: "\n")),
        ]
    }

    @Test("the article quotes the bytes a fresh capture produces", .timeLimit(.scaledMinutes(1)))
    func articleMatchesCapture() async throws {
        let capture = try await Self.capture()
        try #require(capture.turns.count == 6, "expected six turns, got \(capture.turns.map(Self.quoted))")
        #expect(capture.connectionsOpened == 1, "the upload must reuse the GET's connection")

        let blocks = try Self.quotedBlocks(capture)
        try ArticleQuotes.expectQuoted(blocks, inArticleAt: Self.articlePath)
    }

    @Test("the request heads on the wire are what RequestEncoder writes", .timeLimit(.scaledMinutes(1)))
    func headsMatchEncoder() async throws {
        let capture = try await Self.capture()
        try #require(capture.rawTurns.count == 6)
        let host = "127.0.0.1:\(capture.port)"

        var get: [UInt8] = []
        try RequestEncoder.encodeHead(
            RequestHead(method: .get, target: "/json", fields: ["Host": host, "User-Agent": "HTTPWire/0.1"]),
            framing: .none, into: &get)
        #expect(capture.rawTurns[0] == get)

        let bodyLength = Int64(capture.rawTurns[4].count)
        var post: [UInt8] = []
        try RequestEncoder.encodeHead(
            RequestHead(
                method: .post, target: "/upload",
                fields: [
                    "Host": host, "User-Agent": "HTTPWire/0.1",
                    "Content-Type": "multipart/form-data; boundary=\(capture.boundary)", "Expect": "100-continue",
                ]),
            framing: .contentLength(bodyLength), into: &post)
        #expect(capture.rawTurns[2] == post)
        // RFC 9112 §2.1: every line of the head ends in CRLF and an empty line ends the head.
        #expect(capture.rawTurns[0].suffix(4) == Array("\r\n\r\n".utf8))
    }

    @Test("the recorded responses decode to a keep-alive GET and a 100-continue upload", .timeLimit(.scaledMinutes(1)))
    func responsesDecode() async throws {
        let capture = try await Self.capture()
        try #require(capture.rawTurns.count == 6)
        let get = try Self.events(of: [capture.rawTurns[1]], to: .get)
        #expect(get.hasPrefix(".needMoreData\n.head(200 OK"))
        #expect(get.hasSuffix(".paused\nisKeepAlive == true"))
        let upload = try Self.events(of: [capture.rawTurns[3], capture.rawTurns[5]], to: .post)
        #expect(upload.contains(".informational(100 Continue)"))
        #expect(upload.hasSuffix(".paused\nisKeepAlive == true"))
    }
}
