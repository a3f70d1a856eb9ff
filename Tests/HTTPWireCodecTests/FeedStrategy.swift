// FeedStrategy: the ways a test hands a fixture's bytes to the decoder.
// Test support for the codec layer: splits byte arrays, no I/O.
//
// A socket delivers a response in whatever pieces the network chose, so the decoder must give the same events
// and the same errors for every split: the whole message at once, one byte at a time, and random cuts. A
// message is also often followed by more bytes (a pipelined or stray next response); those must stay in
// `unconsumedBytes` and never be read as part of this one.

import Testing

/// How a fixture's bytes are cut into feeds.
enum FeedStrategy: Sendable, Hashable, CustomTestStringConvertible {
    /// Everything in one feed.
    case whole
    /// One feed per byte: every state of the decoder is entered with an empty buffer at least once.
    case byteByByte
    /// Pieces of 1 to `maxPiece` bytes, lengths drawn from a generator seeded with `seed`.
    case randomSplits(seed: UInt64, maxPiece: Int)
    /// The message followed by ``extraBytes``, in seeded random pieces that may straddle the message's end.
    case extraBytesAfter(seed: UInt64)

    /// Every strategy the corpus runs.
    static let all: [FeedStrategy] = [
        .whole, .byteByByte,
        .randomSplits(seed: 1, maxPiece: 7), .randomSplits(seed: 0x5EED, maxPiece: 64),
        .randomSplits(seed: 2026, maxPiece: 1500),
        .extraBytesAfter(seed: 9), .extraBytesAfter(seed: 42),
    ]

    /// What follows the message in ``extraBytesAfter(seed:)``: a complete second response, which a decoder that
    /// over-reads would take for body bytes or for the next head.
    static let extraBytes: [UInt8] = Array("HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nsmuggled".utf8)

    /// True when ``extraBytes`` follow the message.
    var appendsExtraBytes: Bool {
        if case .extraBytesAfter = self { return true }
        return false
    }

    /// True when the decoder sees the whole input in one feed, so any preview it makes covers the input.
    var isWhole: Bool { self == .whole }

    /// The feeds for `message`, in order; their concatenation is `message` (plus ``extraBytes`` when asked).
    func pieces(of message: [UInt8]) -> [ArraySlice<UInt8>] {
        switch self {
        case .whole:
            return [message[...]]
        case .byteByByte:
            return message.indices.map { message[$0..<$0 + 1] }
        case .randomSplits(let seed, let maxPiece):
            return Self.randomPieces(of: message, seed: seed, maxPiece: maxPiece)
        case .extraBytesAfter(let seed):
            return Self.randomPieces(of: message + Self.extraBytes, seed: seed, maxPiece: 32)
        }
    }

    /// Cuts `bytes` into pieces of 1...maxPiece bytes drawn from a SplitMix64 generator.
    static func randomPieces(of bytes: [UInt8], seed: UInt64, maxPiece: Int) -> [ArraySlice<UInt8>] {
        var generator = SplitMix64(seed: seed)
        var pieces: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let length = Int.random(in: 1...maxPiece, using: &generator)
            let end = min(start + length, bytes.endIndex)
            pieces.append(bytes[start..<end])
            start = end
        }
        return pieces
    }

    var testDescription: String {
        switch self {
        case .whole: return "whole"
        case .byteByByte: return "byte by byte"
        case .randomSplits(let seed, let maxPiece): return "random splits ≤\(maxPiece) (seed \(seed))"
        case .extraBytesAfter(let seed): return "extra bytes after (seed \(seed))"
        }
    }
}
