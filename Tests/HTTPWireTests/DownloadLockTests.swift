// DownloadLockTests: one download per destination at a time, enforced with a flock on `dest.part.lock` —
// two downloads started together in one process (also under two spellings of the same path, which only the
// flock can see), and a lock held by another process (util-linux `flock`), which refuses the download
// without touching the part file or the record until the holder dies; then the download resumes.

import FixtureServer
import Foundation
import HTTPWire
import HTTPWireCodec
import Testing

@Suite struct DownloadLockTests {
    static let flockTool = "/usr/bin/flock"

    @Test(
        "two downloads to one destination started together: one finishes, the other is refused at once",
        .timeLimit(.minutes(1)), arguments: [false, true])
    func twoAtOnce(spelledDifferently: Bool) async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            // 600 kB in 20 kB pieces every 10 ms: the first download still runs when the second starts.
            let url = server.baseURL + "bytes/600000?interval_ms=10&piece=20000"
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
            var outcomes: [Result<DownloadResult, any Error>] = []
            for download in downloads {
                do {
                    outcomes.append(.success(try await download.result()))
                } catch {
                    outcomes.append(.failure(error))
                }
            }
            let finished = outcomes.indices.filter { (try? outcomes[$0].get()) != nil }
            try #require(finished.count == 1, "\(outcomes)")
            let refused = 1 - finished[0]
            #expect(throws: HTTPWireError.localWriteFailed(path: [destination, alias][refused], errno: EBUSY)) {
                try outcomes[refused].get()
            }
            let reference = try await client.get(server.baseURL + "bytes/600000").body
            let isComplete = DownloadScratch.contents(destination) == reference
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
        .timeLimit(.minutes(1)), .enabled(if: FileManager.default.isExecutableFile(atPath: flockTool)))
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
        let part = try #require(DownloadScratch.contents(destination + ".part"))
        let record = try #require(DownloadScratch.contents(destination + ".part.resume"))

        // `flock -o` keeps the lock in the flock process itself, not in `cat` (which waits on a pipe).
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: Self.flockTool)
        holder.arguments = ["-o", destination + ".part.lock", "cat"]
        let input = Pipe()
        holder.standardInput = input
        try holder.run()
        var isHolderAlive = true
        defer {
            if isHolderAlive { kill(holder.processIdentifier, SIGKILL) }
            try? input.fileHandleForWriting.close()  // lets `cat` end
        }
        try await Self.waitForLock(destination + ".part.lock", held: true)

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
        let isPartKept = DownloadScratch.contents(destination + ".part") == part
        let isRecordKept = DownloadScratch.contents(destination + ".part.resume") == record
        #expect(isPartKept && isRecordKept)
        #expect(server.requests.ranges.count == 1)

        // The kernel drops the lock when its holder dies (`cat`, still waiting on its pipe, never held it).
        kill(holder.processIdentifier, SIGKILL)
        isHolderAlive = false
        try await Self.waitForLock(destination + ".part.lock", held: false)
        let result = try await client.download(from: server.url, to: destination).result()
        #expect(result.resumedFromBytes == 400_000)
        let isComplete = DownloadScratch.contents(destination) == content
        #expect(isComplete)
        #expect(server.requests.ranges == [nil, "bytes=400000-"])
        #expect(!DownloadScratch.exists(destination + ".part.lock"))
        await client.shutdown()
        await server.stop()
    }

    /// Waits until someone else holds an exclusive flock on `path` (`held`), or nobody does: a probe lock
    /// that cannot, or can, be taken.
    static func waitForLock(_ path: String, held: Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd >= 0 {
                let isFree = flock(fd, LOCK_EX | LOCK_NB) == 0
                close(fd)  // drops the probe's lock at once when it got one
                if isFree != held { return }
            }
            try #require(ContinuousClock.now < deadline, "\(path) never became \(held ? "locked" : "free")")
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
