// DownloadTransfer: one response body moved into the part file — spliced or written in large blocks —
// with progress measured per block and the record refreshed as bytes become durable.
// Downloads layer: built on the public streaming API (`ResponseBody`) and the package `spliceNext`; disk
// calls go to the BlockingWorker through `DownloadPartialFile`. It must not decide whether to resume or
// retry (that is `Download` with `ResumePlan` and `RetryPolicy`).
//
// Two paths. A plain-HTTP body with a Content-Length goes socket → pipe → file with splice(2), never
// entering user space. Every other body is handed to a writer task through `DownloadWriteQueue`, which
// writes whatever has gathered whenever the disk is free: read straight into the queue's block when it can
// be (a Content-Length body over TLS, decrypted there; a chunked body, decoded there and written as the
// ranges between its framing), else slice by slice from the receive buffer, copied in. Either way
// every write is reported to `DownloadCommitter`, which marks it within milliseconds and flushes it within
// `commitInterval` (at once when the stream goes quiet), and one last commit runs however the transfer
// ends — success, failure, pause or cancellation — so what arrived is kept.

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
    /// Called with a progress snapshot at most once per `progressInterval` (through a
    /// ``ProgressThrottle``, so the newest one held back comes when the interval ends), and once at the end.
    let report: @Sendable (TransferProgress) -> Void

    /// The size of each of the queue's two blocks: the largest write, and with the block being written the
    /// whole memory a transfer holds (2 MiB), whatever the size of the download: 1 MiB writes already make
    /// the per-call cost negligible, and larger blocks only raised peak RSS (4 MiB blocks: 20.6 MiB for a
    /// 1 GiB chunked download against 14–15 MiB; `make bench`).
    static let blockCapacity = 1 << 20
    /// The block size for a body that arrives decrypted from TLS: half the plain size, for memory. Over TLS
    /// the body is decrypted straight into the block, one read filling as much of it as the socket holds,
    /// and each block costs a hand-off from the reader to the writer task to the disk thread and back, so
    /// the size trades memory against those wake-ups. 1 GiB over HTTPS, alternated runs: 256 KiB blocks
    /// 1.34 s of CPU, 1.40 s, 21,280 voluntary context switches, 14.4 MiB peak RSS; 512 KiB blocks 1.15 s,
    /// 1.15 s, 12,873, 14.9 MiB (12 runs each); 1 MiB blocks 16.0 MiB, over the 16 MiB the benchmark rows
    /// must stay under, and no faster in 7 runs. Plain chunked bodies keep 1 MiB, read in place up to a
    /// block at a time (when they were copied in chunk by chunk, 256 KiB blocks made that row 28% slower).
    static let encryptedBlockCapacity = 512 << 10
    /// The most one splice(2) round moves; the transport returns earlier when the socket runs dry.
    static let spliceBytes: Int64 = 16 << 20
    /// How long the writer lets a small first slice gather company before writing it.
    static let gatherDelay: Duration = .milliseconds(5)
    /// A block at least this large is written at once, without gathering.
    static let gatherBytes = 256 * 1024

    /// Reads `body` to its end into the file. Throws what reading or writing threw (a splice's write error
    /// with the part file's path); in every case the bytes that reached the file are committed first.
    /// `isEncrypted`: the body comes over TLS (it sizes the write blocks).
    func run(body: ResponseBody, canSplice: Bool, isEncrypted: Bool) async throws {
        let committer = DownloadCommitter(file: file, record: record, options: options)
        let queue = DownloadWriteQueue(blockCapacity: isEncrypted ? Self.encryptedBlockCapacity : Self.blockCapacity)
        let file = self.file
        let record = self.record
        // A child task, so it runs where the reader runs (on the reactor, for a caller that prefers it: one
        // thread then reads, hands over and bookkeeps, and only the disk write leaves it). Cancelling the
        // download cannot make it abandon bytes: its disk calls run to completion, and a cancelled gathering
        // pause only writes sooner.
        async let writing: Void = Self.writeBlocks(from: queue, to: file, record: record, committer: committer)
        let start = ContinuousClock().now
        let measure = LockedState(Measure(start: start))
        let (offset, expectedTotal) = (self.offset, self.expectedTotal)
        // A quiet spell (a stalled server) is reported too: the meter records the time that went by.
        let throttle = ProgressThrottle(
            interval: options.progressInterval, start: start,
            refresh: { measure.withLock { $0.snapshot(bytes: 0, offset: offset, expectedBytes: expectedTotal) } },
            report: report)
        var failure: (any Error)?
        do {
            try await receive(
                body: body, canSplice: canSplice, queue: queue, committer: committer, measure: measure,
                throttle: throttle)
        } catch {
            failure = error
        }
        queue.close()
        await writing
        // Bytes a failed splice had already moved are counted only now.
        committer.update(record.counting(file.writtenBytes))
        let finalCommitError = await committer.finish()
        if let failure {
            // Stopped early (a pause, a cancellation, a failure): the last progress snapshot may be up to
            // `progressInterval` old, and `.paused` reports it. Report what the record counts now, so the
            // paused offset is exactly where `resume()` will ask to continue (`wire demo` once saw a resume
            // ask for a later offset than the pause had reported).
            throttle.finish(with: TransferProgress(receivedBytes: committer.durableBytes, expectedBytes: expectedTotal))
            throw failure
        }
        if let writeFailure = queue.failure { throw writeFailure }
        if let finalCommitError { throw finalCommitError }
    }

    /// The reading side: splice when possible, else reads straight into the queue's block (a Content-Length
    /// body, over TLS decrypted in place; a chunked body decoded in place), else slices copied into the
    /// queue; progress per round.
    private func receive(
        body: ResponseBody, canSplice: Bool, queue: DownloadWriteQueue, committer: DownloadCommitter,
        measure: LockedState<Measure>, throttle: ProgressThrottle
    ) async throws {
        var iterator = body.makeAsyncIterator()
        // The budgets this transfer spends: its own limit (one per transfer) and a shared one.
        let limiters =
            [options.maxBytesPerSecond.map { DownloadRateLimiter(bytesPerSecond: $0) }, options.sharedRateLimiter]
            .compactMap { $0 }
        let spliceRound = limiters.map(\.roundBytes).min().map { min($0, Self.spliceBytes) } ?? Self.spliceBytes
        func progressed(by count: Int64, force: Bool) {
            // Offered under the measure's lock, as the throttle's quiet-spell refresh reads it: a snapshot
            // never overtakes a newer one.
            measure.withLock { measure in
                let progress = measure.snapshot(bytes: count, offset: offset, expectedBytes: expectedTotal)
                if force { throttle.finish(with: progress) } else { throttle.offer(progress) }
            }
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
                        into: target, offset: file.writtenBytes, maxBytes: spliceRound)
                } catch {
                    // Bytes the failed call had already put in the file are body, in order: keep them.
                    let file = self.file
                    try? await DownloadPartialFile.runBlocking { file.recordSplicedBeforeFailure() }
                    throw error
                }
                if let moved, moved > 0 {
                    file.recordSpliced(moved)
                    committer.update(record.counting(file.writtenBytes))
                    progressed(by: moved, force: false)
                    for limiter in limiters { try await limiter.spend(Int(moved)) }
                    continue
                }
            }
            // A Content-Length or chunked body read in place, while that applies (not while body bytes that
            // came with the head, or part of a size line, are still buffered: the iterator below hands them
            // on first). Asked first, so a block is lent only to a read that fills it: lending swaps the
            // filling block out, and slices copied in (a body delimited by closing) would otherwise each
            // get a block and a write of their own. A chunked read may hold framing only (0 body bytes).
            if !canSplice, body.canReadNextInPlace,
                let count = try await queue.receive(
                    maxBytes: Int(spliceRound),
                    { try await body.readNext(appendingTo: &$0, maxBytes: $1, pieces: &$2) })
            {
                if count > 0 {
                    progressed(by: Int64(count), force: false)
                    for limiter in limiters { try await limiter.spend(count) }
                }
                continue
            }
            guard let piece = try await iterator.nextPiece() else { break }
            try await queue.append(piece)
            progressed(by: Int64(piece.count), force: false)
            for limiter in limiters { try await limiter.spend(piece.count) }
        }
        progressed(by: 0, force: true)
    }

    /// What progress is measured from: bytes received by this transfer and their speed. Behind a lock, since
    /// the reading task and the throttle's quiet-spell refresh (on the reactor thread) both use it.
    struct Measure: Sendable {
        let start: ContinuousClock.Instant
        var meter = ThroughputMeter()
        var received: Int64 = 0

        init(start: ContinuousClock.Instant) { self.start = start }

        /// Records `bytes` received now (zero for time that went by) and returns the snapshot to report;
        /// `offset` is what the file held before this transfer.
        mutating func snapshot(bytes: Int64, offset: Int64, expectedBytes: Int64?) -> TransferProgress {
            received += bytes
            meter.record(bytes: bytes, at: ContinuousClock().now - start)
            return meter.progress(receivedBytes: offset + received, expectedBytes: expectedBytes)
        }
    }

    /// The writing side: takes whatever has gathered and writes it on the blocking worker (with the blocks
    /// that are ready when each write ends: ``writeWhileReady(_:from:to:record:committer:)``), until the
    /// queue is closed and empty or a write fails. A pause or cancellation of the download never abandons bytes
    /// already received: nothing here stops on cancellation (the disk calls run to completion).
    private static func writeBlocks(
        from queue: DownloadWriteQueue, to file: DownloadPartialFile, record: ResumeRecord,
        committer: DownloadCommitter
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
                try await DownloadPartialFile.runBlocking {
                    try writeWhileReady(block, from: queue, to: file, record: record, committer: committer)
                }
            } catch let error as HTTPWireError {
                queue.writerFailed(error)
                return
            } catch {
                queue.writerFailed(.localWriteFailed(path: file.partialPath, errno: EIO))
                return
            }
            lastWriteEnd = clock.now
        }
    }

    /// The most blocks one job on the disk thread writes before it gives the thread back (8 MiB of plain
    /// blocks), even when no other job waits for it.
    static let blocksPerDiskJob = 8

    /// On the disk thread: writes `block`, then each next block that holds bytes by the time a write ends
    /// (at most ``blocksPerDiskJob`` in all, and only while no other job waits for a disk thread, so another
    /// download's write or a commit never waits behind more than one block). The next write starts on this
    /// thread as soon as the previous one ends, with no hop back to the writer task and out again: when the
    /// disk is the slower side, the reader has filled the other block meanwhile, and the hop (a wake-up of
    /// the writer's thread, then one of the disk thread) was the gap between two writes. A 1 GiB chunked
    /// download makes half the futex calls with it (docs/benchmarks.md, "The disk writer keeps going; a socket nobody reads stays quiet").
    private static func writeWhileReady(
        _ first: DownloadBlock, from queue: DownloadWriteQueue, to file: DownloadPartialFile,
        record: ResumeRecord, committer: DownloadCommitter
    ) throws {
        var block = first
        for written in 1...blocksPerDiskJob {
            try block.withBodyPieces { try file.write($0) }
            committer.update(record.counting(file.writtenBytes))
            queue.blockWritten(block)
            guard written < blocksPerDiskJob, !BlockingWorker.shared.hasWaitingJobs,
                case .block(let next) = queue.takeBlock()
            else { return }
            block = next
        }
    }
}
