// RetryAfterValue: the `Retry-After` field value read as a delay (RFC 9110 §10.2.3), and the strict
// IMF-fixdate parse beside it (client layer).
//
// A server's Retry-After is untrusted input: seconds or one of three HTTP-date forms, or anything else. This
// file turns it into a Duration or nil and does nothing more — RetryPolicy decides what the delay means
// (cap, give up), and the reactor waits. Kept apart from RetryPolicy so the parser stands alone on the codec
// (its libFuzzer target, Tests/Fuzz/Targets/RetryAfter.swift, builds just this file).

import HTTPWireCodec

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads `Retry-After` values; ``RetryPolicy`` asks it for the delay a 503 or 429 names.
enum RetryAfterValue {
    /// The delay a `Retry-After` value asks for (RFC 9110 §10.2.3): `delay-seconds` (`120`) or an
    /// HTTP-date, which counts from `now`; a date in the past means zero. All three HTTP-date formats of
    /// RFC 9110 §5.6.7 are read, as a recipient MUST: IMF-fixdate (`Fri, 31 Dec 1999 23:59:59 GMT`), the
    /// obsolete RFC 850 form (`Friday, 31-Dec-99 23:59:59 GMT`, its two-digit year placed relative to
    /// `now`) and asctime (`Fri Dec 31 23:59:59 1999`). Nil when the value is none of these.
    static func delay(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingWhitespace()
        if let first = text.utf8.first, first >= 0x30, first <= 0x39 {
            guard text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            // Absurdly long numbers saturate; they end up above `maxRetryAfter` anyway.
            return .seconds(Int64(text) ?? Int64.max)
        }
        let nowSeconds = now.timeIntervalSince1970
        // The codec wants whole seconds; the clamp keeps a nonsense `Date` from trapping the conversion.
        let wholeNowSeconds = nowSeconds.isNaN ? 0 : Int64(min(max(nowSeconds, -1e15), 1e15).rounded(.down))
        guard let dateSeconds = HTTPDate.secondsSinceEpoch(parsing: text, now: wholeNowSeconds) else { return nil }
        let seconds = Double(dateSeconds) - nowSeconds
        guard seconds > 0 else { return .zero }
        return .seconds(min(seconds, 1e9).rounded(.up))
    }

    /// Parses an IMF-fixdate (RFC 9110 §5.6.7): `day-name "," SP 2DIGIT SP month SP 4DIGIT SP
    /// 2DIGIT ":" 2DIGIT ":" 2DIGIT SP "GMT"`, exactly 29 characters, always in GMT. Only that preferred
    /// form, as the name says: the two obsolete forms give nil here (the RFC 850 one cannot be placed
    /// without the current time); `delay(_:now:)` and `HTTPDate.secondsSinceEpoch(parsing:now:)`
    /// read all three. Checks that the date and time exist; the day name is required but not checked
    /// against the date.
    static func parseIMFFixdate(_ text: String) -> Date? {
        HTTPDate.secondsSinceEpoch(parsingIMFFixdate: text).map { Date(timeIntervalSince1970: Double($0)) }
    }
}
