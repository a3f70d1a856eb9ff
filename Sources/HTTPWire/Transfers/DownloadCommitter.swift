// DownloadCommitter: keeps what is on disk for a running download in step with the bytes written — a
// progress mark soon after every write, and a flushed record within a bounded delay.
// Downloads layer: decisions under a lock, one reactor timer (`Reactor.shared.schedule(at:)`), and the file
// calls of `DownloadPartialFile` and `ResumeRecord` as jobs on the BlockingWorker. It must not write body
// bytes or decide anything about the response; the transfers report what they wrote and this file keeps count.
//
// Two promises, two files:
// - **A process kill loses nothing that reached the file.** Bytes written to the part file are in the
//   kernel's page cache the moment `pwrite` or `splice` returns, and the page cache outlives the process.
//   So `markInterval` (5 ms) after a write, the counts go to the progress mark `dest.part.mark`: a record
//   stamped with the boot identifier (`BootIdentity`), rewritten in place with one pwrite and *no* fsync — no
//   rename, no disk flush. The next run on the same boot trusts it.
// - **A power loss loses at most `commitInterval` (250 ms) or `commitBytes` (64 MiB) of data.** At that
//   pace, and at once when the stream goes quiet (no byte for `quietDelay`, 50 ms), the part file is flushed
//   with fdatasync and then the record `dest.part.resume` is replaced atomically with fsync. After a reboot
//   the mark is ignored (its boot identifier no longer matches) and the record decides.
// Nothing is flushed per write: a write costs the committer one lock and, every 5 ms while bytes are pending,
// one timer.
//
// What a kill can still lose is the time between a write and its mark, so that path is short. The reactor
// timer hands the tick straight to the marks' own thread (`BlockingWorker.marks`: no task, no hop through
// the cooperative pool, no queue behind body writes), and the flush is a job of its own on the disk worker
// (`BlockingWorker.shared`), beside the ticks: an fdatasync on a busy disk can take a fifth of a second
// (measured under `stress-ng --hdd`), and the marks go on meanwhile.

import HTTPWireTransport

#if canImport(Glibc)
    import Glibc
#endif

/// Follows one transfer's progress with marks and commits; see the file's header for the schedule.
///
/// ```swift
/// let committer = DownloadCommitter(file: file, record: opened, options: options)
/// committer.update(opened.counting(file.writtenBytes))     // after every write: cheap
/// let failure = await committer.finish()                   // one last commit, however the transfer ended
/// ```
final class DownloadCommitter: Sendable {
    /// How soon after a write the progress mark counts it. Small enough that a `kill -9` costs a few
    /// few tens of kilobytes at typical speeds (5 ms of a 10 MB/s download: 50 kB); large enough that a
    /// fast download writes the mark at most two hundred times a second, a few system calls each and no
    /// flush. (20 ms was tried first: the SIGKILL torture run of `make bench` then refetched 5.0% of a
    /// 200 MiB file, because nginx sends in 2 MiB bursts and a kill just after one lost it whole.)
    static let markInterval: Duration = .milliseconds(5)
    /// How long without a new byte counts as a quiet stream, whose bytes are then flushed at once.
    static let quietDelay: Duration = .milliseconds(50)

    private struct State {
        /// The record counting every byte written so far.
        var latest: ResumeRecord
        /// The bytes the last mark counts.
        var markedBytes: Int64
        /// The bytes the last flushed record counts, and when it was written (monotonic nanoseconds).
        var durableBytes: Int64
        var lastDurable: UInt64
        /// When `latest` last grew.
        var lastProgress: UInt64
        /// The timer of the next tick; nil while none is armed.
        var timer: ReactorTimer?
        /// A tick is queued on the BlockingWorker or running there (at most one, and never with a timer).
        var isTicking = false
        /// A flush is queued or running (at most one).
        var isFlushing = false
        var isFinished = false
        var failure: HTTPWireError?
        /// The mark file, open from the first mark to `finish`, and the longest mark written to it.
        var markFile: (file: DiskFile, length: Int)?
        /// `finish`, waiting for the tick and the flush in flight to end.
        var idleWaiter: CheckedContinuation<Void, Never>?

        /// Takes the waiting `finish` once nothing is in flight any more.
        mutating func waiterIfIdle() -> CheckedContinuation<Void, Never>? {
            guard isFinished, !isTicking, !isFlushing else { return nil }
            defer { idleWaiter = nil }
            return idleWaiter
        }
    }

    /// Flushes the part file and writes the record: `DownloadPartialFile.commit`, or a test's stand-in.
    typealias Flush = @Sendable (DiskFile, ResumeRecord, String) throws -> Void

    private let file: DownloadPartialFile
    private let interval: Duration
    private let bytes: Int64
    private let flushWork: Flush
    private let state: LockedState<State>

    /// A committer for `file`, whose record `opened` was written (flushed) when the file was opened.
    /// `flush` is what a commit runs on the BlockingWorker (tests pass one that waits, to stand for a slow disk).
    init(
        file: DownloadPartialFile, record opened: ResumeRecord, options: DownloadOptions,
        flush: @escaping Flush = { file, record, destination in
            try DownloadPartialFile.commit(file, record: record, destination: destination)
        }
    ) {
        self.file = file
        self.flushWork = flush
        self.interval = options.commitInterval
        self.bytes = max(1, options.commitBytes)
        let now = Deadline.nowNanoseconds()
        self.state = LockedState(
            State(
                latest: opened, markedBytes: opened.committedBytes, durableBytes: opened.committedBytes,
                lastDurable: now, lastProgress: now))
    }

    /// The bytes the flushed record counts now.
    var durableBytes: Int64 { state.withLock { $0.durableBytes } }

    /// The transfer wrote more: `record` counts every byte now in the file (its counts never go down).
    /// Arms the timer when none is armed; never blocks and never waits.
    func update(_ record: ResumeRecord) {
        let now = Deadline.nowNanoseconds()
        let mustArm = state.withLock { state -> Bool in
            guard !state.isFinished else { return false }
            if record.committedBytes > state.latest.committedBytes { state.lastProgress = now }
            state.latest = record
            return state.timer == nil && !state.isTicking
        }
        if mustArm { arm() }
    }

    /// Schedules the next tick `markInterval` from now.
    private func arm() {
        let timer = Reactor.shared.schedule(at: .after(Self.markInterval)) { [self] in
            // On the reactor thread: queue the tick on the BlockingWorker, nothing more. None starts after
            // `finish`; the flag is set under the lock `finish` reads.
            let mustTick = state.withLock { state -> Bool in
                state.timer = nil
                guard !state.isFinished else { return false }
                state.isTicking = true
                return true
            }
            if mustTick { BlockingWorker.marks.submit { self.tick() } }
        }
        let isLate = state.withLock { state -> Bool in
            guard !state.isFinished, state.timer == nil, !state.isTicking else { return true }
            state.timer = timer
            return false
        }
        if isLate { timer.cancel() }
    }

    /// One round, on a BlockingWorker thread: mark what was written, queue a flush when one is due and
    /// none is in flight, and arm again while anything is not flushed. It never waits for the flush, so the
    /// marks keep their 5 ms pace while the disk is slow.
    private func tick() {
        let (latest, marked, durable, isDue) = state.withLock { state in
            // Read under the lock, and subtracted without wrapping: `update` may have stamped a later
            // time from another thread since this tick began.
            let now = Deadline.nowNanoseconds()
            let quiet = Self.elapsed(since: state.lastProgress, now: now) >= Self.nanoseconds(Self.quietDelay)
            let late = Self.elapsed(since: state.lastDurable, now: now) >= Self.nanoseconds(interval)
            let large = state.latest.committedBytes - state.durableBytes >= bytes
            return (state.latest, state.markedBytes, state.durableBytes, quiet || late || large)
        }
        if latest.committedBytes > marked { mark(latest) }
        let (mustFlush, mustArm, waiter) = state.withLock { state in
            state.isTicking = false
            let mustFlush =
                isDue && latest.committedBytes > durable && !state.isFlushing && !state.isFinished
                && state.failure == nil
            if mustFlush { state.isFlushing = true }
            // While a flush is in flight, only bytes still to mark need a tick: the flush re-arms when it
            // ends (an idle tick every 5 ms during a long fdatasync would only queue up on the worker).
            let hasUnmarked = state.latest.committedBytes > state.markedBytes
            let mustArm =
                !state.isFinished && state.failure == nil && state.latest.committedBytes > state.durableBytes
                && (!state.isFlushing || hasUnmarked)
            return (mustFlush, mustArm, state.waiterIfIdle())
        }
        if mustFlush { BlockingWorker.shared.submit { self.flush(latest) } }
        if mustArm { arm() }
        waiter?.resume()
    }

    /// Stops the timer, waits for a tick and a flush in flight, then flushes and records everything
    /// written and deletes the mark (the record now says as much). Returns the first commit failure, if any.
    func finish() async -> HTTPWireError? {
        let timer = state.withLock { state in
            state.isFinished = true
            defer { state.timer = nil }
            return state.timer
        }
        timer?.cancel()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isIdle = state.withLock { state -> Bool in
                guard state.isTicking || state.isFlushing else { return true }
                state.idleWaiter = continuation
                return false
            }
            if isIdle { continuation.resume() }
        }
        state.withLock { state in
            state.markFile?.file.close()
            state.markFile = nil
        }
        let (latest, durable) = state.withLock { ($0.latest, $0.durableBytes) }
        if latest.committedBytes > durable {
            let record = latest
            _ = try? await DownloadPartialFile.runBlocking { self.commit(record) }
        }
        if state.withLock({ $0.failure == nil }) {
            let markPath = file.markPath
            try? await DownloadPartialFile.runBlocking {
                try ResumeRecord.remove(atPath: markPath)
            }
        }
        return state.withLock { $0.failure }
    }

    /// Writes the progress mark for `record` in place (no flush); blocking. The file is opened, and cut to
    /// nothing, at the first mark, and stays open. Only a tick calls this, and ticks never overlap. A failure
    /// only costs the mark (the record still counts what was flushed), so it is not reported; the next tick
    /// opens the file again.
    private func mark(_ record: ResumeRecord) {
        guard let bootID = BootIdentity.current else { return }
        var current = state.withLock { $0.markFile }
        do throws(HTTPWireError) {
            if current == nil {
                let path = file.markPath
                let created = try HTTPWireError.local { () throws(TransportError) in
                    try DiskFile.open(path, for: .writing(creating: true))
                }
                current = (created, 0)  // closed below if the cut fails
                try HTTPWireError.local { () throws(TransportError) in try created.truncate(to: 0) }
            }
            guard let (target, length) = current else { return }
            let written = try record.counting(record.committedBytes, segments: record.segments, bootID: bootID)
                .writeMark(into: target, paddingTo: length)
            state.withLock { state in
                state.markFile = (target, max(length, written))
                state.markedBytes = max(state.markedBytes, record.committedBytes)
            }
        } catch {
            current?.file.close()
            state.withLock { $0.markFile = nil }
        }
    }

    /// The flush job, on a BlockingWorker thread: commits `record`, arms a tick when bytes are still not
    /// flushed and none is armed, then lets a waiting `finish` go on.
    private func flush(_ record: ResumeRecord) {
        commit(record)
        let (mustArm, waiter) = state.withLock { state in
            state.isFlushing = false
            let mustArm =
                !state.isFinished && state.failure == nil && state.latest.committedBytes > state.durableBytes
                && state.timer == nil && !state.isTicking
            return (mustArm, state.waiterIfIdle())
        }
        if mustArm { arm() }
        waiter?.resume()
    }

    /// fdatasync, then the record counting `record`'s bytes; blocking.
    private func commit(_ record: ResumeRecord) {
        let started = Deadline.nowNanoseconds()
        do {
            guard let target = file.file else {
                throw HTTPWireError.localWriteFailed(path: file.partialPath, errno: EBADF)
            }
            try flushWork(target, record, file.destination)
            state.withLock { state in
                state.durableBytes = max(state.durableBytes, record.committedBytes)
                state.lastDurable = started
            }
        } catch {
            let failure = error as? HTTPWireError ?? .localWriteFailed(path: file.recordPath, errno: EIO)
            state.withLock { state in
                if state.failure == nil { state.failure = failure }
            }
        }
    }

    /// `now - start`, or 0 when `start` is later (stamped by another thread after `now` was read).
    private static func elapsed(since start: UInt64, now: UInt64) -> UInt64 {
        now > start ? now - start : 0
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
