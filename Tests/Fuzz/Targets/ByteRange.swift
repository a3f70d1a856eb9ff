// ByteRange: the libFuzzer target for the Range and Content-Range field values (RFC 9110 §14).
// Test tooling for the codec layer, built by Tests/Fuzz/fuzz.sh against HTTPWireCodec; not a SwiftPM target.
//
// An input is a `Range` value, then (after the first LF) a `Content-Range` value; a representation length
// for the server side comes from the input's hash. A resumed download appends the bytes a Content-Range
// announces to a file, and the fixture server answers Range requests, so:
// - every parsed value survives a round trip through its own `headerValue`;
// - a Content-Range's range is inside the representation: 0 <= first <= last < complete length, and the
//   unsatisfied form `*/length` always carries a length;
// - a Range resolved against a length selects bytes inside it, from the asked first position, never an
//   empty or reversed span, and the Content-Range the server would send for them is valid and parses back;
//   `bytes=N-` is satisfiable exactly when N is before the end.
//
// fuzz-module: HTTPWireCodec
// fuzz-seeds: Fixtures/fuzz/ByteRange
// fuzz-max-len: 256

import HTTPWireCodec

/// libFuzzer calls this once per generated input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzByteRange(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let (rangeText, contentRangeText) = input.halves
    // Small lengths most of the time (where off-by-ones live), any non-negative Int64 sometimes.
    let hash = input.hash
    let length = hash & 1 == 0 ? Int64(hash >> 1 & 0xFFF) : Int64(bitPattern: hash >> 1)
    if let field = try? ByteRange.parseField(rangeText) { ByteRangeFuzz.check(field, length: length, text: rangeText) }
    if let text = contentRangeText, let contentRange = try? ContentRange(parsing: text) {
        ByteRangeFuzz.check(contentRange, text: text)
    }
    return 0
}

/// The checks behind the entry point.
enum ByteRangeFuzz {
    /// A parsed Range value: its form, its round trip, and what a server would select.
    static func check(_ field: ByteRange.FieldValue, length: Int64, text: String) {
        func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
            FuzzCheck.expect(condition, "Range \(text.debugDescription) for \(length) bytes: \(message())")
        }
        switch field {
        case .otherUnit(let unit):
            expect(ByteClasses.isToken(unit) && unit.lowercased() != "bytes", "other unit \(unit.debugDescription)")
        case .multiple(let count):
            expect(count >= 2, "\(count) ranges reported as several")
        case .single(let range):
            expect((try? ByteRange.parseField(range.headerValue)) == .single(range), "\(range) does not round-trip")
            check(range.selection(forLength: length), of: range, length: length, expect: expect)
        }
    }

    /// The server's choice for one range of a `length`-byte representation.
    static func check(
        _ selection: ByteRange.Selection, of range: ByteRange, length: Int64,
        expect: (Bool, @autoclosure () -> String) -> Void
    ) {
        switch selection {
        case .bytes(let bytes):
            expect(0 <= bytes.lowerBound && bytes.upperBound < length, "selected \(bytes) outside 0..<\(length)")
            switch range.bounds {
            case .from(let first), .closed(let first, _): expect(bytes.lowerBound == first, "starts at \(bytes)")
            case .suffix(let suffixLength):
                expect(length - bytes.lowerBound == min(suffixLength, length), "suffix of \(suffixLength) is \(bytes)")
            }
            if case .closed(_, let last) = range.bounds { expect(bytes.upperBound <= last, "ends after \(last)") }
            let answer = ContentRange(range: bytes, completeLength: length)
            expect(answer != nil, "no Content-Range for \(bytes) of \(length)")
            if let answer { expect((try? ContentRange(parsing: answer.headerValue)) == answer, "\(answer) round trip") }
        case .emptyRepresentation:
            expect(length == 0, "an empty representation of \(length) bytes")
        case .unsatisfiable:
            if case .from(let first) = range.bounds { expect(first >= length, "bytes=\(first)- refused") }
        }
    }

    /// A parsed Content-Range: inside its representation, and its own round trip.
    static func check(_ contentRange: ContentRange, text: String) {
        func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
            FuzzCheck.expect(condition, "Content-Range \(text.debugDescription): \(message())")
        }
        if let range = contentRange.range {
            expect(range.lowerBound >= 0, "negative first position")
            if let complete = contentRange.completeLength {
                expect(range.upperBound < complete, "ends after \(complete)")
            }
            expect(contentRange.byteCount == range.upperBound - range.lowerBound + 1, "byte count")
        } else {
            expect(contentRange.completeLength != nil && contentRange.byteCount == 0, "unsatisfied form")
        }
        expect((try? ContentRange(parsing: contentRange.headerValue)) == contentRange, "\(contentRange) round trip")
    }
}
