// CachePersistenceTests: a persistent `HTTPCache` — the entry file read back exactly and refused whole when
// damaged (every truncation, a flipped count, a stray CR), and a directory that carries responses from one
// cache object (one "launch") to the next: a hit with no request after the restart, variants in files of
// their own, invalidation and removeAll deleting files, damaged files and interrupted writes cleaned up, and
// the capacity applied to what a launch finds.

import FixtureServer
import Foundation
import HTTPWireCodec
import HTTPWireTesting
import HTTPWireTransport
import TestSupport
import Testing

@testable import HTTPWire

@Suite struct CachePersistenceTests {
    static let sample = CachedResponse(
        status: 200, reason: "OK fine", version: .http1_0,
        fields: HTTPFields([
            HTTPField(name: "Content-Type", value: "text/plain"), HTTPField(name: "ETag", value: #""v1""#),
            HTTPField(name: "X-Empty", value: ""), HTTPField(name: "Set-Cookie", value: "a=b: c"),
            HTTPField(name: "Content-Length", value: "27"),
        ]),
        body: Array("line\n\nafter a blank line\r\n".utf8), url: try! TargetURL("http://cache.test:8080/a?b=c"),
        selectingFields: [("accept", "a/b,c/d"), ("accept-language", nil)], requestTime: 1_781_000_000,
        responseTime: 1_781_000_002)

    static func sameResponse(_ left: CachedResponse?, _ right: CachedResponse) -> Bool {
        guard let left else { return false }
        return left.status == right.status && left.reason == right.reason && left.version == right.version
            && left.fields == right.fields && left.body == right.body && left.url == right.url
            && left.requestTime == right.requestTime && left.responseTime == right.responseTime
            && left.selectingFields.map(\.name) == right.selectingFields.map(\.name)
            && left.selectingFields.map(\.value) == right.selectingFields.map(\.value)
    }

    @Test("an entry file reads back as the response it was written from")
    func roundTrip() {
        let file = Self.sample.encodedFile()
        #expect(Self.sameResponse(CachedResponse.decodeFile(file), Self.sample))
        var bare = Self.sample
        bare.selectingFields = []
        bare.fields = [:]
        bare.body = []
        bare.reason = ""
        #expect(Self.sameResponse(CachedResponse.decodeFile(bare.encodedFile()), bare))
    }

    @Test("a damaged entry file is no response: every truncation, a wrong count, magic, URL, CR or field")
    func damaged() {
        let file = Self.sample.encodedFile()
        for length in 0..<file.count {
            #expect(CachedResponse.decodeFile(Array(file.prefix(length))) == nil, "cut at \(length)")
        }
        #expect(CachedResponse.decodeFile(file + [0x41]) == nil, "a byte more than the count")
        // Found by the fuzzer: a byte that is not UTF-8 (0xBA) in a field value read back as U+FFFD.
        let reason = String(decoding: file, as: UTF8.self).replacingOccurrences(of: "OK fine", with: "OK \u{FFFD}ine")
        var invalid = Array(reason.utf8)
        let replacement = invalid.firstIndex(of: 0xEF)!
        invalid.replaceSubrange(replacement..<replacement + 3, with: [0xBA])
        #expect(CachedResponse.decodeFile(Array(reason.utf8)) != nil, "U+FFFD itself is fine")
        #expect(CachedResponse.decodeFile(invalid) == nil)
        let text = String(decoding: file, as: UTF8.self)
        for (from, to) in [
            ("httpwire-cache 1", "httpwire-cache 2"), ("url: http://cache.test:8080/a?b=c", "url: http://CACHE.test/"),
            ("status: 200", "status: 2000"), ("reason: OK fine", "reason: OK\r"),
            ("version: HTTP/1.0", "version: HTTP/2"),
            ("field: ETag: ", "field: E Tag: "), ("field: X-Empty: ", "field: X-Empty:"),
            ("request-time: 1781000000", "request-time: soon"), ("status: 200", "status: 0200"),
            ("response-time: 1781000002", "response-time: -1"), ("vary: accept: ", "vary: accept:"),
            ("request-time: 1781000000", "request-time: 9223372036854775807"), ("vary: accept: ", "vary: acc ept: "),
        ] {
            let damaged = text.replacingOccurrences(of: from, with: to)
            #expect(damaged != text && CachedResponse.decodeFile(Array(damaged.utf8)) == nil, "\(to)")
        }
    }

    /// A fresh temporary directory's path (not created: the cache makes it).
    static func directory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("httpwire-cache-\(UUID().uuidString)").path
    }

    /// The entry files in `directory`, sorted.
    static func files(_ directory: String) async throws -> [String] {
        try await DedicatedThread.run { try FileSystem.names(inDirectory: directory).sorted() }
    }

    /// A persistent cache on the test's clock, loaded from `directory`.
    static func open(_ directory: String, clock: CacheTests.TestClock, capacity: Int = 1 << 20) async throws
        -> HTTPCache
    {
        let cache = HTTPCache(capacity: capacity, maxEntrySize: nil, directory: directory) { clock.now }
        try await cache.load()
        return cache
    }

    @Test(
        "responses outlive the cache object: a new one on the directory answers with no request",
        .timeLimit(.scaledMinutes(1)))
    func restart() async throws {
        let directory = Self.directory()
        try await withFixtureServer { server in
            let clock = CacheTests.TestClock()
            let state = LockedState(CacheTests.Resource())
            state.withLock { $0.vary = "Accept" }
            server.addCustomRoute(CacheTests.route(state, clock: clock))
            func client(_ cache: HTTPCache) -> HTTPClient {
                var configuration = ClientConfiguration()
                configuration.cache = cache
                return HTTPClient(configuration: configuration)
            }
            // First launch: two variants of /res, one of /res/other.
            let first = try await Self.open(directory, clock: clock)
            let firstClient = client(first)
            for (path, accept) in [("res", "a/a"), ("res", "b/b"), ("res/other", "a/a")] {
                let response = try await firstClient.send(
                    HTTPRequest(url: server.baseURL + path, fields: ["Accept": accept]))
                #expect(response.cacheStatus == .miss)
            }
            await firstClient.shutdown()
            await first.flush()
            #expect(try await Self.files(directory).count == 3)
            #expect(try await Self.files(directory).allSatisfy { $0.hasSuffix(".response") })

            // Second launch, 10 s later: the same answers from disk, no request.
            clock.advance(10)
            let second = try await Self.open(directory, clock: clock)
            #expect(second.count == 3)
            let secondClient = client(second)
            let hit = try await secondClient.send(HTTPRequest(url: server.baseURL + "res", fields: ["Accept": "b/b"]))
            #expect(hit.cacheStatus == .hit && hit.text == "v1-b/b" && hit.fields["Age"] == "10")
            #expect(state.withLock { $0.requests.count } == 3)
            // A POST invalidates /res: both variants' files go.
            _ = try await secondClient.send(HTTPRequest(method: .post, url: server.baseURL + "res", body: .bytes([1])))
            await second.flush()
            #expect(try await Self.files(directory).count == 1)
            // removeAll empties the directory.
            second.removeAll()
            await second.flush()
            #expect(try await Self.files(directory).isEmpty)
            await secondClient.shutdown()
        }
        try? await DedicatedThread.run { try FileManager.default.removeItem(atPath: directory) }
    }

    @Test(
        "opening deletes damaged files and interrupted writes, keeps other files, and applies the capacity",
        .timeLimit(.scaledMinutes(1)))
    func cleanUp() async throws {
        let directory = Self.directory()
        let clock = CacheTests.TestClock()
        let writer = try await Self.open(directory, clock: clock)
        var names: [String] = []
        for index in 0..<3 {
            var response = Self.sample
            response.url = try TargetURL("http://cache.test/\(index)")
            response.responseTime += Int64(index)
            writer.store(response)
            names.append(CacheDiskQueue.fileName(of: response))
        }
        await writer.flush()
        let written = names
        let damaged = String(repeating: "0", count: 64) + ".response"
        try await DedicatedThread.run {
            try Data("httpwire-cache 1\nurl: http://cache.test/".utf8).write(
                to: URL(fileURLWithPath: directory + "/" + damaged))
            try Data("half".utf8).write(to: URL(fileURLWithPath: directory + "/" + written[0] + ".tmp"))
            try Data("mine".utf8).write(to: URL(fileURLWithPath: directory + "/notes.txt"))
            // A valid file under another response's name is not trusted either.
            try FileManager.default.copyItem(
                atPath: directory + "/" + written[2],
                toPath: directory + "/" + String(repeating: "1", count: 64) + ".response")
        }
        // Room for two of the three: the one received first goes, file and all.
        let size = Self.sample.byteCount
        let reader = try await Self.open(directory, clock: clock, capacity: size * 2 + size / 2)
        await reader.flush()
        #expect(reader.count == 2)
        #expect(try await Self.files(directory) == (names.dropFirst() + ["notes.txt"]).sorted())
        try? await DedicatedThread.run { try FileManager.default.removeItem(atPath: directory) }
    }

    // The ordering itself (a removeAll queued after a racing store's write) is guaranteed by construction:
    // jobs are queued under the memory's lock. This test checks the outcome of a concurrent mix; it did not
    // catch the earlier, unlocked queueing in three runs with a widened window, so it is a consistency check,
    // not a proof of the ordering.
    @Test(
        "after concurrent stores, removes and removeAll, the files are exactly the responses in memory",
        .timeLimit(.scaledMinutes(1)))
    func racesKeepFilesInStep() async throws {
        let directory = Self.directory()
        let clock = CacheTests.TestClock()
        let cache = try await Self.open(directory, clock: clock)
        let urls = try (0..<4).map { try TargetURL("http://cache.test/\($0)") }
        await withTaskGroup(of: Void.self) { group in
            for round in 0..<400 {
                group.addTask {
                    var response = Self.sample
                    response.url = urls[round % urls.count]
                    switch round % 5 {
                    case 0: cache.removeAll()
                    case 1: cache.remove(urls[(round / 5) % urls.count])
                    default: cache.store(response)
                    }
                }
            }
        }
        await cache.flush()
        // Every file on disk is a response in memory, and the other way round.
        var inMemory: [String] = []
        for url in urls {
            if let response = cache.lookup(url, fields: ["Accept": "a/b,c/d"]) {
                inMemory.append(CacheDiskQueue.fileName(of: response))
            }
        }
        #expect(try await Self.files(directory) == inMemory.sorted())
        #expect(cache.count == inMemory.count)
        try? await DedicatedThread.run { try FileManager.default.removeItem(atPath: directory) }
    }

    @Test(
        "a variant without the field and one with it empty get files of their own; a file over maxEntrySize goes",
        .timeLimit(.scaledMinutes(1)))
    func fileNames() async throws {
        let directory = Self.directory()
        let clock = CacheTests.TestClock()
        let cache = try await Self.open(directory, clock: clock)
        var absent = Self.sample
        absent.selectingFields = [("x-a", nil)]
        var empty = Self.sample
        empty.selectingFields = [("x-a", "")]
        #expect(CacheDiskQueue.fileName(of: absent) != CacheDiskQueue.fileName(of: empty))
        cache.store(absent)
        cache.store(empty)
        await cache.flush()
        let both = try await Self.files(directory)
        #expect(cache.count == 2 && both.count == 2)
        // Opened again with room for no body this size: both stay out of memory, and their files go.
        let small = HTTPCache(capacity: 1 << 20, maxEntrySize: 4, directory: directory) { clock.now }
        try await small.load()
        await small.flush()
        let left = try await Self.files(directory)
        #expect(small.count == 0 && left.isEmpty)
        try? await DedicatedThread.run { try FileManager.default.removeItem(atPath: directory) }
    }
}
