// ChunkedInPlaceTests: a chunked body read in place (`ResponseBody.readNext(appendingTo:maxBytes:pieces:)`),
// as a download reads it into its write block — the chunk data are ranges of the block between the framing,
// written with one pwritev(2). Against a raw server that cuts its answer inside the framing (a size line,
// an extension, the CRLF after the data, the trailers), so reads end everywhere a read can end; against the
// fixture server with a body larger than a read (and trailers) and with one-byte chunks; and a body cut
// short, which is still `bodyTruncated`.

import FixtureServer
import HTTPWireCodec
import TestSupport
import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

@Suite struct ChunkedInPlaceTests {
    /// The body of `response` read as a download reads it: in place while that applies, else from the
    /// sequence. Returns the body and how many reads were made in place.
    static func readInPlace(_ body: ResponseBody) async throws -> (bytes: [UInt8], inPlaceReads: Int) {
        var bytes: [UInt8] = []
        var inPlaceReads = 0
        var sequence = body.makeAsyncIterator()
        var buffer: [UInt8] = []
        buffer.reserveCapacity(64 * 1024)
        while true {
            buffer.removeAll(keepingCapacity: true)
            var pieces: [Range<Int>] = []
            // The download asks first and lends its block only when the answer is yes: the two must agree.
            let canReadInPlace = body.canReadNextInPlace
            let read = try await body.readNext(appendingTo: &buffer, maxBytes: 64 * 1024, pieces: &pieces)
            #expect(canReadInPlace == (read != nil))
            if let count = read {
                inPlaceReads += 1
                #expect(pieces.reduce(0) { $0 + $1.count } == count)
                for piece in pieces { bytes += buffer[piece] }
                continue
            }
            guard let piece = try await sequence.next() else { break }
            bytes += piece
        }
        return (bytes, inPlaceReads)
    }

    /// A server answering every request on a connection with `fragments`, written one by one with a pause
    /// between them so each arrives in a read of its own.
    struct FragmentingServer: Sendable {
        let listener: Listener
        let task: Task<Void, Never>
        var url: String { "http://127.0.0.1:\(listener.port)/" }

        static func start(fragments: [[UInt8]]) throws -> FragmentingServer {
            let listener = try Listener.bind()
            let task = Task(executorPreference: ServerExecutor.shared) {
                while let socket = try? await listener.accept() {
                    var request: [UInt8] = []
                    while !request.suffix(4).elementsEqual("\r\n\r\n".utf8) {
                        guard let count = try? await socket.read(into: &request, maxBytes: 4096, deadline: .never),
                            count > 0
                        else { break }
                    }
                    for fragment in fragments {
                        try? await socket.write(fragment, deadline: .never)
                        try? await Task.sleep(for: .milliseconds(15))
                    }
                    await socket.close()
                }
            }
            return FragmentingServer(listener: listener, task: task)
        }

        func stop() async {
            await listener.close()
            task.cancel()
            await task.value
        }
    }

    /// The answer and where it is cut: inside a size line, after a size line's CR, inside an extension,
    /// inside the data, between the data and its CRLF, inside the last chunk and inside the trailers.
    static let answer = Array(
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            + "1|0\r|\n" + String(repeating: "a", count: 16) + "\r\n"
            + "2;na|me=v\r\n" + String(repeating: "b", count: 2) + "\r\n"
            + "8\r\n" + "cccc|cccc" + "|\r\n"
            + "5\r\nddddd\r|\n"
            + "0|\r\nX-Sum: |1\r\n\r\n").utf8)

    static var fragments: [[UInt8]] {
        answer.split(separator: UInt8(ascii: "|"), omittingEmptySubsequences: false).map(Array.init)
    }

    static let expectedBody = Array((String(repeating: "a", count: 16) + "bb" + "cccccccc" + "ddddd").utf8)

    @Test(
        "reads that end inside the framing: the body is whole, read in place where nothing waits",
        .timeLimit(.scaledMinutes(1)))
    func cutsInTheFraming() async throws {
        let server = try FragmentingServer.start(fragments: Self.fragments)
        let client = HTTPClient()
        let response = try await client.stream(HTTPRequest(url: server.url))
        // Which reads go in place depends on how the fragments meet the reads (a loaded machine may read two
        // at once), so only the result is held here; `largeBody` holds that the path is taken.
        let (bytes, _) = try await Self.readInPlace(response.body)
        #expect(bytes == Self.expectedBody)
        #expect(response.trailers["X-Sum"] == "1")
        await client.shutdown()
        await server.stop()
    }

    @Test("a download of a body cut inside its framing lands whole", .timeLimit(.scaledMinutes(1)))
    func downloadWithCuts() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let server = try FragmentingServer.start(fragments: Self.fragments)
        let client = HTTPClient()
        let destination = scratch.file("cut.bin")
        let result = try await client.download(from: server.url, to: destination).result()
        #expect(result.bytes == Int64(Self.expectedBody.count))
        #expect(await DownloadScratch.contents(destination) == Self.expectedBody)
        await client.shutdown()
        await server.stop()
    }

    @Test(
        "a body larger than a read goes in place after the first; the download is the body, trailers too",
        .timeLimit(.scaledMinutes(1)))
    func largeBody() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let client = HTTPClient()
            // 2,000,000 bytes in 10,000-byte chunks: a read of at most 256 KiB comes with the head, and the
            // bytes after it are read in place unless every later read ends inside a chunk's 7 bytes of
            // framing (each does with odds of 7 in 10,007).
            let path = "chunked?chunks=200&size=10000&trailers=1"
            let reference = try await client.get(server.baseURL + path)
            let streamed = try await client.stream(HTTPRequest(url: server.baseURL + path))
            let (bytes, inPlaceReads) = try await Self.readInPlace(streamed.body)
            #expect(bytes == reference.body)
            #expect(inPlaceReads > 0)
            let destination = scratch.file("large.bin")
            _ = try await client.download(from: server.baseURL + path, to: destination).result()
            #expect(await DownloadScratch.contents(destination) == reference.body)
            await client.shutdown()
        }
    }

    @Test(
        "one-byte chunks (pieces moved together when read in place): the download is the body",
        .timeLimit(.scaledMinutes(1)))
    func tinyChunks() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let client = HTTPClient()
            // Five bytes of framing for each byte of data: most reads end in framing and the next goes through
            // the receive buffer, so both paths take turns.
            let path = "chunked?chunks=100000&size=1"
            let reference = try await client.get(server.baseURL + path)
            #expect(reference.body.count == 100_000)
            let streamed = try await client.stream(HTTPRequest(url: server.baseURL + path))
            #expect(try await Self.readInPlace(streamed.body).bytes == reference.body)
            let destination = scratch.file("tiny.bin")
            _ = try await client.download(from: server.baseURL + path, to: destination).result()
            #expect(await DownloadScratch.contents(destination) == reference.body)
            await client.shutdown()
        }
    }

    @Test("a body delimited by the server's close is never read in place", .timeLimit(.scaledMinutes(1)))
    func untilClose() async throws {
        try await withFixtureServer { server in
            let client = HTTPClient()
            let response = try await client.stream(HTTPRequest(url: server.baseURL + "until-close?bytes=300000"))
            let (bytes, inPlaceReads) = try await Self.readInPlace(response.body)
            #expect(bytes.count == 300_000)
            #expect(inPlaceReads == 0)
            await client.shutdown()
        }
    }

    @Test("a chunked body cut short is bodyTruncated when read in place", .timeLimit(.scaledMinutes(1)))
    func truncated() async throws {
        let server = try FragmentingServer.start(fragments: [
            Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8), Array("10\r\nabc".utf8),
        ])
        let client = HTTPClient()
        let response = try await client.stream(HTTPRequest(url: server.url))
        await #expect(throws: HTTPWireError.bodyTruncated(expected: nil, received: 3)) {
            _ = try await Self.readInPlace(response.body)
        }
        await client.shutdown()
        await server.stop()
    }
}
