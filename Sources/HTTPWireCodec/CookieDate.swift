// CookieDate: the lenient date algorithm of RFC 6265 §5.1.1, which reads a `Set-Cookie` field's `Expires`
// attribute. Codec layer: a pure function over bytes; it must not read a clock.
//
// `Expires` was born in Netscape's cookie draft, long before HTTP-dates were pinned down, and servers still
// send every shape of date: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850 (`Sunday, 06-Nov-94
// 08:49:37 GMT`), asctime (`Sun Nov  6 08:49:37 1994`), and odder forms (`Sun, 06-Nov-1994 08:49:37 GMT`,
// `6 Nov 1994 8:49:37`, `Sun Nov 06 1994 08:49:37 GMT+0000 (UTC)`). So RFC 6265 does not give a grammar for
// the whole value: it splits the text into tokens at delimiters and looks, in order, for the first token
// that is a time, a day of the month, a month name and a year, ignoring everything else (weekdays, zones).
// This is deliberately not `HTTPDate`, which follows RFC 9110's three exact layouts to the byte.

/// Reads a cookie-date (RFC 6265 §5.1.1) as whole seconds since 1970-01-01 00:00:00 UTC.
///
/// ```swift
/// CookieDate.secondsSinceEpoch(parsing: "Sun, 06 Nov 1994 08:49:37 GMT")    // 784111777
/// CookieDate.secondsSinceEpoch(parsing: "Sunday, 06-Nov-94 08:49:37 GMT")   // 784111777
/// CookieDate.secondsSinceEpoch(parsing: "Sun Nov  6 08:49:37 1994")         // 784111777
/// CookieDate.secondsSinceEpoch(parsing: "Sun, 06-Nov-1994 08:49:37 UTC")    // 784111777
/// CookieDate.secondsSinceEpoch(parsing: "tomorrow")                         // nil
/// ```
///
/// Month names are matched on their first three letters without regard to case (`NOVEMBER` is `nov`); a
/// two-digit year 70–99 is 19xx and 00–69 is 20xx (step 3 and 4 of the algorithm, fixed, no clock); a
/// year before 1601, a day outside 1–31 or a date that does not exist (31 November), an hour past 23, a
/// minute or second past 59 make the whole date invalid, and RFC 6265 §5.2.1 then says to ignore the
/// `Expires` attribute (the cookie itself is kept).
package enum CookieDate {
    /// The longest value looked at. Real dates are under 40 bytes; a server that sends a 1 MB `Expires` only
    /// makes the parse cost more, so the tokens past this point are not read (the cookie's own byte limit
    /// bounds the value anyway).
    package static let maxBytes = 256

    /// The instant the cookie-date `text` names, or nil when it names none.
    package static func secondsSinceEpoch(parsing text: some StringProtocol) -> Int64? {
        var found = Found()
        // Step 1: date-tokens are the runs of non-delimiters.
        var token: [UInt8] = []
        for byte in text.utf8.prefix(maxBytes) {
            if isDelimiter(byte) {
                if !token.isEmpty { found.take(token) }
                token.removeAll(keepingCapacity: true)
            } else {
                token.append(byte)
            }
        }
        if !token.isEmpty { found.take(token) }
        return found.secondsSinceEpoch()
    }

    /// `delimiter = %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E`: everything printable except digits,
    /// letters and `:` (the time's separator), plus tab.
    static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
            || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
    }

    private static let months: [[UInt8]] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ].map { Array($0.utf8) }

    /// The four flags of step 2 and the values found with them; each is set by the first token that fits.
    private struct Found {
        var time: (hour: Int64, minute: Int64, second: Int64)?
        var dayOfMonth: Int64?
        var month: Int64?
        var year: Int64?

        /// Step 2: a token is tried as a time, then a day of the month, a month and a year, each only while
        /// that value has not been found yet; the first match takes the token.
        mutating func take(_ token: [UInt8]) {
            if time == nil, let value = Self.time(token) {
                time = value
            } else if dayOfMonth == nil, let value = Self.leadingDigits(token, count: 1...2) {
                dayOfMonth = value
            } else if month == nil, token.count >= 3, let index = CookieDate.months.firstIndex(of: lowercased(token)) {
                month = Int64(index) + 1
            } else if year == nil, let value = Self.leadingDigits(token, count: 2...4) {
                year = value
            }
        }

        /// The first three bytes of a token in lower case (`month = "jan" / … *OCTET`).
        private func lowercased(_ token: [UInt8]) -> [UInt8] {
            token.prefix(3).map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        }

        /// `N*MDIGIT ( non-digit *OCTET )`, with the erratum 4148 reading: the digits may also end the token.
        private static func leadingDigits(_ token: [UInt8], count: ClosedRange<Int>) -> Int64? {
            let digits = token.prefix { (0x30...0x39).contains($0) }
            guard count.contains(digits.count) else { return nil }
            return digits.reduce(0) { $0 * 10 + Int64($1 - 0x30) }
        }

        /// `hms-time = time-field ":" time-field ":" time-field`, `time-field = 1*2DIGIT`, optionally
        /// followed by a non-digit and anything (`08:49:37Z`).
        private static func time(_ token: [UInt8]) -> (hour: Int64, minute: Int64, second: Int64)? {
            var fields: [Int64] = []
            var rest = token[...]
            for index in 0..<3 {
                let digits = rest.prefix { (0x30...0x39).contains($0) }
                guard (1...2).contains(digits.count) else { return nil }
                fields.append(digits.reduce(0) { $0 * 10 + Int64($1 - 0x30) })
                rest = rest.dropFirst(digits.count)
                if index < 2 {
                    guard rest.first == UInt8(ascii: ":") else { return nil }
                    rest = rest.dropFirst()
                } else if let next = rest.first, (0x30...0x39).contains(next) {
                    return nil
                }
            }
            return (fields[0], fields[1], fields[2])
        }

        /// Steps 3 to 7: the century of a two-digit year, the range checks, and the instant.
        func secondsSinceEpoch() -> Int64? {
            guard let time, let dayOfMonth, let month, var year else { return nil }  // step 5: all four
            if (70...99).contains(year) { year += 1900 }  // step 3
            if (0...69).contains(year) { year += 2000 }  // step 4
            guard (1...31).contains(dayOfMonth), year >= 1601, time.hour <= 23, time.minute <= 59,
                time.second <= 59
            else { return nil }
            // Step 6: a date that does not exist (30 February) is a failure, not the next month.
            guard dayOfMonth <= HTTPDate.daysInMonth(month, year: year) else { return nil }
            let days = HTTPDate.daysSinceEpoch(year: year, month: month, day: dayOfMonth)
            return days * 86_400 + time.hour * 3_600 + time.minute * 60 + time.second
        }
    }
}
