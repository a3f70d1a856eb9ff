// DownloadCommitter: keeps what is on disk for a running download in step with the bytes written — a
// progress mark soon after every write, and a flushed record within a bounded delay.
// Downloads layer: decisions under a lock, one reactor timer (`Reactor.shared.schedule(at:)`), and the file
// calls of `DownloadPartialFile` and `ResumeRecord` on the BlockingWorker. It must not write body bytes or
// decide anything about the response; the transfers report what they wrote and this file keeps count.
//
// Two promises, two files:
// - **A process kill loses nothing that reached the file.** Bytes written to the part file are in the
//   kernel's page cache the moment `pwrite` or `splice` returns, and the page cache outlives the process.
//   So `markInterval` (5 ms) after a write, the counts go to the progress mark `dest.part.mark`: a record
//   stamped with the boot identifier (`BootIdentity`), replaced by rename *without* fsync — a few system
//   calls, no disk flush. The next run on the same boot trusts it.
// - **A power loss loses at most `commitInterval` (250 ms) or `commitBytes` (64 MiB) of data.** At that
//   pace, and at once when the stream goes quiet (no byte for `quietDelay`, 50 ms), the part file is flushed
//   with fdatasync and then the record `dest.part.resume` is replaced atomically with fsync. After a reboot
//   the mark is ignored (its boot identifier no longer matches) and the record decides.
// Nothing is flushed per write: a write costs the committer one lock and, every 5 ms while bytes are pending, one timer.

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
        /// The timer of the next tick, or the tick running; at most one of the two.
        var timer: ReactorTimer?
        var tick: Task<Void, Never>?
        var isFinished = false
        var failure: HTTPWireError?
    }

    private let file: DownloadPartialFile
    private let interval: Duration
    private let bytes: Int64
    private let state: LockedState<State>

    /// A committer for `file`, whose record `opened` was written (flushed) when the file was opened.
    init(file: DownloadPartialFile, record opened: ResumeRecord, options: DownloadOptions) {
        self.file = file
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
            return state.timer == nil && state.tick == nil
        }
        if mustArm { arm() }
    }

    /// Schedules the next tick `markInterval` from now.
    private func arm() {
        let timer = Reactor.shared.schedule(at: .after(Self.markInterval)) { [self] in
            // On the reactor thread: hand the file work to a task at once. The task is stored under the
            // lock it takes first, so it cannot finish before it is recorded; none starts after `finish`.
            state.withLock { state in
                guard !state.isFinished else { return }
                state.timer = nil
                state.tick = Task { await self.tick() }
            }
        }
        let isLate = state.withLock { state -> Bool in
            guard !state.isFinished, state.timer == nil, state.tick == nil else { return true }
            state.timer = timer
            return false
        }
        if isLate { timer.cancel() }
    }

    /// One round: mark what was written, flush it when due, and arm again while anything is not flushed.
    private func tick() async {
        let (latest, marked, durable, isDue) = state.withLock { state in
            // Read under the lock, and subtracted without wrapping: `update` may have stamped a later
            // time from another thread since this tick began.
            let now = Deadline.nowNanoseconds()
            let quiet = Self.elapsed(since: state.lastProgress, now: now) >= Self.nanoseconds(Self.quietDelay)
            let late = Self.elapsed(since: state.lastDurable, now: now) >= Self.nanoseconds(interval)
            let large = state.latest.committedBytes - state.durableBytes >= bytes
            return (state.latest, state.markedBytes, state.durableBytes, quiet || late || large)
        }
        if latest.committedBytes > marked { await mark(latest) }
        if isDue, latest.committedBytes > durable { await commit(latest) }
        let mustArm = state.withLock { state -> Bool in
            state.tick = nil
            guard !state.isFinished, state.failure == nil else { return false }
            return state.latest.committedBytes > state.durableBytes
        }
        if mustArm { arm() }
    }

    /// Stops the timer, waits for a round in flight, then flushes and records everything written and
    /// deletes the mark (the record now says as much). Returns the first commit failure, if any.
    func finish() async -> HTTPWireError? {
        let (timer, tick) = state.withLock { state in
            state.isFinished = true
            defer { state.timer = nil }
            return (state.timer, state.tick)
        }
        timer?.cancel()
        await tick?.value
        let (latest, durable) = state.withLock { ($0.latest, $0.durableBytes) }
        if latest.committedBytes > durable {
            await commit(latest)
        }
        if state.withLock({ $0.failure == nil }) {
            let markPath = file.markPath
            try? await DownloadPartialFile.runBlocking {
                try ResumeRecord.remove(atPath: markPath)
            }
        }
        return state.withLock { $0.failure }
    }

    /// Writes the progress mark for `record` (no flush). A failure only costs the mark: the record still
    /// counts what was flushed, so it is not reported.
    private func mark(_ record: ResumeRecord) async {
        let path = file.markPath
        let written = try? await DownloadPartialFile.runBlocking { () -> Bool in
            guard let bootID = BootIdentity.current else { return false }
            try record.counting(record.committedBytes, segments: record.segments, bootID: bootID)
                .writeMark(toPath: path)
            return true
        }
        if written == true {
            state.withLock { $0.markedBytes = max($0.markedBytes, record.committedBytes) }
        }
    }

    /// fdatasync, then the record counting `record`'s bytes.
    private func commit(_ record: ResumeRecord) async {
        let destination = file.destination
        let started = Deadline.nowNanoseconds()
        do {
            guard let target = file.file else {
                throw HTTPWireError.localWriteFailed(path: file.partialPath, errno: EBADF)
            }
            try await DownloadPartialFile.runBlocking {
                try DownloadPartialFile.commit(target, record: record, destination: destination)
            }
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
