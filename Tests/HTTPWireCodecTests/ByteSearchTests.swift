// ByteSearchTests: the word-at-a-time search finds exactly what a byte-by-byte loop finds.
// Codec tests: pure functions, no I/O.
//
// The SWAR trick can set bits above a true match (the subtraction borrows into the next byte), and bytes of
// 0x80 and above, or 0x01 right after a match, are where that shows; so the buffers are random over all 256
// values, the targets are planted at random places, and each search starts and ends at random offsets
// (unaligned loads, tails shorter than a word).

import Testing

@testable import HTTPWireCodec

@Suite struct ByteSearchTests {
    /// The byte-by-byte answer.
    private static func naive(_ bytes: [UInt8], _ start: Int, _ end: Int, _ matches: (UInt8) -> Bool) -> Int {
        var index = start
        while index < end, !matches(bytes[index]) { index += 1 }
        return index
    }

    @Test("one and two targets: the same index as a byte-by-byte scan, over 20,000 random buffers and ranges")
    func agreesWithByteByByte() {
        var generator = SplitMix64(seed: 0xB17E_5EA2C)
        let targets: [UInt8] = [0x0A, 0x0D, 0x00, 0x80, 0xFF, 0x01]
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...80, using: &generator)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let first = targets.randomElement(using: &generator)!
            let second = targets.randomElement(using: &generator)!
            // Plant zero to three targets, and their neighbours that trip the borrow (0x01 above a zero).
            for _ in 0..<Int.random(in: 0...3, using: &generator) where count > 0 {
                let at = Int.random(in: 0..<count, using: &generator)
                bytes[at] = Bool.random(using: &generator) ? first : second
                if at + 1 < count, Bool.random(using: &generator) { bytes[at + 1] = bytes[at] &+ 1 }
            }
            let start = Int.random(in: 0...count, using: &generator)
            let end = Int.random(in: start...count, using: &generator)
            bytes.withUnsafeBufferPointer { buffer in
                #expect(
                    ByteSearch.firstIndex(of: first, in: buffer, from: start, to: end)
                        == Self.naive(bytes, start, end) { $0 == first },
                    "\(bytes) \(start)..<\(end) for \(first)")
                #expect(
                    ByteSearch.firstIndex(of: first, or: second, in: buffer, from: start, to: end)
                        == Self.naive(bytes, start, end) { $0 == first || $0 == second },
                    "\(bytes) \(start)..<\(end) for \(first) or \(second)")
            }
        }
    }

    @Test("a match in every position of a word, and none at all")
    func everyPosition() {
        for length in 0...24 {
            for position in 0..<max(length, 1) {
                var bytes = [UInt8](repeating: 0x41, count: length)
                if position < length { bytes[position] = 0x0A }
                let expected = position < length ? position : length
                bytes.withUnsafeBufferPointer { buffer in
                    #expect(ByteSearch.firstIndex(of: 0x0A, in: buffer, from: 0, to: length) == expected)
                    #expect(ByteSearch.firstIndex(of: 0x0D, or: 0x0A, in: buffer, from: 0, to: length) == expected)
                }
            }
        }
    }
}
