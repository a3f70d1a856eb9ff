// CacheControlTests: `Cache-Control` values as RFC 9111 §5.2 writes them — directives with and without
// arguments, both argument forms, case-insensitive names, several field lines — and the readings §1.2.2 and
// §4.2.1 ask for when a value is broken (2^31 for a huge number, "unknown" for a conflict or a non-number).

import HTTPWireCodec
import Testing

@Suite struct CacheControlTests {
    @Test("directives with and without arguments, names lowercased, quoted arguments unquoted")
    func directives() {
        let parsed = CacheControl(parsing: #"Max-Age=60 , no-cache="Set-Cookie, X-A",PRIVATE,  must-revalidate"#)
        #expect(parsed.directives.map(\.name) == ["max-age", "no-cache", "private", "must-revalidate"])
        #expect(parsed.directives.map(\.argument) == ["60", "Set-Cookie, X-A", nil, nil])
        #expect(parsed.seconds("max-age") == .value(60))
        #expect(parsed.contains("private") && !parsed.contains("public"))
        #expect(parsed.seconds("s-maxage") == nil)
    }

    @Test("every Cache-Control line is one list (RFC 9110 §5.3)")
    func severalLines() {
        let fields: HTTPFields = HTTPFields([
            HTTPField(name: "Cache-Control", value: "public"), HTTPField(name: "Content-Type", value: "text/plain"),
            HTTPField(name: "cache-control", value: "max-age=5, no-transform"),
        ])
        #expect(CacheControl(fields).directives.map(\.name) == ["public", "max-age", "no-transform"])
    }

    @Test("delta-seconds: quoted form accepted, 2^31 for a huge value, invalid for a non-number (§1.2.2, §5.2)")
    func deltaSeconds() {
        #expect(CacheControl(parsing: #"max-age="5""#).seconds("max-age") == .value(5))
        #expect(CacheControl(parsing: "max-age=99999999999999999999999").seconds("max-age") == .value(2_147_483_648))
        #expect(CacheControl(parsing: "max-age=-1").seconds("max-age") == .invalid)
        #expect(CacheControl(parsing: "max-age=1.5").seconds("max-age") == .invalid)
        #expect(CacheControl(parsing: "max-age").seconds("max-age") == .invalid)
        #expect(CacheControl(parsing: "max-age=0").seconds("max-age") == .value(0))
    }

    @Test("a directive twice: the same argument is kept, different ones make it invalid (§4.2.1)")
    func duplicates() {
        #expect(CacheControl(parsing: "max-age=5, max-age=5").seconds("max-age") == .value(5))
        #expect(CacheControl(parsing: "max-age=5, max-age=50").seconds("max-age") == .invalid)
    }

    @Test("junk is skipped to the next comma, so a no-store after it still counts; a malformed directive stays")
    func junk() {
        for value in [
            "max-age=, no-store", "@@@, no-store", "a b c, no-store", ",,, no-store",
            "max-age=5 6, no-store",
        ] {
            let parsed = CacheControl(parsing: value)
            #expect(parsed.contains("no-store"), "\(value)")
        }
        #expect(CacheControl(parsing: "").directives.isEmpty)
        // A malformed element keeps its directive, with its argument distrusted: stale, not fresh for ever.
        #expect(CacheControl(parsing: "max-age=5 6").seconds("max-age") == .invalid, "two tokens are no argument")
        #expect(CacheControl(parsing: "max-age=").seconds("max-age") == .invalid)
        #expect(CacheControl(parsing: "no-store;").contains("no-store"), "not stored, junk or not")
        // An unterminated quote runs to the end of the value: what follows it is inside the quote.
        #expect(CacheControl(parsing: #"foo="open, no-store"#).directives.map(\.name) == ["foo"])
    }
}
