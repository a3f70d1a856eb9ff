// ByteSearch: finding a line end (or a forbidden byte) eight bytes at a time.
// Codec layer: pure arithmetic over a buffer; no I/O, no allocation, standard library only.
//
// Every head is read line by line (RFC 9112 §2.1: lines end in CRLF, or a bare LF a recipient may accept),
// and within a line CR and NUL must not appear (§2.2, RFC 9110 §5.5). Comparing one byte at a time costs
// five or six instructions a byte; a small response head is ~250 bytes, read twice (once to find its end,
// once to split its lines). "SIMD within a register" (SWAR) tests eight bytes with a handful of 64-bit
// operations: XOR the word with the target byte repeated, so that a matching byte becomes zero, then
//
//     (x - 0x0101…01) & ~x & 0x8080…80
//
// sets the high bit of the lowest zero byte (and possibly of bytes above it, through the borrow, which is
// why only the lowest set bit is read). On a little-endian load the lowest set bit is the first byte in
// memory, so `trailingZeroBitCount / 8` is its offset. (Hacker's Delight §6-1; Mycroft's 1987 strlen.)

/// Searches a byte buffer for one, two or three byte values, a word at a time.
enum ByteSearch {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// The index of the first byte in `bytes[start..<end]` equal to `target`, or `end` when there is none.
    @inline(__always)
    static func firstIndex(of target: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int)
        -> Int
    {
        firstIndex(in: bytes, from: start, to: end) { word in
            zeroByteMask(word ^ (ones &* UInt64(target)))
        } byte: {
            $0 == target
        }
    }

    /// The index of the first byte in `bytes[start..<end]` equal to `first` or `second`, or `end`.
    @inline(__always)
    static func firstIndex(
        of first: UInt8, or second: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int
    ) -> Int {
        firstIndex(in: bytes, from: start, to: end) { word in
            zeroByteMask(word ^ (ones &* UInt64(first))) | zeroByteMask(word ^ (ones &* UInt64(second)))
        } byte: {
            $0 == first || $0 == second
        }
    }

    /// The high bit of the lowest zero byte of `word` is set (and perhaps bits above it); zero when no byte
    /// is zero.
    @inline(__always)
    private static func zeroByteMask(_ word: UInt64) -> UInt64 {
        (word &- ones) & ~word & highBits
    }

    /// Whole words while eight bytes remain, then byte by byte. `mask` gives a word's match mask (only its
    /// lowest set bit is trusted), `byte` whether one byte matches.
    @inline(__always)
    private static func firstIndex(
        in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, mask: (UInt64) -> UInt64,
        byte matches: (UInt8) -> Bool
    ) -> Int {
        precondition(start >= 0 && start <= end && end <= bytes.count, "range \(start)..<\(end) of \(bytes.count)")
        var index = start
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while end - index >= 8 {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let found = mask(word)
                if found != 0 { return index + found.trailingZeroBitCount / 8 }
                index += 8
            }
        }
        while index < end {
            if matches(bytes[index]) { return index }
            index += 1
        }
        return end
    }
}
