// Downloads from nginx on loopback: a real server's ETag and If-Range handling, for resuming and for a file
// that changed between two runs; and resuming into a directory under the server-chosen name.

import Foundation
import HTTPWireCodec
import TestSupport
import Testing

@testable import HTTPWire

@Suite(.serialized) struct DownloadNginxTests {
    @Test(
        "nginx: a partial download resumes with If-Range, and a changed file starts over", .timeLimit(.scaledMinutes(1))
    )
    func resumeAgainstNginx() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let old = DownloadScratch.pattern(2_000_000, seed: 3)
        try await withNginx(files: ["big.bin": old]) { nginx in
            let client = HTTPClient()
            let url = nginx.baseURL + "big.bin"
            let head = try await client.head(url)
            let entityTag = try #require(head.fields["ETag"])

            // A run that stopped after 1 234 567 bytes.
            let destination = scratch.file("big.bin")
            try await TestFiles.write(Array(old[..<1_234_567]), to: destination + ".part")
            try ResumeRecord(
                url: try TargetURL(url).description, entityTag: entityTag, lastModified: head.fields["Last-Modified"],
                expectedLength: 2_000_000, committedBytes: 1_234_567
            ).write(toPath: destination + ".part.resume")
            let resumed = try await client.download(from: url, to: destination).result()
            #expect(resumed.resumedFromBytes == 1_234_567)
            #expect(await DownloadScratch.contents(destination) == old)

            // The same stop, but nginx's file was replaced (new content, new mtime) in between.
            let new = DownloadScratch.pattern(2_000_000, seed: 4)
            let served = nginx.directory + "/www/big.bin"
            try await TestFiles.write(new, to: served)
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: served)
            let again = scratch.file("again.bin")
            try await TestFiles.write(Array(old[..<1_234_567]), to: again + ".part")
            try ResumeRecord(
                url: try TargetURL(url).description, entityTag: entityTag, lastModified: head.fields["Last-Modified"],
                expectedLength: 2_000_000, committedBytes: 1_234_567
            ).write(toPath: again + ".part.resume")
            let download = client.download(from: url, to: again)
            var restarted = false
            for await event in download.events {
                if case .restarted(.serverAnswer(.rangeIgnored)) = event { restarted = true }
            }
            let result = try await download.result()
            #expect(restarted)
            #expect(result.resumedFromBytes == 0)
            #expect(await DownloadScratch.contents(again) == new)
            await client.shutdown()
        }
    }

    @Test(
        "into a directory: the name comes from the URL, and a second run resumes under it",
        .timeLimit(.scaledMinutes(1)))
    func directoryResume() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(600_000, seed: 5)
        try await withNginx(files: ["dir/report.bin": content]) { nginx in
            let client = HTTPClient()
            let url = nginx.baseURL + "dir/report.bin"
            let head = try await client.head(url)
            let destination = scratch.file("report.bin")
            try await TestFiles.write(Array(content[..<100_000]), to: destination + ".part")
            try ResumeRecord(
                url: try TargetURL(url).description, entityTag: head.fields["ETag"], lastModified: nil,
                expectedLength: 600_000, committedBytes: 100_000
            ).write(toPath: destination + ".part.resume")
            let download = client.download(from: url, toDirectory: scratch.path)
            let result = try await download.result()
            #expect(result.location == destination)
            #expect(result.resumedFromBytes == 100_000)
            #expect(result.requests == 2)  // the first answer named the file; the second resumed it
            #expect(await DownloadScratch.contents(destination) == content)
            await client.shutdown()
        }
    }
}
