// CookieDateTests: the lenient cookie-date algorithm of RFC 6265 §5.1.1 — the three HTTP-date forms, the
// odd forms real servers send, and the dates the algorithm must refuse. Expected instants were computed
// independently (Python's calendar.timegm), not by the code under test.

import HTTPWireCodec
import Testing

@Suite struct CookieDateTests {
    /// 1994-11-06 08:49:37 UTC, the RFC's example instant.
    static let rfcExample: Int64 = 784_111_777

    @Test(
        "reads the RFC's example in every form servers send",
        arguments: [
            "Sun, 06 Nov 1994 08:49:37 GMT",  // IMF-fixdate
            "Sunday, 06-Nov-94 08:49:37 GMT",  // RFC 850, two-digit year
            "Sun Nov  6 08:49:37 1994",  // asctime
            "Sun, 06-Nov-1994 08:49:37 GMT",  // Netscape's draft: dashes and a four-digit year
            "Sun, 6 Nov 1994 8:49:37 GMT",  // one-digit day and hour
            "06 Nov 1994 08:49:37",  // no weekday, no zone
            "Sun Nov 06 1994 08:49:37 GMT+0000 (Coordinated Universal Time)",  // JavaScript's Date.toString
            "sunday, 06-NOVEMBER-1994 08:49:37 utc",  // case and long month names
            "Sun,06-Nov-94\t08:49:37 GMT",  // tab and no space after the comma
            "1994 Nov 06 08:49:37",  // year first: a four-digit token cannot be a day of the month
        ])
    func realForms(text: String) {
        #expect(CookieDate.secondsSinceEpoch(parsing: text) == Self.rfcExample)
    }

    @Test(
        "places two-digit years by the RFC's fixed rule, 70-99 in the 1900s, 00-69 in the 2000s",
        arguments: [
            ("Thu, 01-Jan-70 00:00:00 GMT", Int64(0)),
            ("Sat, 01-Jan-00 00:00:00 GMT", 946_684_800),
            ("Tue, 01-Jan-69 00:00:00 GMT", 3_124_224_000),
        ])
    func twoDigitYears(text: String, expected: Int64) {
        #expect(CookieDate.secondsSinceEpoch(parsing: text) == expected)
    }

    @Test(
        "reads dates before 1970 and after 2038",
        arguments: [
            ("Mon, 01 Jan 1601 00:00:00 GMT", Int64(-11_644_473_600)),
            ("Tue, 19 Jan 2038 03:14:08 GMT", 2_147_483_648),
            ("Fri, 31 Dec 9999 23:59:59 GMT", 253_402_300_799),
            ("Thu, 29 Feb 2024 23:59:59 GMT", 1_709_251_199),
        ])
    func range(text: String, expected: Int64) {
        #expect(CookieDate.secondsSinceEpoch(parsing: text) == expected)
    }

    @Test(
        "refuses what is not a date",
        arguments: [
            "",
            "tomorrow",
            "Sun, 06 Nov 1994",  // no time
            "06 Nov 08:49:37",  // no year
            "Sun, 1994 08:49:37",  // no day, no month
            "Sun, 06 Foo 1994 08:49:37 GMT",  // no month
            "Sun, 31 Nov 1994 08:49:37 GMT",  // 31 November does not exist
            "Fri, 29 Feb 2023 08:49:37 GMT",  // not a leap year
            "Sun, 06 Nov 1994 24:00:00 GMT",  // hour past 23
            "Sun, 06 Nov 1994 08:60:00 GMT",  // minute past 59
            "Sun, 06 Nov 1994 08:49:60 GMT",  // no leap second in a cookie date
            "Sun, 06 Nov 1600 08:49:37 GMT",  // before 1601
            "Sun, 00 Nov 1994 08:49:37 GMT",  // day 0
            "Sun, 06 Nov 19945 08:49:37 GMT",  // a five-digit year is no year
            "Sun, 06 Nov 1994 008:49:37 GMT",  // a three-digit time field is no time
        ])
    func refusals(text: String) {
        #expect(CookieDate.secondsSinceEpoch(parsing: text) == nil)
    }

    @Test("takes the first token of each kind and ignores the rest")
    func firstTokenWins() {
        // The second time, day and year are ignored (step 2 sets each flag once).
        #expect(CookieDate.secondsSinceEpoch(parsing: "08:49:37 06 Nov 1994 09:00:00 07 1995") == Self.rfcExample)
        // Text past the limit is not read: a date hidden after 256 bytes of padding is not found.
        let padded = String(repeating: "x ", count: 200) + "Sun, 06 Nov 1994 08:49:37 GMT"
        #expect(CookieDate.secondsSinceEpoch(parsing: padded) == nil)
    }
}
