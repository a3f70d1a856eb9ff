// HTTPCache: a private HTTP cache (RFC 9111), the counterpart of URLSession's URLCache (client layer,
// cache). It keeps responses in memory, and evicts the least recently used past its capacity; a persistent
// cache also mirrors them to files in a directory (`HTTPCache+Disk`), so they outlive the process. The rules
// that decide what is stored and what is served are in `CacheRules`, and the client asks it in
// `HTTPClient+Cache`. Nothing here touches the network, and no file is touched under the lock.
//
// Responses are keyed by URL (scheme, host, port, path and query: the "cache key" of §2), and one URL can
// hold several responses that differ by the request fields their `Vary` names (§4.1). A lookup returns the
// most recent one that matches, as §4.1 says to choose when nothing else does.

import HTTPWireCodec
import HTTPWireTransport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A private HTTP cache: set ``ClientConfiguration/cache`` and GET responses that HTTP allows to be reused
/// are answered from memory while fresh, and revalidated with a conditional request once stale. Made with
/// ``persistent(directory:capacity:maxEntrySize:)``, it also keeps them on disk for the next launch.
///
/// ```swift
/// var configuration = ClientConfiguration()
/// configuration.cache = HTTPCache(capacity: 16 * 1024 * 1024)
/// let client = HTTPClient(configuration: configuration)
/// let first = try await client.get("https://api.example.test/catalogue")   // .miss: from the server, stored
/// let again = try await client.get("https://api.example.test/catalogue")   // .hit while fresh: no request
/// ```
///
/// What it follows (RFC 9111):
/// - Only GET responses to ``HTTPClient/send(_:)`` (and the shortcuts built on it) are stored and served.
///   Streams and downloads, whose bodies do not fit in memory, go to the server; an unsafe request (POST,
///   PUT, DELETE, PATCH) that succeeds removes the stored responses for its URL (§4.4).
/// - Freshness comes from `Cache-Control: max-age`, `Expires`, or 10% of the age `Last-Modified` shows (at
///   most a day); `no-store` is never stored, `no-cache` and `must-revalidate` are honoured, and a request
///   can say `no-cache`, `max-age`, `min-fresh`, `max-stale`, `only-if-cached` and `no-store` in its own
///   `Cache-Control` field.
/// - A stale response is revalidated with `If-None-Match` (or `If-Modified-Since`); a 304 updates its
///   fields and its body is served (``CacheStatus/revalidated``). Within a `stale-while-revalidate` window
///   (RFC 5861) it is returned at once and validated in the background
///   (``CacheStatus/staleWhileRevalidating``); within `stale-if-error` it stands in for a failure.
/// - `Vary` is matched against the request as your code built it (with the configuration's default
///   fields). With middleware installed, a response that varies on a field your request does not carry is
///   not stored, because middleware may set it later (a cookie, a token).
/// - It is private: responses to requests with credentials are stored, as in a browser. Call
///   ``removeAll()`` when the user signs out.
public final class HTTPCache: Sendable {
    /// The most bytes of bodies and fields kept; the least recently used responses go first past it.
    public let capacity: Int
    /// The largest body stored; bigger responses go to the caller without being kept (URLCache's rule of
    /// thumb is similar: one entry is a small share of the whole).
    public let maxEntrySize: Int
    /// The directory a persistent cache keeps its files in; nil for a cache in memory only.
    public var directory: String? { disk?.directory }
    /// The wall clock in seconds since the epoch: RFC 9111's ages compare it with the server's `Date`.
    let clock: @Sendable () -> Int64
    /// The files of a persistent cache, written and removed in the order the memory changed (jobs are
    /// queued under the lock that guards the memory).
    let disk: CacheDiskQueue?
    private let state = LockedState(Storage())
    /// The background validations running (`stale-while-revalidate`), by the variant they validate.
    private let revalidations = LockedState([String: Task<Void, Never>]())

    private struct Storage {
        var responses: [String: [CachedResponse]] = [:]
        var storedBytes = 0
        var count = 0
        var useCounter: UInt64 = 0
    }

    /// A cache in memory holding at most `capacity` bytes, and no body larger than `maxEntrySize` (default:
    /// an eighth of the capacity).
    public convenience init(capacity: Int = 8 * 1024 * 1024, maxEntrySize: Int? = nil) {
        self.init(capacity: capacity, maxEntrySize: maxEntrySize, directory: nil, clock: Self.wallClock)
    }

    /// A cache on another clock (tests move it forward instead of waiting), kept in `directory` when given.
    package init(
        capacity: Int, maxEntrySize: Int?, directory: String? = nil, clock: @escaping @Sendable () -> Int64
    ) {
        self.capacity = max(0, capacity)
        self.maxEntrySize = max(0, min(maxEntrySize ?? capacity / 8, capacity))
        self.clock = clock
        self.disk = directory.map(CacheDiskQueue.init)
    }

    /// Seconds since the epoch, rounded down.
    static let wallClock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970.rounded(.down)) }

    /// The bytes the stored responses take, counted as ``capacity`` counts them.
    public var storedBytes: Int { state.withLock { $0.storedBytes } }

    /// How many responses are stored.
    public var count: Int { state.withLock { $0.count } }

    /// Forgets every stored response (after a sign-out, say), and deletes a persistent cache's files.
    public func removeAll() {
        state.withLock { storage in
            storage = Storage()
            disk?.enqueue([.removeAll])
        }
    }

    /// Forgets the responses stored for `url` (every variant). A URL that does not parse stores nothing.
    public func removeResponses(for url: String) {
        guard let target = try? TargetURL(url) else { return }
        remove(target)
    }

    // MARK: For the client

    /// Runs `validation` in a task of its own, unless the response stored as `variant` is being validated
    /// already (RFC 5861 §3 asks for the stale response to be served while *a* validation runs: one, not
    /// one per request that finds it stale).
    func revalidateInBackground(_ variant: String, _ validation: @escaping @Sendable () async -> Void) {
        revalidations.withLock { running in
            guard running[variant] == nil else { return }
            running[variant] = Task {
                await validation()
                self.revalidations.withLock { _ = $0.removeValue(forKey: variant) }
            }
        }
    }

    /// Waits for the background validations running now (and any they start) to end.
    package func waitForBackgroundValidations() async {
        while let task = revalidations.withLock({ $0.values.first }) { await task.value }
    }

    /// The most recent stored response for `url` whose selecting fields match `fields` (§4.1), marked used.
    func lookup(_ url: TargetURL, fields: HTTPFields) -> CachedResponse? {
        let key = url.description
        return state.withLock { storage in
            guard let variants = storage.responses[key] else { return nil }
            var best: Int?
            for index in variants.indices where CacheRules.matches(variants[index].selectingFields, request: fields) {
                if let chosen = best, variants[chosen].dateValue > variants[index].dateValue { continue }
                best = index
            }
            guard let index = best else { return nil }
            storage.useCounter += 1
            storage.responses[key]![index].lastUse = storage.useCounter
            return storage.responses[key]![index]
        }
    }

    /// Keeps `response`, replacing a stored one with the same selecting fields, then evicts the least
    /// recently used responses until the cache is within ``capacity``. A body over ``maxEntrySize`` is
    /// not kept (and the older variant it would replace goes, being out of date). A persistent cache
    /// writes the response's file, and removes the files of what went, after the lock.
    func store(_ response: CachedResponse) {
        // The file's bytes (a copy of the body) are made before the lock, not while lookups wait on it.
        let encoded = disk != nil && fits(response) ? response.encodedFile() : nil
        state.withLock { storage in
            var removed: [CachedResponse] = []
            let key = response.url.description
            var variants = storage.responses[key] ?? []
            if let old = variants.firstIndex(where: { Self.sameSelection($0.selectingFields, response.selectingFields) }
            ) {
                storage.storedBytes -= variants[old].byteCount
                storage.count -= 1
                removed.append(variants.remove(at: old))
            }
            var use: UInt64?
            if fits(response) {
                var entry = response
                storage.useCounter += 1
                entry.lastUse = storage.useCounter
                use = entry.lastUse
                variants.append(entry)
                storage.storedBytes += entry.byteCount
                storage.count += 1
            }
            storage.responses[key] = variants.isEmpty ? nil : variants
            removed += Self.evict(&storage, toFit: capacity)
            guard let disk else { return }
            // Queued under the lock, so the files change in the order the memory did: a removeAll racing
            // this store cannot be carried out before this write and leave its file behind.
            let isKept = use.map { use in storage.responses[key]?.contains { $0.lastUse == use } ?? false } ?? false
            let written = isKept ? CacheDiskQueue.fileName(of: response) : nil
            var jobs = removed.map { CacheDiskQueue.fileName(of: $0) }.filter { $0 != written }.map {
                CacheDiskQueue.Job.remove($0)
            }
            if let written, let encoded { jobs.append(.write(written, encoded)) }
            disk.enqueue(jobs)
        }
    }

    /// Whether a response may be kept at all: its body within ``maxEntrySize``, the whole within ``capacity``.
    func fits(_ response: CachedResponse) -> Bool {
        response.body.count <= maxEntrySize && response.byteCount <= capacity
    }

    /// Forgets the responses for `url`.
    func remove(_ url: TargetURL) {
        state.withLock { storage in
            guard let variants = storage.responses.removeValue(forKey: url.description) else { return }
            storage.storedBytes -= variants.reduce(0) { $0 + $1.byteCount }
            storage.count -= variants.count
            disk?.enqueue(variants.map { .remove(CacheDiskQueue.fileName(of: $0)) })
        }
    }

    /// Puts responses read from disk in memory, least recently received first, then evicts down to the
    /// capacity; returns the ones not kept (too large for this cache's limits, or evicted: their files are
    /// to go).
    func restore(_ responses: [CachedResponse]) -> [CachedResponse] {
        state.withLock { storage in
            var dropped: [CachedResponse] = []
            for response in responses.sorted(by: { $0.responseTime < $1.responseTime }) {
                guard fits(response) else {
                    dropped.append(response)
                    continue
                }
                var entry = response
                storage.useCounter += 1
                entry.lastUse = storage.useCounter
                storage.responses[response.url.description, default: []].append(entry)
                storage.storedBytes += entry.byteCount
                storage.count += 1
            }
            return dropped + Self.evict(&storage, toFit: capacity)
        }
    }

    /// Whether two selections name the same fields with the same values.
    private static func sameSelection(
        _ left: [(name: String, value: String?)], _ right: [(name: String, value: String?)]
    )
        -> Bool
    {
        left.count == right.count && zip(left, right).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// Removes least recently used responses until `storage` holds at most `capacity` bytes, and returns
    /// them. A linear scan per eviction: a memory cache holds thousands of responses, not millions.
    private static func evict(_ storage: inout Storage, toFit capacity: Int) -> [CachedResponse] {
        var evicted: [CachedResponse] = []
        while storage.storedBytes > capacity {
            var oldest: (key: String, index: Int, use: UInt64)?
            for (key, variants) in storage.responses {
                for (index, variant) in variants.enumerated() {
                    if let found = oldest, found.use <= variant.lastUse { continue }
                    oldest = (key, index, variant.lastUse)
                }
            }
            guard let victim = oldest else { break }
            let removed = storage.responses[victim.key]!.remove(at: victim.index)
            if storage.responses[victim.key]!.isEmpty { storage.responses[victim.key] = nil }
            storage.storedBytes -= removed.byteCount
            storage.count -= 1
            evicted.append(removed)
        }
        return evicted
    }
}
