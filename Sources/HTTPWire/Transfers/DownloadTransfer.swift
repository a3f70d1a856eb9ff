// DownloadTransfer: one response body moved into the part file — spliced or written in large blocks —
// with progress measured per block and the record refreshed as bytes become durable.
// Downloads layer: built on the public streaming API (`ResponseBody`) and the package `spliceNext`; disk
// calls go to the BlockingWorker through `DownloadPartialFile`. It must not decide whether to resume or
// retry (that is `Download` with `ResumePlan` and `RetryPolicy`).
//
// Two paths. A plain-HTTP body with a Content-Length goes socket → pipe → file with splice(2), never
// entering user space. Every other body (TLS, chunked) is read slice by slice and handed to a writer task
// through `DownloadWriteQueue`, which writes whatever has gathered whenever the disk is free. Either way a
// commit (fdatasync, then the record) runs beside the transfer every `commitInterval`, and one last commit
// runs however the transfer ends — success, failure, pause or cancellation — so what arrived is kept.

import HTTPWireTransport

#if canImport(Glibc)
    import Glibc
#endif

/// Moves one response body into a ``DownloadPartialFile`` that was opened at the resume offset.
struct DownloadTransfer: Sendable {
    /// The file, opened and cut to `offset` by the caller.
    let file: DownloadPartialFile
    /// The record as written before the body (validators, expected length); commits update its count.
    let record: ResumeRecord
    /// Where the body starts in the file.
    let offset: Int64
    /// The final size, when known, for the fraction and the time left.
    let expectedTotal: Int64?
    let options: DownloadOptions
    /// Called with a progress snapshot at most once per `progressInterval`, and once at the end.
    let report: @Sendable (TransferProgress) -> Void

    /// The size of each of the queue's two blocks: the largest write, and with the block being written the
    /// whole memory a transfer holds (2 MiB), whatever the size of the download: 1 MiB writes already make
    /// the per-call cost negligible, and larger blocks only raised peak RSS (4 MiB blocks: 20.6 MiB for a
    /// 1 GiB chunked download against 14–15 MiB; `make bench`).
    static let blockCapacity = 1 << 20
    /// The most one splice(2) round moves; the transport returns earlier when the socket runs dry.
    static let spliceBytes: Int64 = 16 << 20
    /// How long the writer lets a small first slice gather company before writing it.
    static let gatherDelay: Duration = .milliseconds(5)
    /// A block at least this large is written at once, without gathering.
    static let gatherBytes = 256 * 1024

    /// Reads `body` to its end into the file. Throws what reading or writing threw (a splice's write error
    /// with the part file's path); in every case the bytes that reached the file are committed first.
    func run(body: ResponseBody, canSplice: Bool) async throws {
        let committer = DownloadCommitter(file: file, record: record, options: options)
        let queue = DownloadWriteQueue(blockCapacity: Self.blockCapacity)
        let file = self.file
        let writer = Task { await Self.writeBlocks(from: queue, to: file, committer: committer) }
        var failure: (any Error)?
        do {
            try await receive(body: body, canSplice: canSplice, queue: queue, committer: committer)
        } catch {
            failure = error
        }
        queue.close()
        await writer.value
        let finalCommitError = await committer.finish(writtenBytes: file.writtenBytes)
        if let failure { throw failure }
        if let writeFailure = queue.failure { throw writeFailure }
        if let finalCommitError { throw finalCommitError }
    }

    /// The reading side: splice when possible, else slices into the queue; progress per round.
    private func receive(
        body: ResponseBody, canSplice: Bool, queue: DownloadWriteQueue, committer: DownloadCommitter
    ) async throws {
        let clock = ContinuousClock()
        let start = clock.now
        var meter = ThroughputMeter()
        var received: Int64 = 0
        var lastReport = start
        var iterator = body.makeAsyncIterator()
        func progressed(by count: Int64, force: Bool) {
            received += count
            let now = clock.now
            meter.record(bytes: count, at: now - start)
            guard force || now - lastReport >= options.progressInterval else { return }
            lastReport = now
            report(meter.progress(receivedBytes: offset + received, expectedBytes: expectedTotal))
        }
        while true {
            if canSplice {
                // Bytes handed to the writer must be in the file before splice writes after them.
                try await queue.waitUntilDrained()
                let moved: Int64?
                do {
                    guard let target = file.file else {
                        throw HTTPWireError.localWriteFailed(path: file.partialPath, errno: EBADF)
                    }
                    moved = try await body.spliceNext(
                        into: target, offset: file.writtenBytes, maxBytes: Self.spliceBytes)
                } catch {
                    // Bytes the failed call had already put in the file are body, in order: keep them.
                    let file = self.file
                    try? await DownloadPartialFile.runBlocking { file.recordSplicedBeforeFailure() }
                    throw error
                }
                if let moved, moved > 0 {
                    file.recordSpliced(moved)
                    committer.bytesWritten(upTo: file.writtenBytes)
                    progressed(by: moved, force: false)
                    continue
                }
            }
            guard let piece = try await iterator.next() else { break }
            try await queue.append(piece)
            progressed(by: Int64(piece.count), force: false)
        }
        progressed(by: 0, force: true)
    }

    /// The writing side: takes whatever has gathered and writes it on the blocking worker, until the queue
    /// is closed and empty or a write fails. Runs as an unstructured task, so a pause or cancellation of the
    /// reader never abandons bytes already received.
    private static func writeBlocks(
        from queue: DownloadWriteQueue, to file: DownloadPartialFile, committer: DownloadCommitter
    ) async {
        let clock = ContinuousClock()
        var lastWriteEnd = clock.now - gatherDelay
        while true {
            await queue.waitForBytes()
            // A few small slices after a quiet spell (a trickle): give the next ones a moment to join them,
            // bounded, so they are still on disk within milliseconds. Not while writes follow each other
            // (a fast stream): the reader fills the other block during each write, so every write already
            // takes all that gathered, and a pause would only leave the reader waiting on a full block
            // (measured: with 1 MiB blocks, a 1 GiB chunked download ran at 0.76× curl with the pause).
            if queue.pendingBytes < gatherBytes, !queue.isClosed, clock.now - lastWriteEnd >= gatherDelay {
                try? await Reactor.shared.sleep(until: .after(gatherDelay))
            }
            guard let block = await queue.nextBlock() else { return }
            do {
                try await DownloadPartialFile.runBlocking { try file.write(block.bytes) }
            } catch let error as HTTPWireError {
                queue.writerFailed(error)
                return
            } catch {
                queue.writerFailed(.localWriteFailed(path: file.partialPath, errno: EIO))
                return
            }
            committer.bytesWritten(upTo: file.writtenBytes)
            queue.blockWritten(block)
            lastWriteEnd = clock.now
        }
    }
}

/// Refreshes the record while bytes arrive: at most one commit in flight, started when `commitInterval`
/// passed or `commitBytes` accumulated since the last one, each counting only bytes written before it began.
final class DownloadCommitter: Sendable {
    private struct State {
        var committedBytes: Int64
        var lastStart: ContinuousClock.Instant
        var inFlight: Task<Void, Never>?
        var failure: HTTPWireError?
    }

    private let file: DownloadPartialFile
    private let record: ResumeRecord
    private let interval: Duration
    private let bytes: Int64
    private let state: LockedState<State>

    init(file: DownloadPartialFile, record: ResumeRecord, options: DownloadOptions) {
        self.file = file
        self.record = record
        self.interval = options.commitInterval
        self.bytes = max(1, options.commitBytes)
        self.state = LockedState(
            State(committedBytes: record.committedBytes, lastStart: .now, inFlight: nil, failure: nil))
    }

    /// The file holds `writtenBytes` contiguous bytes now; starts a commit if one is due.
    func bytesWritten(upTo writtenBytes: Int64) {
        let now = ContinuousClock.now
        state.withLock { state in
            guard state.inFlight == nil, writtenBytes > state.committedBytes,
                now - state.lastStart >= interval || writtenBytes - state.committedBytes >= bytes
            else { return }
            state.lastStart = now
            state.inFlight = Task { await self.commit(upTo: writtenBytes) }
        }
    }

    /// Waits for a commit in flight, then commits everything written. Returns the first commit failure.
    func finish(writtenBytes: Int64) async -> HTTPWireError? {
        if let running = state.withLock({ $0.inFlight }) { await running.value }
        if state.withLock({ $0.committedBytes }) < writtenBytes {
            await commit(upTo: writtenBytes)
        }
        return state.withLock { $0.failure }
    }

    private func commit(upTo writtenBytes: Int64) async {
        let counted = ResumeRecord(
            url: record.url, entityTag: record.entityTag, lastModified: record.lastModified,
            expectedLength: record.expectedLength, committedBytes: writtenBytes)
        let destination = file.destination
        do {
            guard let target = file.file else {
                throw HTTPWireError.localWriteFailed(path: file.partialPath, errno: EBADF)
            }
            try await DownloadPartialFile.runBlocking {
                try DownloadPartialFile.commit(target, record: counted, destination: destination)
            }
            state.withLock { state in
                state.committedBytes = max(state.committedBytes, writtenBytes)
                state.inFlight = nil
            }
        } catch {
            let failure = error as? HTTPWireError ?? .localWriteFailed(path: file.recordPath, errno: EIO)
            state.withLock { state in
                if state.failure == nil { state.failure = failure }
                state.inFlight = nil
            }
        }
    }
}
