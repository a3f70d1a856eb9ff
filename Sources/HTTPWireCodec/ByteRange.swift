// ByteRange and ContentRange: the two field values of HTTP range requests (RFC 9110 §14).
// Codec layer: pure values and parsers over strings; no I/O, no Foundation.
//
// A client resuming a download sends `Range: bytes=N-` and must check the `Content-Range` of the 206 it gets
// back before appending a single byte: a server that answers with a different range would otherwise splice
// the wrong bytes into the file. A server (the fixture server here) parses `Range`, decides whether it can
// satisfy it, and writes `Content-Range`. Both directions live here so the grammar is written down once.
// This file must not decide what a download does with an answer; that is `ResumePlan` in the library.

/// One byte range of a `Range` request (RFC 9110 §14.1.2): from an offset to the end, a closed span, or
/// the last N bytes.
///
/// ```swift
/// let range = ByteRange(from: 1_048_576)!
/// fields.append(name: "Range", value: range.headerValue)   // "bytes=1048576-"
/// ```
///
/// Positions are zero-based and inclusive, as on the wire: `bytes=0-499` is the first 500 bytes.
public struct ByteRange: Sendable, Hashable, CustomStringConvertible {
    /// The three shapes of a byte range spec (RFC 9110 §14.1.2).
    public enum Bounds: Sendable, Hashable {
        /// `int-range` without a last position: from `first` to the end, `bytes=500-`.
        case from(first: Int64)
        /// `int-range` with a last position: `bytes=500-999`, both ends included.
        case closed(first: Int64, last: Int64)
        /// `suffix-range`: the last `length` bytes, `bytes=-500`.
        case suffix(length: Int64)
    }

    /// Which bytes this range names.
    public let bounds: Bounds

    /// `bytes=first-`: everything from `first` on, the shape a resumed download sends. Nil when `first` is
    /// negative.
    public init?(from first: Int64) {
        guard first >= 0 else { return nil }
        bounds = .from(first: first)
    }

    /// `bytes=first-last`, both included. Nil unless `0 <= first <= last`: RFC 9110 §14.1.1 makes a range
    /// whose last position is before its first invalid.
    public init?(first: Int64, last: Int64) {
        guard first >= 0, first <= last else { return nil }
        bounds = .closed(first: first, last: last)
    }

    /// `bytes=-length`: the last `length` bytes. Nil when `length` is negative. A zero length is valid
    /// syntax but never satisfiable (RFC 9110 §14.1.3).
    public init?(suffixLength length: Int64) {
        guard length >= 0 else { return nil }
        bounds = .suffix(length: length)
    }

    /// The value of a `Range` field asking for this one range: `bytes=500-`, `bytes=0-499`, `bytes=-500`.
    public var headerValue: String {
        switch bounds {
        case .from(let first): return "bytes=\(first)-"
        case .closed(let first, let last): return "bytes=\(first)-\(last)"
        case .suffix(let length): return "bytes=-\(length)"
        }
    }

    /// The same as `headerValue`.
    public var description: String { headerValue }

    // MARK: Server side

    /// What a `Range` field asked for, as far as a server that serves single ranges cares.
    public enum FieldValue: Sendable, Hashable {
        /// Exactly one byte range: answer 206 with that range, or 416 if it is not satisfiable.
        case single(ByteRange)
        /// Several ranges (`bytes=0-9,20-29`): answering needs `multipart/byteranges`. RFC 9110 §14.2 lets
        /// a server ignore the field and send 200 with the whole representation, which is what a server
        /// without multipart support should do.
        case multiple(count: Int)
        /// A range unit other than `bytes`. RFC 9110 §14.2: a server MUST ignore a Range field with a unit
        /// it does not understand.
        case otherUnit(String)
    }

    /// Parses the value of a request's `Range` field (RFC 9110 §14.2):
    /// `Range = range-unit "=" range-set`, `range-set = 1#range-spec`.
    ///
    /// Empty list elements are skipped (RFC 9110 §5.6.1: recipients accept them). Throws
    /// `CodecError.invalidRange` for anything else that breaks the grammar, including a position too large
    /// for 63 bits; RFC 9110 §14.2 lets a server ignore such a field.
    public static func parseField(_ value: String) throws(CodecError) -> FieldValue {
        let text = RangeGrammar.trimmed(Substring(value))
        guard let equals = text.firstIndex(of: "=") else { throw invalid(value) }
        let unit = text[..<equals]
        guard ByteClasses.isToken(unit) else { throw invalid(value) }
        // RFC 9110 §14.1: range units are compared case-insensitively.
        guard unit.lowercased() == "bytes" else { return .otherUnit(String(unit)) }

        var ranges: [ByteRange] = []
        for element in text[text.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false) {
            let spec = RangeGrammar.trimmed(element)
            if spec.isEmpty { continue }
            guard let range = parseSpec(spec) else { throw invalid(value) }
            ranges.append(range)
        }
        switch ranges.count {
        case 0: throw invalid(value)  // 1#range-spec: at least one
        case 1: return .single(ranges[0])
        default: return .multiple(count: ranges.count)
        }
    }

    /// One `range-spec`: `first-`, `first-last` or `-suffix`.
    private static func parseSpec(_ spec: Substring) -> ByteRange? {
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        let left = spec[..<dash]
        let right = spec[spec.index(after: dash)...]
        if left.isEmpty {
            guard let length = RangeGrammar.digits(right) else { return nil }
            return ByteRange(suffixLength: length)
        }
        guard let first = RangeGrammar.digits(left) else { return nil }
        if right.isEmpty { return ByteRange(from: first) }
        guard let last = RangeGrammar.digits(right) else { return nil }
        return ByteRange(first: first, last: last)
    }

    private static func invalid(_ value: String) -> CodecError {
        .invalidRange(preview: ByteClasses.escapedPreview(value.utf8, limit: 64))
    }

    /// What a server should send for this range of a representation of `length` bytes.
    public enum Selection: Sendable, Hashable {
        /// Send 206 with these bytes (first and last included) and `Content-Range: bytes first-last/length`.
        case bytes(ClosedRange<Int64>)
        /// The representation is empty and the range is a non-zero suffix. RFC 9110 §14.1.2 calls that
        /// satisfiable, but no `Content-Range` can describe zero bytes: send 200 with the empty body.
        case emptyRepresentation
        /// Send 416 with `Content-Range: bytes */length` (RFC 9110 §15.5.17).
        case unsatisfiable
    }

    /// Resolves this range against a representation of `length` bytes (RFC 9110 §14.1.2): an int-range is
    /// satisfiable when its first position is before the end, and its last position is clipped to the
    /// end; a suffix range is satisfiable when its length is not zero, and covers the whole representation
    /// when it asks for more bytes than there are.
    public func selection(forLength length: Int64) -> Selection {
        switch bounds {
        case .from(let first):
            guard first < length else { return .unsatisfiable }
            return .bytes(first...(length - 1))
        case .closed(let first, let last):
            guard first < length else { return .unsatisfiable }
            return .bytes(first...min(last, length - 1))
        case .suffix(let suffixLength):
            guard suffixLength > 0 else { return .unsatisfiable }
            guard length > 0 else { return .emptyRepresentation }
            return .bytes(max(0, length - suffixLength)...(length - 1))
        }
    }
}

/// The `Content-Range` of a 206 or 416 response (RFC 9110 §14.4): which bytes the body holds, and the
/// representation's complete length when the server knows it.
///
/// ```swift
/// let contentRange = try ContentRange(parsing: "bytes 100-199/1000")
/// contentRange.range            // 100...199
/// contentRange.completeLength   // 1000
/// ```
///
/// Parsing is strict: a resumed download appends these bytes to a file, so anything doubtful is refused.
public struct ContentRange: Sendable, Hashable, CustomStringConvertible {
    /// The bytes the body holds, both ends included; nil for the unsatisfied form `bytes */1000` of a 416.
    public let range: ClosedRange<Int64>?
    /// The size of the whole representation; nil when the server sent `*` (unknown). Never nil when
    /// `range` is nil.
    public let completeLength: Int64?

    /// A satisfied range, `bytes first-last/complete` (or `/*` when `completeLength` is nil). Nil unless
    /// `first >= 0` and `last < completeLength`: RFC 9110 §14.4 makes any other combination invalid.
    /// Nil too when `last` is `Int64.max`, even with an unknown length: §14.4 makes the complete length at
    /// least `last + 1`, which no Int64 holds, and `byteCount` (or a caller's `last + 1`, as ResumePlan
    /// computes for a 206 that overruns the recorded length) would trap: a server answering a resumed
    /// download with `bytes N-9223372036854775807/*` could crash the client. Found by fuzzing.
    public init?(range: ClosedRange<Int64>, completeLength: Int64?) {
        guard range.lowerBound >= 0, range.upperBound < Int64.max else { return nil }
        if let completeLength, completeLength <= range.upperBound { return nil }
        self.range = range
        self.completeLength = completeLength
    }

    /// The unsatisfied form `bytes */completeLength` a 416 carries (RFC 9110 §15.5.17). Nil when negative.
    public init?(unsatisfiedCompleteLength completeLength: Int64) {
        guard completeLength >= 0 else { return nil }
        self.range = nil
        self.completeLength = completeLength
    }

    /// Parses a `Content-Range` field value (RFC 9110 §14.4):
    /// `range-unit SP ( incl-range "/" ( complete-length / "*" ) / "*/" complete-length )`.
    ///
    /// Throws `CodecError.invalidContentRange` when the unit is not `bytes` (HTTPWire only asks for bytes),
    /// when the syntax is off, when a number overflows 63 bits, when `last < first`, when the complete
    /// length is not greater than `last` (§14.4: such a value is invalid), or when `last` is 2^63 − 1, whose
    /// complete length could not be counted (see ``init(range:completeLength:)``).
    public init(parsing value: String) throws(CodecError) {
        let text = RangeGrammar.trimmed(Substring(value))
        let invalid = CodecError.invalidContentRange(preview: ByteClasses.escapedPreview(value.utf8, limit: 64))
        guard let space = text.firstIndex(of: " ") else { throw invalid }
        guard text[..<space].lowercased() == "bytes" else { throw invalid }
        let rest = text[text.index(after: space)...]
        guard let slash = rest.firstIndex(of: "/") else { throw invalid }
        let rangePart = rest[..<slash]
        let lengthPart = rest[rest.index(after: slash)...]

        if rangePart == "*" {
            guard let complete = RangeGrammar.digits(lengthPart),
                let parsed = ContentRange(unsatisfiedCompleteLength: complete)
            else { throw invalid }
            self = parsed
            return
        }
        guard let dash = rangePart.firstIndex(of: "-"),
            let first = RangeGrammar.digits(rangePart[..<dash]),
            let last = RangeGrammar.digits(rangePart[rangePart.index(after: dash)...]),
            first <= last
        else { throw invalid }
        var complete: Int64? = nil
        if lengthPart != "*" {
            guard let digits = RangeGrammar.digits(lengthPart) else { throw invalid }
            complete = digits
        }
        guard let parsed = ContentRange(range: first...last, completeLength: complete) else { throw invalid }
        self = parsed
    }

    /// How many body bytes this range announces; zero for the unsatisfied form.
    public var byteCount: Int64 {
        guard let range else { return 0 }
        return range.upperBound - range.lowerBound + 1
    }

    /// The field value: `bytes 100-199/1000`, `bytes 100-199/*` or `bytes */1000`.
    public var headerValue: String {
        let complete = completeLength.map(String.init) ?? "*"
        guard let range else { return "bytes */\(complete)" }
        return "bytes \(range.lowerBound)-\(range.upperBound)/\(complete)"
    }

    /// The same as `headerValue`.
    public var description: String { headerValue }
}

/// The small pieces of range grammar both field values share.
enum RangeGrammar {
    /// `1*DIGIT` as a non-negative Int64; nil when empty, when any byte is not a digit (no sign, no
    /// spaces), or when the value does not fit in 63 bits. A position past 2^63 cannot name a real byte,
    /// and refusing it keeps every later subtraction free of overflow.
    static func digits(_ text: Substring) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = shifted.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflowA, !overflowB else { return nil }
            value = sum
        }
        return value
    }

    /// Drops leading and trailing optional whitespace (SP, HTAB; RFC 9110 §5.6.3).
    static func trimmed(_ text: Substring) -> Substring {
        var start = text.startIndex
        var end = text.endIndex
        while start < end, text[start] == " " || text[start] == "\t" { start = text.index(after: start) }
        while end > start {
            let before = text.index(before: end)
            guard text[before] == " " || text[before] == "\t" else { break }
            end = before
        }
        return text[start..<end]
    }
}
