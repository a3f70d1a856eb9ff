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
        append(range, seed: seed, to: &result)
        return result
    }

    /// Appends the bytes at positions `range` of the stream for `seed` to `buffer`: what ``bytes(_:seed:)``
    /// returns, without the intermediate array, for a server that frames many pieces into one buffer.
    /// Whole blocks are stored as 8-byte little-endian words (byte k of a block is bits 8k..<8k+8 of its
    /// word) straight into the array's new capacity, so a large body costs one store per 8 bytes rather
    /// than one append per byte. Plain counting loops over a raw pointer: debug builds (the tests) stay fast.
    public static func append(_ range: Range<Int64>, seed: UInt64 = 0, to buffer: inout [UInt8]) {
        let count = range.count
        guard count > 0 else { return }
        buffer.append(addingCapacity: count) { span in
            span.withUnsafeMutableBufferPointer { free, initialized in
                guard let base = free.baseAddress.map(UnsafeMutableRawPointer.init) else { return }
                var offset = 0
                var block = UInt64(range.lowerBound / 8)
                var skipped = Int(range.lowerBound % 8)  // bytes of the first block before the range
                while offset < count {
                    let word = mix(seed: seed, block: block)
                    if skipped == 0 && count - offset >= 8 {
                        base.storeBytes(of: word.littleEndian, toByteOffset: offset, as: UInt64.self)
                        offset += 8
                    } else {
                        // A partial block: the first (skipped > 0) or the last (fewer than 8 bytes left).
                        var byte = skipped
                        while byte < 8 && offset < count {
                            base.storeBytes(
                                of: UInt8(truncatingIfNeeded: word >> (8 * UInt64(byte))), toByteOffset: offset,
                                as: UInt8.self)
                            byte += 1
                            offset += 1
                        }
                        skipped = 0
                    }
                    block += 1
                }
                initialized = count
            }
        }
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
