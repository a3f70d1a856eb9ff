// Interop with nginx on loopback: keep-alive reuse, chunked bodies, ranges, HEAD, streaming.

import Foundation
import HTTPWire
import HTTPWireCodec
import TestSupport
import Testing

@Suite(.serialized) struct ClientNginxTests {
    static func pattern(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
    }

    @Test("GETs reuse one kept-alive connection and bodies arrive intact", .timeLimit(.scaledMinutes(1)))
    func keepAliveReuse() async throws {
        let file = Self.pattern(300_000)
        try await withNginx(files: ["a.bin": file, "small.txt": Array("hello\n".utf8)]) { nginx in
            var configuration = ClientConfiguration()
            configuration.baseURL = nginx.baseURL
            let client = HTTPClient(configuration: configuration)
            for _ in 0..<5 {
                let response = try await client.get("a.bin")
                #expect(response.status == .ok)
                #expect(response.body == file)
                let small = try await client.get("small.txt")
                #expect(small.text == "hello\n")
            }
            #expect(client.connectionsOpened == 1)
            await client.shutdown()
        }
    }

    @Test("a gzip response that nginx sends chunked is decoded to its end", .timeLimit(.scaledMinutes(1)))
    func chunkedFromNginx() async throws {
        let text = Array(String(repeating: "the quick brown fox jumps over the lazy dog\n", count: 5000).utf8)
        try await withNginx(files: ["fox.txt": text]) { nginx in
            let client = HTTPClient()
            let response = try await client.send(
                HTTPRequest(url: nginx.baseURL + "gzip/fox.txt", fields: ["Accept-Encoding": "gzip"]))
            #expect(response.status == .ok)
            #expect(response.fields["Transfer-Encoding"]?.lowercased() == "chunked")
            #expect(response.fields["Content-Encoding"] == "gzip")
            #expect(response.body.count > 100 && response.body.count < text.count)
            #expect(response.body.prefix(2) == [0x1f, 0x8b])  // gzip magic: the bytes as sent, not decoded
            // The same connection carries the next request after the last chunk.
            let again = try await client.get(nginx.baseURL + "fox.txt")
            #expect(again.body == text)
            #expect(client.connectionsOpened == 1)
            await client.shutdown()
        }
    }

    @Test("Range requests get 206 with the requested bytes", .timeLimit(.scaledMinutes(1)))
    func range() async throws {
        let file = Self.pattern(10_000)
        try await withNginx(files: ["r.bin": file]) { nginx in
            let client = HTTPClient()
            let response = try await client.send(
                HTTPRequest(url: nginx.baseURL + "r.bin", fields: ["Range": "bytes=1000-"]))
            #expect(response.status == .partialContent)
            #expect(response.fields["Content-Range"] == "bytes 1000-9999/10000")
            #expect(response.body == Array(file[1000...]))
            await client.shutdown()
        }
    }

    @Test("HEAD gets the fields and no body, and the connection stays usable", .timeLimit(.scaledMinutes(1)))
    func head() async throws {
        try await withNginx(files: ["h.bin": Self.pattern(5000)]) { nginx in
            let client = HTTPClient()
            let response = try await client.head(nginx.baseURL + "h.bin")
            #expect(response.fields["Content-Length"] == "5000")
            #expect(response.body.isEmpty)
            let next = try await client.get(nginx.baseURL + "h.bin")
            #expect(next.body.count == 5000)
            #expect(client.connectionsOpened == 1)
            await client.shutdown()
        }
    }

    @Test("a PUT of a file streams it to nginx, which stores it byte for byte", .timeLimit(.scaledMinutes(1)))
    func putFile() async throws {
        try await withNginx { nginx in
            let source = NSTemporaryDirectory() + "httpwire-put-\(UUID().uuidString)"
            let bytes = Self.pattern(3_000_000)
            try await TestFiles.write(bytes, to: source)
            defer { try? FileManager.default.removeItem(atPath: source) }
            let client = HTTPClient()
            let response = try await client.send(
                HTTPRequest(method: .put, url: nginx.baseURL + "upload/copy.bin", body: .file(path: source)))
            #expect(response.status == .created)
            let stored = await TestFiles.contents(of: nginx.directory + "/upload/copy.bin")
            #expect(stored == bytes)
            await client.shutdown()
        }
    }
}
