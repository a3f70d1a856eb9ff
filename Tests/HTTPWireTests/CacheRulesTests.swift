// CacheRulesTests: RFC 9111's arithmetic and decisions one by one, at chosen instants — freshness lifetime
// (§4.2.1, §4.2.2), current age (§4.2.3), which directives serve, validate or refuse (§5.2), what may be
// stored (§3), how a 304 updates a stored response (§4.3.4), what an unsafe request invalidates (§4.4), and
// the store's least-recently-used eviction.

import HTTPWireCodec
import Testing

@testable import HTTPWire

@Suite struct CacheRulesTests {
    static let date: Int64 = 1_781_000_000
    static let url = try! TargetURL("http://cache.test/a")

    static func stored(
        _ fields: HTTPFields, status: Int = 200, body: Int = 10, requestTime: Int64 = date, responseTime: Int64 = date,
        url: TargetURL = url
    ) -> CachedResponse {
        CachedResponse(
            status: Status(rawValue: status), reason: "", version: .http1_1, fields: fields,
            body: Array(repeating: 0x61, count: body), url: url, selectingFields: [], requestTime: requestTime,
            responseTime: responseTime)
    }

    static func httpDate(_ seconds: Int64) -> String { HTTPDate.imfFixdate(secondsSinceEpoch: seconds) }

    @Test("freshness lifetime: max-age first, then Expires minus Date, then 10% of Last-Modified's age (§4.2.1)")
    func lifetime() {
        let date = Self.httpDate(Self.date)
        #expect(
            Self.stored(["Cache-Control": "max-age=60", "Expires": Self.httpDate(Self.date + 999)]).freshnessLifetime
                == 60)
        #expect(Self.stored(["Date": date, "Expires": Self.httpDate(Self.date + 300)]).freshnessLifetime == 300)
        #expect(Self.stored(["Date": date, "Expires": "0"]).freshnessLifetime == 0, "§5.3: invalid means past")
        #expect(Self.stored(["Cache-Control": "max-age=ten"]).freshnessLifetime == 0, "invalid max-age: stale")
        // 10% of 5,000 s since the last change.
        #expect(Self.stored(["Date": date, "Last-Modified": Self.httpDate(Self.date - 5000)]).freshnessLifetime == 500)
        // Capped at a day, whatever the file's age.
        #expect(
            Self.stored(["Date": date, "Last-Modified": Self.httpDate(Self.date - 100_000_000)]).freshnessLifetime
                == 86_400)
        // No heuristic for a status that does not allow one, unless `public` says so.
        let old = Self.httpDate(Self.date - 5000)
        #expect(Self.stored(["Date": date, "Last-Modified": old], status: 302).freshnessLifetime == 0)
        #expect(
            Self.stored(["Date": date, "Last-Modified": old, "Cache-Control": "public"], status: 302)
                .freshnessLifetime == 500)
        #expect(Self.stored(["Content-Type": "text/plain"]).freshnessLifetime == 0)
    }

    @Test("current age: the larger of the apparent age and Age plus the round trip, plus the time stored (§4.2.3)")
    func age() {
        // Sent at T-2, answered at T+2 (a 4 s round trip) with Age: 10 and a Date 5 s behind the arrival:
        // corrected_age_value 10 + 4 = 14 beats the apparent age of 5.
        let response = Self.stored(
            ["Age": "10", "Date": Self.httpDate(Self.date - 3)], requestTime: Self.date - 2, responseTime: Self.date + 2
        )
        #expect(response.currentAge(now: Self.date + 2) == 14)
        #expect(response.currentAge(now: Self.date + 32) == 44)
        // A Date far behind (a slow clock at the server) makes the apparent age win.
        let late = Self.stored(["Date": Self.httpDate(Self.date - 100)])
        #expect(late.currentAge(now: Self.date) == 100)
        // An Age that is no number is ignored (§5.1); a list takes its first member.
        #expect(Self.stored(["Age": "soon"]).currentAge(now: Self.date + 1) == 1)
        #expect(Self.stored(["Age": "7, 9"]).currentAge(now: Self.date) == 7)
    }

    @Test("serve or validate: no-cache, max-age, min-fresh, max-stale and must-revalidate (§5.2.1, §5.2.2)")
    func use() {
        func use(_ lifetime: Int64, _ age: Int64, response: String = "", request: String = "") -> CacheRules.Use {
            CacheRules.use(
                lifetime: lifetime, age: age, response: CacheControl(parsing: response),
                request: CacheControl(parsing: request))
        }
        #expect(use(60, 10) == .serve)
        #expect(use(60, 60) == .validate, "fresh means lifetime > age")
        #expect(use(60, 10, response: "no-cache") == .validate)
        #expect(use(60, 10, request: "no-cache") == .validate)
        #expect(use(60, 10, request: "max-age=5") == .validate)
        #expect(use(60, 10, request: "max-age=10") == .serve)
        #expect(use(60, 10, request: "min-fresh=50") == .serve)
        #expect(use(60, 10, request: "min-fresh=51") == .validate)
        #expect(use(60, 70, request: "max-stale") == .serve)
        #expect(use(60, 70, request: "max-stale=10") == .serve)
        #expect(use(60, 70, request: "max-stale=9") == .validate)
        #expect(use(60, 70, response: "must-revalidate", request: "max-stale") == .validate)
    }

    @Test("stale-while-revalidate (RFC 5861 §3): stale within the window, unless either side asks for a checked answer")
    func staleWhileRevalidate() {
        func allowed(_ lifetime: Int64, _ age: Int64, response: String, request: String = "") -> Bool {
            CacheRules.mayServeWhileRevalidating(
                lifetime: lifetime, age: age, response: CacheControl(parsing: response),
                request: CacheControl(parsing: request))
        }
        #expect(allowed(60, 61, response: "max-age=60, stale-while-revalidate=30"))
        #expect(allowed(60, 90, response: "max-age=60, stale-while-revalidate=30"))
        #expect(!allowed(60, 91, response: "max-age=60, stale-while-revalidate=30"), "past the window")
        #expect(!allowed(60, 60, response: "max-age=60, stale-while-revalidate=30"), "not stale: a plain hit")
        #expect(!allowed(60, 70, response: "max-age=60"))
        #expect(!allowed(60, 70, response: "max-age=60, stale-while-revalidate=30, must-revalidate"))
        #expect(!allowed(60, 70, response: "no-cache, stale-while-revalidate=30"))
        #expect(!allowed(60, 70, response: "stale-while-revalidate=30", request: "no-cache"), "a pull to refresh")
        #expect(!allowed(60, 70, response: "stale-while-revalidate=30", request: "max-age=0"))
        #expect(!allowed(60, 70, response: "stale-while-revalidate=30", request: "min-fresh=5"))
        #expect(!allowed(60, 70, response: "stale-while-revalidate=x"), "a window that is not a number")
    }

    @Test("stale-if-error (RFC 5861 §4): within the window of the response or the request, never past must-revalidate")
    func staleIfError() {
        func allowed(_ lifetime: Int64, _ age: Int64, response: String, request: String = "") -> Bool {
            CacheRules.mayServeAfterError(
                lifetime: lifetime, age: age, response: CacheControl(parsing: response),
                request: CacheControl(parsing: request))
        }
        #expect(allowed(60, 100, response: "stale-if-error=40"))
        #expect(!allowed(60, 101, response: "stale-if-error=40"))
        #expect(allowed(60, 101, response: "stale-if-error=40", request: "stale-if-error=50"))
        #expect(!allowed(60, 100, response: "max-age=60"))
        #expect(!allowed(60, 100, response: "stale-if-error=40, must-revalidate", request: "stale-if-error=99"))
        #expect(!allowed(60, 100, response: "no-cache, stale-if-error=40"))
        // only-if-cached: stale is allowed unless a directive forbids it.
        func onlyIfCached(_ response: String, request: String = "only-if-cached") -> Bool {
            CacheRules.mayServeOnlyIfCached(
                response: CacheControl(parsing: response), request: CacheControl(parsing: request))
        }
        #expect(onlyIfCached("max-age=60"))
        #expect(!onlyIfCached("max-age=60, must-revalidate") && !onlyIfCached("no-cache"))
        #expect(!onlyIfCached("max-age=60", request: "only-if-cached, no-cache"))
        #expect(CacheRules.isServerUnreachable(.couldNotConnect(host: "h", port: 1, errno: 111)))
        #expect(!CacheRules.isServerUnreachable(.pinnedPublicKeyMismatch(actual: "x")))
    }

    @Test("what may be stored (§3): no-store, Vary: *, 206, freshness or a heuristic status, must-understand")
    func storable() {
        func reason(
            _ status: Int, _ fields: HTTPFields, request: HTTPFields = [:], requestDirectives: String = "",
            middleware: Bool = false
        ) -> String? {
            CacheRules.reasonNotToStore(
                status: status, fields: fields, requestFields: request,
                requestDirectives: CacheControl(parsing: requestDirectives), hasMiddleware: middleware)
        }
        #expect(reason(200, [:]) == nil, "200 allows a heuristic")
        #expect(reason(200, ["Cache-Control": "no-store"]) != nil)
        #expect(reason(200, [:], requestDirectives: "no-store") != nil)
        #expect(reason(200, ["Vary": "*"]) != nil)
        #expect(reason(206, ["Cache-Control": "max-age=60"]) != nil)
        #expect(reason(302, [:]) != nil, "302 has no heuristic")
        #expect(reason(302, ["Cache-Control": "max-age=60"]) != nil, "redirects are never stored")
        #expect(reason(301, [:]) != nil && reason(404, [:]) == nil)
        #expect(reason(500, ["Expires": "0"]) == nil, "an explicit Expires, even a past one, makes it storable")
        #expect(reason(200, ["Cache-Control": "no-store, must-understand"]) == nil, "must-understand wins")
        #expect(reason(299, ["Cache-Control": "max-age=60, must-understand"]) != nil, "an unknown status")
        // Vary on a field the built request lacks: stored without middleware, not with it.
        #expect(reason(200, ["Vary": "Accept, Cookie"], request: ["Accept": "a"]) == nil)
        #expect(reason(200, ["Vary": "Accept, Cookie"], request: ["Accept": "a"], middleware: true) != nil)
        #expect(reason(200, ["Vary": "Accept"], request: ["Accept": "a"], middleware: true) == nil)
    }

    @Test("Vary matching ignores whitespace around commas and line splits, not case or order (§4.1)")
    func vary() {
        let selecting = CacheRules.selectingFields(
            vary: ["Vary": "accept, Accept-Language"], request: ["Accept": "a/b,  c/d"])
        #expect(selecting.map(\.name) == ["accept", "accept-language"])
        #expect(
            CacheRules.matches(
                selecting,
                request: HTTPFields([
                    HTTPField(name: "ACCEPT", value: "a/b"), HTTPField(name: "Accept", value: " c/d "),
                ])))
        #expect(!CacheRules.matches(selecting, request: ["Accept": "c/d, a/b"]))
        #expect(!CacheRules.matches(selecting, request: ["Accept": "a/b, c/d", "Accept-Language": "fr"]))
    }

    @Test("a 304 updates the stored fields, except Content-Length, Content-Encoding and hop fields (§3.2, §4.3.4)")
    func freshen() {
        let stored: HTTPFields = ["Content-Length": "10", "Cache-Control": "max-age=1", "X-A": "1", "Date": "old"]
        let update: HTTPFields = [
            "Content-Length": "0", "Cache-Control": "max-age=99", "Date": "new", "Connection": "close, X-Hop",
            "X-Hop": "1", "Content-Encoding": "gzip",
        ]
        let fields = CacheRules.freshenedFields(stored, with: update)
        #expect(fields["Content-Length"] == "10" && fields["Cache-Control"] == "max-age=99" && fields["Date"] == "new")
        #expect(fields["X-A"] == "1" && !fields.contains("X-Hop") && !fields.contains("Connection"))
        #expect(!fields.contains("Content-Encoding"))
        // The old Age goes (the freshened response's age starts again); a 304's own Age is taken.
        #expect(!CacheRules.freshenedFields(["Age": "90", "X": "1"], with: ["X": "2"]).contains("Age"))
        #expect(CacheRules.freshenedFields(["Age": "90"], with: ["Age": "3"])["Age"] == "3")
        // Which stored response a 304 describes.
        let tagged = Self.stored(["ETag": #""v1""#, "Last-Modified": "m"])
        #expect(CacheRules.notModified(["ETag": #""v1""#], describes: tagged))
        #expect(!CacheRules.notModified(["ETag": #""v2""#], describes: tagged))
        #expect(CacheRules.notModified([:], describes: tagged))
        #expect(!CacheRules.notModified(["Last-Modified": "other"], describes: tagged))
        #expect(CacheRules.validators(of: tagged)["If-None-Match"] == #""v1""#)
        #expect(CacheRules.validators(of: tagged)["If-Modified-Since"] == "m", "both, as §4.3.1 advises")
        #expect(CacheRules.validators(of: Self.stored(["Last-Modified": "m"]))["If-Modified-Since"] == "m")
        #expect(CacheRules.validators(of: Self.stored([:])).isEmpty)
    }

    @Test("an unsafe request invalidates its URL and same-origin Location and Content-Location only (§4.4)")
    func invalidation() throws {
        let target = try TargetURL("http://cache.test/items")
        let urls = CacheRules.invalidatedURLs(
            target: target, responseFields: ["Location": "/items/7", "Content-Location": "http://elsewhere.test/x"])
        #expect(urls.map(\.description) == ["http://cache.test/items", "http://cache.test/items/7"])
    }

    @Test("the store evicts the least recently used response past its capacity, and skips oversized bodies")
    func eviction() throws {
        let probe = Self.stored([:], body: 1000).byteCount
        let cache = HTTPCache(capacity: probe * 3, maxEntrySize: 2000) { Self.date }
        let urls = try (0..<4).map { try TargetURL("http://cache.test/\($0)") }
        for url in urls.prefix(3) { cache.store(Self.stored([:], body: 1000, url: url)) }
        #expect(cache.count == 3 && cache.storedBytes == probe * 3)
        _ = cache.lookup(urls[0], fields: [:])  // 0 is now more recent than 1
        cache.store(Self.stored([:], body: 1000, url: urls[3]))
        #expect(cache.count == 3)
        #expect(cache.lookup(urls[1], fields: [:]) == nil, "the least recently used went")
        #expect(cache.lookup(urls[0], fields: [:]) != nil && cache.lookup(urls[3], fields: [:]) != nil)
        cache.store(Self.stored([:], body: 2001, url: urls[1]))
        #expect(cache.lookup(urls[1], fields: [:]) == nil, "over maxEntrySize")
        cache.removeResponses(for: "http://cache.test/0")
        #expect(cache.count == 2 && cache.lookup(urls[0], fields: [:]) == nil)
        cache.removeAll()
        #expect(cache.count == 0 && cache.storedBytes == 0)
    }
}
