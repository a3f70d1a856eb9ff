// CommonFieldNamesTests: the ready-made names are returned only for the exact bytes they spell.
// Codec tests: pure functions, no I/O.

import Testing

@testable import HTTPWireCodec

@Suite struct CommonFieldNamesTests {
    private static func lookUp(_ text: String) -> String? {
        Array(text.utf8).withUnsafeBufferPointer { CommonFieldNames.name($0) }
    }

    @Test(
        "each common name comes back for its own bytes",
        arguments: [
            "Date", "ETag", "Vary", "Server", "Expires", "Location", "Connection", "Set-Cookie", "Keep-Alive",
            "Content-Type", "Last-Modified", "Accept-Ranges", "Cache-Control", "Content-Range", "Content-Length",
            "Content-Encoding", "Transfer-Encoding",
        ])
    func commonName(_ name: String) {
        #expect(Self.lookUp(name) == name)
    }

    @Test(
        "another case, a near miss or an unknown name is left to the decoder",
        arguments: ["date", "DATE", "content-length", "Content-Lengtx", "Dates", "Dat", "X-Request-Id", "", "Etag"])
    func otherNames(_ name: String) {
        #expect(Self.lookUp(name) == nil)
    }

    @Test("the parsed head keeps every name as received, common or not")
    func parsedNamesAsReceived() throws {
        var decoder = ResponseDecoder()
        decoder.feed(
            Array(
                "HTTP/1.1 200 OK\r\nDate: x\r\ndate: y\r\nContent-Type: a/b\r\nX-Thing: z\r\nContent-Length: 0\r\n\r\n"
                    .utf8)[...])
        guard case .head(let head) = try decoder.nextEvent() else {
            Issue.record("no head")
            return
        }
        #expect(head.fields.map(\.name) == ["Date", "date", "Content-Type", "X-Thing", "Content-Length"])
    }
}
