// HTTPDate: the timestamps of HTTP fields (`Date`, `Last-Modified`, `Retry-After`, `Expires`) read into
// whole seconds since the Unix epoch. Codec layer: pure functions over the text of a field value.
//
// RFC 9110 §5.6.7 has one format a sender MUST write, IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), and
// two obsolete ones a recipient that parses a timestamp MUST still accept: the RFC 850 form
// (`Sunday, 06-Nov-94 08:49:37 GMT`) and C's asctime (`Sun Nov  6 08:49:37 1994`). Each has a fixed layout,
// so each is read like its grammar, piece by piece with the exact separators, and then checked for a date
// and time that exist. The RFC 850 year has two digits, and which century it means depends on today, so
// the caller passes the current time. This file must not read a clock, and must not decide what a date is
// for (a retry delay, a validator): the library does that.

/// Reads HTTP-date field values (RFC 9110 §5.6.7) as whole seconds since 1970-01-01 00:00:00 UTC.
///
/// ```swift
/// let now: Int64 = 1_781_000_000   // the caller's clock, June 2026
/// HTTPDate.secondsSinceEpoch(parsing: "Sun, 06 Nov 1994 08:49:37 GMT", now: now)   // 784111777
/// HTTPDate.secondsSinceEpoch(parsing: "Sunday, 06-Nov-94 08:49:37 GMT", now: now)  // 784111777
/// HTTPDate.secondsSinceEpoch(parsing: "Sun Nov  6 08:49:37 1994", now: now)        // 784111777
/// HTTPDate.secondsSinceEpoch(parsing: "tomorrow", now: now)                         // nil
/// ```
///
/// The value must be exactly one date: trim the field's surrounding whitespace (OWS) first. Inside it,
/// the grammar is followed to the byte:
/// - separators are the single spaces, commas, dashes and colons of the grammar; a sender MUST NOT add
///   whitespace (RFC 9110 §5.6.7), and the fixed layout is what tells the three forms apart;
/// - names are English and case-sensitive (`Nov`, not `nov` or `NOV`): "HTTP-date is case sensitive"
///   (RFC 9110 §5.6.7; only caches are allowed to relax this, RFC 9111 §4.2);
/// - the date must exist (no 31 November, 29 February only in leap years), hours run 00–23, minutes
///   00–59 and seconds 00–60, 60 being a leap second. POSIX time has no leap seconds, so `23:59:60` is
///   read as the next day's `00:00:00`, the instant a POSIX clock shows for it.
///
/// The day name must be one of the seven but is not checked against the date: the date and time say which
/// instant is meant, and a sender that got the weekday wrong still meant that instant. This is the
/// robust reading RFC 9110 §5.6.7 encourages of recipients, and the one Go makes (`http.ParseTime` uses
/// `time.Parse`, which checks a weekday for syntax only).
public enum HTTPDate {
    /// The instant an HTTP-date in any of its three formats names, or nil when the text is not one.
    ///
    /// `now` is the current time in seconds since the epoch. It is used only for the two-digit year of
    /// the RFC 850 form: RFC 9110 §5.6.7 says a recipient MUST read a year that "appears to be more than
    /// 50 years in the future" as the most recent past year with the same last two digits. Years are
    /// compared whole: the year chosen is the latest one ending in those digits that is at most 50 years
    /// after the current year. In 2026 `76` is 2076 and `77` is 1977. `now` is clamped to the years
    /// 1970–9999, so no clock reading can make the arithmetic overflow.
    public static func secondsSinceEpoch(parsing text: some StringProtocol, now: Int64) -> Int64? {
        let bytes = bytesOfDate(text)
        return imfFixdate(bytes) ?? rfc850Date(bytes, now: now) ?? asctimeDate(bytes)
    }

    /// The instant an IMF-fixdate names (`Sun, 06 Nov 1994 08:49:37 GMT`), or nil for anything else,
    /// including the two obsolete forms.
    ///
    /// Use it where only the preferred form is allowed, or where there is no clock to place an RFC 850
    /// year; a recipient of an HTTP field should use ``secondsSinceEpoch(parsing:now:)``, which accepts
    /// all three forms as RFC 9110 §5.6.7 requires.
    public static func secondsSinceEpoch(parsingIMFFixdate text: some StringProtocol) -> Int64? {
        imfFixdate(bytesOfDate(text))
    }

    /// The IMF-fixdate of an instant — the one form a sender MUST write (RFC 9110 §5.6.7),
    /// as in `Last-Modified` or `Date`: fixed width, English names, always `GMT`. An instant before 1970 or
    /// after 9999 (which a four-digit year cannot name) is written as the nearest end of that range.
    ///
    /// ```swift
    /// HTTPDate.imfFixdate(secondsSinceEpoch: 784_111_777)   // "Sun, 06 Nov 1994 08:49:37 GMT"
    /// ```
    public static func imfFixdate(secondsSinceEpoch: Int64) -> String {
        let seconds = min(max(0, secondsSinceEpoch), lastSecondOfYear9999)
        let days = seconds / 86_400
        let timeOfDay = seconds % 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let weekday = shortDayNames[Int((days + 3) % 7)]  // 1970-01-01 was a Thursday
        let time = "\(twoDigits(timeOfDay / 3600)):\(twoDigits(timeOfDay / 60 % 60)):\(twoDigits(timeOfDay % 60))"
        return "\(weekday), \(twoDigits(day)) \(monthNames[Int(month) - 1]) \(year) \(time) GMT"
    }

    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    // MARK: The three forms

    /// `IMF-fixdate = day-name "," SP day SP month SP year SP time-of-day SP "GMT"`, 29 bytes.
    private static func imfFixdate(_ bytes: [UInt8]) -> Int64? {
        var reader = DateReader(bytes)
        guard reader.name(in: shortDayNames), reader.skip(", "), let day = reader.digits(2), reader.skip(" "),
            let month = reader.month(), reader.skip(" "), let year = reader.digits(4), reader.skip(" "),
            let time = reader.timeOfDay(), reader.skip(" GMT"), reader.isAtEnd
        else { return nil }
        return secondsSinceEpoch(year: year, month: month, day: day, time: time)
    }

    /// `rfc850-date = day-name-l "," SP day "-" month "-" 2DIGIT SP time-of-day SP "GMT"`, with the
    /// weekday spelled out (`Sunday, 06-Nov-94 08:49:37 GMT`).
    private static func rfc850Date(_ bytes: [UInt8], now: Int64) -> Int64? {
        var reader = DateReader(bytes)
        guard reader.name(in: longDayNames), reader.skip(", "), let day = reader.digits(2), reader.skip("-"),
            let month = reader.month(), reader.skip("-"), let twoDigitYear = reader.digits(2), reader.skip(" "),
            let time = reader.timeOfDay(), reader.skip(" GMT"), reader.isAtEnd
        else { return nil }
        let year = yearOfTwoDigitYear(twoDigitYear, now: now)
        return secondsSinceEpoch(year: year, month: month, day: day, time: time)
    }

    /// `asctime-date = day-name SP month SP ( 2DIGIT / ( SP 1DIGIT ) ) SP time-of-day SP year`: C's
    /// `asctime()` pads a one-digit day with a space (`Sun Nov  6 08:49:37 1994`), and has no zone: it is
    /// read as UTC (RFC 9110 §5.6.7).
    private static func asctimeDate(_ bytes: [UInt8]) -> Int64? {
        var reader = DateReader(bytes)
        guard reader.name(in: shortDayNames), reader.skip(" "), let month = reader.month(), reader.skip(" "),
            let day = reader.skip(" ") ? reader.digits(1) : reader.digits(2), reader.skip(" "),
            let time = reader.timeOfDay(), reader.skip(" "), let year = reader.digits(4), reader.isAtEnd
        else { return nil }
        return secondsSinceEpoch(year: year, month: month, day: day, time: time)
    }

    /// The longest form is an RFC 850 date on a Wednesday, 33 bytes. One byte more is kept so that a longer
    /// text fails the end-of-input check instead of being copied whole.
    private static func bytesOfDate(_ text: some StringProtocol) -> [UInt8] {
        Array(text.utf8.prefix(34))
    }

    private static let shortDayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    fileprivate static let monthNames = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    // MARK: Calendar arithmetic

    /// The seconds since the epoch of a UTC date and time, or nil when the date does not exist or the time
    /// is out of range.
    private static func secondsSinceEpoch(year: Int64, month: Int64, day: Int64, time: DateReader.TimeOfDay)
        -> Int64?
    {
        guard day >= 1, day <= daysInMonth(month, year: year), time.hour <= 23, time.minute <= 59,
            time.second <= 60
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return days * 86_400 + time.hour * 3_600 + time.minute * 60 + time.second
    }

    /// RFC 9110 §5.6.7's reading of a two-digit year: the latest year ending in those digits that is at
    /// most 50 years after the current year (a later one "appears to be more than 50 years in the future").
    private static func yearOfTwoDigitYear(_ twoDigits: Int64, now: Int64) -> Int64 {
        let currentYear = year(containing: min(max(now, 0), lastSecondOfYear9999))
        var candidate = currentYear - currentYear % 100 + 100 + twoDigits
        while candidate - currentYear > 50 { candidate -= 100 }
        return candidate
    }

    /// 9999-12-31 23:59:59 UTC, the last second a four-digit year can name.
    package static let lastSecondOfYear9999: Int64 = 253_402_300_799

    /// The year in which a moment at or after 1970 falls. Dividing by the mean Gregorian year (146 097 days
    /// per 400 years) puts a day or so around some New Years in the wrong year (2000-01-01 comes out as
    /// 1999), so the estimate is then checked against the real first days of the years.
    private static func year(containing secondsSinceEpoch: Int64) -> Int64 {
        let days = secondsSinceEpoch / 86_400
        var year = 1970 + days * 400 / 146_097
        while daysSinceEpoch(year: year, month: 1, day: 1) > days { year -= 1 }
        while daysSinceEpoch(year: year + 1, month: 1, day: 1) <= days { year += 1 }
        return year
    }

    /// 28 to 31. Gregorian leap years: every fourth year, except centuries not divisible by 400.
    static func daysInMonth(_ month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Year, month (1–12) and day (1–31) of a day count since 1970-01-01 (not negative): the inverse of
    /// `daysSinceEpoch`, Howard Hinnant's `civil_from_days`, with the same eras and March-based years.
    private static func civilDate(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468  // days from 0000-03-01 to 1970-01-01
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar, negative before it (Howard
    /// Hinnant's `days_from_civil`). Years are counted from March, so the leap day falls at the end of a
    /// year and each month's first day follows from a linear formula; eras of 400 years repeat exactly.
    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// A cursor over the bytes of a date that reads one grammar element at a time; every read either matches
/// and moves on or fails and returns nil or false, after which the caller gives up.
private struct DateReader {
    typealias TimeOfDay = (hour: Int64, minute: Int64, second: Int64)

    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position == bytes.count }

    /// Consumes `literal` if the input continues with exactly those bytes.
    mutating func skip(_ literal: String) -> Bool {
        let end = position + literal.utf8.count
        guard end <= bytes.count, bytes[position..<end].elementsEqual(literal.utf8) else { return false }
        position = end
        return true
    }

    /// Consumes one of `names`; none of them is a prefix of another, so the first match is the only one.
    mutating func name(in names: [String]) -> Bool {
        for name in names where skip(name) { return true }
        return false
    }

    /// Consumes a month name, case-sensitive, and returns its number, 1 for `Jan`.
    mutating func month() -> Int64? {
        for (index, name) in HTTPDate.monthNames.enumerated() where skip(name) { return Int64(index + 1) }
        return nil
    }

    /// Consumes exactly `count` ASCII digits and returns their value.
    mutating func digits(_ count: Int) -> Int64? {
        guard position + count <= bytes.count else { return nil }
        var value: Int64 = 0
        for byte in bytes[position..<position + count] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        position += count
        return value
    }

    /// `time-of-day = hour ":" minute ":" second`, two digits each; ranges are checked by the caller.
    mutating func timeOfDay() -> TimeOfDay? {
        guard let hour = digits(2), skip(":"), let minute = digits(2), skip(":"), let second = digits(2) else {
            return nil
        }
        return (hour, minute, second)
    }
}
