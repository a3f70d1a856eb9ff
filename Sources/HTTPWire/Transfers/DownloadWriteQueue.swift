// DownloadWriteQueue: the hand-off between the task reading a response body and the task writing it to
// disk, so the socket and the disk work at the same time.
// Features layer: two fixed buffers with two waiting sides; no I/O and no clock here.
//
// The reader copies each received slice into the filling buffer — or lends an empty buffer to a read that
// fills it in place (`receive(maxBytes:_:)`, TLS records decrypted straight into it) — and the writer takes
// the *whole* filling buffer whenever it is free and hands back the one it just wrote. Blocks therefore
// grow by themselves when the disk is slower than the network (large writes, few system calls) and shrink
// to single slices when the network is slow (nothing waits in memory for a block to fill). A full buffer
// makes the reader wait, which stops reading the socket — TCP backpressure — so memory is two buffers
// whatever the size of the download, allocated once. This file must not write files.

import HTTPWireTransport

/// A fixed-capacity byte buffer passed between the reader, the writer and the blocking worker by reference,
/// so no copy-on-write ever duplicates it.
final class DownloadBlock: @unchecked Sendable {
    // @unchecked: exactly one side uses a block at a time — the queue hands it over under its lock.
    private let storage: UnsafeMutableRawBufferPointer
    /// Bytes in use, from the start.
    private(set) var count = 0

    /// A block holding at most `capacity` bytes.
    init(capacity: Int) {
        storage = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    var capacity: Int { storage.count }
    var isEmpty: Bool { count == 0 }

    /// Copies as much of `bytes` as fits; returns how many were taken.
    func append(_ bytes: ArraySlice<UInt8>) -> Int {
        let taken = min(bytes.count, storage.count - count)
        guard taken > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            UnsafeMutableRawBufferPointer(rebasing: storage[count..<(count + taken)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[..<taken]))
        }
        count += taken
        return taken
    }

    /// The bytes in use.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[..<count]) }

    /// The free end, at most `maxBytes` long, for a read to fill in place; then ``appended(_:)``.
    func freeSpace(maxBytes: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: storage[count..<min(storage.count, count + maxBytes)])
    }

    /// `count` bytes were written into ``freeSpace(maxBytes:)``.
    func appended(_ count: Int) {
        precondition(count >= 0 && self.count + count <= storage.count, "appended \(count) bytes past the block")
        self.count += count
    }

    func removeAll() { count = 0 }
}

/// A bounded queue of body bytes between one reader and one writer.
///
/// ```swift
/// // reader                                  // writer
/// try await queue.append(piece)              while let block = await queue.nextBlock() {
/// queue.close()                                  try write(block.bytes); queue.blockWritten(block)
///                                            }
/// ```
final class DownloadWriteQueue: Sendable {
    private struct State: ~Copyable {
        /// The block the reader fills.
        var filling: DownloadBlock
        /// The other block, when the writer is not holding it.
        var spare: DownloadBlock?
        /// A filled block handed to the writer by the reader before it lent the filling one to a read; the
        /// writer takes it first. Set only while `spare` is nil.
        var ready: DownloadBlock?
        var isClosed = false
        var failure: HTTPWireError?
        /// The writer waiting for bytes.
        var writerWaiter: CheckedContinuation<Void, Never>?
        /// The reader waiting for room, or for the writer to finish everything.
        var readerWaiter: CheckedContinuation<Void, Never>?
    }

    private let state: LockedState<State>

    /// A queue of two blocks of `blockCapacity` bytes each.
    init(blockCapacity: Int) {
        state = LockedState(
            State(filling: DownloadBlock(capacity: blockCapacity), spare: DownloadBlock(capacity: blockCapacity)))
    }

    // MARK: Reader side

    /// Copies `piece` in, waiting whenever the filling block is full. Throws the writer's failure, if any.
    func append(_ piece: ArraySlice<UInt8>) async throws(HTTPWireError) {
        var rest = piece
        while !rest.isEmpty {
            let (writer, taken, failure) = state.withLock {
                state -> (CheckedContinuation<Void, Never>?, Int, HTTPWireError?) in
                if let failure = state.failure { return (nil, 0, failure) }
                let taken = state.filling.append(rest)
                guard taken > 0 else { return (nil, 0, nil) }
                defer { state.writerWaiter = nil }
                return (state.writerWaiter, taken, nil)
            }
            if let failure { throw failure }
            writer?.resume()
            rest = rest.dropFirst(taken)
            if !rest.isEmpty && taken == 0 {
                await waitForReader { state in
                    state.failure != nil || state.filling.count < state.filling.capacity
                }
            }
        }
    }

    /// Lends the filling block (at most `maxBytes` of it) to `read`, which writes received bytes there in
    /// place and returns how many, or nil when it has none to give that way (the caller then reads
    /// otherwise). A lent block is always empty: bytes already in the filling block go to the writer first —
    /// at once when it is idle, else once it has written its block — so no byte waits on a read that may
    /// take long (a stalled server). Throws the writer's failure, if any, or `read`'s error.
    func receive(
        maxBytes: Int, _ read: (UnsafeMutableRawBufferPointer) async throws -> Int?
    ) async throws -> Int? {
        await waitForReader { state in state.failure != nil || state.filling.isEmpty || state.spare != nil }
        let (lent, writer, failure) = state.withLock {
            state -> (DownloadBlock?, CheckedContinuation<Void, Never>?, HTTPWireError?) in
            if let failure = state.failure { return (nil, nil, failure) }
            var writer: CheckedContinuation<Void, Never>?
            if !state.filling.isEmpty, let spare = state.spare {
                state.ready = state.filling
                state.filling = spare
                state.spare = nil
                writer = state.writerWaiter
                state.writerWaiter = nil
            }
            // Empty, it stays out of the writer's reach until the read returns (nextBlock takes only a
            // block holding bytes), and nothing else fills it meanwhile: this is the queue's one reader.
            precondition(state.filling.isEmpty, "lending a block that holds \(state.filling.count) bytes")
            return (state.filling, writer, nil)
        }
        writer?.resume()
        if let failure { throw failure }
        guard let lent else { preconditionFailure("no block lent and no failure") }
        let count: Int?
        do {
            count = try await read(lent.freeSpace(maxBytes: maxBytes))
        } catch {
            returnLent(lent, count: 0)
            throw error
        }
        returnLent(lent, count: count ?? 0)
        return count
    }

    /// The read into the lent block ended with `count` bytes: the writer may take the block again.
    private func returnLent(_ block: DownloadBlock, count: Int) {
        let writer = state.withLock { state -> CheckedContinuation<Void, Never>? in
            block.appended(count)
            guard !state.filling.isEmpty else { return nil }
            defer { state.writerWaiter = nil }
            return state.writerWaiter
        }
        writer?.resume()
    }

    /// Waits until every appended byte is written (nothing filled, no write in flight). Throws the
    /// writer's failure, if any.
    func waitUntilDrained() async throws(HTTPWireError) {
        await waitForReader { state in state.failure != nil || (state.filling.isEmpty && state.spare != nil) }
        if let failure = state.withLock({ $0.failure }) { throw failure }
    }

    /// No more bytes will come; the writer finishes what is pending and stops.
    func close() {
        let writer = state.withLock { state in
            state.isClosed = true
            defer { state.writerWaiter = nil }
            return state.writerWaiter
        }
        writer?.resume()
    }

    /// The writer's failure, if it failed.
    var failure: HTTPWireError? { state.withLock { $0.failure } }

    /// Waits until `isReady` holds; the writer wakes the reader whenever something changes.
    private func waitForReader(until isReady: @escaping @Sendable (borrowing State) -> Bool) async {
        while !state.withLock({ isReady($0) }) {
            await withCheckedContinuation { continuation in
                let isReadyNow = state.withLock { state in
                    if isReady(state) { return true }
                    state.readerWaiter = continuation
                    return false
                }
                if isReadyNow { continuation.resume() }
            }
        }
    }

    // MARK: Writer side

    /// How many bytes wait to be written.
    var pendingBytes: Int { state.withLock { $0.filling.count + ($0.ready?.count ?? 0) } }

    /// Waits for bytes and takes the filling block (the spare one becomes the filling one); nil once the
    /// queue is closed and empty, or failed. The writer returns the block with ``blockWritten(_:)``.
    func nextBlock() async -> DownloadBlock? {
        while true {
            enum Step {
                case block(DownloadBlock)
                case done
                case wait
            }
            let (step, reader) = state.withLock { state -> (Step, CheckedContinuation<Void, Never>?) in
                if state.failure != nil { return (.done, nil) }
                if let ready = state.ready {
                    state.ready = nil
                    return (.block(ready), nil)
                }
                if !state.filling.isEmpty, let spare = state.spare {
                    let block = state.filling
                    state.filling = spare
                    state.spare = nil
                    defer { state.readerWaiter = nil }
                    return (.block(block), state.readerWaiter)  // the reader has room again
                }
                return (state.isClosed && state.filling.isEmpty ? .done : .wait, nil)
            }
            reader?.resume()
            switch step {
            case .block(let block): return block
            case .done: return nil
            case .wait: await waitForBytes()
            }
        }
    }

    /// Waits until bytes are pending, or the queue is closed or failed.
    func waitForBytes() async {
        await withCheckedContinuation { continuation in
            let isReadyNow = state.withLock { state in
                if state.ready != nil || !state.filling.isEmpty || state.isClosed || state.failure != nil {
                    return true
                }
                state.writerWaiter = continuation
                return false
            }
            if isReadyNow { continuation.resume() }
        }
    }

    /// True once `close()` was called.
    var isClosed: Bool { state.withLock { $0.isClosed } }

    /// The block from ``nextBlock()`` is on disk; it becomes the spare one again.
    func blockWritten(_ block: DownloadBlock) {
        block.removeAll()
        let reader = state.withLock { state in
            state.spare = block
            defer { state.readerWaiter = nil }
            return state.readerWaiter
        }
        reader?.resume()
    }

    /// Writing failed: the reader's next call throws `error`, and the writer stops.
    func writerFailed(_ error: HTTPWireError) {
        let reader = state.withLock { state in
            state.failure = error
            defer { state.readerWaiter = nil }
            return state.readerWaiter
        }
        reader?.resume()
    }
}
