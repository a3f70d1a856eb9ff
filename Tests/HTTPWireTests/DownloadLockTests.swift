// DownloadLockTests: one download per destination at a time, enforced with a flock on `dest.part.lock` —
// two downloads started together in one process (also under two spellings of the same path, which only the
// flock can see), and a lock held by another process (util-linux `flock`), which refuses the download
// without touching the part file or the record until the holder dies; then the download resumes.

import FixtureServer
import Foundation
import HTTPWire
import HTTPWireCodec
import TestSupport
import Testing

@Suite struct DownloadLockTests {
    static let flockTool = "/usr/bin/flock"

    @Test(
        "two downloads to one destination started together: one finishes, the other is refused at once",
        .timeLimit(.scaledMinutes(1)), arguments: [false, true])
    func twoAtOnce(spelledDifferently: Bool) async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            // 600 kB held at 300 kB until the refusal is seen: the first download is still running when the
            // second asks for the lock, however slowly a loaded machine starts the second one.
            let url = server.baseURL + "bytes/600000?interval_ms=1&piece=20000&hold_at=300000"
            let destination = scratch.file("same.bin")
            // The same file under another name: the in-process registry compares strings, the flock files.
            let alias = spelledDifferently ? scratch.path + "/./same.bin" : destination
            let client = HTTPClient()
            // `restart` discards partial data before planning: a refused download must not get that far.
            var options = DownloadOptions()
            options.restart = true
            let downloads = [
                client.download(from: url, to: destination, options: options),
                client.download(from: url, to: alias, options: options),
            ]
            let outcomes = await withTaskGroup(of: (Int, Result<DownloadResult, any Error>).self) { group in
                for (index, download) in downloads.enumerated() {
                    group.addTask {
                        do {
                            return (index, .success(try await download.result()))
                        } catch {
                            return (index, .failure(error))
                        }
                    }
                }
                var outcomes: [Result<DownloadResult, any Error>?] = [nil, nil]
                for await (index, outcome) in group {
                    outcomes[index] = outcome
                    // The refused one answers first (the other cannot pass its hold): let that one finish.
                    server.releaseHeldBodies()
                }
                return outcomes.compactMap { $0 }
            }
            try #require(outcomes.count == 2)
            let finished = outcomes.indices.filter { (try? outcomes[$0].get()) != nil }
            try #require(finished.count == 1, "\(outcomes)")
            let refused = 1 - finished[0]
            #expect(throws: HTTPWireError.localWriteFailed(path: [destination, alias][refused], errno: EBUSY)) {
                try outcomes[refused].get()
            }
            let reference = try await client.get(server.baseURL + "bytes/600000").body
            let isComplete = await DownloadScratch.contents(destination) == reference
            #expect(isComplete)
            // The refused download sent no request (the last one is the reference fetch).
            #expect(server.requestLog.count == 2)
            // No part file, record or lock file is left behind.
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["same.bin"])
            await client.shutdown()
        }
    }

    @Test(
        "a lock held by another process refuses the download and keeps its data; after the holder dies it resumes",
        .timeLimit(.scaledMinutes(1)), .enabled(if: FileManager.default.isExecutableFile(atPath: flockTool)))
    func heldByAnotherProcess() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(1_000_000)
        let server = try DownloadTestServer(content: content, script: [.dropAfter(400_000)])
        let client = HTTPClient()
        let destination = scratch.file("held.bin")
        await #expect(throws: HTTPWireError.bodyTruncated(expected: 1_000_000, received: 400_000)) {
            try await client.download(from: server.url, to: destination).result()
        }
        let part = try #require(await DownloadScratch.contents(destination + ".part"))
        let record = try #require(await DownloadScratch.contents(destination + ".part.resume"))

        // `flock -o` keeps the lock in the flock process itself, not in `cat` (which waits on its stdin pipe).
        let holder = try await Subprocess.start(
            Self.flockTool, ["-o", destination + ".part.lock", "cat"], input: .openPipe)
        do {
            try #require(await Self.lockBecomes(destination + ".part.lock", held: true), "flock never took the lock")
            try await checkRefusals(
                client: client, server: server, destination: destination, part: part, record: record)
        } catch {
            holder.send(SIGKILL)
            _ = try? await holder.finish()
            throw error
        }

        // The kernel drops the lock when its holder dies (`cat`, still waiting on its pipe, never held it).
        holder.send(SIGKILL)
        #expect(try await holder.finish().status == 128 + SIGKILL)
        try #require(await Self.lockBecomes(destination + ".part.lock", held: false), "the lock outlived its holder")
        let result = try await client.download(from: server.url, to: destination).result()
        #expect(result.resumedFromBytes == 400_000)
        let isComplete = await DownloadScratch.contents(destination) == content
        #expect(isComplete)
        #expect(server.requests.ranges == [nil, "bytes=400000-"])
        #expect(!DownloadScratch.exists(destination + ".part.lock"))
        await client.shutdown()
        await server.stop()
    }

    /// While another process holds the lock: every download and `removeData` is refused with EBUSY, and the
    /// part file and the record stay as they were.
    private func checkRefusals(
        client: HTTPClient, server: DownloadTestServer, destination: String, part: [UInt8], record: [UInt8]
    ) async throws {
        let busy = HTTPWireError.localWriteFailed(path: destination, errno: EBUSY)
        var restart = DownloadOptions()
        restart.restart = true
        for options in [DownloadOptions(), restart] {
            await #expect(throws: busy) {
                try await client.download(from: server.url, to: destination, options: options).result()
            }
        }
        await #expect(throws: busy) { try await Download.removeData(destination: destination) }
        // Compared as booleans: a failure should not print a megabyte of bytes.
        let isPartKept = await DownloadScratch.contents(destination + ".part") == part
        let isRecordKept = await DownloadScratch.contents(destination + ".part.resume") == record
        #expect(isPartKept && isRecordKept)
        #expect(server.requests.ranges.count == 1)
    }

    /// Whether someone else comes to hold an exclusive flock on `path` (`held`), or nobody does, within the
    /// scaled deadline of `eventually`: a probe lock that cannot, or can, be taken (never waiting for it).
    static func lockBecomes(_ path: String, held: Bool) async -> Bool {
        await eventually {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return false }
            let isFree = flock(fd, LOCK_EX | LOCK_NB) == 0
            close(fd)  // drops the probe's lock at once when it got one
            return isFree != held
        }
    }
}
