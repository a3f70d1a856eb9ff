// FuzzRegressionTests: every input a fuzz target failed on, replayed with the answer the RFC gives for it.
// Codec layer tests: files from Fixtures/fuzz/<target>/fuzz-* into the parser that failed; no I/O beyond
// reading them.
//
// `make fuzz` replays these files too (each seed folder is part of its target's corpus), with the target's
// full invariants; this suite runs them in the ordinary test run and states what each must now produce, so
// a fix that only stops the crash without giving the right answer fails here. Response decoder inputs are
// fixtures in Fixtures/responses with FixtureCatalog entries instead. Each file is written by
// Fixtures/fuzz/make-seeds.py; a new one needs an entry in `regressions` (a test checks that none is missing).

import HTTPWireCodec
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One failure input and the check its answer must pass.
struct FuzzRegression: Sendable, CustomTestStringConvertible {
    /// The target's seed folder under Fixtures/fuzz.
    var target: String
    /// The file name, starting with `fuzz-`.
    var file: String
    /// What the parser must answer; given the two halves of the input (split at the first LF, as the
    /// targets read them).
    var check: @Sendable (_ first: String, _ second: String?) throws -> Void

    var testDescription: String { "\(target)/\(file)" }
}

@Suite struct FuzzRegressionTests {
    /// `Fixtures/fuzz` at the repository root, found from this file's path.
    static let directory: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // FuzzRegressionTests.swift, HTTPWireCodecTests, Tests
        return parts.joined(separator: "/") + "/Fixtures/fuzz"
    }()

    static let regressions: [FuzzRegression] = [
        // RFC 9110 §14.4: a last position of 2^63 - 1 implies a complete length no Int64 holds; byteCount
        // used to trap on it. The Range half is valid and can never be satisfied.
        FuzzRegression(target: "ByteRange", file: "fuzz-content-range-last-int64-max") { range, contentRange throws in
            #expect(try ByteRange.parseField(range) == .single(ByteRange(from: Int64.max)!))
            #expect(ByteRange(from: Int64.max)!.selection(forLength: Int64.max) == .unsatisfiable)
            #expect(throws: CodecError.invalidContentRange(preview: "bytes 0-9223372036854775807/*")) {
                try ContentRange(parsing: contentRange ?? "")
            }
        },
        // RFC 6265 §5.2.3: "without the leading %x2E" — one dot goes, a second stays. The fuzz property had
        // asked for no leading dot at all; the parser's answer is the RFC's (the jar refuses the cookie, since
        // no host domain-matches ".com": CookieJarTests "refuses a Domain the host may not set").
        // RFC 9110 §5.6.7: in June 2026 a two-digit 76 is 2076 (not more than 50 years ahead); the leap
        // second at the end of that year is, in POSIX time, 2077's first second. The target's property
        // had taken that instant's year for the named day's.
        FuzzRegression(target: "HTTPDate", file: "fuzz-rfc850-leap-second-at-year-end") { value, _ in
            #expect(HTTPDate.secondsSinceEpoch(parsing: value, now: 1_781_000_000) == 3_376_684_800)
            #expect(
                HTTPDate.secondsSinceEpoch(parsing: "Thursday, 31-Dec-76 23:59:59 GMT", now: 1_781_000_000)
                    == 3_376_684_799)
        },
        FuzzRegression(target: "SetCookie", file: "fuzz-domain-two-leading-dots") { value, _ in
            let cookie = try #require(SetCookie(parsing: value))
            #expect(cookie.name == "lang" && cookie.value == "en-US")
            #expect(cookie.domain == ".com")
            #expect(cookie.path == nil)  // "Pat`" is an unknown attribute, not Path
        },
        FuzzRegression(target: "SetCookie", file: "fuzz-path-slash-combining-mark") { value, _ in
            let cookie = try #require(SetCookie(parsing: value))
            #expect(cookie.name == "token" && cookie.value == "=\"")
            // §5.2.4 looks at the first byte: "/" then U+073A is a path, though as a Character it is not "/".
            #expect(cookie.path == "/\u{073A}xre[nown=1")
        },
        FuzzRegression(target: "SetCookie", file: "fuzz-domain-non-ascii-capital") { value, _ in
            let cookie = try #require(SetCookie(parsing: value))
            #expect(cookie.domain == "b\u{00C4}ckerei.example")  // ASCII letters lower-cased, "Ä" kept
        },
    ]

    /// The seed folders of the codec's targets. The folders of targets for HTTPWire's parsers are replayed
    /// by tests in HTTPWireTests (ContentDispositionFuzzRegressionTests), which can import the library.
    static let codecTargets = [
        "ByteRange", "HTTPDate", "PercentEncoding", "RequestDecoder", "SetCookie", "TargetURL",
    ]

    @Test("every fuzz-* file of a codec target's seeds has a regression entry, and every entry a file")
    func catalogMatchesFiles() throws {
        var files: Set<String> = []
        for target in Self.codecTargets {
            let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory + "/" + target)
            for name in names where name.hasPrefix("fuzz-") { files.insert(target + "/" + name) }
        }
        #expect(files == Set(Self.regressions.map { $0.target + "/" + $0.file }))
    }

    @Test("replays each failure input", arguments: regressions)
    func replay(_ regression: FuzzRegression) throws {
        let path = Self.directory + "/" + regression.target + "/" + regression.file
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        let newline = bytes.firstIndex(of: 0x0A)
        let first = String(decoding: bytes[..<(newline ?? bytes.endIndex)], as: UTF8.self)
        let second = newline.map { String(decoding: bytes[($0 + 1)...], as: UTF8.self) }
        try regression.check(first, second)
    }
}
