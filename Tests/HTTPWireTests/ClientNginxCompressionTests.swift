// Interop with nginx's gzip module on loopback (the /gzip/ location of Fixtures/nginx/nginx-loopback.sh):
// a body nginx compresses on the fly (chunked, no Content-Length) decoded to the file, and a download
// through the same location, which offers no coding and so gets the file itself, resumable.

import Foundation
import HTTPWire
import HTTPWireCodec
import TestSupport
import Testing

@Suite(.serialized) struct ClientNginxCompressionTests {
    static let text = Array(
        (1...20_000).map { "\($0): the quick brown fox jumps over the lazy dog\n" }.joined().utf8)

    @Test(
        "nginx's gzip of a 1 MB text decodes to the file; off, the same request gets it plain",
        .timeLimit(.scaledMinutes(1)))
    func gzipFromNginx() async throws {
        try await withNginx(files: ["fox.txt": Self.text]) { nginx in
            var configuration = ClientConfiguration()
            configuration.contentDecoding = .on
            let client = HTTPClient(configuration: configuration)
            let response = try await client.stream(HTTPRequest(url: nginx.baseURL + "gzip/fox.txt"))
            #expect(response.status == .ok)
            #expect(response.fields["Content-Encoding"] == nil)
            var body: [UInt8] = []
            for try await piece in response.body { body += piece }
            #expect(body == Self.text)
            // What came over the wire: nginx's gzip, several times smaller than the text.
            #expect(response.body.receivedBytes > 0 && response.body.receivedBytes < Int64(Self.text.count / 4))
            // Without decoding nothing is offered, and nginx sends the file as it is.
            let plain = try await HTTPClient().get(nginx.baseURL + "gzip/fox.txt")
            #expect(plain.fields["Content-Encoding"] == nil)
            #expect(plain.body == Self.text)
            await client.shutdown()
        }
    }

    @Test("a download through nginx's gzip location gets the file itself, with its ETag", .timeLimit(.scaledMinutes(1)))
    func downloadIsNotEncoded() async throws {
        let directory = NSTemporaryDirectory() + "httpwire-nginx-gzip-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withNginx(files: ["fox.txt": Self.text]) { nginx in
            var configuration = ClientConfiguration()
            configuration.contentDecoding = .on
            let client = HTTPClient(configuration: configuration)
            let result = try await client.download(from: nginx.baseURL + "gzip/fox.txt", to: directory + "/fox.txt")
                .result()
            #expect(result.head.fields["Content-Encoding"] == nil)
            #expect(result.head.fields["ETag"] != nil)
            #expect(await TestFiles.contents(of: directory + "/fox.txt") == Self.text)
            await client.shutdown()
        }
    }
}
