// DownloadManager: one object that owns many downloads — a queue with limits (overall and per host) and
// priorities, per-item state, pause/resume/cancel/remove per item and for all, progress streams, and a
// catalogue on disk so that after a restart or a SIGKILL every item comes back.
// Downloads layer: built on `HTTPClient.download` (each item is an ordinary `Download`, with its own part
// file, resume record and lock) and `DownloadCatalogue`; decisions under one `LockedState`, file work on
// the BlockingWorker. It must not move body bytes or decide about resuming: `Download` does both.
//
// Order of effects: a state change is made under the lock, then the catalogue snapshot taken under that
// same lock is queued for writing, so catalogue writes happen in the order of the changes they record.
// An item occupies a slot from the moment its `Download` starts until that download has ended — also
// while a paused one is still committing its last bytes — so two downloads never fight over a part file.

import HTTPWireCodec
import HTTPWireTransport

#if canImport(Glibc)
    import Glibc
#endif

/// Many downloads with limits, priorities, progress and a persisted catalogue.
///
/// ```swift
/// let manager = try await DownloadManager(client: client, catalogueDirectory: "/var/lib/app/downloads")
/// let id = try await manager.add(from: "https://example.test/big.iso", to: "/data/big.iso")
/// Task { for await total in manager.aggregateProgress { print(total.fraction ?? 0) } }
/// manager.pause(id)
/// manager.resume(id)
/// await manager.waitUntilIdle()        // nothing queued or running
/// ```
///
/// After a restart, `init` reads the catalogue: items that were queued or running are queued again (and
/// resume from their part files), paused and cancelled ones stay so, completed ones stay completed, and a
/// failed one comes back paused. The catalogue keeps identity, URL, destination, priority and state; each
/// item's `DownloadOptions` are not stored, and restored items use `defaultOptions`.
public final class DownloadManager: Sendable {
    private struct Entry {
        var item: DownloadManagerItem
        var options: DownloadOptions
        /// The running download, until it has ended (also after a pause, while it commits).
        var download: Download?
        var watchers: [Int: AsyncStream<TransferProgress>.Continuation] = [:]
    }

    private struct State {
        var entries: [DownloadManagerItem.ID: Entry] = [:]
        var nextID = 1
        var nextWatcher = 0
        var aggregateWatchers: [Int: AsyncStream<TransferProgress>.Continuation] = [:]
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        /// The last catalogue write queued; each waits for the one before.
        var lastWrite: Task<Void, Never>?
        var writeFailure: HTTPWireError?
    }

    /// The client every item's download uses.
    public let client: HTTPClient
    /// The directory holding the catalogue (`downloads.catalogue`).
    public let catalogueDirectory: String
    /// The most items running at once. Default 3.
    public let maxRunning: Int
    /// The most items running at once against one host. Default 2, like a browser's polite limit for
    /// large transfers: more connections to one server mostly compete with each other.
    public let maxRunningPerHost: Int
    /// The options of items added without options, and of items restored from the catalogue.
    public let defaultOptions: DownloadOptions
    /// The budget all running items share, from `maxBytesPerSecond` (aria2's
    /// `--max-overall-download-limit`); nil for none.
    public let overallRateLimiter: DownloadRateLimiter?
    private let state = LockedState(State())

    /// A manager whose catalogue lives in `catalogueDirectory` (created by the app). Reads the catalogue
    /// when there is one and starts what was queued or running. Throws
    /// ``HTTPWireError/localReadFailed(path:errno:)`` with `EBADMSG` (74) when the catalogue is torn or not
    /// one of ours — the file is left untouched, so no item is lost; move it away to start empty.
    @concurrent public init(
        client: HTTPClient, catalogueDirectory: String, maxRunning: Int = 3, maxRunningPerHost: Int = 2,
        maxBytesPerSecond: Int64? = nil, defaultOptions: DownloadOptions = DownloadOptions()
    ) async throws {
        self.overallRateLimiter = maxBytesPerSecond.map { DownloadRateLimiter(bytesPerSecond: $0) }
        self.client = client
        self.catalogueDirectory = catalogueDirectory
        self.maxRunning = max(1, maxRunning)
        self.maxRunningPerHost = max(1, maxRunningPerHost)
        self.defaultOptions = defaultOptions
        let directory = catalogueDirectory
        let catalogue = try await DownloadPartialFile.runBlocking { () throws -> DownloadCatalogue? in
            var reason: String?
            return try DownloadCatalogue.load(fromDirectory: directory, reason: &reason)
        }
        state.withLock { state in
            for entry in catalogue?.entries ?? [] {
                let restored: DownloadManagerItem.State
                switch entry.state {
                case .queued: restored = .queued
                case .paused, .failed: restored = .paused
                case .cancelled: restored = .cancelled
                case .completed:
                    restored = .completed(
                        bytes: entry.bytes ?? 0, sha256: entry.sha256.flatMap { SHA256Digest(hex: $0) })
                }
                let id = DownloadManagerItem.ID(rawValue: entry.id)
                let received: Int64 = if case .completed(let bytes, _) = restored { bytes } else { 0 }
                state.entries[id] = Entry(
                    item: DownloadManagerItem(
                        id: id, url: entry.url, destination: entry.destination, priority: entry.priority,
                        state: restored, progress: TransferProgress(receivedBytes: received, expectedBytes: nil)),
                    options: defaultOptions)
                state.nextID = max(state.nextID, entry.id + 1)
            }
        }
        startDue()
    }

    // MARK: Items

    /// Every item, in the order they were added.
    public var items: [DownloadManagerItem] {
        state.withLock { $0.entries.values.map(\.item).sorted { $0.id < $1.id } }
    }

    /// The item with `id`, nil once removed.
    public func item(_ id: DownloadManagerItem.ID) -> DownloadManagerItem? {
        state.withLock { $0.entries[id]?.item }
    }

    /// Adds a download of `url` to the absolute path `destination` and queues it. Skip what is done: when
    /// an item for the same URL and destination exists, its id is returned and nothing is fetched again
    /// (a completed one stays completed; a paused one stays paused). A destination that another item of
    /// a different URL uses fails with `localWriteFailed(path:errno: EEXIST)`, never replacing its file.
    @concurrent public func add(
        from url: String, to destination: String, priority: Int = 0, options: DownloadOptions? = nil
    ) async throws -> DownloadManagerItem.ID {
        guard destination.hasPrefix("/") else { throw HTTPWireError.invalidRequest("destination must be absolute") }
        let added = try state.withLock { state throws(HTTPWireError) -> DownloadManagerItem.ID in
            if let existing = state.entries.values.first(where: { $0.item.destination == destination }) {
                guard existing.item.url == url else { throw .localWriteFailed(path: destination, errno: EEXIST) }
                return existing.item.id
            }
            let id = DownloadManagerItem.ID(rawValue: state.nextID)
            state.nextID += 1
            state.entries[id] = Entry(
                item: DownloadManagerItem(
                    id: id, url: url, destination: destination, priority: priority, state: .queued,
                    progress: TransferProgress(receivedBytes: 0, expectedBytes: nil)),
                options: options ?? defaultOptions)
            queueCatalogueWrite(&state)
            return id
        }
        startDue()
        return added
    }

    // MARK: Control

    /// Stops a queued or running item, keeping its bytes; ``resume(_:)`` continues it with a Range request.
    public func pause(_ id: DownloadManagerItem.ID) { stop(id, as: .paused) }

    /// Stops a queued or running item for good (until resumed), keeping its bytes on disk.
    public func cancel(_ id: DownloadManagerItem.ID) { stop(id, as: .cancelled) }

    /// Queues a paused, cancelled or failed item again.
    public func resume(_ id: DownloadManagerItem.ID) {
        state.withLock { state in
            guard var entry = state.entries[id] else { return }
            switch entry.item.state {
            case .paused, .cancelled, .failed:
                entry.item.state = .queued
                state.entries[id] = entry
                queueCatalogueWrite(&state)
            case .queued, .running, .completed:
                return
            }
        }
        startDue()
    }

    /// Removes an item: stops it, deletes its file, part file and records (``Download/removeData(destination:)``)
    /// and drops it from the catalogue.
    @concurrent public func remove(_ id: DownloadManagerItem.ID) async throws {
        let removed = state.withLock { state -> Entry? in
            guard let entry = state.entries.removeValue(forKey: id) else { return nil }
            queueCatalogueWrite(&state)
            return entry
        }
        guard let removed else { return }
        for watcher in removed.watchers.values { watcher.finish() }
        if let download = removed.download {
            download.cancel()
            _ = try? await download.result()
        }
        try await Download.removeData(destination: removed.item.destination)
        startDue()
        publishAggregate()
    }

    /// ``pause(_:)`` for every item.
    public func pauseAll() { for item in items { pause(item.id) } }
    /// ``resume(_:)`` for every item.
    public func resumeAll() { for item in items { resume(item.id) } }
    /// ``cancel(_:)`` for every item.
    public func cancelAll() { for item in items { cancel(item.id) } }
    /// ``remove(_:)`` for every item.
    @concurrent public func removeAll() async throws { for item in items { try await remove(item.id) } }

    private func stop(_ id: DownloadManagerItem.ID, as stopped: DownloadManagerItem.State) {
        let download = state.withLock { state -> Download? in
            guard var entry = state.entries[id] else { return nil }
            switch entry.item.state {
            case .queued, .running:
                entry.item.state = stopped
                state.entries[id] = entry
                queueCatalogueWrite(&state)
                return entry.download
            case .paused, .cancelled, .failed, .completed:
                return nil
            }
        }
        download?.cancel()
        notifyIfIdle()
    }

    // MARK: Progress

    /// Progress snapshots of one item as its download reports them (at most ten a second by default),
    /// ending when the item is removed or the manager goes away. Keeps only the newest when the consumer
    /// is slow.
    public func progress(of id: DownloadManagerItem.ID) -> AsyncStream<TransferProgress> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: TransferProgress.self, bufferingPolicy: .bufferingNewest(1))
        let isKnown = state.withLock { state -> Bool in
            guard state.entries[id] != nil else { return false }
            state.nextWatcher += 1
            state.entries[id]?.watchers[state.nextWatcher] = continuation
            return true
        }
        if !isKnown { continuation.finish() }
        return stream
    }

    /// The sum over all items: bytes received, the total when every item's is known, and the summed
    /// speed; the time left is the remaining bytes at that speed. A new snapshot follows every item's.
    public var aggregateProgress: AsyncStream<TransferProgress> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: TransferProgress.self, bufferingPolicy: .bufferingNewest(1))
        state.withLock { state in
            state.nextWatcher += 1
            state.aggregateWatchers[state.nextWatcher] = continuation
            continuation.yield(Self.aggregate(state))
        }
        return stream
    }

    private static func aggregate(_ state: State) -> TransferProgress {
        let items = state.entries.values.map(\.item)
        let received = items.reduce(Int64(0)) { $0 + $1.progress.receivedBytes }
        let totals = items.map { item -> Int64? in
            if case .completed(let bytes, _) = item.state { return bytes }
            return item.progress.expectedBytes
        }
        let expected: Int64? = totals.contains(nil) ? nil : totals.reduce(0) { $0 + ($1 ?? 0) }
        let speeds = items.compactMap { item -> Double? in
            guard case .running = item.state else { return nil }
            return item.progress.bytesPerSecond
        }
        let speed: Double? = speeds.isEmpty ? nil : speeds.reduce(0, +)
        var remaining: Duration?
        if let expected, let speed, speed > 0 {
            remaining = .milliseconds(Int64(Double(max(0, expected - received)) / speed * 1000))
        }
        return TransferProgress(
            receivedBytes: received, expectedBytes: expected, bytesPerSecond: speed, estimatedTimeRemaining: remaining)
    }

    private func publishAggregate() {
        state.withLock { state in
            let snapshot = Self.aggregate(state)
            for watcher in state.aggregateWatchers.values { watcher.yield(snapshot) }
        }
    }

    /// Waits until no item is queued or running (every one completed, failed, paused or cancelled), and
    /// the catalogue recording that is on disk.
    @concurrent public func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let isIdle = state.withLock { state in
                if Self.isIdle(state) { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if isIdle { continuation.resume() }
        }
        await flushCatalogue()
    }

    /// Waits until every catalogue write queued so far is on disk; returns the first write failure.
    @discardableResult
    @concurrent public func flushCatalogue() async -> HTTPWireError? {
        let write = state.withLock { $0.lastWrite }
        await write?.value
        return state.withLock { $0.writeFailure }
    }

    private static func isIdle(_ state: State) -> Bool {
        state.entries.values.allSatisfy { entry in
            switch entry.item.state {
            case .queued, .running: return false
            case .paused, .cancelled, .failed, .completed: return entry.download == nil
            }
        }
    }

    private func notifyIfIdle() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard Self.isIdle(state) else { return [] }
            defer { state.idleWaiters = [] }
            return state.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    // MARK: Scheduling

    /// Starts queued items while slots are free: highest priority first, then the oldest, skipping items
    /// whose host is at its limit.
    private func startDue() {
        let started = state.withLock { state -> [(DownloadManagerItem.ID, Download)] in
            var occupied = state.entries.values.filter { $0.download != nil }
            let queued = state.entries.values.filter { entry in
                if case .queued = entry.item.state, entry.download == nil { return true }
                return false
            }.sorted { ($0.item.priority, -$0.item.id.rawValue) > ($1.item.priority, -$1.item.id.rawValue) }
            var started: [(DownloadManagerItem.ID, Download)] = []
            for candidate in queued where occupied.count < maxRunning {
                let host = Self.host(of: candidate.item.url)
                guard occupied.filter({ Self.host(of: $0.item.url) == host }).count < maxRunningPerHost else {
                    continue
                }
                var entry = candidate
                var options = entry.options
                if options.sharedRateLimiter == nil { options.sharedRateLimiter = overallRateLimiter }
                let download = client.download(from: entry.item.url, to: entry.item.destination, options: options)
                entry.download = download
                entry.item.state = .running
                state.entries[entry.item.id] = entry
                occupied.append(entry)
                started.append((entry.item.id, download))
            }
            if !started.isEmpty { queueCatalogueWrite(&state) }
            return started
        }
        for (id, download) in started {
            Task { await self.follow(id, download) }
        }
    }

    /// Forwards one download's progress and records how it ended.
    private func follow(_ id: DownloadManagerItem.ID, _ download: Download) async {
        for await event in download.events {
            guard case .progress(let progress) = event else { continue }
            state.withLock { state in
                guard state.entries[id]?.download === download else { return }
                state.entries[id]?.item.progress = progress
                for watcher in state.entries[id]?.watchers.values.map({ $0 }) ?? [] { watcher.yield(progress) }
            }
            publishAggregate()
        }
        let outcome: Result<DownloadResult, any Error>
        do {
            outcome = .success(try await download.result())
        } catch {
            outcome = .failure(error)
        }
        state.withLock { state in
            guard var entry = state.entries[id], entry.download === download else { return }
            entry.download = nil
            switch outcome {
            case .success(let result):
                entry.item.state = .completed(bytes: result.bytes, sha256: result.sha256)
                entry.item.progress = TransferProgress(receivedBytes: result.bytes, expectedBytes: result.bytes)
            case .failure(let error as HTTPWireError):
                if case .running = entry.item.state {
                    entry.item.state = .failed(error, isRetryable: RetryPolicy.isRetryable(error))
                }
            case .failure:
                // Cancelled: by pause, cancel or remove, which set the state first, or from outside (the
                // client shut down), which leaves the bytes as a pause does.
                if case .running = entry.item.state { entry.item.state = .paused }
            }
            state.entries[id] = entry
            for watcher in entry.watchers.values { watcher.yield(entry.item.progress) }
            queueCatalogueWrite(&state)
        }
        publishAggregate()
        startDue()
        notifyIfIdle()
    }

    private static func host(of url: String) -> String {
        (try? TargetURL(url))?.host.lowercased() ?? url
    }

    // MARK: Catalogue

    /// Snapshots the items and queues the write after the previous one. Called under the lock.
    private func queueCatalogueWrite(_ state: inout State) {
        let catalogue = DownloadCatalogue(
            entries: state.entries.values.sorted { $0.item.id < $1.item.id }.map { entry in
                let persisted: DownloadCatalogue.PersistedState
                var bytes: Int64?
                var sha256: String?
                switch entry.item.state {
                case .queued, .running: persisted = .queued
                case .paused: persisted = .paused
                case .cancelled: persisted = .cancelled
                case .failed: persisted = .failed
                case .completed(let size, let digest):
                    persisted = .completed
                    bytes = size
                    sha256 = digest?.hexString
                }
                return DownloadCatalogue.Entry(
                    id: entry.item.id.rawValue, url: entry.item.url, destination: entry.item.destination,
                    priority: entry.item.priority, state: persisted, bytes: bytes, sha256: sha256)
            })
        let previous = state.lastWrite
        let directory = catalogueDirectory
        state.lastWrite = Task { [weak self] in
            await previous?.value
            do {
                try await DownloadPartialFile.runBlocking { try catalogue.write(toDirectory: directory) }
            } catch {
                let failure = error as? HTTPWireError ?? .localWriteFailed(path: directory, errno: EIO)
                self?.state.withLock { state in
                    if state.writeFailure == nil { state.writeFailure = failure }
                }
            }
        }
    }
}
