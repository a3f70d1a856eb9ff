// WireManyDownloadsTests: `wire download` with several URLs — one DownloadManager whose catalogue sits in
// the --dir directory, --parallel N at once — and a second run of the same command fetching nothing that
// is already done.

import FixtureServer
import Foundation
import HTTPWire
import TestSupport
import Testing

/// `wire download URL URL... --dir DIR --parallel N`: one DownloadManager with its catalogue in DIR.
@Suite struct WireManyDownloadsTests {
    @Test(
        "several URLs download side by side into --dir, and running again fetches nothing that is done",
        .timeLimit(.scaledMinutes(1)))
    func manyURLs() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wire-many-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withFixtureServer { server in
            let urls = [server.baseURL + "bytes/300000?seed=1", server.baseURL + "bytes/200000?seed=2"]
            let first = try await WireProcess.run(["download"] + urls + ["--dir", directory, "--parallel", "2"])
            #expect(first.status == 0, "\(first.standardError)")
            // Both URLs end in "300000" / "200000": their last path segments name the files.
            let a = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/300000")))
            let b = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/200000")))
            #expect(a == GeneratedBytes.bytes(0..<300_000, seed: 1))
            #expect(b == GeneratedBytes.bytes(0..<200_000, seed: 2))
            #expect(FileManager.default.fileExists(atPath: directory + "/downloads.catalogue"))
            let requests = server.requestLog.count
            let second = try await WireProcess.run(["download"] + urls + ["--dir", directory, "--parallel", "2"])
            #expect(second.status == 0, "\(second.standardError)")
            #expect(server.requestLog.count == requests, "a finished download was fetched again")
        }
    }
}
