// HTTPDate: the libFuzzer target for HTTP-date parsing and formatting (RFC 9110 §5.6.7).
// Test tooling for the codec layer, built by Tests/Fuzz/fuzz.sh against HTTPWireCodec; not a SwiftPM target.
//
// An input is the value of a `Date`, `Last-Modified` or `Retry-After` field. It is parsed against two
// clocks: June 2026 and one made from the input's hash (any Int64, negative and far future included, which
// the parser must clamp). Properties:
// - the three forms are at most 33 bytes, so anything longer is not a date;
// - a date the IMF-fixdate parser accepts, the full parser accepts as the same instant;
// - the clock matters only for the two-digit year of the RFC 850 form (the one form with a `-`), and then
//   the year of the named day is within 50 years of the clock's: 1977–2076 in 2026;
// - formatting is the inverse of parsing: the IMF-fixdate of a parsed instant parses back to that instant
//   (a leap second, `23:59:60`, is the next day's `00:00:00` both ways), clamped to 1970–9999.
// The first 8 bytes, read as an Int64, are formatted too: any instant gives a 29-byte date that parses back.
//
// fuzz-module: HTTPWireCodec
// fuzz-seeds: Fixtures/fuzz/HTTPDate
// fuzz-max-len: 64

import HTTPWireCodec

/// libFuzzer calls this once per generated input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPDate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let text = input.text
    let clock = Int64(bitPattern: input.hash)
    let in2026 = HTTPDate.secondsSinceEpoch(parsing: text, now: HTTPDateFuzz.june2026)
    let atClock = HTTPDate.secondsSinceEpoch(parsing: text, now: clock)
    let imf = HTTPDate.secondsSinceEpoch(parsingIMFFixdate: text)
    func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        FuzzCheck.expect(condition, "\(text.debugDescription): \(message())")
    }
    if text.utf8.count > 33 { expect(in2026 == nil && atClock == nil && imf == nil, "a date longer than 33 bytes") }
    if let imf {
        expect(in2026 == imf && atClock == imf, "IMF-fixdate \(imf), full parser \(String(describing: in2026))")
    }
    let isRFC850 = text.utf8.contains(UInt8(ascii: "-"))
    if !isRFC850 { expect(in2026 == atClock, "the clock \(clock) changed a date without a two-digit year") }
    for seconds in [in2026, atClock].compactMap({ $0 }) { HTTPDateFuzz.checkFormatting(seconds, input: text) }
    if isRFC850, let in2026 {
        // The year of the day the text names: a leap second, `23:59:60`, is the next day's first second, and
        // on 31 December the next year's (found by the fuzzer: "31-Dec-76 23:59:60" is 2077-01-01 00:00:00).
        let isLeapSecond = text.utf8.count >= 8 && text.contains(":60")
        let year = HTTPDateFuzz.year(of: isLeapSecond ? in2026 - 1 : in2026)
        expect((1977...2076).contains(year), "a two-digit year read as \(year) in 2026")
    }
    if input.bytes.count >= 8 {
        let instant = input.bytes.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
        HTTPDateFuzz.checkFormatting(instant, input: text)
    }
    return 0
}

/// The formatting checks behind the entry point.
enum HTTPDateFuzz {
    /// 2026-06-09, the clock of the documentation's examples.
    static let june2026: Int64 = 1_781_000_000
    /// 9999-12-31 23:59:59 UTC, the last instant an IMF-fixdate can name.
    static let lastSecondOfYear9999: Int64 = 253_402_300_799

    /// The IMF-fixdate of `seconds` is 29 bytes and parses back to `seconds` clamped to 1970–9999.
    static func checkFormatting(_ seconds: Int64, input: String) {
        let formatted = HTTPDate.imfFixdate(secondsSinceEpoch: seconds)
        let expected = min(max(0, seconds), lastSecondOfYear9999)
        FuzzCheck.expect(
            formatted.utf8.count == 29 && HTTPDate.secondsSinceEpoch(parsingIMFFixdate: formatted) == expected,
            "\(seconds) (from \(input.debugDescription)) formats as \(formatted.debugDescription)")
    }

    /// The year of an instant, read from its IMF-fixdate (`Sun, 06 Nov 1994 …`: bytes 12–15).
    static func year(of seconds: Int64) -> Int {
        let formatted = Array(HTTPDate.imfFixdate(secondsSinceEpoch: seconds).utf8)
        return formatted[12..<16].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }
}
