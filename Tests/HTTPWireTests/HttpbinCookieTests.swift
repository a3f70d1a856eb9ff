// HttpbinCookieTests: the cookie jar against httpbin (PyPI) on loopback, a server whose cookie code
// (Werkzeug's) was written independently of ours — `/cookies/set` answers with Set-Cookie on a 302 to
// `/cookies`, which echoes the Cookie field it received; `/cookies/delete` expires cookies the same way.

import Foundation
import HTTPWire
import TestSupport
import Testing

@Suite("httpbin cookies")
struct HttpbinCookieTests {
    /// What httpbin's `/cookies` answers: the cookies of the request's `Cookie` field.
    struct Cookies: Decodable {
        var cookies: [String: String]
    }

    @Test(
        "cookies set by httpbin's redirect are sent on the redirect's next hop, and /cookies/delete removes them",
        .timeLimit(.scaledMinutes(1)))
    func setAndDelete() async throws {
        try await withHttpbin { base in
            let jar = CookieJar()
            var configuration = ClientConfiguration()
            configuration.cookieJar = jar
            let client = HTTPClient(configuration: configuration)
            // /cookies/set?… answers 302 to /cookies with the Set-Cookie fields; the jar stores them from the
            // redirect and the next hop carries them.
            let set = try await client.get(base + "/cookies/set?flavour=oat&count=2")
            #expect(set.url.pathAndQuery == "/cookies")
            #expect(try set.decode(Cookies.self).cookies == ["flavour": "oat", "count": "2"])
            #expect(Set(jar.cookies.map(\.name)) == ["flavour", "count"])
            #expect(jar.cookies.allSatisfy { $0.isHostOnly && $0.domain == "127.0.0.1" && $0.path == "/" })
            // /cookies/delete?flavour: Werkzeug expires it (an Expires in 1970 and Max-Age=0).
            let deleted = try await client.get(base + "/cookies/delete?flavour")
            #expect(try deleted.decode(Cookies.self).cookies == ["count": "2"])
            #expect(jar.cookies.map(\.name) == ["count"])
            // A client without a jar sends none: the default.
            let plain = HTTPClient()
            #expect(try await plain.get(base + "/cookies").decode(Cookies.self).cookies == [:])
            await plain.shutdown()
            await client.shutdown()
        }
    }

    @Test("the jar's cookie file is what curl -b sends to httpbin", .timeLimit(.scaledMinutes(1)))
    func curlReadsTheJar() async throws {
        try await withHttpbin { base in
            let jar = CookieJar()
            var configuration = ClientConfiguration()
            configuration.cookieJar = jar
            let client = HTTPClient(configuration: configuration)
            _ = try await client.get(base + "/cookies/set/session/abc123")
            await client.shutdown()
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("httpbin-\(UUID()).txt").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try await jar.save(toFile: path)
            let curl = try await Subprocess.run("/usr/bin/curl", ["-s", "-f", "-b", path, base + "/cookies"])
            try #require(curl.status == 0, "curl failed: \(curl.errorText)")
            let seen = try JSONDecoder().decode(Cookies.self, from: Data(curl.standardOutput))
            #expect(seen.cookies == ["session": "abc123"])
        }
    }
}
