// DownloadSkipTests: "skip what is done" for a plain download with an expected SHA-256 — a destination
// that already holds the file is not fetched again; a different file there is downloaded and replaced.

import Foundation
import HTTPWireCodec
import TestSupport
import Testing

@testable import FixtureServer
@testable import HTTPWire

@Suite struct DownloadSkipTests {
    @Test("a destination with the expected SHA-256 is not fetched again", .timeLimit(.scaledMinutes(1)))
    func skipsMatchingFile() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(300_000)
        try await withFixtureServer { server in
            server.setFile("d.bin", contents: content, etag: "\"d1\"")
            let url = server.baseURL + "files/d.bin"
            let destination = scratch.file("d.bin")
            var options = DownloadOptions()
            options.expectedSHA256 = SHA256Digest.of(content)
            let client = HTTPClient()
            _ = try await client.download(from: url, to: destination, options: options).result()
            let served = server.requestsServed
            let again = try await client.download(from: url, to: destination, options: options).result()
            #expect(again.requests == 0)
            #expect(again.bytes == 300_000)
            #expect(again.sha256 == SHA256Digest.of(content))
            #expect(server.requestsServed == served)
        }
    }

    @Test("a different file at the destination is downloaded and replaced", .timeLimit(.scaledMinutes(1)))
    func replacesDifferentFile() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(300_000)
        try await withFixtureServer { server in
            server.setFile("d.bin", contents: content, etag: "\"d1\"")
            let destination = scratch.file("d.bin")
            try await TestFiles.write(DownloadScratch.pattern(300_000, seed: 9), to: destination)
            var options = DownloadOptions()
            options.expectedSHA256 = SHA256Digest.of(content)
            let result = try await HTTPClient().download(
                from: server.baseURL + "files/d.bin", to: destination, options: options
            ).result()
            #expect(result.requests == 1)
            #expect(await DownloadScratch.contents(destination) == content)
        }
    }
}
