// HTTPDate: seconds since the Unix epoch written as an IMF-fixdate, the form of Last-Modified and
// If-Range dates (edge layer, fixture server).
//
// RFC 9110 §5.6.7: `Sun, 06 Nov 1994 08:49:37 GMT`, always GMT, fixed width, English names. Writing it by
// hand keeps the fixture server off the full Foundation (whose date formatting pulls in ICU) and makes the
// output exact: the server compares an If-Range date with its own Last-Modified text byte for byte.
// Formatting only; the server never needs to parse the two obsolete date forms.

#if canImport(Glibc)
    import Glibc
#endif

/// IMF-fixdate formatting.
///
/// ```swift
/// HTTPDate.format(secondsSinceEpoch: 784_111_777)   // "Sun, 06 Nov 1994 08:49:37 GMT"
/// ```
enum HTTPDate {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The IMF-fixdate of `secondsSinceEpoch` (not before 1970).
    static func format(secondsSinceEpoch: Int64) -> String {
        let seconds = max(0, secondsSinceEpoch)
        let days = seconds / 86_400
        let timeOfDay = seconds % 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let weekday = weekdays[Int(days % 7)]
        let time = "\(twoDigits(timeOfDay / 3600)):\(twoDigits(timeOfDay / 60 % 60)):\(twoDigits(timeOfDay % 60))"
        return "\(weekday), \(twoDigits(day)) \(months[Int(month) - 1]) \(year) \(time) GMT"
    }

    /// The current time as an IMF-fixdate (the wall clock, as a server's Last-Modified is).
    static func now() -> String {
        format(secondsSinceEpoch: Int64(time(nil)))
    }

    /// Year, month (1–12) and day (1–31) of a day count since 1970-01-01, in the proleptic Gregorian
    /// calendar (H. Hinnant's `civil_from_days`: eras of 400 years, years starting in March so that the
    /// leap day comes last).
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

    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
