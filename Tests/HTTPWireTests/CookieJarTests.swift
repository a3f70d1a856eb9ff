// CookieJarTests: the storage model of RFC 6265 §5.3 and the `Cookie` field of §5.4, on the jar alone with
// a fixed clock — host-only and domain cookies, the refused domains, replacement keeping the creation
// time, expiry, the limits, and the order of the field. No network.

import Testing

@testable import HTTPWire

@Suite struct CookieJarTests {
    /// A fixed "now": 2026-06-09.
    static let now = Date(timeIntervalSince1970: 1_781_000_000)

    private func url(_ text: String) throws -> TargetURL { try TargetURL(text) }

    private func field(_ jar: CookieJar, _ text: String, at now: Date = now) throws -> String? {
        jar.cookieFieldValue(for: try url(text), now: now)
    }

    @Test("a cookie without Domain is host-only: the host gets it, its subdomains and parents do not")
    func hostOnly() throws {
        let jar = CookieJar()
        let stored = try #require(jar.store(setCookie: "a=1", from: url("http://www.example.test/"), now: Self.now))
        #expect(stored.isHostOnly && stored.domain == "www.example.test")
        #expect(try field(jar, "http://www.example.test/x") == "a=1")
        #expect(try field(jar, "http://sub.www.example.test/") == nil)
        #expect(try field(jar, "http://example.test/") == nil)
    }

    @Test("a Domain cookie goes to the domain and every subdomain, on label boundaries only")
    func domainCookie() throws {
        let jar = CookieJar()
        let stored = try #require(
            jar.store(setCookie: "a=1; Domain=.Example.test", from: url("http://www.example.test/"), now: Self.now))
        #expect(!stored.isHostOnly && stored.domain == "example.test")
        #expect(try field(jar, "http://example.test/") == "a=1")
        #expect(try field(jar, "http://deep.www.example.test/") == "a=1")
        #expect(try field(jar, "http://badexample.test/") == nil)
        #expect(try field(jar, "http://example.test.evil/") == nil)
    }

    @Test(
        "refuses a Domain the host may not set: another site, a parent's sibling, a single label, an IP address",
        arguments: [
            ("http://www.example.test/", "evil.test"),
            ("http://www.example.test/", "other.example.test"),
            ("http://www.example.test/", "test"),
            ("http://www.example.test/", "ww.example.test"),
            ("http://127.0.0.1/", "0.0.1"),
            ("http://127.0.0.1/", "127.0.0.2"),
            ("http://10.0.0.1/", "0.1"),
            ("http://www.example.com/", "..example.com"),  // §5.2.3 drops one dot: ".example.com" matches no host
            ("http://www.example.com/", "..com"),
        ])
    func refusedDomains(from: String, domain: String) throws {
        let jar = CookieJar()
        #expect(jar.store(setCookie: "a=1; Domain=\(domain)", from: try url(from), now: Self.now) == nil)
        #expect(jar.cookies.isEmpty)
    }

    @Test("a Domain equal to an IP or single-label host is accepted as host-only")
    func bareHosts() throws {
        let jar = CookieJar()
        let ip = try #require(
            jar.store(setCookie: "a=1; Domain=127.0.0.1", from: url("http://127.0.0.1:8080/"), now: Self.now))
        #expect(ip.isHostOnly)
        let local = try #require(
            jar.store(setCookie: "b=2; Domain=localhost", from: url("http://localhost/"), now: Self.now))
        #expect(local.isHostOnly)
        // Cookies do not isolate by port (RFC 6265 §8.5): another port of the same host gets them.
        #expect(try field(jar, "http://127.0.0.1:9090/") == "a=1")
    }

    @Test(
        "the default path is the request path's directory (§5.1.4)",
        arguments: [
            ("http://h.test/", "/"), ("http://h.test/a", "/"), ("http://h.test/a/b", "/a"),
            ("http://h.test/a/b/c?x=/y/z", "/a/b"), ("http://h.test/a/", "/a"),
        ])
    func defaultPath(from: String, expected: String) throws {
        let jar = CookieJar()
        #expect(jar.store(setCookie: "a=1", from: try url(from), now: Self.now)?.path == expected)
    }

    @Test("paths match at / boundaries: /docs gets /docs/a, never /docsearch")
    func pathMatch() throws {
        let jar = CookieJar()
        jar.store(setCookie: "a=1; Path=/docs", from: try url("http://h.test/"), now: Self.now)
        jar.store(setCookie: "b=2; Path=/docs/", from: try url("http://h.test/"), now: Self.now)
        #expect(try field(jar, "http://h.test/docs") == "a=1")
        #expect(try field(jar, "http://h.test/docs/a?q=1") == "b=2; a=1")
        #expect(try field(jar, "http://h.test/docsearch") == nil)
        #expect(try field(jar, "http://h.test/") == nil)
    }

    @Test("Secure cookies go over https only")
    func secure() throws {
        let jar = CookieJar()
        jar.store(setCookie: "s=1; Secure", from: try url("https://h.test/"), now: Self.now)
        jar.store(setCookie: "p=2", from: try url("https://h.test/"), now: Self.now)
        #expect(try field(jar, "https://h.test/") == "s=1; p=2")
        #expect(try field(jar, "http://h.test/") == "p=2")
    }

    @Test("Max-Age wins over Expires; zero or negative deletes; a past Expires deletes")
    func expiry() throws {
        let jar = CookieJar()
        let origin = try url("http://h.test/")
        let stored = try #require(
            jar.store(
                setCookie: "a=1; Expires=Sun, 06 Nov 1994 08:49:37 GMT; Max-Age=60", from: origin, now: Self.now))
        #expect(stored.expires == Self.now.addingTimeInterval(60))
        #expect(try field(jar, "http://h.test/", at: Self.now.addingTimeInterval(59)) == "a=1")
        #expect(try field(jar, "http://h.test/", at: Self.now.addingTimeInterval(60)) == nil)
        jar.store(setCookie: "b=1; Max-Age=600", from: origin, now: Self.now)
        jar.store(setCookie: "b=gone; Max-Age=0", from: origin, now: Self.now)
        jar.store(setCookie: "c=1", from: origin, now: Self.now)
        jar.store(setCookie: "c=gone; Expires=Thu, 01 Jan 1970 00:00:01 GMT", from: origin, now: Self.now)
        jar.store(setCookie: "d=1; Max-Age=-1", from: origin, now: Self.now)
        #expect(try field(jar, "http://h.test/") == nil)
        // A huge Max-Age is clamped, not overflowed.
        let far = try #require(jar.store(setCookie: "e=1; Max-Age=99999999999999", from: origin, now: Self.now))
        #expect(try #require(far.expires) > Self.now.addingTimeInterval(3e10))
    }

    @Test("a cookie with the same name, domain and path replaces the old one and keeps its creation time")
    func replacement() throws {
        let jar = CookieJar()
        let origin = try url("http://h.test/")
        jar.store(setCookie: "a=1", from: origin, now: Self.now)
        jar.store(setCookie: "b=2", from: origin, now: Self.now.addingTimeInterval(1))
        let replaced = try #require(jar.store(setCookie: "a=3", from: origin, now: Self.now.addingTimeInterval(2)))
        #expect(replaced.created == Self.now)
        // Same creation time, so `a` still comes first (§5.4 step 2).
        #expect(try field(jar, "http://h.test/") == "a=3; b=2")
        // Another path is another cookie.
        jar.store(setCookie: "a=4; Path=/x", from: origin, now: Self.now)
        #expect(try field(jar, "http://h.test/x/y") == "a=4; a=3; b=2")
        #expect(jar.cookies.count == 3)
    }

    @Test("orders the one Cookie field by longer path first, then earlier creation")
    func order() throws {
        let jar = CookieJar()
        let origin = try url("http://h.test/")
        jar.store(setCookie: "root=1; Path=/", from: origin, now: Self.now)
        jar.store(setCookie: "deep=1; Path=/a/b", from: origin, now: Self.now.addingTimeInterval(2))
        jar.store(setCookie: "mid2=1; Path=/a", from: origin, now: Self.now.addingTimeInterval(3))
        jar.store(setCookie: "mid1=1; Path=/a", from: origin, now: Self.now.addingTimeInterval(1))
        #expect(try field(jar, "http://h.test/a/b/c") == "deep=1; mid2=1; mid1=1; root=1")
    }

    @Test("bounds one cookie's size, the cookies per domain and the total, evicting the oldest")
    func limits() throws {
        var limits = CookieJar.Limits()
        #expect(limits.maxBytesPerCookie == 4096 && limits.maxCookiesPerDomain == 50 && limits.maxCookies == 3000)
        limits.maxCookiesPerDomain = 3
        limits.maxCookies = 5
        let jar = CookieJar(limits: limits)
        let big = "a=" + String(repeating: "x", count: 4095)
        #expect(jar.store(setCookie: big, from: try url("http://h.test/"), now: Self.now) == nil)
        for index in 0..<4 {
            jar.store(setCookie: "c\(index)=1", from: try url("http://one.test/"), now: Self.now)
        }
        #expect(jar.cookies.map(\.name) == ["c1", "c2", "c3"])
        for index in 0..<4 {
            jar.store(setCookie: "d\(index)=1", from: try url("http://two.test/"), now: Self.now)
        }
        // Five in all: the oldest (c1) went first, then the per-domain limit took d0.
        #expect(jar.cookies.map(\.name) == ["c2", "c3", "d1", "d2", "d3"])
    }

    @Test("an expired cookie is evicted before an older live one")
    func evictsExpiredFirst() throws {
        var limits = CookieJar.Limits()
        limits.maxCookies = 2
        let jar = CookieJar(limits: limits)
        let origin = try url("http://h.test/")
        jar.store(setCookie: "old=1", from: origin, now: Self.now)
        jar.store(setCookie: "short=1; Max-Age=1", from: origin, now: Self.now)
        jar.store(setCookie: "new=1", from: origin, now: Self.now.addingTimeInterval(5))
        #expect(try field(jar, "http://h.test/", at: Self.now.addingTimeInterval(5)) == "old=1; new=1")
    }

    @Test("add refuses names and values a Cookie field cannot carry")
    func addChecks() {
        let jar = CookieJar()
        #expect(!jar.add(HTTPCookie(name: "a;b", value: "1", domain: "h.test")))
        #expect(!jar.add(HTTPCookie(name: "a", value: "1\r\n", domain: "h.test")))
        #expect(!jar.add(HTTPCookie(name: "", value: "1", domain: "h.test")))
        #expect(jar.add(HTTPCookie(name: "a", value: "x y,z", domain: "H.test")))
        #expect(jar.cookies.first?.domain == "h.test")
    }
}
