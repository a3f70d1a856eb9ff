// DownloadWriteQueue's lending of the filling block to a read that fills it in place (`receive`): the bytes
// land in the block, bytes already there reach the writer before the lending (at once when it is idle, after
// its write when it is busy), and a read that throws gives the block back. A block's body pieces (a chunked
// body decoded in place): only they are written, and tiny ones are moved together. No sockets: the reads
// here are closures.

import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

@Suite struct DownloadWriteQueueTests {
    /// Closes `queue` and takes its blocks as the writer does, expecting exactly `blocks`, in order.
    private func expectDrained(_ queue: DownloadWriteQueue, into blocks: [[UInt8]]) async throws {
        queue.close()
        for expected in blocks {
            let block = try #require(await queue.nextBlock())
            #expect(block.withBodyPieces { $0.flatMap { Array($0) } } == expected)
            queue.blockWritten(block)
        }
        #expect(await queue.nextBlock() == nil)
    }

    @Test("takeBlock never waits: nothing yet, then the filled block, then the end once closed and empty")
    func takeBlockWithoutWaiting() async throws {
        let queue = DownloadWriteQueue(blockCapacity: 16)
        guard case .wait = queue.takeBlock() else { Issue.record("a block taken from an empty queue"); return }
        try await queue.append([1, 2, 3][...])
        guard case .block(let first) = queue.takeBlock() else { Issue.record("the filled block not taken"); return }
        #expect(first.withBodyPieces { $0.flatMap { Array($0) } } == [1, 2, 3])
        // Both blocks are out (one written, one filling, empty): still nothing to take, and no waiting.
        try await queue.append([4][...])
        guard case .wait = queue.takeBlock() else {
            Issue.record("the filling block taken while the writer still holds the spare")
            return
        }
        queue.blockWritten(first)  // the disk job's next step: the spare is back, the filling block goes
        guard case .block(let second) = queue.takeBlock() else { Issue.record("the next block not taken"); return }
        #expect(second.withBodyPieces { $0.flatMap { Array($0) } } == [4])
        queue.blockWritten(second)
        queue.close()
        guard case .done = queue.takeBlock() else { Issue.record("a closed, empty queue not done"); return }
    }

    @Test("a read lent the block's free end fills it in place, and the writer gets those bytes")
    func readsInPlace() async throws {
        let queue = DownloadWriteQueue(blockCapacity: 16)
        let count = try await queue.receive(maxBytes: 8) { buffer, room, pieces in
            #expect(room == 8)  // maxBytes bounds the region lent
            #expect(buffer.capacity >= 16)  // the block's storage, reserved once
            buffer += [1, 2, 3, 4, 5]
            pieces.append(0..<5)
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
        let count = try await queue.receive(maxBytes: 16) { buffer, _, pieces in
            let earlier = try #require(await queue.nextBlock())
            #expect(earlier.withBodyPieces { $0.flatMap { Array($0) } } == [9, 9])
            queue.blockWritten(earlier)
            buffer.append(7)
            pieces.append(0..<1)
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
        let count = try await queue.receive(maxBytes: 16) { buffer, _, pieces in
            #expect(returned.withLock { $0 })
            buffer.append(3)
            pieces.append(0..<1)
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
            _ = try await queue.receive(maxBytes: 16) { buffer, _, _ in
                buffer += [6, 6, 6]  // framing only: no piece of it is body
                throw Broken()
            }
        }
        #expect(queue.pendingBytes == 0)
        #expect(try await queue.receive(maxBytes: 16) { _, _, _ in nil } == nil)  // no bytes to give that way
        try await queue.append([4][...])
        try await expectDrained(queue, into: [[4]])
    }
}

extension DownloadWriteQueueTests {
    /// `bytes` in a block of `capacity`, with `pieces` marked as body, through `receive` as a read would.
    private func block(_ bytes: [UInt8], pieces: [Range<Int>], capacity: Int = 4096) async throws -> DownloadBlock {
        let block = DownloadBlock(capacity: capacity)
        try await block.receive(maxBytes: capacity) { buffer, room, added in
            #expect(room == capacity)
            buffer += bytes
            added += pieces
        }
        block.settle()
        return block
    }

    @Test("a block read with framing writes only its body pieces, adjacent ones merged, trailing framing dropped")
    func bodyPieces() async throws {
        // "3\r\nabc\r\n2\r\nde\r\n" with the data of both chunks marked, then a size line the read ended in.
        let raw = Array("3\r\nabc\r\n2\r\nde\r\n1".utf8)
        let block = try await block(raw, pieces: [3..<5, 5..<6, 11..<13])
        #expect(block.pieces == [3..<6, 11..<13])
        #expect(block.count == 13)  // the bytes after the last piece are gone
        #expect(block.withBodyPieces { $0.flatMap { Array($0) } } == Array("abcde".utf8))
    }

    @Test("past maxPieces tiny pieces are moved together into one, in order")
    func compaction() async throws {
        // Chunks of one byte each: "1\r\nX\r\n", the X at offset 3 of each 6-byte chunk.
        let chunks = DownloadBlock.maxPieces + 10
        var raw: [UInt8] = []
        var pieces: [Range<Int>] = []
        for index in 0..<chunks {
            raw += Array("1\r\n".utf8)
            pieces.append(raw.count..<(raw.count + 1))
            raw.append(UInt8(truncatingIfNeeded: index))
            raw += Array("\r\n".utf8)
        }
        let block = try await block(raw, pieces: pieces, capacity: raw.count)
        #expect(block.pieces == [0..<chunks])
        #expect(block.count == chunks)
        #expect(block.withBodyPieces { $0.flatMap { Array($0) } } == (0..<chunks).map { UInt8(truncatingIfNeeded: $0) })
    }
}
