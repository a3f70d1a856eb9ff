// DownloadFileNamingTests: a download into a directory never replaces an existing file — it becomes
// `name (1).ext` — while an unfinished download of the same URL under the name is resumed.

import Foundation
import TestSupport
import Testing

@testable import FixtureServer
@testable import HTTPWire

@Suite struct DownloadFileNamingTests {
    @Test(
        "numbers a name before its extension, keeping .tar.gz together",
        arguments: [
            ("report.pdf", 1, "report (1).pdf"), ("backup.tar.gz", 2, "backup (2).tar.gz"),
            ("README", 1, "README (1)"), (".profile", 1, ".profile (1)"), ("a.b.c", 3, "a.b (3).c"),
            ("same.txt", 0, "same.txt"),
        ])
    func numbers(name: String, number: Int, expected: String) {
        #expect(DownloadFileNaming.numbered(name, number) == expected)
    }

    @Test("a second download of a name into the same directory lands beside the first", .timeLimit(.scaledMinutes(1)))
    func neverReplaces() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            server.setFile("notes.txt", contents: Array("version one\n".utf8), etag: "\"n1\"")
            let client = HTTPClient()
            let url = server.baseURL + "files/notes.txt"
            let first = try await client.download(from: url, toDirectory: scratch.path).result()
            #expect(first.location == scratch.file("notes.txt"))
            server.setFile("notes.txt", contents: Array("version two\n".utf8), etag: "\"n2\"")
            let second = try await client.download(from: url, toDirectory: scratch.path).result()
            #expect(second.location == scratch.file("notes (1).txt"))
            #expect(await DownloadScratch.contents(scratch.file("notes.txt")) == Array("version one\n".utf8))
            #expect(await DownloadScratch.contents(scratch.file("notes (1).txt")) == Array("version two\n".utf8))
            await client.shutdown()
        }
    }

    @Test("an unfinished download of the same URL keeps its name; another URL's part file is skipped")
    func resumesOwnPartFile() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let url = "http://127.0.0.1:8080/files/big.bin"
        try await DownloadResumeTests.stagePartial(
            scratch.file("big.bin"), prefix: [1, 2, 3], url: url, entityTag: "\"b\"", expectedLength: 10)
        #expect(try DownloadFileNaming.freePath(in: scratch.path, for: "big.bin", url: url) == scratch.file("big.bin"))
        #expect(
            try DownloadFileNaming.freePath(in: scratch.path, for: "big.bin", url: "http://127.0.0.1:8080/other")
                == scratch.file("big (1).bin"))
    }
}
