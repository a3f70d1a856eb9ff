// DownloadManagerTests: the manager against the fixture server — the running limit, what comes back after
// a restart (queued items resume from their part files with Range, paused ones stay paused, completed ones
// are not fetched again), remove deleting data and records, and the aggregate progress reaching the total.

import Foundation
import TestSupport
import Testing

@testable import FixtureServer
@testable import HTTPWire

@Suite struct DownloadManagerTests {
    /// The items' states, in order.
    static func states(_ manager: DownloadManager) -> [DownloadManagerItem.State] { manager.items.map(\.state) }

    static func isRunning(_ state: DownloadManagerItem.State) -> Bool {
        if case .running = state { return true }
        return false
    }

    @Test(
        "runs at most maxRunning items at once, by priority, and records them completed", .timeLimit(.scaledMinutes(1)))
    func runningLimit() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let client = HTTPClient()
            let manager = try await DownloadManager(client: client, catalogueDirectory: scratch.path, maxRunning: 1)
            // Held at 150 kB until the checks below are done: a loaded machine cannot let it finish first.
            let slow = server.baseURL + "bytes/300000?interval_ms=20&piece=10000&hold_at=150000"
            let first = try await manager.add(from: slow, to: scratch.file("1.bin"))
            let low = try await manager.add(from: server.baseURL + "bytes/1000?seed=2", to: scratch.file("2.bin"))
            let high = try await manager.add(
                from: server.baseURL + "bytes/1000?seed=3", to: scratch.file("3.bin"), priority: 5)
            #expect(manager.items.filter { Self.isRunning($0.state) }.count == 1)
            #expect(manager.item(first)?.state == .running)
            #expect(manager.item(low)?.state == .queued)
            server.releaseHeldBodies()
            await manager.waitUntilIdle()
            for id in [first, low, high] {
                guard case .completed = manager.item(id)?.state else {
                    Issue.record("\(id) ended \(String(describing: manager.item(id)?.state))")
                    continue
                }
            }
            // The higher priority ran before the older, lower one.
            let order = server.requestLog.map(\.target)
            let highIndex = try #require(order.firstIndex { $0.contains("seed=3") })
            let lowIndex = try #require(order.firstIndex { $0.contains("seed=2") })
            #expect(highIndex < lowIndex)
            #expect(await DownloadScratch.contents(scratch.file("1.bin")) == GeneratedBytes.bytes(0..<300_000))
            let catalogue = try DownloadCatalogue(
                decoding: try #require(await DownloadScratch.contents(scratch.file(DownloadCatalogue.fileName))))
            #expect(catalogue.entries.map(\.state) == [.completed, .completed, .completed])
            await client.shutdown()
        }
    }

    @Test(
        "after a restart a queued item resumes with Range, a paused one stays paused, a completed one is not fetched",
        .timeLimit(.scaledMinutes(1)))
    func restoresAfterRestart() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let url = server.baseURL + "bytes/500000"
            let content = GeneratedBytes.bytes(0..<500_000)
            let resumed = scratch.file("resumed.bin")
            // What a SIGKILL leaves: a part file and record, and the catalogue saying the item was running.
            try await DownloadResumeTests.stagePartial(
                resumed, prefix: Array(content[..<200_000]), url: url,
                entityTag: GeneratedBytes.entityTag(count: 500_000, seed: 0),
                expectedLength: 500_000)
            try Data(content.prefix(10)).write(to: URL(fileURLWithPath: scratch.file("done.bin")))
            try DownloadCatalogue(entries: [
                .init(id: 1, url: url, destination: resumed, priority: 0, state: .queued),
                .init(id: 2, url: url, destination: scratch.file("paused.bin"), priority: 0, state: .paused),
                .init(
                    id: 7, url: url, destination: scratch.file("done.bin"), priority: 0, state: .completed, bytes: 10),
            ]).write(toDirectory: scratch.path)

            let client = HTTPClient()
            let manager = try await DownloadManager(client: client, catalogueDirectory: scratch.path)
            await manager.waitUntilIdle()
            guard case .completed(let bytes, _) = manager.item(.init(rawValue: 1))?.state else {
                Issue.record("item 1 ended \(String(describing: manager.item(.init(rawValue: 1))?.state))")
                return
            }
            #expect(bytes == 500_000)
            #expect(await DownloadScratch.contents(resumed) == content)
            #expect(server.requestLog.count == 1)
            #expect(server.requestLog.first?.fields["Range"] == "bytes=200000-")
            #expect(manager.item(.init(rawValue: 2))?.state == .paused)
            #expect(manager.item(.init(rawValue: 7))?.state == .completed(bytes: 10, sha256: nil))
            // Skip what is done: adding the same URL and destination again fetches nothing.
            #expect(try await manager.add(from: url, to: scratch.file("done.bin")) == .init(rawValue: 7))
            // A different URL to a destination in use never replaces its file.
            await #expect(throws: HTTPWireError.localWriteFailed(path: scratch.file("done.bin"), errno: EEXIST)) {
                _ = try await manager.add(from: url + "?other", to: scratch.file("done.bin"))
            }
            // New ids continue after the restored ones.
            #expect(try await manager.add(from: url, to: scratch.file("new.bin"), options: nil) == .init(rawValue: 8))
            await manager.waitUntilIdle()
            await client.shutdown()
        }
    }

    @Test(
        "pause keeps the bytes, resume continues with Range, remove deletes data, records and the item",
        .timeLimit(.scaledMinutes(1)))
    func pauseResumeRemove() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let client = HTTPClient()
            let manager = try await DownloadManager(client: client, catalogueDirectory: scratch.path)
            // Held at 200 kB until the pause is checked: the reactor thread reads the body while the test's
            // task may wait for a loaded pool, so without the hold the download could finish first.
            let url = server.baseURL + "bytes/1000000?interval_ms=10&piece=10000&hold_at=200000"
            let destination = scratch.file("p.bin")
            let id = try await manager.add(from: url, to: destination)
            var iterator = manager.progress(of: id).makeAsyncIterator()
            while let progress = await iterator.next(), progress.receivedBytes < 100_000 {}
            manager.pause(id)
            await manager.waitUntilIdle()
            #expect(manager.item(id)?.state == .paused)
            #expect(DownloadScratch.exists(destination + ".part"))
            server.releaseHeldBodies()
            manager.resume(id)
            try #require(await eventually { server.requestLog.count == 2 })
            #expect(server.requestLog.last?.fields["Range"]?.hasPrefix("bytes=") == true)
            #expect(server.requestLog.last?.fields["Range"] != "bytes=0-")
            try await manager.remove(id)
            #expect(manager.item(id) == nil)
            #expect(!DownloadScratch.exists(destination))
            #expect(!DownloadScratch.exists(destination + ".part"))
            #expect(!DownloadScratch.exists(destination + ".part.resume"))
            await manager.flushCatalogue()
            let catalogue = try DownloadCatalogue(
                decoding: try #require(await DownloadScratch.contents(scratch.file(DownloadCatalogue.fileName))))
            #expect(catalogue.entries.isEmpty)
            await client.shutdown()
        }
    }

    @Test("the aggregate progress sums the items and reaches their total", .timeLimit(.scaledMinutes(1)))
    func aggregateProgress() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let client = HTTPClient()
            let manager = try await DownloadManager(client: client, catalogueDirectory: scratch.path)
            _ = try await manager.add(from: server.baseURL + "bytes/200000?seed=1", to: scratch.file("a"))
            _ = try await manager.add(from: server.baseURL + "bytes/300000?seed=2", to: scratch.file("b"))
            let totals = manager.aggregateProgress
            await manager.waitUntilIdle()
            var last: TransferProgress?
            for await snapshot in totals {
                last = snapshot
                if snapshot.receivedBytes >= 500_000 { break }
            }
            #expect(last?.receivedBytes == 500_000)
            #expect(last?.expectedBytes == 500_000)
            await client.shutdown()
        }
    }
}
