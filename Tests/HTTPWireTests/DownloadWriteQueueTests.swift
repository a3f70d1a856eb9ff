// DownloadWriteQueue's lending of the filling block to a read that fills it in place (`receive`): the bytes
// land in the block, bytes already there reach the writer before the lending (at once when it is idle, after
// its write when it is busy), and a read that throws gives the block back. No sockets: the reads here are
// closures.

import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

@Suite struct DownloadWriteQueueTests {
    /// Closes `queue` and takes its blocks as the writer does, expecting exactly `blocks`, in order.
    private func expectDrained(_ queue: DownloadWriteQueue, into blocks: [[UInt8]]) async throws {
        queue.close()
        for expected in blocks {
            let block = try #require(await queue.nextBlock())
            #expect(Array(block.bytes) == expected)
            queue.blockWritten(block)
        }
        #expect(await queue.nextBlock() == nil)
    }

    @Test("a read lent the block's free end fills it in place, and the writer gets those bytes")
    func readsInPlace() async throws {
        let queue = DownloadWriteQueue(blockCapacity: 16)
        let count = try await queue.receive(maxBytes: 8) { free in
            #expect(free.count == 8)  // maxBytes bounds the region lent
            free.copyBytes(from: [1, 2, 3, 4, 5])
            return 5
        }
        #expect(count == 5)
        try await expectDrained(queue, into: [[1, 2, 3, 4, 5]])
    }

    @Test(
        "bytes already in the block go to an idle writer before the block is lent, so none wait on a read",
        .timeLimit(.scaledMinutes(1)))
    func earlierBytesGoFirst() async throws {
        let queue = DownloadWriteQueue(blockCapacity: 16)
        try await queue.append([9, 9][...])
        // While the read holds the block, the writer must still get the two earlier bytes: were they lent
        // with it, nextBlock() would wait for this very read to end, and the test would hang.
        let count = try await queue.receive(maxBytes: 16) { free in
            let earlier = try #require(await queue.nextBlock())
            #expect(Array(earlier.bytes) == [9, 9])
            queue.blockWritten(earlier)
            free.copyBytes(from: [7])
            return 1
        }
        #expect(count == 1)
        try await expectDrained(queue, into: [[7]])
    }

    @Test(
        "a block holding bytes is never lent: with the writer busy, the read waits until those bytes are handed on",
        .timeLimit(.scaledMinutes(1)))
    func busyWriter() async throws {
        let queue = DownloadWriteQueue(blockCapacity: 16)
        try await queue.append([1][...])
        let first = try #require(await queue.nextBlock())  // the writer holds one block
        try await queue.append([2][...])  // the other holds a byte
        let returned = LockedState(false)
        let writer = Task {
            returned.withLock { $0 = true }
            queue.blockWritten(first)
        }
        // Lent at once, the block holding [2] would keep that byte from the writer for as long as this read
        // lasts (a stalled server: forever); the read must start only after the writer handed its block back.
        let count = try await queue.receive(maxBytes: 16) { free in
            #expect(returned.withLock { $0 })
            free.copyBytes(from: [3])
            return 1
        }
        await writer.value
        #expect(count == 1)
        try await expectDrained(queue, into: [[2], [3]])
    }

    @Test("a read that throws gives the block back: nothing counted, and the queue goes on")
    func failedRead() async throws {
        struct Broken: Error {}
        let queue = DownloadWriteQueue(blockCapacity: 16)
        await #expect(throws: Broken.self) {
            _ = try await queue.receive(maxBytes: 16) { free in
                free.copyBytes(from: [6, 6, 6])
                throw Broken()
            }
        }
        #expect(queue.pendingBytes == 0)
        #expect(try await queue.receive(maxBytes: 16) { _ in nil } == nil)  // no bytes to give that way
        try await queue.append([4][...])
        try await expectDrained(queue, into: [[4]])
    }
}
