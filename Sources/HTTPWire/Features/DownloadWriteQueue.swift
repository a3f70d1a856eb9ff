// DownloadWriteQueue: the hand-off between the task reading a response body and the task writing it to
// disk, so the socket and the disk work at the same time.
// Features layer: a bounded byte buffer with two waiting sides; no I/O and no clock here.
//
// The reader appends each received slice; the writer takes *everything* pending whenever it is free, so
// blocks grow by themselves when the disk is slower than the network (large writes, few system calls) and
// shrink to single slices when the network is slow (nothing waits in memory for a block to fill). The
// buffer is bounded: a reader that gets ahead of the disk waits, which stops reading the socket — TCP
// backpressure — and keeps memory flat for any size. This file must not write files.

import Synchronization

/// A bounded queue of body bytes between one reader and one writer.
///
/// ```swift
/// // reader                                  // writer
/// try await queue.append(piece)              while let block = await queue.nextBlock(reusing: spare) {
/// queue.close()                                  try write(block); queue.blockWritten(returning: block)
///                                            }
/// ```
final class DownloadWriteQueue: Sendable {
    private struct State: ~Copyable {
        var pending: [UInt8] = []
        /// A buffer the writer gave back, reused for the next round so appends do not reallocate.
        var spare: [UInt8] = []
        var isClosed = false
        var isWriting = false
        var failure: HTTPWireError?
        /// The writer waiting for bytes.
        var writerWaiter: CheckedContinuation<Void, Never>?
        /// The reader waiting for room, or for the writer to finish everything.
        var readerWaiter: CheckedContinuation<Void, Never>?
    }

    /// The most bytes held before `append` waits.
    let capacity: Int
    private let state: Mutex<State>

    /// A queue holding at most `capacity` bytes (a single larger slice is still accepted when empty).
    init(capacity: Int) {
        self.capacity = capacity
        self.state = Mutex(State())
    }

    // MARK: Reader side

    /// Appends `piece` (copied), waiting while the queue is full. Throws the writer's failure, if any.
    func append(_ piece: ArraySlice<UInt8>) async throws(HTTPWireError) {
        while true {
            let (writer, isFull, failure) = state.withLock {
                state -> (CheckedContinuation<Void, Never>?, Bool, HTTPWireError?) in
                if let failure = state.failure { return (nil, false, failure) }
                guard state.pending.isEmpty || state.pending.count + piece.count <= capacity else {
                    return (nil, true, nil)
                }
                if state.pending.isEmpty && state.pending.capacity == 0 { swap(&state.pending, &state.spare) }
                state.pending.append(contentsOf: piece)
                defer { state.writerWaiter = nil }
                return (state.writerWaiter, false, nil)
            }
            if let failure { throw failure }
            writer?.resume()
            guard isFull else { return }
            let limit = capacity
            let count = piece.count
            await waitForReader { state in
                state.failure != nil || state.pending.isEmpty || state.pending.count + count <= limit
            }
        }
    }

    /// Waits until every appended byte is written (nothing pending, no write in flight). Throws the
    /// writer's failure, if any.
    func waitUntilDrained() async throws(HTTPWireError) {
        await waitForReader { state in state.failure != nil || (state.pending.isEmpty && !state.isWriting) }
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
    var pendingBytes: Int { state.withLock { $0.pending.count } }

    /// Waits for bytes and takes all of them, marking a write in flight; nil once the queue is closed
    /// and empty (or failed). The writer calls ``blockWritten(returning:)`` after writing the block.
    func nextBlock() async -> [UInt8]? {
        while true {
            enum Step {
                case block([UInt8])
                case done
                case wait
            }
            let step = state.withLock { state -> Step in
                if state.failure != nil { return .done }
                if !state.pending.isEmpty {
                    state.isWriting = true
                    var block: [UInt8] = []
                    swap(&block, &state.pending)
                    return .block(block)
                }
                return state.isClosed ? .done : .wait
            }
            switch step {
            case .block(let block): return block
            case .done: return nil
            case .wait:
                await withCheckedContinuation { continuation in
                    let isReadyNow = state.withLock { state in
                        if !state.pending.isEmpty || state.isClosed || state.failure != nil { return true }
                        state.writerWaiter = continuation
                        return false
                    }
                    if isReadyNow { continuation.resume() }
                }
            }
        }
    }

    /// Takes what is pending without waiting, for a writer that already holds a block (its write is
    /// still in flight); nil when nothing is pending.
    func nextBlockIfPending() async -> [UInt8]? {
        state.withLock { state in
            guard !state.pending.isEmpty else { return nil }
            var block: [UInt8] = []
            swap(&block, &state.pending)
            return block
        }
    }

    /// The block from ``nextBlock()`` is on disk; its buffer is kept for reuse.
    func blockWritten(returning block: consuming [UInt8]) {
        block.removeAll(keepingCapacity: true)
        let reader = state.withLock { state in
            state.isWriting = false
            if state.spare.capacity < block.capacity { state.spare = block }
            defer { state.readerWaiter = nil }
            return state.readerWaiter
        }
        reader?.resume()
    }

    /// Writing failed: the reader's next call throws `error`, and the writer stops.
    func writerFailed(_ error: HTTPWireError) {
        let reader = state.withLock { state in
            state.isWriting = false
            state.failure = error
            defer { state.readerWaiter = nil }
            return state.readerWaiter
        }
        reader?.resume()
    }
}
