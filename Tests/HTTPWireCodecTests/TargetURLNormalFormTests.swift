// TargetURLNormalFormTests: the one-scan path for URLs already in normal form agrees with the general parser.
// Codec tests: pure functions, no I/O.
//
// `TargetURL(_:)` first tries `normalForm`, which takes a URL as it is when nothing in it would change; the
// general parser reads everything else. A URL the scan accepts must come out exactly as the general parser
// would make it, and a URL it is unsure of must be left to the general parser (which may still accept it).

import Testing

@testable import HTTPWireCodec

@Suite struct TargetURLNormalFormTests {
    @Test(
        "URLs already in normal form are taken in one scan, exactly as the general parser reads them",
        arguments: [
            "http://127.0.0.1:18080/small.json?i=1",
            "https://example.com",
            "http://h?x",
            "http://h/p?",
            "http://h:080/",
            "http://h:65535/a",
            "http://10.0.0.255/",
            "http://a_b-c.example.com:8080/a/b;c=d/e@f:g!$&'()*+,=?q=/?&x='y'(z)*+,;=~",
            "http://h/a.b/c.d?e=./../f",
            "http://h//double//slashes/",
            "http://example.1a/",
            "http://a..b/",
        ])
    func normalURLs(_ text: String) throws {
        let normal = try #require(TargetURL.normalForm(text))
        #expect(normal == (try TargetURL(parsingInGeneral: text)))
        #expect(normal == (try TargetURL(text)))
    }

    @Test(
        "URLs that need trimming, lowercasing, encoding, dot-segment removal or checking go the general way",
        arguments: [
            "HTTP://h/", "http://H/", "http://h/%20", "http://h/a#top", "http://h/./a", "http://h/a/..",
            "http://h/.well-known", "http://user@h/", "http://[::1]/", " http://h/", "http://h/ ", "http://h:/",
            "http://h:0/", "http://h:65536/", "http://h./", "http://127.1/", "http://0x7f.0.0.1/",
            "http://010.0.0.1/", "http://256.0.0.1/", "http://h/caf\u{e9}", "http://h/a b", "http://h/a\"b",
            "ftp://h/", "http:/h/", "http://", "http://h\\x/", "http://h?a b", "http://h/a|b", "http://h:8a/",
        ])
    func generalURLs(_ text: String) {
        #expect(TargetURL.normalForm(text) == nil)
    }

    @Test("on 50,000 generated URLs the scan and the general parser never disagree")
    func generatedURLsAgree() {
        // Two thirds of the pieces are ones a normal URL is made of, so both sides of the scan are reached.
        let schemes = ["http://", "https://", "http://", "https://", "HTTP://", "http:/", "", "http://user:pw@"]
        let hostPieces = (
            normal: ["h", "example", ".", "com", "127", "0", "1", "255", "0x7f", "_", "-", ":", "80", "65535"],
            other: ["Up", "256", "65536", "[::1]", "%41", "@", " ", "\u{e9}", ":", "0", "."]
        )
        let targetPieces = (
            normal: [
                "/", ".", "..", "a", "B", "?", "=", "&", "~", "!", "$", "'", "(", ")", "*", "+", ",", ";", ":", "@",
            ],
            other: ["#", "%", "%41", "%4", " ", "\u{e9}", "\"", "|", "\\", "\r", "/.", "/.."]
        )
        func piece(_ pieces: (normal: [String], other: [String]), _ generator: inout SplitMix64) -> String {
            let list = Int.random(in: 0..<3, using: &generator) < 2 ? pieces.normal : pieces.other
            return list.randomElement(using: &generator)!
        }
        var generator = SplitMix64(seed: 0x5EED_0F_0BAD_CAFE)
        var normalCount = 0
        for _ in 0..<50_000 {
            var text = schemes.randomElement(using: &generator)!
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                text += piece(hostPieces, &generator)
            }
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                text += piece(targetPieces, &generator)
            }
            guard let normal = TargetURL.normalForm(text) else { continue }
            normalCount += 1
            let general = try? TargetURL(parsingInGeneral: text)
            #expect(normal == general, "\(text.debugDescription)")
        }
        // The generator must reach the scan's accepting side often enough to mean something.
        #expect(normalCount > 1_000)
    }
}
