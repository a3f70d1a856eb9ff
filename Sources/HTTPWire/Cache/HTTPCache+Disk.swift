// HTTPCache+Disk: a persistent cache's files — reading them back at launch, and writing and removing them
// as the memory changes (client layer, cache).
//
// The memory is the cache; the directory is its copy for the next process. Each stored response is one file
// (`CacheEntryFile`), named by the SHA-256 of its URL and selecting fields, replaced atomically (written to
// `NAME.tmp`, renamed over `NAME`) so a process killed at any instant leaves the old file or the new one.
// There is no fsync: after a power loss a file may be lost or empty, and an empty or damaged file is simply
// not a response — it is deleted when the cache is opened, and the server is asked again. Writes are best
// effort (a full disk loses the copy, never the response in memory) and run in order on one
// `BlockingWorker` thread at a time, off the cooperative pool: a store never waits for the disk.

import HTTPWireCodec
import HTTPWireTransport

extension HTTPCache {
    /// A cache kept in memory and mirrored to files in `directory` (created when missing), with the
    /// responses a previous process left there read back first — for an app that shows its last data at
    /// launch, before the network answers (or when it cannot).
    ///
    /// ```swift
    /// var configuration = ClientConfiguration()
    /// configuration.cache = try await HTTPCache.persistent(directory: cachesDirectory + "/http")
    /// ```
    ///
    /// The files mirror the memory: at most `capacity` bytes in both, the least recently received going
    /// first when a new launch finds more (and a file over this cache's `maxEntrySize` going too). Damaged files and leftovers of an interrupted write are deleted.
    /// Throws ``HTTPWireError/localWriteFailed(path:errno:)`` or ``HTTPWireError/localReadFailed(path:errno:)``
    /// when the directory cannot be made or read. Use one cache object per directory at a time.
    @concurrent public static func persistent(
        directory: String, capacity: Int = 32 * 1024 * 1024, maxEntrySize: Int? = nil
    ) async throws -> HTTPCache {
        let cache = HTTPCache(capacity: capacity, maxEntrySize: maxEntrySize, directory: directory, clock: wallClock)
        try await cache.load()
        return cache
    }

    /// Waits until every file change made so far is on disk (written to the kernel; see the file comment):
    /// before a test reads the directory, or before a process exits on purpose.
    @concurrent public func flush() async {
        await disk?.flush()
    }

    /// Reads the directory's entry files into memory, deleting what is not one.
    package func load() async throws {
        guard let disk else { return }
        let directory = disk.directory
        let limit = maxEntrySize + CacheDiskQueue.headLimit
        let responses = try await BlockingWorker.shared.run {
            try HTTPWireError.local { () throws(TransportError) -> [CachedResponse] in
                try FileSystem.createDirectories(directory)
                var responses: [CachedResponse] = []
                for name in try FileSystem.names(inDirectory: directory) {
                    let path = directory + "/" + name
                    guard name.hasSuffix(".response"),
                        let bytes = try? FileSystem.contents(ofPath: path, limit: limit),
                        let response = CachedResponse.decodeFile(bytes), CacheDiskQueue.fileName(of: response) == name
                    else {
                        // Another program's file would not end in .response; ours, damaged, is removed.
                        if name.hasSuffix(".response") || name.hasSuffix(".response.tmp") {
                            try? FileSystem.remove(path)
                        }
                        continue
                    }
                    responses.append(response)
                }
                return responses
            }
        }
        let dropped = restore(responses)
        disk.enqueue(dropped.map { .remove(CacheDiskQueue.fileName(of: $0)) })
    }
}

/// The file operations of a persistent cache, carried out in the order they were asked for, one at a time.
final class CacheDiskQueue: Sendable {
    /// One change to the directory.
    enum Job: Sendable {
        /// Replace the file `name` with these bytes.
        case write(String, [UInt8])
        /// Delete the file `name`.
        case remove(String)
        /// Delete every entry file.
        case removeAll
    }

    /// The most bytes an entry file has beyond its body: the fields and the few lines around them.
    static let headLimit = 256 * 1024

    let directory: String
    private let state = LockedState(State())

    private struct State {
        var jobs: [Job] = []
        var isDraining = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    init(directory: String) {
        self.directory = directory
    }

    /// The file name of a response: the SHA-256 of its URL and selecting fields, so that each variant of a
    /// URL has a file of its own, in hex, with `.response`.
    static func fileName(of response: CachedResponse) -> String {
        (SHA256Digest.of(Array(response.variantKey.utf8))?.hexString ?? "unnamed") + ".response"
    }

    /// Queues `jobs`; a thread of the blocking worker starts on them unless one already is.
    func enqueue(_ jobs: [Job]) {
        guard !jobs.isEmpty else { return }
        let start = state.withLock { state -> Bool in
            state.jobs += jobs
            guard !state.isDraining else { return false }
            state.isDraining = true
            return true
        }
        if start { BlockingWorker.shared.submit { self.drain() } }
    }

    /// Resumes once the queue is empty and no job is running.
    func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isIdle = state.withLock { state -> Bool in
                guard state.isDraining else { return true }
                state.waiters.append(continuation)
                return false
            }
            if isIdle { continuation.resume() }
        }
    }

    /// Runs jobs until none is left, on a blocking-worker thread.
    private func drain() {
        while true {
            let (jobs, waiters) = state.withLock { state -> ([Job], [CheckedContinuation<Void, Never>]) in
                guard state.jobs.isEmpty else {
                    defer { state.jobs = [] }
                    return (state.jobs, [])
                }
                state.isDraining = false
                defer { state.waiters = [] }
                return ([], state.waiters)
            }
            guard !jobs.isEmpty else {
                for waiter in waiters { waiter.resume() }
                return
            }
            for job in jobs { perform(job) }
        }
    }

    /// One job; a failure leaves the directory as it was (the memory still has the response).
    private func perform(_ job: Job) {
        switch job {
        case .write(let name, let bytes):
            try? FileSystem.replaceAtomically(directory + "/" + name, with: bytes, synchronizing: false)
        case .remove(let name):
            try? FileSystem.remove(directory + "/" + name)
        case .removeAll:
            for name in (try? FileSystem.names(inDirectory: directory)) ?? []
            where name.hasSuffix(".response") || name.hasSuffix(".response.tmp") {
                try? FileSystem.remove(directory + "/" + name)
            }
        }
    }
}
