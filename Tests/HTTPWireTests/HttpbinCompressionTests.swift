// HttpbinCompressionTests: content decoding against httpbin (PyPI) on loopback, a server written
// independently of this project: its `/gzip` and `/deflate` answers (Python's gzip and zlib), decoded to the
// JSON they describe, which shows what we offered (client layer, real server).

import HTTPWire
import TestSupport
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("httpbin content codings")
struct HttpbinCompressionTests {
    /// The part of httpbin's `/gzip` and `/deflate` JSON these tests read.
    struct Answer: Decodable {
        var gzipped: Bool?
        var deflated: Bool?
        var headers: [String: String]
    }

    @Test(
        "httpbin's /gzip and /deflate decode to their JSON, which shows our Accept-Encoding",
        .timeLimit(.scaledMinutes(1)))
    func gzipAndDeflate() async throws {
        try await withHttpbin { base in
            var configuration = ClientConfiguration()
            configuration.contentDecoding = .on
            let client = HTTPClient(configuration: configuration)
            let gzip = try await client.get(base + "/gzip")
            let deflate = try await client.get(base + "/deflate")
            // Off: the bytes as httpbin sent them (it compresses whether or not it was asked).
            let raw = try await HTTPClient().get(base + "/gzip")
            await client.shutdown()
            #expect(gzip.status == .ok && gzip.fields["Content-Encoding"] == nil)
            let gzipAnswer = try gzip.decode(Answer.self)
            #expect(gzipAnswer.gzipped == true)
            #expect(gzipAnswer.headers["Accept-Encoding"] == "gzip, deflate")
            #expect(try deflate.decode(Answer.self).deflated == true)
            #expect(deflate.fields["Content-Encoding"] == nil)
            #expect(raw.fields["Content-Encoding"] == "gzip")
            #expect(Array(raw.body.prefix(2)) == [0x1F, 0x8B])
        }
    }
}
