// ResponseBodyDiscardTests: the package discard path of a response body — recv(2) with MSG_TRUNC drops a
// plain-HTTP Content-Length body inside the kernel (used by the benchmarks' "drop" workload, and meant for
// draining bodies nobody reads). Checks that the counts are exact, that the connection goes back to the pool
// afterwards, that a body cut short is still reported as truncated, and that TLS and chunked bodies decline.

import FixtureServer
import HTTPWire
import HTTPWireCodec
import TestSupport
import Testing

@Suite struct ResponseBodyDiscardTests {
    /// Drops what the discard path takes and reads the rest; returns (dropped, read) byte counts.
    static func drain(_ body: ResponseBody) async throws -> (dropped: Int64, read: Int64) {
        var dropped: Int64 = 0
        var read: Int64 = 0
        var pieces = body.makeAsyncIterator()
        while true {
            if let count = try await body.discardNext(maxBytes: 64 * 1024) {
                dropped += count
                continue
            }
            guard let piece = try await pieces.next() else { break }
            read += Int64(piece.count)
        }
        return (dropped, read)
    }

    @Test(
        "a Content-Length body is dropped to its last byte and the connection is reused", .timeLimit(.scaledMinutes(1)))
    func dropsWholeBody() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            let length: Int64 = 3 * 1024 * 1024 + 17
            for _ in 0..<2 {
                let response = try await client.stream(HTTPRequest(url: "bytes/\(length)"))
                let (dropped, read) = try await Self.drain(response.body)
                #expect(dropped + read == length)
                #expect(dropped > 0)
                #expect(response.body.receivedBytes == length)
            }
            // Both bodies ended exactly at their last byte, so the second request reused the connection.
            #expect(client.connectionsOpened == 1)
            let after = try await client.get("json")
            #expect(after.status == .ok)
            await client.shutdown()
        }
    }

    @Test("a body cut short while dropping is bodyTruncated, as when reading", .timeLimit(.scaledMinutes(1)))
    func truncatedBody() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            let response = try await client.stream(HTTPRequest(url: "truncate?announce=200000&send=150000"))
            await #expect(throws: HTTPWireError.bodyTruncated(expected: 200_000, received: 150_000)) {
                _ = try await Self.drain(response.body)
            }
            await client.shutdown()
        }
    }

    @Test("a chunked body declines the discard path and is read whole", .timeLimit(.scaledMinutes(1)))
    func chunkedDeclines() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            let response = try await client.stream(HTTPRequest(url: "chunked?chunks=8&size=1000"))
            let (dropped, read) = try await Self.drain(response.body)
            #expect(dropped == 0)
            #expect(read == 8000)
            await client.shutdown()
        }
    }
}
