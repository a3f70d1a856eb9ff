// CacheControl: the directives of the `Cache-Control` field (RFC 9111 §5.2), as a cache reads them in a
// request or a response. Codec layer: pure parsing, no I/O, no clock.
//
// The grammar (§5.2) is a comma-separated list of `cache-directive = token [ "=" ( token / quoted-string ) ]`.
// Names are compared case-insensitively, and a recipient accepts both argument forms for every directive,
// even where a sender must use one (`max-age="5"` is read as 5). Two rules decide what a broken value means:
// - §1.2.2: `delta-seconds` is `1*DIGIT`; a value too large to represent is 2^31, never an overflow.
// - §4.2.1: a directive given twice with different arguments, or a `max-age` that is not a number, leaves
//   the freshness unknown; the caller treats such a response as stale (the safe reading RFC 9111 asks for).
// Anything that is not a directive (junk between commas) is skipped up to the next comma, so one bad
// element does not hide the `no-store` after it. A directive whose element is malformed (`max-age=`,
// `max-age=60 s`, `no-store;`) is kept, with an empty argument when it had one: a cache that read it as
// absent would store what it must not, or call fresh what it cannot know is.

/// The `Cache-Control` directives of one message (every `Cache-Control` line, in order).
///
/// ```swift
/// let directives = CacheControl(parsing: #"max-age=60, no-cache="Set-Cookie", private"#)
/// directives.contains("no-cache")      // true
/// directives.seconds("max-age")        // .value(60)
/// directives.seconds("s-maxage")       // nil: not present
/// ```
package struct CacheControl: Sendable, Hashable {
    /// One directive: its name lowercased, and its argument unquoted (nil when it has none).
    package struct Directive: Sendable, Hashable {
        package var name: String
        package var argument: String?

        /// A directive `name` (lowercase), with `argument` unquoted.
        package init(name: String, argument: String?) {
            self.name = name
            self.argument = argument
        }
    }

    /// What a `delta-seconds` directive says (RFC 9111 §1.2.2).
    package enum Seconds: Sendable, Hashable {
        /// A count of seconds, capped at 2^31.
        case value(Int64)
        /// Present but not a number, or given twice with different numbers: freshness is unknown.
        case invalid
    }

    /// The largest `delta-seconds` a cache keeps: RFC 9111 §1.2.2 says 2^31 for anything larger.
    package static let maximumSeconds: Int64 = 2_147_483_648

    /// The directives in the order they were sent.
    package var directives: [Directive] = []

    /// The directives of every `Cache-Control` field in `fields` (RFC 9110 §5.3: several lines of a list
    /// field are one list, in order).
    package init(_ fields: HTTPFields) {
        for value in fields.values(for: "Cache-Control") { directives += Self.parse(value) }
    }

    /// The directives in one field value.
    package init(parsing value: String) {
        directives = Self.parse(value)
    }

    /// Whether a directive called `name` (lowercase) is present, with or without an argument.
    package func contains(_ name: String) -> Bool {
        directives.contains { $0.name == name }
    }

    /// The `delta-seconds` argument of `name` (lowercase): nil when the directive is absent, `.invalid`
    /// when it is not a number or appears twice with different arguments.
    package func seconds(_ name: String) -> Seconds? {
        var found: Seconds?
        for directive in directives where directive.name == name {
            let parsed = directive.argument.flatMap(Self.deltaSeconds).map(Seconds.value) ?? .invalid
            if let earlier = found, earlier != parsed { return .invalid }
            found = parsed
        }
        return found
    }

    /// `1*DIGIT` as seconds, capped at 2^31 (§1.2.2); nil for anything else (a sign, a fraction, nothing).
    package static func deltaSeconds(_ text: String) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = min(value * 10 + Int64(byte - UInt8(ascii: "0")), maximumSeconds)
        }
        return value
    }

    /// The list elements of one value; elements without a name are skipped to the next comma.
    private static func parse(_ value: String) -> [Directive] {
        var result: [Directive] = []
        var scanner = FieldValueScanner(value)
        while true {
            scanner.skipWhitespace()
            let name = scanner.token()
            if !name.isEmpty {
                scanner.skipWhitespace()
                var argument: String?
                if scanner.consume("=") {
                    scanner.skipWhitespace()
                    if scanner.peek == "\"" {
                        argument = scanner.quotedString()
                    } else {
                        let token = scanner.token()
                        argument = token.isEmpty ? nil : token
                    }
                    // `max-age=` with nothing (or nothing readable) after it: the directive is there, its
                    // argument is not — an empty one, which no `delta-seconds` reading accepts.
                    argument = argument ?? ""
                    scanner.skipWhitespace()
                }
                // A directive followed by junk (`no-store;`, `max-age=60 s`) still counts, so that a cache
                // errs towards not storing and towards stale; an argument it was given is no longer trusted.
                let isClean = scanner.isAtEnd || scanner.peek == ","
                let trusted = isClean ? argument : (argument == nil ? nil : "")
                result.append(Directive(name: name.lowercasedASCII(), argument: trusted))
            }
            // Junk (or the rest of a malformed element) up to the next comma.
            _ = scanner.rawValue(upTo: ",")
            guard scanner.consume(",") else { return result }
        }
    }
}
