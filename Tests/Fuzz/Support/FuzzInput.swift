// FuzzInput: the bytes libFuzzer hands a target, and the few ways targets read structure out of them.
// Test tooling for Tests/Fuzz, compiled into every target by Tests/Fuzz/fuzz.sh; not a SwiftPM target.
//
// A target for a field-value parser wants text; one for a decoder wants bytes, a way to split them and a
// seed for its choices; one for a two-argument function (a base URL and a reference, a date and the clock)
// wants the input cut in two. Every choice is derived from the input itself, never from a random source,
// so a crash file replays exactly.

import Glibc

/// One fuzz input with helpers for deriving text, halves and seeds from it.
struct FuzzInput {
    /// The input, copied out of libFuzzer's buffer (which is only valid during the call).
    let bytes: [UInt8]

    /// Copies libFuzzer's buffer.
    init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    }

    /// The input read as UTF-8, invalid sequences replaced by U+FFFD (what a `String` field value holds
    /// after the decoder made one from received bytes).
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// FNV-1a 64 of the input: a seed for splits and choices that is stable for a given input.
    var hash: UInt64 { Self.fnv1a64(bytes[...]) }

    /// The input cut at its first LF (dropped): two texts for a two-argument parser. The second is nil when
    /// there is no LF.
    var halves: (first: String, second: String?) {
        guard let newline = bytes.firstIndex(of: 0x0A) else { return (text, nil) }
        return (
            String(decoding: bytes[..<newline], as: UTF8.self),
            String(decoding: bytes[(newline + 1)...], as: UTF8.self)
        )
    }

    /// True when the two byte sequences are equal; memcmp, so the comparison costs no coverage callbacks.
    static func same(_ left: ArraySlice<UInt8>, _ right: ArraySlice<UInt8>) -> Bool {
        guard left.count == right.count else { return false }
        return left.withUnsafeBytes { left in
            right.withUnsafeBytes { right in
                left.count == 0 || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
            }
        }
    }

    /// FNV-1a 64 over `bytes`.
    static func fnv1a64(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }
}
