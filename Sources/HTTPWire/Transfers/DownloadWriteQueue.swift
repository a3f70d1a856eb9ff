// DownloadWriteQueue: the hand-off between the task reading a response body and the task writing it to
// disk, so the socket and the disk work at the same time.
// Features layer: two fixed buffers with two waiting sides; no I/O and no clock here.
//
// The reader copies each received slice into the filling buffer — or lends an empty buffer to a read that
// fills it in place (`receive(maxBytes:_:)`: TLS records decrypted straight into it, a chunked body decoded
// there, its data marked as pieces between the framing) — and the writer takes the *whole* filling buffer
// whenever it is free and hands back the one it just wrote. Blocks therefore grow by themselves when the
// disk is slower than the network (large writes, few system calls) and shrink to single slices when the
// network is slow (nothing waits in memory for a block to fill). A full buffer makes the reader wait, which
// stops reading the socket — TCP backpressure — so memory is two buffers whatever the size of the download,
// allocated once. This file must not write files.

import HTTPWireTransport

/// A fixed-capacity buffer of received bytes passed between the reader, the writer and the blocking worker
/// by reference, so no copy-on-write ever duplicates it, with the ranges of it that are body.
///
/// Usually the whole buffer is body. A chunked body read in place is not: the read puts the raw message
/// there, chunk framing and all (RFC 9112 §7.1: `chunk-size CRLF chunk-data CRLF`, over and over), and the
/// decoder marks where the chunk data lies, so the writer writes those ranges (one pwritev(2)) and the
/// framing between them never leaves the buffer — nothing is copied in user space.
final class DownloadBlock: @unchecked Sendable {
    // @unchecked: exactly one side uses a block at a time — the queue hands it over under its lock.
    /// The received bytes; an array (its capacity reserved once, never grown) because a read appends to it
    /// and the decoder takes slices of it without copying.
    private(set) var storage: [UInt8]
    /// The body's ranges in `storage`, in order; adjacent ranges are merged.
    private(set) var pieces: [Range<Int>] = []
    /// The capacity, fixed when the block is made.
    let capacity: Int

    /// A block holding at most `capacity` bytes.
    init(capacity: Int) {
        self.capacity = capacity
        storage = []
        storage.reserveCapacity(capacity)
    }

    /// Bytes in use (body and framing between its pieces), from the start. A stored copy of the storage's
    /// count, published under the queue's lock (``settle()``): the other side reads it while a read may be
    /// appending to `storage`.
    private(set) var count = 0
    var isEmpty: Bool { count == 0 }

    /// Copies as much of `bytes` as fits, as body; returns how many were taken.
    func append(_ bytes: ArraySlice<UInt8>) -> Int {
        let taken = min(bytes.count, capacity - storage.count)
        guard taken > 0 else { return 0 }
        let start = storage.count
        storage.append(contentsOf: bytes.prefix(taken))
        Self.add(start..<storage.count, to: &pieces)
        count = storage.count
        return taken
    }

    /// Lets `read` append at most `maxBytes` received bytes to the block in place (never past its capacity)
    /// and add the body's ranges among them to `pieces`; returns what `read` returned. Pieces added before
    /// `read` threw are kept (the decoder had handed them out as body). Then ``settle()``, under the lock.
    func receive<Result>(
        maxBytes: Int, _ read: (inout [UInt8], Int, inout [Range<Int>]) async throws -> Result
    ) async throws -> Result {
        let room = min(maxBytes, capacity - storage.count)
        precondition(room > 0, "lending a full block")
        var added: [Range<Int>] = []
        defer {
            for piece in added { Self.add(piece, to: &pieces) }
            precondition(storage.count <= capacity, "a read grew the block past its capacity")
            if pieces.count > Self.maxPieces { compact() }
        }
        return try await read(&storage, room, &added)
    }

    /// The most pieces a block keeps apart. A server may send tiny chunks (`1\r\nx\r\n`: a piece per byte);
    /// past this many, the pieces are moved together instead — a memmove, no dearer than the copy the
    /// in-place read saved — so the ranges stay a small array and one pwritev(2) call whatever the chunk
    /// sizes. 16 KiB chunks (nginx's, the harness's) make 64 pieces per 1 MiB block.
    static let maxPieces = 256

    /// Moves every piece to the front, in order, leaving one piece and no framing.
    private func compact() {
        var end = 0
        storage.withUnsafeMutableBytes { all in
            guard let base = all.baseAddress else { return }
            for piece in pieces {
                // Overlapping moves are allowed (memmove); a piece only ever moves towards the front.
                if piece.lowerBound != end {
                    (base + end).copyMemory(from: base + piece.lowerBound, byteCount: piece.count)
                }
                end += piece.count
            }
        }
        storage.removeLast(storage.count - end)
        pieces = end > 0 ? [0..<end] : []
    }

    /// Drops the bytes after the last body piece (framing a read ended in, which the decoder has kept) and
    /// publishes the count.
    func settle() {
        storage.removeLast(storage.count - (pieces.last?.upperBound ?? 0))
        count = storage.count
    }

    /// Calls `body` with the body's ranges as memory, in order, for one write.
    func withBodyPieces<Result>(_ body: ([UnsafeRawBufferPointer]) throws -> Result) rethrows -> Result {
        try storage.withUnsafeBytes { all in
            try body(pieces.map { UnsafeRawBufferPointer(rebasing: all[$0]) })
        }
    }

    func removeAll() {
        storage.removeAll(keepingCapacity: true)
        pieces.removeAll(keepingCapacity: true)
        count = 0
    }

    /// Appends `piece` to `pieces`, merged into the last range when it continues it.
    static func add(_ piece: Range<Int>, to pieces: inout [Range<Int>]) {
        guard !piece.isEmpty else { return }
        if let last = pieces.last, last.upperBound == piece.lowerBound {
            pieces[pieces.count - 1] = last.lowerBound..<piece.upperBound
        } else {
            pieces.append(piece)
        }
    }
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

    /// Lends the filling block (at most `maxBytes` of it) to `read`, which appends received bytes to its
    /// storage, adds the body's ranges among them to the pieces and returns the body bytes, or returns nil
    /// when it has none to give that way (the caller then reads otherwise). A lent block is always empty: bytes already in the filling block go to the writer first —
    /// at once when it is idle, else once it has written its block — so no byte waits on a read that may
    /// take long (a stalled server). Throws the writer's failure, if any, or `read`'s error.
    func receive(
        maxBytes: Int, _ read: (inout [UInt8], Int, inout [Range<Int>]) async throws -> Int?
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
        defer { returnLent(lent) }
        return try await lent.receive(maxBytes: maxBytes, read)
    }

    /// The read into the lent block ended: the writer may take the block again.
    private func returnLent(_ block: DownloadBlock) {
        let writer = state.withLock { state -> CheckedContinuation<Void, Never>? in
            block.settle()
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
            switch takeBlock() {
            case .block(let block): return block
            case .done: return nil
            case .wait: await waitForBytes()
            }
        }
    }

    /// What ``takeBlock()`` found.
    enum Take {
        /// A block holding bytes, now the writer's.
        case block(DownloadBlock)
        /// Closed and empty, or failed: nothing more to write.
        case done
        /// No bytes yet.
        case wait
    }

    /// Takes a block holding bytes if there is one, without waiting: the ready block, else the filling one
    /// (the spare becomes the filling one). Never blocks; callable from the disk thread.
    func takeBlock() -> Take {
        let (take, reader) = state.withLock { state -> (Take, CheckedContinuation<Void, Never>?) in
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
        return take
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
