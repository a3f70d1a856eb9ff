// GeneratedBytes: the deterministic byte stream behind `/bytes/{n}`, `/chunked` and `/truncate`
// (edge layer, fixture server).
//
// Download tests need bodies of any size whose every byte a test can predict, at any offset: a resumed
// download must append exactly bytes N..<end, and a test proves it by comparing with this function rather
// than with a stored file. Byte i of seed s is byte (i mod 8) of splitmix64(s, i / 8), so any range can be
// produced without producing what comes before it, and two seeds give unrelated streams. Pure computation:
// no I/O, no clock, no randomness source.

/// Deterministic pseudo-random bytes, addressable by position.
///
/// ```swift
/// let whole = GeneratedBytes.bytes(0..<1000, seed: 7)        // what GET /bytes/1000?seed=7 returns
/// let tail = GeneratedBytes.bytes(600..<1000, seed: 7)       // what Range: bytes=600- returns
/// assert(Array(whole[600...]) == tail)
/// ```
public enum GeneratedBytes {
    /// The bytes at positions `range` of the stream for `seed`.
    public static func bytes(_ range: Range<Int64>, seed: UInt64 = 0) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(Int(range.count))
        var position = range.lowerBound
        while position < range.upperBound {
            let word = mix(seed: seed, block: UInt64(position / 8))
            var offset = Int(position % 8)
            while offset < 8 && position < range.upperBound {
                result.append(UInt8(truncatingIfNeeded: word >> (8 * UInt64(offset))))
                offset += 1
                position += 1
            }
        }
        return result
    }

    /// The strong entity tag `/bytes/{count}?seed=` sends (RFC 9110 §8.8.3): it changes with the count and
    /// the seed, which are all the content depends on.
    public static func entityTag(count: Int64, seed: UInt64) -> String {
        "\"bytes-\(count)-\(seed)\""
    }

    /// splitmix64 (Steele, Lea, Flood 2014) of the block number, keyed by the seed: a fast, well-mixed
    /// function whose outputs for neighbouring blocks look unrelated.
    private static func mix(seed: UInt64, block: UInt64) -> UInt64 {
        var value = block &+ seed &* 0x9E37_79B9_7F4A_7C15 &+ 0x2545_F491_4F6C_DD1D
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
