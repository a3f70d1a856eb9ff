// Download: the handle of one running download — its events, pause, resume, cancel and final result.
// Features layer, on the public client API. The handle owns a task that runs attempts one after another
// (`Download+Attempt.swift`): each plans from the bytes on disk, sends a GET (with `Range` and `If-Range`
// when resuming), follows the plan's decision and moves the body with `DownloadTransfer`.
//
// Pausing cancels the running attempt; the transfer commits what arrived before it stops, so a pause costs
// nothing but the connection, and `resume()` continues with a Range request. Cancelling does the same and
// ends the download with `CancellationError`, keeping the partial data for a later run. One download per
// destination: the run claims it before anything on disk is read — in this process's registry and with
// `DownloadLock` (a flock, which also keeps other processes out) — and a second one fails at once rather
// than fight over the part file. This file must not touch files itself.

import HTTPWireCodec
import HTTPWireTransport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// A download started with ``HTTPClient/download(from:to:options:)-(String,_,_)`` or
/// ``HTTPClient/download(from:toDirectory:options:)``.
///
/// ```swift
/// let download = client.download(from: "https://example.test/big.iso", to: "/tmp/big.iso")
/// Task { for await event in download.events { if case .progress(let p) = event { show(p) } } }
/// let result = try await download.result()     // result.location == "/tmp/big.iso"
/// ```
///
/// `events` is one stream for one consumer; it keeps only the newest events if the consumer falls behind,
/// and ends after the download ends. `result()` waits for the end; cancelling the task that waits cancels
/// the download (the partial data stays).
public final class Download: Sendable {
    /// Where the running download is; each case lists the next ones.
    enum Phase: Sendable {
        /// Attempts are running. Next: pausing, finished.
        case running
        /// `pause()` cancelled the attempt; the run loop has not noticed yet. Next: paused, running.
        case pausing
        /// Waiting for `resume()`. Next: running, finished.
        case paused(CheckedContinuation<Void, Never>?)
        /// Ended: succeeded, failed or cancelled. Final.
        case finished
    }

    struct Control: Sendable {
        var phase = Phase.running
        var attempt: Task<AttemptOutcome, any Error>?
        var destination: String?
        var progress = TransferProgress(receivedBytes: 0, expectedBytes: nil)
        var requests = 0
        var resumedFromBytes: Int64?
        var mustDiscard: Bool
        /// A segment request was answered with the whole file: the server ignores ranges, so this run goes
        /// on as one stream (Download+Segments.swift).
        var segmentsDisabled = false
        /// Held from the claim of the destination to the end of the run.
        var lock: DownloadLock?
    }

    /// The URL as given.
    public let url: String
    /// The request every attempt repeats (method, fields, body), with `Range` and `If-Range` added when
    /// resuming. A GET without a body, unless started with ``HTTPClient/download(_:to:options:)``.
    let request: HTTPRequest
    /// Events in the order they happened; see ``DownloadEvent``.
    public let events: AsyncStream<DownloadEvent>
    let eventSink: AsyncStream<DownloadEvent>.Continuation
    let options: DownloadOptions
    /// The directory for a name chosen from the response; nil when the destination was given.
    let directory: String?
    let client: HTTPClient
    let control: LockedState<Control>
    private let runner = LockedState<Task<DownloadResult, any Error>?>(nil)

    init(
        client: HTTPClient, request: HTTPRequest, destination: String?, directory: String?, options: DownloadOptions
    ) {
        self.client = client
        self.url = request.url
        self.request = request
        self.directory = directory
        self.options = options
        (events, eventSink) = AsyncStream.makeStream(of: DownloadEvent.self, bufferingPolicy: .bufferingNewest(256))
        control = LockedState(Control(destination: destination, mustDiscard: options.restart))
    }

    /// Starts the run loop; called once by the `HTTPClient.download` functions.
    func start() {
        // On the reactor when the caller runs there (HTTPClient.reactorExecutor), as its own requests do.
        let task = Task(executorPreference: Reactor.currentTaskPreference) { try await self.run() }
        runner.withLock { $0 = task }
    }

    // MARK: Observing

    /// The file the bytes go to: the given destination, or — for a destination directory — the name chosen
    /// from the first response (nil until then).
    public var destination: String? { control.withLock { $0.destination } }

    /// The latest progress snapshot (updated at most once per `progressInterval`, and once a second while
    /// no byte arrives, so its speed falls during a stall).
    public var progress: TransferProgress { control.withLock { $0.progress } }

    /// True while paused (after `pause()` until `resume()`).
    public var isPaused: Bool {
        control.withLock { state in
            switch state.phase {
            case .pausing, .paused: return true
            case .running, .finished: return false
            }
        }
    }

    /// Waits for the download to end and returns where the file is. Throws ``HTTPWireError`` (a non-2xx
    /// answer is `httpStatus`), or `CancellationError` after `cancel()`. Cancelling the waiting task
    /// cancels the download.
    @concurrent public func result() async throws -> DownloadResult {
        guard let task = runner.withLock({ $0 }) else { throw CancellationError() }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    // MARK: Controlling

    /// Stops the transfer after committing what arrived; the connection is closed. Does nothing when
    /// already paused or ended.
    public func pause() {
        let attempt = control.withLock { state -> Task<AttemptOutcome, any Error>? in
            guard case .running = state.phase else { return nil }
            state.phase = .pausing
            return state.attempt
        }
        attempt?.cancel()
    }

    /// Continues a paused download from the bytes on disk. Does nothing unless paused.
    public func resume() {
        let waiter = control.withLock { state -> CheckedContinuation<Void, Never>? in
            switch state.phase {
            case .pausing:
                state.phase = .running
                return nil
            case .paused(let waiter):
                state.phase = .running
                return waiter
            case .running, .finished:
                return nil
            }
        }
        waiter?.resume()
    }

    /// Stops the download for good: the partial data stays on disk for a later run, and `result()` throws
    /// `CancellationError`.
    public func cancel() {
        runner.withLock { $0 }?.cancel()
    }

    // MARK: Run loop

    /// Runs the attempts, then gives up the destination — the lock is released before the handle's
    /// `result()` returns, so a download started after it can take the destination at once.
    private func run() async throws -> DownloadResult {
        let outcome: Result<DownloadResult, any Error>
        do {
            outcome = .success(try await runAttempts())
        } catch {
            outcome = .failure(error)
        }
        let (destination, lock) = control.withLock { state in
            state.phase = .finished
            defer { state.lock = nil }
            return (state.destination, state.lock)
        }
        if let lock { _ = try? await DownloadPartialFile.runBlocking { lock.release() } }
        if let destination { Self.unregister(destination, self) }
        eventSink.finish()
        return try outcome.get()
    }

    /// Runs attempts until one finishes the file, handling pauses and retries in between.
    private func runAttempts() async throws -> DownloadResult {
        if let destination = control.withLock({ $0.destination }) {
            try await claim(destination)
            // Skip what is done: the file is there with the expected SHA-256 (Download+Existing.swift).
            if let done = try await existingCompleteFile(at: destination) {
                eventSink.yield(.finished(done))
                return done
            }
        }
        var failedAttempts = 0
        while true {
            try Task.checkCancellation()
            let attempt = Task(executorPreference: Reactor.currentTaskPreference) { try await self.attempt() }
            let isPausing = control.withLock { state in
                state.attempt = attempt
                if case .pausing = state.phase { return true }
                return false
            }
            if isPausing { attempt.cancel() }
            do {
                let outcome = try await withTaskCancellationHandler {
                    try await attempt.value
                } onCancel: {
                    attempt.cancel()
                }
                switch outcome {
                case .finished(let result):
                    eventSink.yield(.finished(result))
                    return result
                case .again:
                    continue
                }
            } catch {
                try Task.checkCancellation()
                if error is CancellationError {
                    try await waitWhilePaused()
                    continue
                }
                failedAttempts += 1
                let outcome: RetryPolicy.Outcome
                let reported: HTTPWireError
                switch error {
                case let failure as StatusFailure:
                    outcome = .status(failure.status, failure.fields)
                    reported = .httpStatus(failure.status)
                case let failure as HTTPWireError:
                    outcome = .error(failure)
                    reported = failure
                default:
                    throw error
                }
                // The one retry mechanism of HTTPWire (RetryPolicy), as every request uses it; the next attempt
                // plans from the bytes on disk, so a retry resumes.
                guard
                    let delay = retryPolicy.retryDelay(
                        afterAttempt: failedAttempts, outcome: outcome, method: request.method, deadline: .never)
                else { throw reported }
                eventSink.yield(.retrying(attempt: failedAttempts, delay: delay, error: reported))
                try await RetryPolicy.sleep(for: delay)
            }
        }
    }

    /// After an attempt was cancelled by `pause()`: reports the pause and waits for `resume()` (or returns
    /// at once when `resume()` already came).
    private func waitWhilePaused() async throws {
        let progress = control.withLock { state -> TransferProgress? in
            guard case .pausing = state.phase else { return nil }
            state.phase = .paused(nil)
            return state.progress
        }
        guard let progress else { return }
        eventSink.yield(.paused(progress))
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let isResumed = control.withLock { state in
                    guard case .paused = state.phase else { return true }
                    state.phase = .paused(continuation)
                    return false
                }
                if isResumed { continuation.resume() }
            }
        } onCancel: {
            self.resume()
        }
        try Task.checkCancellation()
        eventSink.yield(.resumed)
    }

    /// The retry policy of this download: its options', else its client's.
    var retryPolicy: RetryPolicy { options.retry ?? client.configuration.retry }

    // MARK: One download per destination

    private static let active = LockedState<[String: Download]>([:])

    /// Claims `destination` before anything on disk is read: in this process's registry (what
    /// `isDownloading` and `removeData` look up), then with the flock that also keeps other processes and
    /// differently spelled paths out. Throws `localWriteFailed(path: destination, errno: EBUSY)` at once
    /// when another download holds it; nothing has been touched then.
    func claim(_ destination: String) async throws {
        try Self.register(destination, self)
        do {
            let lock = try await DownloadPartialFile.runBlocking {
                try DownloadLock.acquire(forDestination: destination)
            }
            control.withLock { $0.lock = lock }
        } catch {
            Self.unregister(destination, self)
            throw error
        }
    }

    /// Claims `destination` for `download` in this process; `localWriteFailed(EBUSY)` when another download
    /// holds it.
    static func register(_ destination: String, _ download: Download) throws(HTTPWireError) {
        let isFree = active.withLock { downloads in
            if let current = downloads[destination], current !== download { return false }
            downloads[destination] = download
            return true
        }
        guard isFree else { throw .localWriteFailed(path: destination, errno: EBUSY) }
    }

    private static func unregister(_ destination: String, _ download: Download) {
        active.withLock { downloads in
            if downloads[destination] === download { downloads[destination] = nil }
        }
    }

    /// The active download to `destination` in this process, if any.
    static func activeDownload(to destination: String) -> Download? {
        active.withLock { $0[destination] }
    }
}

/// A status the retry policy may retry (503 with `Retry-After`, ...); becomes `httpStatus` when it does not.
struct StatusFailure: Error {
    var status: Int
    var fields: HTTPFields
}
