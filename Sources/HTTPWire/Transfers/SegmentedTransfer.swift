// SegmentedTransfer: one file filled over several connections at once — each connection sends a Range
// request for its segment and writes the 206's body at the segment's own offset.
// Downloads layer: on the public client API (`HTTPClient.stream`) like every transfer, with the package
// `spliceNext`; disk writes go to the BlockingWorker through `DownloadPartialFile`. It must not decide
// whether to segment, and never renames or discards files: `Download+Segments.swift` does, from its outcome.
//
// The rules, from RFC 9110:
// - §14.2: each request is `Range: bytes=FIRST-LAST` for what its segment still misses.
// - §13.1.5: every request carries `If-Range` with the strong entity tag of the first response (§8.8.1:
//   only a strong validator promises byte-for-byte the same representation, which is what splicing pieces
//   from several responses needs). A changed file then answers 200 with the whole new representation.
// - §15.3.7 and §14.4: a 206 is used only when its `Content-Range` starts exactly at the asked byte and
//   names the same complete length, and its `ETag` (when sent) matches strongly; anything else stops every
//   connection and the download starts over, like a single stream does.
//
// With a probe (``DownloadOptions/segmentProbe``), a fresh download starts with one segment, the whole file,
// on the first connection alone; a joiner task looks at its rate every probe interval and, once the rest
// would take more than `worthwhileSeconds`, cuts what the first connection has not reached
// (`SegmentPlan.split`) and starts the other connections. It stops looking as soon as the first connection
// is done.
//
// Connections work independently: one that fails gives its segment back and stops (another connection or
// the next attempt continues it from its count); the transfer throws only when none is left and bytes are
// missing. Every write is counted in the shared `SegmentPlan` and handed to one `DownloadCommitter`, so the
// record's segment lines follow the bytes on disk on the same schedule as a single stream's count.

import HTTPWireCodec
import HTTPWireTransport

#if canImport(Glibc)
    import Glibc
#endif

/// Fills a part file opened at full length with ``DownloadPartialFile/openSegmented(length:record:hashing:)``.
struct SegmentedTransfer: Sendable {
    /// How a segmented transfer ended, when it did not throw.
    enum Outcome: Sendable {
        /// Every segment is complete.
        case complete(head: ResponseHead)
        /// A server answer means the bytes cannot be combined: discard them and start over.
        case restart(ResumeRestartCause.RestartReason)
    }

    /// What the connections share: the plan, and why they stopped.
    private struct Shared {
        var plan: SegmentPlan
        var restart: ResumeRestartCause.RestartReason?
        var failure: (any Error)?
        var head: ResponseHead?
        var meter = ThroughputMeter()

        /// Records `bytes` written at `time` (zero for time that went by) and returns the snapshot to report:
        /// the plan's committed bytes of `length`, the meter's speed.
        mutating func progress(recording bytes: Int64, at time: Duration, length: Int64) -> TransferProgress {
            meter.record(bytes: bytes, at: time)
            return meter.progress(receivedBytes: plan.committedBytes, expectedBytes: length)
        }
    }

    /// The GET of the download (its fields and options); `Range` and `If-Range` are added per segment.
    let request: HTTPRequest
    let client: HTTPClient
    let file: DownloadPartialFile
    /// The record as written at open: validators and length; the committer's copies add the segments.
    let record: ResumeRecord
    /// How many connections run at once.
    let connections: Int
    let options: DownloadOptions
    /// Called once per request sent, for ``DownloadResult/requests``.
    let countRequest: @Sendable () -> Void
    /// Called with a progress snapshot at most once per `progressInterval` (through a
    /// ``ProgressThrottle``, so the newest one held back comes when the interval ends), and once at the end.
    let report: @Sendable (TransferProgress) -> Void

    /// The least time the rest of a download must still need, at the first connection's rate, for more
    /// connections to be worth their connects and requests.
    static let worthwhileSeconds = 1.0

    /// Runs the connections until every segment is complete, a server answer asks for a restart, or all
    /// connections failed (then it throws the first failure). `first` is the 200 that started the download,
    /// whose body is the first segment's bytes from zero; nil when resuming from a record. However it ends,
    /// every byte that reached the file is committed before this returns.
    func run(plan: SegmentPlan, first: HTTPStreamingResponse?) async throws -> Outcome {
        let length = record.expectedLength ?? 0
        let clock = ContinuousClock()
        let start = clock.now
        let shared = LockedState(Shared(plan: plan))
        // A quiet spell (every connection stalled) is reported too, with the time that went by recorded.
        let throttle = ProgressThrottle(
            interval: options.progressInterval, start: start,
            refresh: {
                shared.withLock { $0.progress(recording: 0, at: clock.now - start, length: length) }
            },
            report: report)
        let committer = DownloadCommitter(
            file: file, record: record.counting(0, segments: plan.segments), options: options)
        let limiters =
            [options.maxBytesPerSecond.map { DownloadRateLimiter(bytesPerSecond: $0) }, options.sharedRateLimiter]
            .compactMap { $0 }
        let worker = Worker(
            transfer: self, shared: shared, committer: committer, limiters: limiters, clock: clock, start: start,
            length: length, throttle: throttle)
        let firstAssignment = first == nil ? nil : shared.withLock { $0.plan.assignment() }
        // A plan of one segment for a first response: the others join once the probe says so.
        let isProbing = first != nil && plan.parts.count == 1 && connections > 1
        let probeClock = ProbeClock()
        await withTaskGroup(of: Void.self) { group in
            if isProbing {
                let probe = options.segmentProbe
                group.addTask {
                    guard await worker.waitToJoin(every: probe, clock: probeClock, connections: connections) else {
                        return
                    }
                    await withTaskGroup(of: Void.self) { joined in
                        for _ in 1..<connections { joined.addTask { await worker.work(first: nil, assignment: nil) } }
                    }
                }
            } else {
                for _ in 0..<(first == nil ? connections : connections - 1) {
                    group.addTask { await worker.work(first: nil, assignment: nil) }
                }
            }
            // The first response is not Sendable: its connection works in this task.
            if let first, let firstAssignment { await worker.work(first: first, assignment: firstAssignment) }
            probeClock.close()
            await group.waitForAll()
        }
        let (segments, restart, failure, head, committed) = shared.withLock { state in
            (state.plan.segments, state.restart, state.failure, state.head, state.plan.committedBytes)
        }
        committer.update(record.counting(0, segments: segments))
        let commitFailure = await committer.finish()
        throttle.finish(with: TransferProgress(receivedBytes: committed, expectedBytes: length))
        if let restart { return .restart(restart) }
        if let commitFailure { throw commitFailure }
        if committed < length {
            try Task.checkCancellation()
            throw failure ?? HTTPWireError.bodyTruncated(expected: length, received: committed)
        }
        return .complete(
            head: head ?? ResponseHead(version: .http1_1, status: 206, reason: "Partial Content", fields: [:]))
    }

    /// One connection's loop, shared by all of them (each runs `work` in its own task).
    private struct Worker: Sendable {
        /// The most one splice round moves, and so the most a connection reserves ahead of its bytes.
        static let roundBytes = SegmentPlan.minimumSegmentBytes
        let transfer: SegmentedTransfer
        let shared: LockedState<Shared>
        let committer: DownloadCommitter
        let limiters: [DownloadRateLimiter]
        let clock: ContinuousClock
        let start: ContinuousClock.Instant
        let length: Int64
        let throttle: ProgressThrottle

        /// Takes assignments until there is nothing worth taking, a restart is asked for, or a request
        /// fails (then the segment goes back to the plan and this connection stops).
        func work(first: HTTPStreamingResponse?, assignment: SegmentPlan.Assignment?) async {
            var pending = first
            var current = assignment ?? nextAssignment()
            while let work = current {
                do {
                    let response: HTTPStreamingResponse
                    if let first = pending {
                        response = first
                        pending = nil
                    } else {
                        guard let accepted = try await requestSegment(work) else {
                            shared.withLock { $0.plan.released(work.id) }
                            return
                        }
                        response = accepted
                    }
                    try await receive(response.body, into: work)
                    shared.withLock { $0.plan.released(work.id) }
                } catch {
                    shared.withLock { state in
                        state.plan.released(work.id)
                        if state.failure == nil, !(error is CancellationError) { state.failure = error }
                    }
                    return
                }
                current = nextAssignment()
            }
        }

        /// Waits while the first connection runs alone, looking at its rate every `probe`: true once the rest
        /// of the file would take it more than `worthwhileSeconds` and the plan was cut for `connections`;
        /// false when the first connection is done first, or a restart was asked for.
        func waitToJoin(every probe: Duration, clock probeClock: ProbeClock, connections: Int) async -> Bool {
            while await probeClock.wait(probe) {
                let elapsed = clock.now - start
                let decision = shared.withLock { state -> Bool? in
                    guard state.restart == nil, !state.plan.isComplete else { return false }
                    let done = Double(state.plan.committedBytes)
                    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
                    // No byte yet is the slowest start of all: more connections can only help.
                    if done > 0, seconds > 0,
                        (Double(length) - done) / (done / seconds) < SegmentedTransfer.worthwhileSeconds
                    {
                        return nil
                    }
                    return state.plan.split(into: connections)
                }
                if let decision { return decision }
            }
            return false
        }

        /// The next segment for this connection; nil once the transfer stops or nothing is worth taking.
        private func nextAssignment() -> SegmentPlan.Assignment? {
            shared.withLock { state in
                guard state.restart == nil, !Task.isCancelled else { return nil }
                return state.plan.assignment()
            }
        }

        /// Sends the Range request for `work` and checks the answer; nil when it asked for a restart (the
        /// reason is in the shared state).
        private func requestSegment(_ work: SegmentPlan.Assignment) async throws -> HTTPStreamingResponse? {
            var sent = transfer.request
            sent.fields.remove(name: "Range")
            sent.fields.remove(name: "If-Range")
            if let range = ByteRange(first: work.range.lowerBound, last: work.range.upperBound - 1) {
                sent.fields.append(name: "Range", value: range.headerValue)
            }
            if let entityTag = transfer.record.entityTag { sent.fields.append(name: "If-Range", value: entityTag) }
            transfer.countRequest()
            let response = try await transfer.client.stream(sent)
            let status = response.status.rawValue
            if let reason = restartReason(status: status, fields: response.fields, asked: work.range) {
                shared.withLock { state in
                    if state.restart == nil { state.restart = reason }
                }
                return nil
            }
            guard status == 206 else { throw StatusFailure(status: status, fields: response.fields) }
            let head = Download.head(of: response)
            shared.withLock { state in
                if state.head == nil { state.head = head }
            }
            return response
        }

        /// Why the answer to a segment's request means starting over, or nil when it can be used (a 206
        /// that fits) or is an error status (the caller throws it).
        private func restartReason(
            status: Int, fields: HTTPFields, asked: Range<Int64>
        ) -> ResumeRestartCause.RestartReason? {
            switch status {
            case 200:
                // RFC 9110 §13.1.5: the If-Range tag no longer matches, or the server ignores Range now.
                let tag = fields["ETag"]
                return tag == transfer.record.entityTag ? .rangeIgnored : .representationChanged
            case 206:
                let value = fields["Content-Range"] ?? ""
                guard let contentRange = try? ContentRange(parsing: value), let range = contentRange.range,
                    range.lowerBound == asked.lowerBound
                else {
                    let received = (try? ContentRange(parsing: value))?.range?.lowerBound ?? -1
                    return .unexpectedRangeStart(expected: asked.lowerBound, received: received)
                }
                if let received = contentRange.completeLength, received != length {
                    return .lengthChanged(expected: length, received: received)
                }
                if let recorded = transfer.record.entityTag.flatMap(EntityTag.init),
                    let received = fields["ETag"],
                    !(EntityTag(received).map { recorded.matches($0, strongly: true) } ?? false)
                {
                    return .representationChanged
                }
                return nil
            case 416:
                let contentRange = fields["Content-Range"].flatMap { try? ContentRange(parsing: $0) }
                return .notSatisfiable(completeLength: contentRange?.completeLength)
            default:
                return nil
            }
        }

        /// Writes the body at the segment's offsets until the segment's (possibly lowered) end; the rest of
        /// the body is dropped, which closes its connection. Plain-HTTP bodies are spliced.
        private func receive(_ body: ResponseBody, into work: SegmentPlan.Assignment) async throws {
            guard let disk = transfer.file.file else {
                throw HTTPWireError.localWriteFailed(path: transfer.file.partialPath, errno: EBADF)
            }
            let canSplice = transfer.options.allowsZeroCopy && body.expectedBytes != nil
            // One round is also what a reservation holds against steals: 1 MiB keeps the rest stealable.
            let round = limiters.map(\.roundBytes).min().map { min($0, Self.roundBytes) } ?? Self.roundBytes
            var next = work.range.lowerBound
            var iterator = body.makeAsyncIterator()
            var received: Int64 = 0
            while true {
                if shared.withLock({ $0.restart != nil }) { return }
                if canSplice {
                    let end = shared.withLock { $0.plan.reserve(work.id, upTo: next + round) }
                    if end <= next {
                        // Segment done. A body read to its end is finished so its connection is reused.
                        if let expected = body.expectedBytes, body.receivedBytes >= expected {
                            _ = try? await iterator.nextPiece()
                        }
                        return
                    }
                    if let moved = try await body.spliceNext(into: disk, offset: next, maxBytes: end - next), moved > 0
                    {
                        try await wrote(moved, of: work, at: &next)
                        received += moved
                        continue
                    }
                }
                guard let piece = try await iterator.nextPiece() else { break }
                let end = shared.withLock { $0.plan.reserve(work.id, upTo: next + Int64(piece.count)) }
                let count = Int(max(0, end - next))
                if count > 0 {
                    let offset = next
                    let bytes = piece.prefix(count)
                    try await DownloadPartialFile.runBlocking {
                        try bytes.withUnsafeBytes { buffer in
                            Result { () throws(HTTPWireError) in
                                try DownloadPartialFile.write(buffer, at: offset, to: disk)
                            }
                        }.get()
                    }
                    try await wrote(Int64(count), of: work, at: &next)
                    received += Int64(count)
                }
                if count < piece.count { return }
            }
            // A 206 may carry less than asked (a server capping range sizes): the plan hands the rest out
            // again. One that carried nothing would be asked again for ever.
            if received == 0 {
                throw HTTPWireError.bodyTruncated(expected: work.range.upperBound - work.range.lowerBound, received: 0)
            }
        }

        /// Counts `count` bytes just written at `next`, tells the committer, reports progress, and spends
        /// the rate limits.
        private func wrote(_ count: Int64, of work: SegmentPlan.Assignment, at next: inout Int64) async throws {
            next += count
            let now = clock.now
            shared.withLock { state in
                state.plan.wrote(work.id, bytes: count)
                // Under the lock, so neither the committer nor the throttle ever sees an older snapshot
                // after a newer one.
                committer.update(transfer.record.counting(0, segments: state.plan.segments))
                throttle.offer(state.progress(recording: count, at: now - start, length: length))
            }
            for limiter in limiters { try await limiter.spend(Int(count)) }
        }
    }
}

/// The joiner's clock: `wait` returns true when the interval has passed on the reactor's timer, false at
/// once when the first connection is done (``close()``), so a download that one stream finished never
/// waits for the end of a probe interval.
final class ProbeClock: Sendable {
    private struct State {
        var isClosed = false
        var waiter: CheckedContinuation<Bool, Never>?
        var timer: ReactorTimer?
    }
    private let state = LockedState(State())

    /// Waits `interval`; true when it passed, false when the clock was closed first (or already).
    func wait(_ interval: Duration) async -> Bool {
        await withCheckedContinuation { continuation in
            let isClosed = state.withLock { state -> Bool in
                guard !state.isClosed else { return true }
                state.waiter = continuation
                return false
            }
            if isClosed {
                continuation.resume(returning: false)
                return
            }
            let timer = Reactor.shared.schedule(at: .after(interval)) { [self] in
                state.withLock { state in
                    defer {
                        state.waiter = nil
                        state.timer = nil
                    }
                    return state.waiter
                }?.resume(returning: true)
            }
            // The timer may have fired, or `close` come, before it could be stored.
            let isLate = state.withLock { state -> Bool in
                guard state.waiter != nil else { return true }
                state.timer = timer
                return false
            }
            if isLate { timer.cancel() }
        }
    }

    /// Ends every wait, now and later.
    func close() {
        let (waiter, timer) = state.withLock { state in
            defer {
                state.isClosed = true
                state.waiter = nil
                state.timer = nil
            }
            return (state.waiter, state.timer)
        }
        timer?.cancel()
        waiter?.resume(returning: false)
    }
}
