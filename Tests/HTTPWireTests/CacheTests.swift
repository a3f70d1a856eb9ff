// CacheTests: `ClientConfiguration.cache` end to end — against a fixture route that counts what reaches
// it and answers If-None-Match with 304, on a cache clock the test moves forward instead of sleeping, and
// against nginx's own ETag, Last-Modified and 304 handling. Each test checks both what the caller got
// (`cacheStatus`, the body, the fields) and what the server saw (how many requests, which validators).

import FixtureServer
import Foundation
import HTTPWire
import HTTPWireCodec
import HTTPWireTesting
import HTTPWireTransport
import TestSupport
import Testing

@Suite struct CacheTests {
    /// A resource the route serves, which a test changes between requests.
    struct Resource {
        var body = "v1"
        /// nil: no ETag is sent, and validation is by `lastModified` alone.
        var entityTag: String? = #""v1""#
        var lastModified: String?
        /// Set: every conditional request is answered 304 with this ETag (a server confused about versions).
        var notModifiedTag: String?
        var cacheControl: String? = "max-age=60"
        var vary: String?
        var extra: HTTPFields = [:]
        /// Set: every GET fails — answered with this status, or for 0 the connection closed unanswered.
        var failure: Int?
        /// Every request head that reached the route.
        var requests: [RequestHead] = []
    }

    /// A clock the cache and the route's `Date` share: now, moved on by the test.
    final class TestClock: Sendable {
        let seconds = LockedState(Int64(Date().timeIntervalSince1970))
        func advance(_ delta: Int64) { seconds.withLock { $0 += delta } }
        var now: Int64 { seconds.withLock { $0 } }
    }

    /// `/res…`: 304 to a matching If-None-Match (or, without an ETag, If-Modified-Since), else 200 with the
    /// resource (its body followed by the value
    /// of the field it varies on). `/moved`: 302 to `/res`. A POST is answered 204.
    static func route(_ state: LockedState<Resource>, clock: TestClock) -> FixtureCustomRoute {
        FixtureCustomRoute(matches: { $0.target.hasPrefix("/res") || $0.target == "/moved" }) { responder in
            let head = responder.head
            let resource = state.withLock { resource -> Resource in
                resource.requests.append(head)
                return resource
            }
            if head.target == "/moved" {
                return try await responder.respond(status: 302, fields: ["Location": "/res"], body: [])
            }
            if head.method == .post {
                _ = try await responder.readBody(limit: 1 << 16)
                return try await responder.respond(status: 204, fields: [:], body: [])
            }
            if let failure = resource.failure {
                guard failure != 0 else { return await responder.close() }
                return try await responder.respond(status: failure, fields: [:], body: Array("down".utf8))
            }
            var fields = resource.extra
            fields["Date"] = HTTPDate.imfFixdate(secondsSinceEpoch: clock.now)
            if let tag = resource.entityTag { fields["ETag"] = tag }
            if let modified = resource.lastModified { fields["Last-Modified"] = modified }
            if let cacheControl = resource.cacheControl { fields["Cache-Control"] = cacheControl }
            if let vary = resource.vary { fields["Vary"] = vary }
            let isConditional = head.fields.contains("If-None-Match") || head.fields.contains("If-Modified-Since")
            if let other = resource.notModifiedTag, isConditional {
                fields["ETag"] = other
                return try await responder.respond(status: 304, fields: fields, body: [])
            }
            let matches =
                resource.entityTag.map { head.fields["If-None-Match"] == $0 }
                ?? (resource.lastModified != nil && head.fields["If-Modified-Since"] == resource.lastModified)
            if matches { return try await responder.respond(status: 304, fields: fields, body: []) }
            let varied = resource.vary.map { "-" + (head.fields[$0] ?? "none") } ?? ""
            try await responder.respond(status: 200, fields: fields, body: Array((resource.body + varied).utf8))
        }
    }

    /// Runs `body` with a fixture server serving the route, and a client whose cache runs on `clock`.
    static func withCachingClient(
        middleware: [any HTTPMiddleware] = [],
        _ body: (HTTPClient, LockedState<Resource>, TestClock, HTTPCache, String) async throws -> Void
    ) async throws {
        try await withFixtureServer { server in
            let clock = TestClock()
            let state = LockedState(Resource())
            server.addCustomRoute(route(state, clock: clock))
            let cache = HTTPCache(capacity: 1 << 20, maxEntrySize: nil) { clock.now }
            var configuration = ClientConfiguration()
            configuration.cache = cache
            configuration.validation = .successful
            configuration.middleware = middleware
            let client = HTTPClient(configuration: configuration)
            try await body(client, state, clock, cache, server.baseURL)
            await client.shutdown()
        }
    }

    @Test(
        "fresh: served without a request; stale: revalidated with If-None-Match, the 304's fields kept",
        .timeLimit(.scaledMinutes(1)))
    func freshThenRevalidated() async throws {
        try await Self.withCachingClient { client, state, clock, cache, base in
            let first = try await client.get(base + "res")
            #expect(first.cacheStatus == .miss && first.text == "v1" && cache.count == 1)
            clock.advance(10)
            let hit = try await client.get(base + "res")
            #expect(hit.cacheStatus == .hit && hit.text == "v1" && hit.status == .ok)
            #expect(hit.fields["Age"] == "10", "§5.1: a response served from the cache says its age")
            #expect(state.withLock { $0.requests.count } == 1, "a fresh hit sends nothing")

            // Stale after 60 s: one conditional request; the 304 brings a longer max-age and a new field.
            state.withLock {
                $0.cacheControl = "max-age=120"
                $0.extra = ["X-Revision": "2"]
            }
            clock.advance(51)
            let revalidated = try await client.get(base + "res")
            #expect(revalidated.cacheStatus == .revalidated && revalidated.status == .ok && revalidated.text == "v1")
            #expect(revalidated.fields["X-Revision"] == "2" && revalidated.fields["Cache-Control"] == "max-age=120")
            let sent = state.withLock { $0.requests }
            #expect(sent.count == 2 && sent[1].fields["If-None-Match"] == #""v1""#)
            #expect(sent[0].fields["If-None-Match"] == nil)
            // Fresh again for 120 s from the 304.
            clock.advance(100)
            #expect(try await client.get(base + "res").cacheStatus == .hit)

            // The resource changes: the stale copy's validator no longer matches, so a 200 replaces it.
            state.withLock {
                $0.body = "v2"
                $0.entityTag = #""v2""#
            }
            clock.advance(30)
            let changed = try await client.get(base + "res")
            #expect(changed.cacheStatus == .miss && changed.text == "v2")
            let again = try await client.get(base + "res")
            #expect(again.cacheStatus == .hit && again.text == "v2" && cache.count == 1)
            #expect(state.withLock { $0.requests.count } == 3)
        }
    }

    @Test(
        "validation by Last-Modified alone; a 304 about another ETag is not used, the request goes again",
        .timeLimit(.scaledMinutes(1)))
    func otherValidators() async throws {
        try await Self.withCachingClient { client, state, clock, _, base in
            let modified = HTTPDate.imfFixdate(secondsSinceEpoch: clock.now - 3_600)
            state.withLock {
                $0.entityTag = nil
                $0.lastModified = modified
            }
            _ = try await client.get(base + "res")
            clock.advance(61)
            let validated = try await client.get(base + "res")
            #expect(validated.cacheStatus == .revalidated && validated.text == "v1")
            let conditional = try #require(state.withLock { $0.requests.last })
            #expect(conditional.fields["If-Modified-Since"] == modified)
            #expect(!conditional.fields.contains("If-None-Match"))
        }
        try await Self.withCachingClient { client, state, clock, _, base in
            _ = try await client.get(base + "res")
            clock.advance(61)
            state.withLock {
                $0.notModifiedTag = #""v9""#
                $0.body = "v1 again"
            }
            let refetched = try await client.get(base + "res")
            #expect(refetched.cacheStatus == .miss && refetched.text == "v1 again")
            let requests = state.withLock { $0.requests }
            try #require(requests.count == 3, "the first GET, the conditional one, then one without a condition")
            #expect(requests[1].fields["If-None-Match"] == #""v1""#)
            #expect(!requests[2].fields.contains("If-None-Match"))
        }
    }

    @Test(
        "no-store is never stored; no-cache and a request's no-cache or max-age=0 always ask the server",
        .timeLimit(.scaledMinutes(1)))
    func directives() async throws {
        try await Self.withCachingClient { client, state, clock, cache, base in
            state.withLock { $0.cacheControl = "no-store" }
            #expect(try await client.get(base + "res/a").cacheStatus == .miss)
            #expect(try await client.get(base + "res/a").cacheStatus == .miss)
            #expect(cache.count == 0 && state.withLock { $0.requests.count } == 2)

            state.withLock { $0.cacheControl = "no-cache, max-age=600" }
            #expect(try await client.get(base + "res/b").cacheStatus == .miss)
            #expect(try await client.get(base + "res/b").cacheStatus == .revalidated)

            state.withLock { $0.cacheControl = "max-age=600" }
            #expect(try await client.get(base + "res/c").cacheStatus == .miss)
            #expect(try await client.get(base + "res/c").cacheStatus == .hit)
            // max-age=0 asks for a response no older than 0 s (§5.2.1.1): one second old is too old. The 304
            // makes it 0 s old again, which no-cache still refuses.
            clock.advance(1)
            for directive in ["max-age=0", "no-cache"] {
                let reload = try await client.send(
                    HTTPRequest(url: base + "res/c", fields: ["Cache-Control": directive]))
                #expect(reload.cacheStatus == .revalidated, "\(directive)")
            }
            let pragma = try await client.send(HTTPRequest(url: base + "res/c", fields: ["Pragma": "no-cache"]))
            #expect(pragma.cacheStatus == .revalidated, "§5.4: Pragma: no-cache without Cache-Control")
            // a: 2; b: a miss and a 304; c: a miss, then the three reloads.
            let requests = state.withLock { $0.requests.count }
            #expect(requests == 8)
        }
    }

    @Test(
        "only-if-cached: the stored response, even stale, or 504 without one; max-stale serves stale",
        .timeLimit(.scaledMinutes(1)))
    func staleOnRequest() async throws {
        try await Self.withCachingClient { client, state, clock, _, base in
            var onlyIfCached = HTTPRequest(url: base + "res/x", fields: ["Cache-Control": "only-if-cached"])
            onlyIfCached.options.validation = .acceptingAll
            let none = try await client.send(onlyIfCached)
            #expect(none.status.rawValue == 504 && state.withLock { $0.requests.isEmpty })
            _ = try await client.get(base + "res/x")
            clock.advance(120)
            #expect(try await client.send(onlyIfCached).cacheStatus == .hit)
            let stale = try await client.send(
                HTTPRequest(url: base + "res/x", fields: ["Cache-Control": "max-stale=60"]))
            #expect(stale.cacheStatus == .hit && stale.fields["Age"] == "120")
            #expect(state.withLock { $0.requests.count } == 1)
            // must-revalidate forbids serving it stale.
            state.withLock { $0.cacheControl = "max-age=60, must-revalidate" }
            _ = try await client.send(HTTPRequest(url: base + "res/x", fields: ["Cache-Control": "no-cache"]))
            clock.advance(120)
            let strict = try await client.send(HTTPRequest(url: base + "res/x", fields: ["Cache-Control": "max-stale"]))
            #expect(strict.cacheStatus == .revalidated)
            // ... and only-if-cached answers 504 rather than serve it stale (§5.2.2.2).
            clock.advance(120)
            let refused = try await client.send(onlyIfCached)
            #expect(refused.status.rawValue == 504 && refused.cacheStatus == .miss)
        }
    }

    @Test(
        "stale-while-revalidate: stale within the window comes at once, validated in the background; not past it",
        .timeLimit(.scaledMinutes(1)))
    func staleWhileRevalidate() async throws {
        try await Self.withCachingClient { client, state, clock, cache, base in
            state.withLock { $0.cacheControl = "max-age=60, stale-while-revalidate=30" }
            #expect(try await client.get(base + "res").cacheStatus == .miss)
            // Stale by 10 s: the stored response now, and one conditional request behind it (answered 304).
            clock.advance(70)
            let stale = try await client.get(base + "res")
            #expect(stale.cacheStatus == .staleWhileRevalidating && stale.text == "v1" && stale.fields["Age"] == "70")
            await cache.waitForBackgroundValidations()
            var sent = state.withLock { $0.requests }
            #expect(sent.count == 2 && sent[1].fields["If-None-Match"] == #""v1""#)
            #expect(try await client.get(base + "res").cacheStatus == .hit, "freshened by the background 304")

            // The resource changes: the stale copy is shown once more, and the next request has the new one.
            state.withLock {
                $0.body = "v2"
                $0.entityTag = #""v2""#
            }
            clock.advance(70)
            let shown = try await client.get(base + "res")
            #expect(shown.cacheStatus == .staleWhileRevalidating && shown.text == "v1")
            // A second request while stale starts no second validation when the first is still running (and
            // is a hit when it has ended): either way the server sees one request for the two.
            _ = try await client.get(base + "res")
            await cache.waitForBackgroundValidations()
            let updated = try await client.get(base + "res")
            #expect(updated.cacheStatus == .hit && updated.text == "v2")
            #expect(state.withLock { $0.requests.count } == 3)

            // Past the window (stale by 40 s) the caller waits for the validation, as without the directive;
            // a pull to refresh (no-cache) always does.
            clock.advance(100)
            #expect(try await client.get(base + "res").cacheStatus == .revalidated)
            clock.advance(70)
            let refreshed = try await client.send(
                HTTPRequest(url: base + "res", fields: ["Cache-Control": "no-cache"]))
            #expect(refreshed.cacheStatus == .revalidated)
            sent = state.withLock { $0.requests }
            #expect(sent.count == 5)
        }
    }

    @Test(
        "stale-if-error: a stale response stands in for a 503 or a dropped connection within its window",
        .timeLimit(.scaledMinutes(1)))
    func staleIfError() async throws {
        try await Self.withCachingClient { client, state, clock, _, base in
            state.withLock { $0.cacheControl = "max-age=60, stale-if-error=300" }
            _ = try await client.get(base + "res")
            clock.advance(120)
            for failure in [503, 0] {
                state.withLock { $0.failure = failure }
                let stale = try await client.get(base + "res")
                #expect(stale.cacheStatus == .staleAfterError && stale.text == "v1" && stale.status == .ok)
                #expect(stale.fields["Age"] == "120", "\(failure)")
            }
            // Past the window (60 s of freshness + 300 s), the failure is the answer.
            clock.advance(241)
            state.withLock { $0.failure = 503 }
            await #expect(throws: HTTPWireError.self) { try await client.get(base + "res") }
            // A request can open a window of its own.
            let asked = try await client.send(
                HTTPRequest(url: base + "res", fields: ["Cache-Control": "stale-if-error=1000"]))
            #expect(asked.cacheStatus == .staleAfterError)
            // When the server answers again, its response replaces the stale one.
            state.withLock { $0.failure = nil }
            #expect(try await client.get(base + "res").cacheStatus == .revalidated)
        }
        try await Self.withCachingClient { client, state, clock, _, base in
            state.withLock { $0.cacheControl = "max-age=60, stale-if-error=300, must-revalidate" }
            _ = try await client.get(base + "res")
            clock.advance(120)
            state.withLock { $0.failure = 503 }
            await #expect(throws: HTTPWireError.self, "must-revalidate forbids it") {
                try await client.get(base + "res")
            }
        }
    }

    @Test("a successful POST to the URL removes its stored response (§4.4)", .timeLimit(.scaledMinutes(1)))
    func unsafeInvalidates() async throws {
        try await Self.withCachingClient { client, state, _, cache, base in
            _ = try await client.get(base + "res")
            #expect(cache.count == 1)
            let posted = try await client.send(HTTPRequest(method: .post, url: base + "res", body: .bytes([1, 2, 3])))
            #expect(posted.status.rawValue == 204 && posted.cacheStatus == .notUsed && cache.count == 0)
            #expect(try await client.get(base + "res").cacheStatus == .miss)
            #expect(state.withLock { $0.requests.count } == 3)
        }
    }

    /// Sends every POST to `/res-v2` instead of the URL the caller named.
    struct VersionedPosts: HTTPMiddleware {
        @concurrent func adapt(_ request: inout OutgoingRequest) async throws {
            if request.method == .post { request.url = try request.url.resolving("/res-v2") }
        }
    }

    @Test(
        "a POST a middleware handler rewrote removes both the caller's URL and the one sent (§4.4)",
        .timeLimit(.scaledMinutes(1)))
    func unsafeInvalidatesThroughMiddleware() async throws {
        try await Self.withCachingClient(middleware: [VersionedPosts()]) { client, state, _, cache, base in
            _ = try await client.get(base + "res")
            _ = try await client.get(base + "res-v2")
            #expect(cache.count == 2)
            _ = try await client.send(HTTPRequest(method: .post, url: base + "res", body: .bytes([1])))
            #expect(state.withLock { $0.requests.last?.target } == "/res-v2")
            #expect(cache.count == 0, "the stored response for the caller's URL and the one the server saw")
            #expect(try await client.get(base + "res").cacheStatus == .miss)
        }
    }

    @Test(
        "Vary: one stored response per Accept value; with middleware, a Vary on a field not sent is not stored",
        .timeLimit(.scaledMinutes(1)))
    func vary() async throws {
        try await Self.withCachingClient { client, state, _, cache, base in
            state.withLock { $0.vary = "Accept" }
            for accept in ["a/a", "b/b", "a/a", "b/b"] {
                let response = try await client.send(HTTPRequest(url: base + "res", fields: ["Accept": accept]))
                #expect(response.text == "v1-" + accept)
            }
            #expect(cache.count == 2 && state.withLock { $0.requests.count } == 2)
        }
        struct Nothing: HTTPMiddleware {}
        try await Self.withCachingClient(middleware: [Nothing()]) { client, state, _, cache, base in
            state.withLock { $0.vary = "X-Token" }
            #expect(try await client.get(base + "res").cacheStatus == .miss)
            #expect(try await client.get(base + "res").cacheStatus == .miss && cache.count == 0)
            state.withLock { $0.vary = "Accept" }
            _ = try await client.send(HTTPRequest(url: base + "res", fields: ["Accept": "a/a"]))
            #expect(cache.count == 1, "a field the request carries is matched")
        }
    }

    @Test("a response reached through a redirect is not stored under either URL", .timeLimit(.scaledMinutes(1)))
    func redirects() async throws {
        try await Self.withCachingClient { client, state, _, cache, base in
            let moved = try await client.get(base + "moved")
            #expect(moved.cacheStatus == .miss && moved.text == "v1" && cache.count == 0)
            #expect(try await client.get(base + "res").cacheStatus == .miss)
            #expect(try await client.get(base + "res").cacheStatus == .hit)
            #expect(state.withLock { $0.requests.count } == 3)
        }
    }

    @Test(
        "nginx: a file's Last-Modified gives a heuristic lifetime; its ETag gets a 304", .timeLimit(.scaledMinutes(1)))
    func nginx() async throws {
        try await withNginx(files: ["old.txt": Array("old\n".utf8), "new.txt": Array("new\n".utf8)]) { nginx in
            let www = nginx.directory + "/www/"
            // Changed 10 days ago: 10% of that is more than the one-day cap, so it is fresh for a day.
            try await Self.touch(www + "old.txt", secondsFromNow: -10 * 86_400)
            var configuration = ClientConfiguration()
            configuration.cache = HTTPCache()
            let client = HTTPClient(configuration: configuration)
            #expect(try await client.get(nginx.baseURL + "old.txt").cacheStatus == .miss)
            let hit = try await client.get(nginx.baseURL + "old.txt")
            #expect(hit.cacheStatus == .hit && hit.text == "old\n")
            let reload = try await client.send(
                HTTPRequest(url: nginx.baseURL + "old.txt", fields: ["Cache-Control": "no-cache"]))
            #expect(reload.cacheStatus == .revalidated && reload.text == "old\n" && reload.status == .ok)
            #expect(reload.metrics.receivedBodyBytes == 0, "nginx answered 304: no body crossed the wire")
            // Last-Modified after Date (a clock ahead): no heuristic freshness, so every use is a conditional
            // request, which nginx answers 304. (A file changed a few seconds ago could earn a second.)
            try await Self.touch(www + "new.txt", secondsFromNow: 60)
            #expect(try await client.get(nginx.baseURL + "new.txt").cacheStatus == .miss)
            let validated = try await client.get(nginx.baseURL + "new.txt")
            #expect(validated.cacheStatus == .revalidated && validated.text == "new\n")
            // The file changes: nginx's new ETag means a full 200, which replaces the stored copy.
            try await Self.touch(www + "new.txt", secondsFromNow: 120, contents: Array("newer\n".utf8))
            let changed = try await client.get(nginx.baseURL + "new.txt")
            #expect(changed.cacheStatus == .miss && changed.text == "newer\n")
            await client.shutdown()
        }
    }

    /// Sets a file's modification time (and first its contents), off the cooperative pool.
    static func touch(_ path: String, secondsFromNow: Double, contents: [UInt8]? = nil) async throws {
        try await DedicatedThread.run {
            if let contents { try Data(contents).write(to: URL(fileURLWithPath: path)) }
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: secondsFromNow)], ofItemAtPath: path)
        }
    }
}
