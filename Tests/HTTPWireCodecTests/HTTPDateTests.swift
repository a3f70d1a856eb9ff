// HTTPDateTests: the three HTTP-date formats of RFC 9110 §5.6.7, the calendar checks, the malformed
// variants each form must refuse, and the 50-year rule for RFC 850's two-digit year, always with a fixed
// "now" so no test depends on the clock. Expected instants were computed independently (Python's
// calendar.timegm), not by the code under test.

import HTTPWireCodec
import Testing

@Suite struct HTTPDateTests {
    /// 2026-06-15 12:00:00 UTC, a fixed "now".
    static let june2026: Int64 = 1_781_524_800
    /// 1994-11-06 08:49:37 UTC, the RFC's example instant.
    static let rfcExample: Int64 = 784_111_777

    private func parse(_ text: String, now: Int64 = june2026) -> Int64? {
        HTTPDate.secondsSinceEpoch(parsing: text, now: now)
    }

    @Test(
        "reads the RFC's example in all three formats",
        arguments: [
            "Sun, 06 Nov 1994 08:49:37 GMT",  // IMF-fixdate
            "Sunday, 06-Nov-94 08:49:37 GMT",  // obsolete RFC 850 form
            "Sun Nov  6 08:49:37 1994",  // asctime, one-digit day padded with a space
            "Sun Nov 06 08:49:37 1994",  // asctime with the grammar's other choice, 2DIGIT
        ])
    func rfcExamples(text: String) {
        #expect(parse(text) == Self.rfcExample)
    }

    @Test("reads any string type, and only the date itself")
    func substrings() {
        let field = "Date: Sun, 06 Nov 1994 08:49:37 GMT"
        #expect(HTTPDate.secondsSinceEpoch(parsing: field.dropFirst(6), now: Self.june2026) == Self.rfcExample)
        #expect(parse(field) == nil)
        #expect(parse("Sun, 06 Nov 1994 08:49:37 GMT" + String(repeating: " ", count: 10_000)) == nil)
    }

    @Test("the IMF-fixdate reader refuses the obsolete forms")
    func imfOnly() {
        #expect(HTTPDate.secondsSinceEpoch(parsingIMFFixdate: "Sun, 06 Nov 1994 08:49:37 GMT") == Self.rfcExample)
        #expect(HTTPDate.secondsSinceEpoch(parsingIMFFixdate: "Sunday, 06-Nov-94 08:49:37 GMT") == nil)
        #expect(HTTPDate.secondsSinceEpoch(parsingIMFFixdate: "Sun Nov  6 08:49:37 1994") == nil)
    }

    @Test(
        "counts from the epoch in both directions",
        arguments: [
            ("Thu, 01 Jan 1970 00:00:00 GMT", Int64(0)),
            ("Mon, 01 Jan 1900 00:00:00 GMT", -2_208_988_800),
            ("Fri, 31 Dec 9999 23:59:59 GMT", 253_402_300_799),
            ("Thu Jan  1 00:00:00 1970", 0),
        ])
    func epoch(text: String, seconds: Int64) {
        #expect(parse(text) == seconds)
    }

    @Test("29 February exists only in leap years")
    func leapDays() {
        // 2024-02-29 12:00:00 UTC in each form.
        #expect(parse("Thu, 29 Feb 2024 12:00:00 GMT") == 1_709_208_000)
        #expect(parse("Thursday, 29-Feb-24 12:00:00 GMT") == 1_709_208_000)
        #expect(parse("Thu Feb 29 12:00:00 2024") == 1_709_208_000)
        #expect(parse("Tue, 29 Feb 2000 12:00:00 GMT") == 951_825_600)  // divisible by 400: leap
        #expect(parse("Wed, 29 Feb 2023 12:00:00 GMT") == nil)
        #expect(parse("Wednesday, 29-Feb-23 12:00:00 GMT") == nil)
        #expect(parse("Wed Feb 29 12:00:00 2023") == nil)
        #expect(parse("Mon, 29 Feb 2100 12:00:00 GMT") == nil)  // a century not divisible by 400: common
        #expect(parse("Thu, 28 Feb 2023 23:59:59 GMT") != nil)
    }

    @Test(
        "refuses days, hours, minutes and seconds out of range",
        arguments: [
            "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 00 Nov 1994 08:49:37 GMT", "Thu, 31 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:37 GMT", "Sun, 06 Nov 1994 08:49:61 GMT",
            "Sunday, 32-Nov-94 08:49:37 GMT", "Sunday, 06-Nov-94 24:00:00 GMT", "Sun Nov 32 08:49:37 1994",
            "Sun Nov  0 08:49:37 1994", "Sun Nov  6 24:49:37 1994", "Sun Nov  6 08:49:99 1994",
        ])
    func outOfRange(text: String) {
        #expect(parse(text) == nil)
    }

    @Test("a leap second reads as the first second of the next day")
    func leapSecond() {
        #expect(parse("Sun, 06 Nov 1994 23:59:60 GMT") == 784_166_400)  // 1994-11-07 00:00:00
        #expect(parse("Sun, 06 Nov 1994 23:59:59 GMT") == 784_166_399)
    }

    @Test(
        "refuses wrong separators, widths, names and trailing text",
        arguments: [
            // IMF-fixdate
            "Sun 06 Nov 1994 08:49:37 GMT", "Sun,06 Nov 1994 08:49:37 GMT", "Sun, 06-Nov-1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08.49.37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 08:49:37",
            "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT",
            "Sun, 06 Foo 1994 08:49:37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT", "Sunday, 06 Nov 1994 08:49:37 GMT",
            // whitespace beyond the grammar's single SP, anywhere, including around the value
            "Sun,  06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994\t08:49:37 GMT", " Sun, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT ", "Sun, 06 Nov 1994 08:49:37 GMTX",
            // RFC 850
            "Sun, 06-Nov-94 08:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37 GMT", "Sunday, 6-Nov-94 08:49:37 GMT",
            "Sunday 06-Nov-94 08:49:37 GMT", "Sunday, 06 Nov 94 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37",
            "Sunday, 06/Nov/94 08:49:37 GMT", "Sundays, 06-Nov-94 08:49:37 GMT",
            "Wednesday, 09-Nov-94 08:49:37 GMT!",
            // asctime
            "Sun Nov 6 08:49:37 1994", "Sun Nov   6 08:49:37 1994", "Sun Nov 6  08:49:37 1994",
            "Sun Nov  6 08:49:37 94", "Sun Nov  6 08:49:37 1994 GMT", "Sun, Nov  6 08:49:37 1994",
            "Sunday Nov  6 08:49:37 1994", "Sun Nov  6 08:49:37 19945",
            // not a date at all
            "", "Sun", "784111777", "Sun, ０6 Nov 1994 08:49:37 GMT",
        ])
    func malformed(text: String) {
        #expect(parse(text) == nil)
    }

    @Test(
        "names are case-sensitive (RFC 9110 §5.6.7)",
        arguments: [
            "Sun, 06 nov 1994 08:49:37 GMT", "Sun, 06 NOV 1994 08:49:37 GMT", "sun, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 gmt", "sunday, 06-Nov-94 08:49:37 GMT", "Sunday, 06-nov-94 08:49:37 GMT",
            "Sun nov  6 08:49:37 1994", "SUN Nov  6 08:49:37 1994",
        ])
    func caseSensitive(text: String) {
        #expect(parse(text) == nil)
    }

    @Test("the day name must be a day name but need not match the date")
    func dayNameNotChecked() {
        #expect(parse("Mon, 06 Nov 1994 08:49:37 GMT") == Self.rfcExample)
        #expect(parse("Friday, 06-Nov-94 08:49:37 GMT") == Self.rfcExample)
        #expect(parse("Wed Nov  6 08:49:37 1994") == Self.rfcExample)
    }

    @Test("a two-digit year more than 50 years ahead is the most recent past one (RFC 9110 §5.6.7)")
    func twoDigitYears() {
        // Now is in 2026: 2076 is 50 years ahead and stays; 2077 would be 51, so 77 is 1977.
        #expect(parse("Thursday, 31-Dec-76 23:59:59 GMT") == 3_376_684_799)  // 2076-12-31 23:59:59
        #expect(parse("Saturday, 01-Jan-77 00:00:00 GMT") == 220_924_800)  // 1977-01-01
        #expect(parse("Wednesday, 01-Jan-25 00:00:00 GMT") == 1_735_689_600)  // 2025-01-01, not 1925
        // Later, the same digits move to the next century: in 2090, 94 is 2094, 40 is 2140, 41 is 2041.
        let june2090: Int64 = 3_799_958_400
        #expect(parse("Saturday, 06-Nov-94 08:49:37 GMT", now: june2090) == 3_939_871_777)
        #expect(parse("Friday, 01-Jan-40 00:00:00 GMT", now: june2090) == 5_364_662_400)
        #expect(parse("Tuesday, 01-Jan-41 00:00:00 GMT", now: june2090) == 2_240_611_200)
        // In 2099, 00 is the coming year 2100, not 2000.
        let june2099: Int64 = 4_083_955_200
        #expect(parse("Monday, 01-Mar-00 00:00:00 GMT", now: june2099) == 4_107_542_400)
    }

    @Test("the current year changes exactly at New Year")
    func currentYearBoundary() {
        let newYear2026: Int64 = 1_767_225_600  // 2026-01-01 00:00:00
        // From 2026, 76 is 50 years ahead; from 2025 it would be 51, so it is 1976.
        #expect(parse("Thursday, 31-Dec-76 23:59:59 GMT", now: newYear2026) == 3_376_684_799)
        #expect(parse("Friday, 31-Dec-76 23:59:59 GMT", now: newYear2026 - 1) == 220_924_799)
        // 2000-01-01 is a New Year that dividing by the mean year length places in 1999.
        let newYear2000: Int64 = 946_684_800
        #expect(parse("Saturday, 01-Jan-50 00:00:00 GMT", now: newYear2000) == 2_524_608_000)  // 2050
        #expect(parse("Sunday, 01-Jan-50 00:00:00 GMT", now: newYear2000 - 1) == -631_152_000)  // 1950
    }

    @Test("any clock reading is safe: now is clamped to the years 1970 to 9999")
    func extremeNow() {
        #expect(parse("Sunday, 06-Nov-94 08:49:37 GMT", now: .min) == Self.rfcExample)  // read in 1970
        #expect(parse("Sunday, 06-Nov-94 08:49:37 GMT", now: .max) == 253_239_727_777)  // read in 9999: 9994
    }

    @Test(
        "writes IMF-fixdates, which read back to the same instant",
        arguments: [
            (Int64(0), "Thu, 01 Jan 1970 00:00:00 GMT"), (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
            (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"), (1_767_225_599, "Wed, 31 Dec 2025 23:59:59 GMT"),
            (253_402_300_799, "Fri, 31 Dec 9999 23:59:59 GMT"),
        ])
    func writes(seconds: Int64, expected: String) {
        #expect(HTTPDate.imfFixdate(secondsSinceEpoch: seconds) == expected)
        #expect(HTTPDate.secondsSinceEpoch(parsingIMFFixdate: expected) == seconds)
    }

    @Test("instants outside 1970 to 9999 are written as the nearest end of that range")
    func writesClamped() {
        #expect(HTTPDate.imfFixdate(secondsSinceEpoch: -1) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.imfFixdate(secondsSinceEpoch: .max) == "Fri, 31 Dec 9999 23:59:59 GMT")
    }
}
