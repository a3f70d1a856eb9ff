// ParallelWindowTests: the window that hands URLs to `wire get --parallel N`'s workers — in order, each once,
// never more than its limit past the last body written, and closable so that no worker waits forever.

import TestSupport
import Testing

@testable import wire

@Suite struct ParallelWindowTests {
    @Test("a full window holds a worker back until earlier indices are written", .timeLimit(.scaledMinutes(1)))
    func fullWindowWaits() async throws {
        let window = ParallelWindow(count: 10, limit: 3)
        var granted: [Int?] = []
        for _ in 0..<3 { granted.append(await window.next()) }
        #expect(granted == [0, 1, 2])
        let fourth = Task { await window.next() }
        try #require(await eventually { window.waitingCount == 1 }, "the fourth worker waits: 3 started, 0 written")
        window.written(upTo: 1)
        #expect(await fourth.value == 3)
        #expect(window.waitingCount == 0)
    }

    @Test("close releases waiting workers with nil, and later calls get nil", .timeLimit(.scaledMinutes(1)))
    func closeReleasesWaiters() async throws {
        let window = ParallelWindow(count: 10, limit: 1)
        #expect(await window.next() == 0)
        let waiters = (0..<2).map { _ in Task { await window.next() } }
        try #require(await eventually { window.waitingCount == 2 })
        window.close()
        for waiter in waiters { #expect(await waiter.value == nil) }
        window.written(upTo: 1)
        #expect(await window.next() == nil)
    }

    @Test("once the last index is out, every worker gets nil, waiting ones included", .timeLimit(.scaledMinutes(1)))
    func endReleasesWaiters() async throws {
        let window = ParallelWindow(count: 2, limit: 1)
        #expect(await window.next() == 0)
        let waiters = (0..<2).map { _ in Task { await window.next() } }
        try #require(await eventually { window.waitingCount == 2 })
        window.written(upTo: 1)
        let results = [await waiters[0].value, await waiters[1].value]
        #expect(results.sorted { ($0 ?? -1) < ($1 ?? -1) } == [nil, 1], "one gets the last index, the other nil")
        // Every index is out (not yet written): there is nothing left to wait for.
        #expect(await window.next() == nil)
        #expect(window.waitingCount == 0)
    }

    @Test("eight concurrent workers get every index once, with a writer moving the window in order")
    func concurrentWorkers() async {
        let count = 2_000
        let window = ParallelWindow(count: count, limit: 16)
        let (done, sink) = AsyncStream.makeStream(of: Int.self)
        let seen = await withTaskGroup(of: Void.self) { group -> [Int] in
            for _ in 0..<8 {
                group.addTask {
                    while let index = await window.next() { sink.yield(index) }
                }
            }
            var seen: [Int] = []
            var finished = Set<Int>()
            var written = 0
            var beyondWindow = 0
            for await index in done {
                // Granted when at most `written` (then) ≤ `written` (now) indices were written.
                if index >= written + 16 { beyondWindow += 1 }
                seen.append(index)
                finished.insert(index)
                while finished.remove(written) != nil { written += 1 }
                window.written(upTo: written)
                if written == count { break }
            }
            sink.finish()
            #expect(beyondWindow == 0)
            return seen
        }
        #expect(seen.count == count)
        #expect(Set(seen) == Set(0..<count))
    }
}
